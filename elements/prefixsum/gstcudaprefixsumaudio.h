/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum on audio: the level statistics of each buffer, posted as
 * the level element's messages. The element owns a GstCudaPrefixSumAudio
 * and calls these, giving the settings each buffer is measured with; the
 * module knows the element only as a GstCudaFilterBase. The statistics
 * themselves are gstcudalevel.h's.
 */
#ifndef __GST_CUDA_PREFIX_SUM_AUDIO_H__
#define __GST_CUDA_PREFIX_SUM_AUDIO_H__

#include <gst/audio/audio.h>

#include "gstcudafilterbase.h"
#include "gstcudalevel.h"

G_BEGIN_DECLS

/* Audio on the GPU: buffers whose level sums
 * may be in flight at once, and blocks (messages ending inside) a buffer
 * may have to be measured there. */
#define GST_CUDA_LEVEL_QUEUE 16
#define GST_CUDA_LEVEL_MAX_GPU_BLOCKS 16


/* What a buffer is measured with, read under the element's object lock. */
typedef struct
{
  gboolean post;                /* post-messages */
  GstClockTime interval, peak_ttl;
  gdouble peak_falloff;
  gboolean loudness;            /* the loudness meter too */
} GstCudaPrefixSumAudioSettings;

typedef struct
{
  GstCudaFilterBase *owner;     /* posts the messages, owns the streams */
  gboolean configured;
  /* the GPU reduces the buffers, queued (else the CPU, at once): chosen
   * when a stream is configured */
  gboolean on_gpu;
  cf_reduce_type type;
  GstCudaLevel level;
  GstClockTime interval;        /* the interval `level` was last given */
  guint *blocks;                /* a buffer's blocks, `room` of them */
  cf_stats *stats;              /* their sums, room x channels */
  guint room;
  /* GPU: buffers whose sums are on their way back, waited for when an
   * interval ends: their samples staged in page-locked slots, their
   * blocks' sums written to page-locked memory */
  guint8 *staging;              /* GST_CUDA_LEVEL_QUEUE slots */
  gsize slot_bytes;
  cf_stats *queued_stats;       /* block k of the queue at k x channels */
  cf_stats *queued_dev;         /* the same, as the GPU addresses it */
  guint queued_frames[GST_CUDA_LEVEL_QUEUE];
  guint queued_blocks[GST_CUDA_LEVEL_QUEUE * GST_CUDA_LEVEL_MAX_GPU_BLOCKS];
  guint queued_n[GST_CUDA_LEVEL_QUEUE];         /* blocks of each buffer */
  guint n_queued, n_blocks;
  guint64 queued_total;         /* frames of all queued buffers */
  GstCudaDeviceBuffer d_in, d_work;
  /* the last buffer measured ended an interval: the queue is waited for
   * at gst_cuda_prefix_sum_audio_settle, posting with take_post */
  gboolean take_due, take_post;
  /* the last buffer's samples as copied to d_in (NULL: not copied) */
  gconstpointer on_device;
} GstCudaPrefixSumAudio;

/* A new stream of `info` (the messages the old one's queued buffers end
 * are posted first). FALSE for a format the reductions do not take. */
gboolean gst_cuda_prefix_sum_audio_configure (GstCudaPrefixSumAudio * a,
    GstCudaFilterBase * owner, const GstAudioInfo * info,
    const GstCudaPrefixSumAudioSettings * set);
/* Measures one audio buffer, posting the level messages it completes. */
GstFlowReturn gst_cuda_prefix_sum_audio_measure (GstCudaPrefixSumAudio * a,
    GstBuffer * buf, const GstCudaPrefixSumAudioSettings * set);
/* The level messages the last measured buffer ended, posted once its
 * queued work is waited for: called after each measure, when what else
 * reads the buffer on the GPU is queued, so that one wait covers both. */
GstFlowReturn gst_cuda_prefix_sum_audio_settle (GstCudaPrefixSumAudio * a);
/* The last measured buffer's raw samples on the device, for work queued
 * on the element's compute stream before the next measure; NULL where
 * that buffer was not copied there (the CPU, a GAP buffer). */
gconstpointer gst_cuda_prefix_sum_audio_on_device (GstCudaPrefixSumAudio *
    a);
/* At EOS: posts what is left of the last interval. */
void gst_cuda_prefix_sum_audio_finish (GstCudaPrefixSumAudio * a,
    gboolean post);
/* At a flush: forgets the interval being gathered. */
void gst_cuda_prefix_sum_audio_flush (GstCudaPrefixSumAudio * a);
/* Frees the level state and its memory (stop), after the GPU is done
 * with it. */
void gst_cuda_prefix_sum_audio_free (GstCudaPrefixSumAudio * a);

G_END_DECLS

#endif
