/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's backends: see gstcudaconv1dbackend.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudaconv1dbackend.h"
#include "gstcudapinnedallocator.h"

/* ---- the CPU: host memory, work done when the call returns ------------- */

static gboolean
host_alloc (GstCudaFilterBase * owner G_GNUC_UNUSED,
    GstCudaDeviceBuffer * dev G_GNUC_UNUSED, gsize size, void **ptr,
    cf_stream stream G_GNUC_UNUSED)
{
  *ptr = g_malloc0 (size);
  return TRUE;
}

static void
host_release (GstCudaDeviceBuffer * dev G_GNUC_UNUSED, void **ptr)
{
  g_clear_pointer (ptr, g_free);
}

static int
host_clear (void *dst, gsize size, cf_stream stream G_GNUC_UNUSED)
{
  memset (dst, 0, size);
  return CF_OK;
}

static int
host_copy (void *dst, const void *src, gsize size,
    cf_stream stream G_GNUC_UNUSED)
{
  memcpy (dst, src, size);
  return CF_OK;
}

static int
host_to_planar (const cf_audio_layout * layout, const void *src, int frames,
    void *dst, size_t dst_pitch, int f64, cf_stream stream G_GNUC_UNUSED)
{
  return cf_audio_to_planar_cpu (layout, src, frames, dst, dst_pitch, f64);
}

static int
host_from_planar (const cf_audio_layout * layout, const void *src,
    size_t src_pitch, int frames, void *dst, int f64,
    cf_stream stream G_GNUC_UNUSED)
{
  return cf_audio_from_planar_cpu (layout, src, src_pitch, frames, dst, f64);
}

static int
host_to_planes_routed (const cf_audio_layout * layout, const void *src,
    int frames, const cf_audio_plane_sums * sums, void *dst,
    size_t dst_pitch, int f64, cf_stream stream G_GNUC_UNUSED)
{
  return cf_audio_to_planes_routed_cpu (layout, src, frames, sums, dst,
      dst_pitch, f64);
}

static int
host_from_planes_routed (const cf_audio_layout * layout, const void *src,
    size_t src_pitch, int frames, const cf_audio_plane_sums * sums,
    void *dst, int f64, cf_stream stream G_GNUC_UNUSED)
{
  return cf_audio_from_planes_routed_cpu (layout, src, src_pitch, frames,
      sums, dst, f64);
}

static int
host_crossfade (int channels, int frames, const void *a, size_t a_pitch,
    const void *b, size_t b_pitch, void *out, size_t out_pitch,
    long long start, long long length, int f64,
    cf_stream stream G_GNUC_UNUSED)
{
  return cf_audio_crossfade_cpu (channels, frames, a, a_pitch, b, b_pitch,
      out, out_pitch, start, length, f64);
}

static int
host_sum_planes (const cf_audio_plane_sums * sums, const void *src,
    size_t src_pitch, int frames, void *dst, size_t dst_pitch, int f64,
    cf_stream stream G_GNUC_UNUSED)
{
  return cf_audio_sum_planes_cpu (sums, src, src_pitch, frames, dst,
      dst_pitch, f64);
}

static int
host_mix (int channels, int frames, const void *dry, size_t dry_pitch,
    const void *wet, size_t wet_pitch, void *out, size_t out_pitch,
    double a0, double a1, double b0, double b1, int f64,
    cf_stream stream G_GNUC_UNUSED)
{
  return cf_audio_mix_cpu (channels, frames, dry, dry_pitch, wet, wet_pitch,
      out, out_pitch, a0, a1, b0, b1, f64);
}

static int
host_shift_rows (void *base, size_t pitch, size_t by, size_t row, int rows,
    void *scratch G_GNUC_UNUSED, size_t scratch_pitch G_GNUC_UNUSED,
    cf_stream stream G_GNUC_UNUSED)
{
  for (int r = 0; r < rows; r++) {
    guint8 *at = (guint8 *) base + r * pitch;
    memmove (at, at + by, row);
  }
  return CF_OK;
}

static int
host_wait (cf_stream stream G_GNUC_UNUSED)
{
  return CF_OK;
}

/* The direct head of B taps costs B multiply-adds a frame and the later
 * partitions about 4 x taps / B flops: their sum is least near
 * B = 2 sqrt(taps), within the buffer size. */
static int
host_pick_block (const cf_conv1d_mask * mask, int frames)
{
  int best = cf_fir_pick_block (mask, frames), b = 64;

  while (b * b < 4 * mask->taps && b < best)
    b *= 2;
  return b;
}

static GstAllocator *
host_output_allocator (void)
{
  return NULL;
}

/* ---- the GPU: device memory, work queued on the stream ------------------ */

static gboolean
device_alloc (GstCudaFilterBase * owner, GstCudaDeviceBuffer * dev,
    gsize size, void **ptr, cf_stream stream)
{
  /* made and freed while other responses play: in stream order */
  if (!gst_cuda_filter_base_ensure_device_ordered (owner, dev, size, stream))
    return FALSE;
  *ptr = dev->ptr;
  return GST_CUDA_FILTER_CHECK (owner, cf_gpu_memset (dev->ptr, 0, size,
          stream), "clearing a working buffer");
}

static void
device_release (GstCudaDeviceBuffer * dev, void **ptr)
{
  gst_cuda_filter_base_free_device (dev);
  *ptr = NULL;
}

static int
device_clear (void *dst, gsize size, cf_stream stream)
{
  return cf_gpu_memset (dst, 0, size, stream);
}

static int
device_upload (void *dst, const void *src, gsize size, cf_stream stream)
{
  return cf_gpu_copy_2d (dst, size, src, size, size, 1,
      CF_COPY_HOST_TO_DEVICE, stream);
}

static int
device_download (void *dst, const void *src, gsize size, cf_stream stream)
{
  return cf_gpu_copy_2d (dst, size, src, size, size, 1,
      CF_COPY_DEVICE_TO_HOST, stream);
}

/* through the scratch rows: a 2D copy's regions must not overlap */
static int
device_shift_rows (void *base, size_t pitch, size_t by, size_t row, int rows,
    void *scratch, size_t scratch_pitch, cf_stream stream)
{
  int st = cf_gpu_copy_2d (scratch, scratch_pitch, (guint8 *) base + by,
      pitch, row, rows, CF_COPY_DEVICE_TO_DEVICE, stream);

  if (st == CF_OK)
    st = cf_gpu_copy_2d (base, pitch, scratch, scratch_pitch, row, rows,
        CF_COPY_DEVICE_TO_DEVICE, stream);
  return st;
}

/* the buffer size: fewest launches (the direct head costs little there) */
static int
device_pick_block (const cf_conv1d_mask * mask, int frames)
{
  return cf_fir_pick_block (mask, frames);
}

static const GstCudaConv1dBackend cpu_backend = {
  .where = "on the CPU",
  .cuda = FALSE,
  .direct_max_taps = 64,
  .alloc = host_alloc,
  .release = host_release,
  .clear = host_clear,
  .upload = host_copy,
  .download = host_copy,
  .to_planar = host_to_planar,
  .from_planar = host_from_planar,
  .to_planes_routed = host_to_planes_routed,
  .from_planes_routed = host_from_planes_routed,
  .mix = host_mix,
  .sum_planes = host_sum_planes,
  .crossfade = host_crossfade,
  .shift_rows = host_shift_rows,
  .wait = host_wait,
  .pick_block = host_pick_block,
  .output_allocator = host_output_allocator,
};

static const GstCudaConv1dBackend gpu_backend = {
  .where = "on the GPU",
  .cuda = TRUE,
  .direct_max_taps = 1024,
  .alloc = device_alloc,
  .release = device_release,
  .clear = device_clear,
  .upload = device_upload,
  .download = device_download,
  .to_planar = cf_audio_to_planar_cuda,
  .from_planar = cf_audio_from_planar_cuda,
  .to_planes_routed = cf_audio_to_planes_routed_cuda,
  .from_planes_routed = cf_audio_from_planes_routed_cuda,
  .mix = cf_audio_mix_cuda,
  .sum_planes = cf_audio_sum_planes_cuda,
  .crossfade = cf_audio_crossfade_cuda,
  .shift_rows = device_shift_rows,
  .wait = cf_gpu_stream_sync,
  .pick_block = device_pick_block,
  .output_allocator = gst_cuda_pinned_allocator_get,
};

const GstCudaConv1dBackend *
gst_cuda_conv1d_backend_get (gboolean cuda)
{
  return cuda ? &gpu_backend : &cpu_backend;
}
