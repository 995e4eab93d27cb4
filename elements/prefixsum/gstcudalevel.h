/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Audio level statistics in the message format of GStreamer's `level`
 * element, kept per stream: the cutting of the stream into blocks of
 * `interval`, the running RMS and peak of each block, the decaying peak,
 * and the "level" message.
 *
 * The element measures each block (sum of squares and peak of each
 * channel, on the GPU or the CPU) and hands the sums here; this file holds
 * the time keeping and the dB arithmetic only, so that both backends share
 * it. It follows `level` step by step so that an application reading
 * `level` messages reads these unchanged:
 *
 *   - a block ends every `interval` worth of frames, or at a buffer's end;
 *     a message is due once a whole interval is in
 *   - integer samples are scaled by 2^(bits - 1) (full scale is the most
 *     negative value), float samples taken as they are
 *   - rms = 20 log10 (sqrt (sum of squares / frames)), peak and decay =
 *     10 log10 (largest square), each plus 1e-35 before the logarithm
 *   - the decaying peak holds for `peak-ttl`, then falls by `peak-falloff`
 *     dB per second from where it was, and a block peak at or above it
 *     restarts it; its age grows, as level's does, by the frames of the
 *     buffer still unread when each block starts
 *   - a GAP buffer counts its frames with no energy and no peak
 *
 * Where level keeps the sums of before a DISCONT in the next message, this
 * starts the message afresh.
 */
#ifndef __GST_CUDA_LEVEL_H__
#define __GST_CUDA_LEVEL_H__

#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "reduce.h"

G_BEGIN_DECLS

typedef struct
{
  GstAudioInfo info;
  guint interval_frames;        /* frames of one message, >= 1 */
  gdouble scale;                /* multiplies squares to full scale 1 */
  GstClockTime peak_ttl;        /* set by the element before each buffer */
  gdouble peak_falloff;         /* dB per second */

  /* the message being gathered */
  GstClockTime message_ts;
  guint frames;                 /* frames in it so far */
  gdouble *squares;             /* per channel: sum of scaled squares */
  gdouble *peak;                /* per channel: largest scaled square */

  /* the decaying peak, per channel */
  gdouble *decay, *decay_base;
  GstClockTime *decay_age;
} GstCudaLevel;

/* The reduction type of the negotiated format, or FALSE when the format is
 * not one the level statistics read. */
gboolean gst_cuda_level_reduce_type (const GstAudioInfo * info,
    cf_reduce_type * type);

/* (Re)starts the statistics for a stream of `info`. */
void gst_cuda_level_init (GstCudaLevel * level, const GstAudioInfo * info,
    GstClockTime interval);
void gst_cuda_level_clear (GstCudaLevel * level);

/* A new interval while running: the message being gathered ends at the new
 * length (or at once, if it is already longer). */
void gst_cuda_level_set_interval (GstCudaLevel * level, GstClockTime interval);

/* Forgets the message being gathered (flush, DISCONT); the next buffer
 * starts one at its timestamp. */
void gst_cuda_level_restart (GstCudaLevel * level);

/* At the start of a buffer of `frames` frames with timestamp `pts`, after
 * `queued` frames not yet added: the sizes of its blocks are written to
 * `blocks` (room for gst_cuda_level_max_blocks) and their number returned.
 * Where the interval shrank below what the message already holds, the
 * whole buffer joins it before it is posted, as level does; where it
 * shrank to exactly that, the first block has no frames, and the message
 * goes before the buffer's frames, again as level does. */
guint gst_cuda_level_max_blocks (const GstCudaLevel * level, guint frames);
guint gst_cuda_level_plan (GstCudaLevel * level, GstClockTime pts,
    guint frames, guint queued, guint * blocks);

/* Adds one block: `stats` per channel (NULL for a GAP), `unread` the frames
 * of the buffer from the block's start to the buffer's end. Returns TRUE
 * when a message is due. */
gboolean gst_cuda_level_add_block (GstCudaLevel * level, guint frames,
    guint unread, const cf_stats * stats);

/* The due message (or, at EOS, the rest: NULL when there is none), timed
 * on `segment`; the next message starts where it ends. */
GstStructure *gst_cuda_level_take_message (GstCudaLevel * level,
    const GstSegment * segment);

G_END_DECLS

#endif
