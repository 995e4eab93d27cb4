/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum's loudness meter on audio (`loudness=true`): ITU-R
 * BS.1770-4 / EBU R128 (kernels/loudness/loudness.h), posted every
 * `interval` as `ebur128-level` element messages with the fields and units
 * of GStreamer's ebur128level, so that applications written for it work
 * unchanged. Channels are weighted by their positions: LFE not counted,
 * the surround and rear pairs and the sides +1.5 dB (1.41), a mono
 * channel twice (as ebur128level counts it: dual mono), any other 1.
 * On the GPU backend the per-sample work runs on the GPU; the steps,
 * gates and range are counted on the host. Buffers are queued there
 * without waiting: only the buffer that ends an interval waits, for all
 * that was queued, before its message.
 */
#ifndef __GST_CUDA_PREFIX_SUM_LOUDNESS_H__
#define __GST_CUDA_PREFIX_SUM_LOUDNESS_H__

#include <gst/audio/audio.h>

#include "gstcudafilterbase.h"
#include "loudness.h"

G_BEGIN_DECLS

typedef struct
{
  GstCudaFilterBase *owner;     /* posts the messages */
  GstAudioInfo info;
  cf_loudness *meter;           /* NULL: not configured */
  GstClockTime interval;        /* the interval the count was made for */
  guint64 interval_frames, until_post;
  GstClockTime position;        /* the end of the last frame measured */
  /* timestamps: frames counted from the first buffer's time, so that
   * messages fall on the interval exactly; a jump starts a new count */
  GstClockTime origin;
  guint64 frames;
  gdouble *planar;              /* a buffer's samples, planar doubles */
  gsize room;                   /* doubles in `planar` */
  /* the GPU (backend=cuda): the meter's CUDA twin, on the raw samples
   * copied there; chosen when configured */
  gboolean on_gpu;
  GstCudaDeviceBuffer d_raw;
  /* page-locked slots the queued buffers' samples wait in for their copy
   * to the GPU: GST_CUDA_LOUDNESS_QUEUE of slot_bytes, `staged` in use */
  guint8 *slots;
  gsize slot_bytes;
  guint staged;
} GstCudaPrefixSumLoudness;

/* Buffers queued on the GPU at most before one waits for them all */
#define GST_CUDA_LOUDNESS_QUEUE 16

/* A new stream of `info`: the meter starts from nothing. FALSE (and a
 * warning posted) for a stream it cannot measure. */
gboolean gst_cuda_prefix_sum_loudness_configure (GstCudaPrefixSumLoudness *
    l, GstCudaFilterBase * owner, const GstAudioInfo * info);
/* Forgets what was measured (a flush, or loudness turned on). */
void gst_cuda_prefix_sum_loudness_reset (GstCudaPrefixSumLoudness * l);
/* Measures a buffer, posting a message at each end of `interval` inside
 * it when `post`. `on_device`, when not NULL, is a copy of its samples on
 * the device, valid for work queued now on the element's compute stream
 * (the buffer's own samples are not read then). */
GstFlowReturn gst_cuda_prefix_sum_loudness_measure (GstCudaPrefixSumLoudness *
    l, GstBuffer * buf, gconstpointer on_device, GstClockTime interval,
    gboolean post);
/* At EOS: a message for the interval begun, if any. */
void gst_cuda_prefix_sum_loudness_finish (GstCudaPrefixSumLoudness * l,
    gboolean post);
void gst_cuda_prefix_sum_loudness_free (GstCudaPrefixSumLoudness * l);

G_END_DECLS

#endif
