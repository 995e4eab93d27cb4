/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Audio level statistics in the `level` message format: see
 * gstcudalevel.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "gstcudalevel.h"

/* Added before taking logarithms, as level does, so silence is finite
 * (-350 dB for power, -700 dB for amplitude). */
#define LEVEL_EPSILON 1e-35

gboolean
gst_cuda_level_reduce_type (const GstAudioInfo * info, cf_reduce_type * type)
{
  switch (GST_AUDIO_INFO_FORMAT (info)) {
    case GST_AUDIO_FORMAT_S16LE:
      *type = CF_REDUCE_S16;
      return TRUE;
    case GST_AUDIO_FORMAT_S32LE:
      *type = CF_REDUCE_S32;
      return TRUE;
    case GST_AUDIO_FORMAT_F32LE:
      *type = CF_REDUCE_F32;
      return TRUE;
    case GST_AUDIO_FORMAT_F64LE:
      *type = CF_REDUCE_F64;
      return TRUE;
    default:
      return FALSE;
  }
}

void
gst_cuda_level_set_interval (GstCudaLevel * level, GstClockTime interval)
{
  guint64 frames = GST_CLOCK_TIME_TO_FRAMES (interval,
      GST_AUDIO_INFO_RATE (&level->info));

  /* below one frame: a message per frame, as level does */
  level->interval_frames = (guint) CLAMP (frames, 1, G_MAXINT);
}

void
gst_cuda_level_init (GstCudaLevel * level, const GstAudioInfo * info,
    GstClockTime interval)
{
  guint channels = GST_AUDIO_INFO_CHANNELS (info);
  gint bits = GST_AUDIO_INFO_WIDTH (info);

  gst_cuda_level_clear (level);
  level->info = *info;
  /* integers: full scale is 2^(bits - 1), so squares scale by 2^-2(bits-1) */
  level->scale = GST_AUDIO_INFO_IS_INTEGER (info)
      ? ldexp (1.0, -2 * (bits - 1)) : 1.0;
  level->squares = g_new0 (gdouble, channels);
  level->peak = g_new0 (gdouble, channels);
  level->decay = g_new0 (gdouble, channels);
  level->decay_base = g_new0 (gdouble, channels);
  level->decay_age = g_new0 (GstClockTime, channels);
  gst_cuda_level_set_interval (level, interval);
  gst_cuda_level_restart (level);
}

void
gst_cuda_level_clear (GstCudaLevel * level)
{
  g_clear_pointer (&level->squares, g_free);
  g_clear_pointer (&level->peak, g_free);
  g_clear_pointer (&level->decay, g_free);
  g_clear_pointer (&level->decay_base, g_free);
  g_clear_pointer (&level->decay_age, g_free);
}

void
gst_cuda_level_restart (GstCudaLevel * level)
{
  guint channels = GST_AUDIO_INFO_CHANNELS (&level->info);

  level->message_ts = GST_CLOCK_TIME_NONE;
  level->frames = 0;
  for (guint c = 0; c < channels && level->squares; c++)
    level->squares[c] = level->peak[c] = 0.0;
}

guint
gst_cuda_level_max_blocks (const GstCudaLevel * level, guint frames)
{
  return frames / level->interval_frames + 2;
}

guint
gst_cuda_level_plan (GstCudaLevel * level, GstClockTime pts, guint frames,
    guint queued, guint * blocks)
{
  guint n = 0, pending = level->frames + queued;

  if (!GST_CLOCK_TIME_IS_VALID (level->message_ts))
    level->message_ts = pts;
  while (frames > 0) {
    /* level's block is the interval less what is counted, unsigned: the
     * whole buffer when that wraps, none when it is 0 */
    guint room = level->interval_frames > pending
        ? level->interval_frames - pending
        : level->interval_frames == pending ? 0 : frames;
    guint size = MIN (room, frames);
    blocks[n++] = size;
    frames -= size;
    pending = pending + size >= level->interval_frames ? 0 : pending + size;
  }
  return n;
}

gboolean
gst_cuda_level_add_block (GstCudaLevel * level, guint frames, guint unread,
    const cf_stats * stats)
{
  guint channels = GST_AUDIO_INFO_CHANNELS (&level->info);
  GstClockTime aged = GST_FRAMES_TO_CLOCK_TIME (unread,
      GST_AUDIO_INFO_RATE (&level->info));

  for (guint c = 0; c < channels; c++) {
    gdouble peak = 0.0;
    GstClockTimeDiff over;

    if (stats) {
      gdouble big = MAX (fabs (stats[c].min), fabs (stats[c].max));
      peak = big * big * level->scale;
      level->squares[c] += stats[c].sum_squares * level->scale;
    }
    if (peak > level->peak[c])
      level->peak[c] = peak;
    level->decay_age[c] += aged;
    over = GST_CLOCK_DIFF (level->peak_ttl, level->decay_age[c]);
    if (over > 0) {
      gdouble fall_db = level->peak_falloff * over / (gdouble) GST_SECOND;
      level->decay[c] = level->decay_base[c] * pow (10.0, fall_db / -20.0);
    }
    if (peak >= level->decay[c]) {
      level->decay[c] = level->decay_base[c] = peak;
      level->decay_age[c] = 0;
    }
  }
  level->frames += frames;
  return level->frames >= level->interval_frames;
}

static void
append (GstStructure * s, const gchar * field, gdouble v)
{
  GValue value = G_VALUE_INIT;

  g_value_init (&value, G_TYPE_DOUBLE);
  g_value_set_double (&value, v);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  g_value_array_append (g_value_get_boxed (gst_structure_get_value (s,
              field)), &value);
  G_GNUC_END_IGNORE_DEPRECATIONS;
}

GstStructure *
gst_cuda_level_take_message (GstCudaLevel * level, const GstSegment * segment)
{
  guint channels = GST_AUDIO_INFO_CHANNELS (&level->info);
  GstClockTime ts = level->message_ts, duration, stream_time;
  GstStructure *s;

  if (level->frames == 0)
    return NULL;
  duration = GST_FRAMES_TO_CLOCK_TIME (level->frames,
      GST_AUDIO_INFO_RATE (&level->info));
  stream_time = gst_segment_to_stream_time (segment, GST_FORMAT_TIME, ts);
  s = gst_structure_new ("level",
      "endtime", GST_TYPE_CLOCK_TIME, stream_time + duration,
      "timestamp", G_TYPE_UINT64, ts,
      "stream-time", G_TYPE_UINT64, stream_time,
      "running-time", G_TYPE_UINT64, gst_segment_to_running_time (segment,
          GST_FORMAT_TIME, ts),
      "duration", G_TYPE_UINT64, duration, NULL);
  for (guint f = 0; f < 3; f++) {
    static const gchar *const fields[] = { "rms", "peak", "decay" };
    GValue v = G_VALUE_INIT;
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
    g_value_init (&v, g_value_array_get_type ());
    g_value_take_boxed (&v, g_value_array_new (channels));
    G_GNUC_END_IGNORE_DEPRECATIONS;
    gst_structure_take_value (s, fields[f], &v);
  }
  for (guint c = 0; c < channels; c++) {
    gdouble rms = sqrt (level->squares[c] / level->frames);
    append (s, "rms", 20.0 * log10 (rms + LEVEL_EPSILON));
    append (s, "peak", 10.0 * log10 (level->peak[c] + LEVEL_EPSILON));
    append (s, "decay", 10.0 * log10 (level->decay[c] + LEVEL_EPSILON));
    /* the decaying peak never shows below a later block's peak */
    if (level->decay[c] < level->peak[c])
      level->decay[c] = level->peak[c];
    level->squares[c] = level->peak[c] = 0.0;
  }
  level->frames = 0;
  if (GST_CLOCK_TIME_IS_VALID (ts))
    level->message_ts = ts + duration;
  return s;
}
