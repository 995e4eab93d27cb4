/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum's loudness meter: see gstcudaprefixsumloudness.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "audio_convert.h"
#include "gstcudaprefixsumloudness.h"

/* the element's category: the module logs as the element */
GST_DEBUG_CATEGORY_EXTERN (gst_cuda_prefix_sum_debug);
#define GST_CAT_DEFAULT gst_cuda_prefix_sum_debug

static gdouble
channel_weight (GstAudioChannelPosition position)
{
  switch (position) {
    case GST_AUDIO_CHANNEL_POSITION_LFE1:
    case GST_AUDIO_CHANNEL_POSITION_LFE2:
      return 0.0;
    case GST_AUDIO_CHANNEL_POSITION_MONO:
      return 2.0;
    case GST_AUDIO_CHANNEL_POSITION_REAR_LEFT:
    case GST_AUDIO_CHANNEL_POSITION_REAR_RIGHT:
    case GST_AUDIO_CHANNEL_POSITION_SIDE_LEFT:
    case GST_AUDIO_CHANNEL_POSITION_SIDE_RIGHT:
    case GST_AUDIO_CHANNEL_POSITION_SURROUND_LEFT:
    case GST_AUDIO_CHANNEL_POSITION_SURROUND_RIGHT:
      return 1.41;
    default:
      return 1.0;
  }
}

static gboolean
sample_format (GstAudioFormat format, cf_audio_format * out)
{
  switch (format) {
    case GST_AUDIO_FORMAT_F32LE:
      *out = CF_AUDIO_F32;
      return TRUE;
    case GST_AUDIO_FORMAT_F64LE:
      *out = CF_AUDIO_F64;
      return TRUE;
    case GST_AUDIO_FORMAT_S16LE:
      *out = CF_AUDIO_S16;
      return TRUE;
    case GST_AUDIO_FORMAT_S32LE:
      *out = CF_AUDIO_S32;
      return TRUE;
    default:
      return FALSE;
  }
}

gboolean
gst_cuda_prefix_sum_loudness_configure (GstCudaPrefixSumLoudness * l,
    GstCudaFilterBase * owner, const GstAudioInfo * info)
{
  gint channels = GST_AUDIO_INFO_CHANNELS (info);
  gdouble weights[CF_LOUDNESS_MAX_CHANNELS];
  cf_loudness_config cfg;
  cf_audio_format format;

  gst_cuda_prefix_sum_loudness_free (l);
  l->owner = owner;
  if (channels > CF_LOUDNESS_MAX_CHANNELS
      || !sample_format (GST_AUDIO_INFO_FORMAT (info), &format)
      || GST_AUDIO_INFO_RATE (info) < 8000
      || GST_AUDIO_INFO_RATE (info) > 384000) {
    GST_ELEMENT_WARNING (owner, STREAM, FORMAT, ("loudness=true cannot "
            "measure %d channels at %d Hz: BS.1770 meters take 1 to %d "
            "channels at 8 to 384 kHz. The level messages go on.", channels,
            GST_AUDIO_INFO_RATE (info), CF_LOUDNESS_MAX_CHANNELS), (NULL));
    return FALSE;
  }
  for (gint c = 0; c < channels; c++)
    weights[c] = channel_weight (info->position[c]);
  cfg.rate = GST_AUDIO_INFO_RATE (info);
  cfg.channels = channels;
  cfg.weights = weights;
  if (cf_loudness_new (&l->meter, &cfg) != CF_OK)
    return FALSE;
  l->info = *info;
  l->on_gpu = gst_cuda_filter_base_uses_cuda (owner);
  l->interval_frames = 0;
  l->position = GST_CLOCK_TIME_NONE;
  l->origin = GST_CLOCK_TIME_NONE;
  return TRUE;
}

void
gst_cuda_prefix_sum_loudness_reset (GstCudaPrefixSumLoudness * l)
{
  if (!l->meter)
    return;
  /* (the meter's device memory goes: queued work is waited for) */
  cf_loudness_reset (l->meter);
  l->staged = 0;
  l->until_post = l->interval_frames;
  l->position = GST_CLOCK_TIME_NONE;
  l->origin = GST_CLOCK_TIME_NONE;
}

static GValue *
peaks_value (GstCudaPrefixSumLoudness * l, gboolean true_peak, GValue * v)
{
  g_value_init (v, GST_TYPE_ARRAY);
  for (gint c = 0; c < GST_AUDIO_INFO_CHANNELS (&l->info); c++) {
    GValue peak = G_VALUE_INIT;
    g_value_init (&peak, G_TYPE_DOUBLE);
    g_value_set_double (&peak, true_peak ? cf_loudness_true_peak (l->meter,
            c) : cf_loudness_sample_peak (l->meter, c));
    gst_value_array_append_and_take_value (v, &peak);
  }
  return v;
}

/* The ebur128-level message of the frames measured up to `ts`. */
static void
post (GstCudaPrefixSumLoudness * l, GstClockTime ts)
{
  GstSegment *segment = &GST_BASE_TRANSFORM (l->owner)->segment;
  cf_loudness_values values;
  GValue sample = G_VALUE_INIT, truth = G_VALUE_INIT;
  GstStructure *s;

  cf_loudness_get (l->meter, &values);
  s = gst_structure_new ("ebur128-level",
      "timestamp", G_TYPE_UINT64, ts,
      "running-time", G_TYPE_UINT64, gst_segment_to_running_time (segment,
          GST_FORMAT_TIME, ts),
      "stream-time", G_TYPE_UINT64, gst_segment_to_stream_time (segment,
          GST_FORMAT_TIME, ts),
      "momentary-loudness", G_TYPE_DOUBLE, values.momentary,
      "shortterm-loudness", G_TYPE_DOUBLE, values.shortterm,
      "global-loudness", G_TYPE_DOUBLE, values.global,
      "relative-threshold", G_TYPE_DOUBLE, values.relative_threshold,
      "loudness-range", G_TYPE_DOUBLE, values.range, NULL);
  gst_structure_take_value (s, "sample-peak", peaks_value (l, FALSE,
          &sample));
  gst_structure_take_value (s, "true-peak", peaks_value (l, TRUE, &truth));
  gst_element_post_message (GST_ELEMENT (l->owner),
      gst_message_new_element (GST_OBJECT (l->owner), s));
}

static cf_audio_layout
interleaved_layout (GstCudaPrefixSumLoudness * l)
{
  cf_audio_layout layout = { 0 };

  sample_format (GST_AUDIO_INFO_FORMAT (&l->info), &layout.format);
  layout.channels = GST_AUDIO_INFO_CHANNELS (&l->info);
  layout.interleaved = 1;
  return layout;
}

/* The buffer's samples as planar doubles, `frames` apart. */
static gboolean
to_planar (GstCudaPrefixSumLoudness * l, const guint8 * data, guint frames)
{
  cf_audio_layout layout = interleaved_layout (l);
  gsize need = (gsize) layout.channels * MAX (frames, 1);

  if (need > l->room) {
    l->planar = g_renew (gdouble, l->planar, need);
    l->room = need;
  }
  return cf_audio_to_planar_cpu (&layout, data, (int) frames, l->planar,
      frames, 1) == CF_OK;
}

/* Waits for the queued buffers and accounts them (the GPU). */
static int
collect (GstCudaPrefixSumLoudness * l)
{
  l->staged = 0;
  return cf_loudness_collect_cuda (l->meter);
}

/* A free page-locked slot of `bytes` for the next buffer (the queue
 * waited for first when full, or when the slots must grow). */
static int
free_slot (GstCudaPrefixSumLoudness * l, gsize bytes, guint8 ** slot)
{
  int st = CF_OK;
  void *mem = NULL;

  if (l->staged == GST_CUDA_LOUDNESS_QUEUE || (bytes > l->slot_bytes
          && l->staged > 0))
    st = collect (l);
  if (st == CF_OK && bytes > l->slot_bytes) {
    g_clear_pointer (&l->slots, cf_gpu_host_free);
    l->slot_bytes = 0;
    st = cf_gpu_host_alloc (&mem, bytes * GST_CUDA_LOUDNESS_QUEUE);
    l->slots = mem;
    if (st == CF_OK)
      l->slot_bytes = bytes;
  }
  if (st != CF_OK)
    return st;
  *slot = l->slots + l->staged * l->slot_bytes;
  l->staged++;
  return CF_OK;
}

/* The GPU: the buffer's raw samples (or silence, for a GAP buffer) copied
 * to the device, where the meter reads them. The buffer may go on as soon
 * as this returns: its samples are copied into a page-locked slot, which
 * the queued copy reads. */
static int
stage_on_gpu (GstCudaPrefixSumLoudness * l, const guint8 * data,
    guint frames, gboolean gap)
{
  cf_stream stream = gst_cuda_filter_base_streams (l->owner)->compute;
  gsize raw = MAX ((gsize) frames * GST_AUDIO_INFO_BPF (&l->info), 1);
  guint8 *slot;
  int st;

  /* (growing it waits for the queued work that reads it) */
  if (raw > l->d_raw.size && (st = collect (l)) != CF_OK)
    return st;
  if (!gst_cuda_filter_base_ensure_device (l->owner, &l->d_raw, raw))
    return CF_ERR_NO_MEMORY;
  if (gap)
    return cf_gpu_memset (l->d_raw.ptr, 0, raw, stream);
  if ((st = free_slot (l, raw, &slot)) != CF_OK)
    return st;
  memcpy (slot, data, (gsize) frames * GST_AUDIO_INFO_BPF (&l->info));
  return cf_gpu_copy_2d (l->d_raw.ptr, raw, slot, raw, raw, 1,
      CF_COPY_HOST_TO_DEVICE, stream);
}

/* The time of the buffer's first frame: counted on from the first
 * buffer's, unless the buffer says otherwise (a DISCONT, or a time more
 * than a millisecond away). */
static void
follow_time (GstCudaPrefixSumLoudness * l, GstBuffer * buf)
{
  GstClockTime pts = GST_BUFFER_PTS (buf), expected;

  if (!GST_CLOCK_TIME_IS_VALID (pts)) {
    l->origin = GST_CLOCK_TIME_NONE;
    return;
  }
  expected = GST_CLOCK_TIME_IS_VALID (l->origin) ? l->origin
      + gst_util_uint64_scale_int_round (l->frames, GST_SECOND,
      GST_AUDIO_INFO_RATE (&l->info)) : GST_CLOCK_TIME_NONE;
  if (!GST_CLOCK_TIME_IS_VALID (expected)
      || GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT)
      || pts > expected + GST_MSECOND || pts + GST_MSECOND < expected) {
    l->origin = pts;
    l->frames = 0;
  }
}

GstFlowReturn
gst_cuda_prefix_sum_loudness_measure (GstCudaPrefixSumLoudness * l,
    GstBuffer * buf, gconstpointer on_device, GstClockTime interval,
    gboolean post_messages)
{
  gint rate = GST_AUDIO_INFO_RATE (&l->info);
  gsize bpf = GST_AUDIO_INFO_BPF (&l->info);
  gboolean gap = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP);
  cf_audio_layout layout = interleaved_layout (l);
  GstMapInfo map;
  guint frames, done = 0;
  const guint8 *src;
  int st = CF_OK;

  if (!l->meter)
    return GST_FLOW_OK;
  /* interval_frames 0: not yet worked out (the largest interval is
   * GST_CLOCK_TIME_NONE's value, so that cannot mark it) */
  if (l->interval_frames == 0 || interval != l->interval) {
    l->interval = interval;
    l->interval_frames = MAX (1, gst_util_uint64_scale (interval, rate,
            GST_SECOND));
    l->until_post = l->interval_frames;
  }
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (l->owner, STREAM, FAILED,
        ("Cannot map an audio buffer."), (NULL));
    return GST_FLOW_ERROR;
  }
  frames = (guint) (map.size / bpf);
  /* a GAP buffer is silence, whatever its bytes (and never on the device:
   * the level statistics do not copy it) */
  src = on_device;
  if (l->on_gpu && (!on_device || gap)) {
    st = stage_on_gpu (l, map.data, frames, gap);
    src = l->d_raw.ptr;
  } else if (!l->on_gpu && !to_planar (l, map.data, frames))
    st = CF_ERR_INVALID;
  else if (gap)
    memset (l->planar, 0, sizeof (gdouble) * GST_AUDIO_INFO_CHANNELS
        (&l->info) * frames);
  gst_buffer_unmap (buf, &map);
  if (!GST_CUDA_FILTER_CHECK (l->owner, st, "measuring loudness"))
    return GST_FLOW_ERROR;
  follow_time (l, buf);
  while (done < frames) {
    guint n = (guint) MIN ((guint64) (frames - done), l->until_post);
    st = l->on_gpu ? cf_loudness_queue_cuda (l->meter, &layout,
        src + done * bpf, (int) n,
        gst_cuda_filter_base_streams (l->owner)->compute)
        : cf_loudness_add_cpu (l->meter, l->planar + done, frames, (int) n, 1);
    /* a message is due: what the GPU has queued is read first */
    if (st == CF_OK && l->on_gpu && n == l->until_post)
      st = collect (l);
    if (!GST_CUDA_FILTER_CHECK (l->owner, st, "measuring loudness"))
      return GST_FLOW_ERROR;
    done += n;
    l->until_post -= n;
    l->position = GST_CLOCK_TIME_IS_VALID (l->origin) ? l->origin
        + gst_util_uint64_scale_int_round (l->frames + done, GST_SECOND,
        rate) : GST_CLOCK_TIME_NONE;
    if (l->until_post == 0) {
      if (post_messages)
        post (l, l->position);
      l->until_post = l->interval_frames;
    }
  }
  l->frames += frames;
  return GST_FLOW_OK;
}

void
gst_cuda_prefix_sum_loudness_finish (GstCudaPrefixSumLoudness * l,
    gboolean post_messages)
{
  if (l->meter && l->on_gpu && !GST_CUDA_FILTER_CHECK (l->owner,
          collect (l), "measuring loudness"))
    post_messages = FALSE;
  if (l->meter && post_messages && l->until_post != l->interval_frames
      && l->interval_frames > 0)
    post (l, l->position);
  l->until_post = l->interval_frames;
}

void
gst_cuda_prefix_sum_loudness_free (GstCudaPrefixSumLoudness * l)
{
  /* the meter's device memory goes in the context it came from (pushed
   * by the base around stop and caps) */
  g_clear_pointer (&l->meter, cf_loudness_free);
  g_clear_pointer (&l->slots, cf_gpu_host_free);
  l->slot_bytes = 0;
  l->staged = 0;
  g_clear_pointer (&l->planar, g_free);
  l->room = 0;
  gst_cuda_filter_base_free_device (&l->d_raw);
}
