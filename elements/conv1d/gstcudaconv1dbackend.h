/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's two backends as tables of operations: where the working
 * buffers live, how samples move in and out of them, the conversions and
 * the mix, and the waits. The filter picks one table when a stream is
 * configured (as GStreamer's audio FIR base picks its process function)
 * and calls through it, instead of asking at every step which backend
 * runs. Every operation returns a cf status (CF_OK on success); the CPU's
 * never fail, the GPU's are queued on `stream`.
 */
#ifndef __GST_CUDA_CONV1D_BACKEND_H__
#define __GST_CUDA_CONV1D_BACKEND_H__

#include <gst/gst.h>

#include "audio_convert.h"
#include "audio_route.h"
#include "fir.h"
#include "gstcudafilterbase.h"

G_BEGIN_DECLS

typedef struct
{
  const gchar *where;           /* for the log: "on the GPU" */
  gboolean cuda;                /* buffers and work on the device */
  /* `auto` runs masks up to this many taps direct (measured crossover,
   * docs/cudaconv1d.md), longer ones through the FFT */
  gint direct_max_taps;

  /* A zeroed working buffer of `size` bytes at *ptr (`dev` keeps the
   * device allocation); FALSE after posting an error on `owner`. */
  gboolean (*alloc) (GstCudaFilterBase * owner, GstCudaDeviceBuffer * dev,
      gsize size, void **ptr, cf_stream stream);
  void (*release) (GstCudaDeviceBuffer * dev, void **ptr);
  int (*clear) (void *dst, gsize size, cf_stream stream);
  /* raw samples between the buffer's memory and a working buffer */
  int (*upload) (void *dst, const void *src, gsize size, cf_stream stream);
  int (*download) (void *dst, const void *src, gsize size,
      cf_stream stream);
  int (*to_planar) (const cf_audio_layout * layout, const void *src,
      int frames, void *dst, size_t dst_pitch, int f64, cf_stream stream);
  int (*from_planar) (const cf_audio_layout * layout, const void *src,
      size_t src_pitch, int frames, void *dst, int f64, cf_stream stream);
  /* the same through a routing table (audio_route.h): raw samples into
   * the routes' planes, the routes' planes summed into raw samples */
  int (*to_planes_routed) (const cf_audio_layout * layout, const void *src,
      int frames, const cf_audio_plane_sums * sums, void *dst,
      size_t dst_pitch, int f64, cf_stream stream);
  int (*from_planes_routed) (const cf_audio_layout * layout,
      const void *src, size_t src_pitch, int frames,
      const cf_audio_plane_sums * sums, void *dst, int f64,
      cf_stream stream);
  int (*mix) (int channels, int frames, const void *dry, size_t dry_pitch,
      const void *wet, size_t wet_pitch, void *out, size_t out_pitch,
      double a0, double a1, double b0, double b1, int f64, cf_stream stream);
  /* raised-cosine crossfade from a to b (cf_audio_crossfade_cpu) */
  int (*crossfade) (int channels, int frames, const void *a, size_t a_pitch,
      const void *b, size_t b_pitch, void *out, size_t out_pitch,
      long long start, long long length, int f64, cf_stream stream);
  /* sums of planes (gathering routes' inputs, summing their outputs) */
  int (*sum_planes) (const cf_audio_plane_sums * sums, const void *src,
      size_t src_pitch, int frames, void *dst, size_t dst_pitch, int f64,
      cf_stream stream);
  /* `rows` rows of `row` bytes, `pitch` apart, move `by` bytes to the
   * front of each; `scratch` (rows `scratch_pitch` apart) may be used on
   * the way, since source and destination overlap */
  int (*shift_rows) (void *base, size_t pitch, size_t by, size_t row,
      int rows, void *scratch, size_t scratch_pitch, cf_stream stream);
  /* waits for the work queued (the GPU's) */
  int (*wait) (cf_stream stream);
  /* the FFT partition for `mask` and buffers of `frames` frames */
  int (*pick_block) (const cf_conv1d_mask * mask, int frames);
  /* the allocator of output buffers (NULL: the default, system memory) */
  GstAllocator *(*output_allocator) (void);
} GstCudaConv1dBackend;

const GstCudaConv1dBackend *gst_cuda_conv1d_backend_get (gboolean cuda);

G_END_DECLS

#endif
