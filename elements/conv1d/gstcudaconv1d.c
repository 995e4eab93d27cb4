/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GStreamer CUDA filters: FIR convolution of audio
 */

/**
 * SECTION:element-cudaconv1d
 * @title: cudaconv1d
 *
 * Convolves every channel of an audio stream with a mask on the GPU: a
 * filter preset, taps given inline, or an impulse response read from a sound
 * file (convolution reverb, speaker or cabinet simulation, room
 * correction). The output is the causal FIR
 *
 *   y[n] = sum over k of h[k] * x[n - k]
 *
 * as audiofirfilter computes it. Short masks run direct; long ones (impulse
 * responses of seconds) through a partitioned FFT convolution whose
 * partition follows the buffer size, so the output never waits for more
 * input than a buffer however long the response.
 *
 * `latency` shifts the output earlier by that many frames (for centred
 * masks, half their length) and is reported in the latency query; the first
 * `latency` frames are dropped. At EOS the remaining taps - 1 frames of the
 * convolution are pushed before the EOS, so a file in gives the whole
 * convolution out. A DISCONT (or a timestamp gap of more than 5 ms) pushes
 * them too and starts afresh; a flush starts afresh without them.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=dry.wav ! wavparse ! audioconvert ! cudaconv1d location=hall.wav mix=0.4 ! audioconvert ! autoaudiosink
 * ]| Convolution reverb with a room's impulse response, 40% wet.
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! cudaconv1d preset=low-pass cutoff=2000 taps=255 latency=127 ! autoaudiosink
 * ]| A windowed-sinc low-pass, its delay compensated.
 * |[
 * gst-launch-1.0 audiotestsrc ! cudaconv1d kernel="0.25 0.5 0.25" ! autoaudiosink
 * ]| Three taps inline.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "audio_convert.h"
#include "gstcudaconv1d.h"
#include "gstcudamaskparse.h"
#include "gstcudapin.h"
#include "gstcudapinnedallocator.h"

GST_DEBUG_CATEGORY (gst_cuda_conv1d_debug);
#define GST_CAT_DEFAULT gst_cuda_conv1d_debug

#define CONV1D_CAPS "audio/x-raw, format = (string) { F32LE, F64LE, S16LE, " \
    "S32LE }, rate = (int) [ 1, MAX ], channels = (int) [ 1, MAX ], " \
    "layout = (string) { interleaved, non-interleaved }"

/* A timestamp this far from the expected one is a discontinuity, as in
 * audiofirfilter. */
#define RESYNC_THRESHOLD (5 * GST_MSECOND)

#define gst_cuda_conv1d_parent_class parent_class
G_DEFINE_TYPE (GstCudaConv1d, gst_cuda_conv1d, GST_TYPE_CUDA_FILTER_BASE);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudaconv1d, "cudaconv1d",
    GST_RANK_NONE, GST_TYPE_CUDA_CONV1D,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_conv1d_debug, "cudaconv1d", 0,
        "CUDA FIR convolution of audio"));

static void gst_cuda_conv1d_finalize (GObject * object);
static void gst_cuda_conv1d_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_conv1d_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_cuda_conv1d_start (GstCudaFilterBase * base);
static void gst_cuda_conv1d_stop (GstCudaFilterBase * base);
static gboolean gst_cuda_conv1d_set_info (GstCudaFilterBase * base,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_cuda_conv1d_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_cuda_conv1d_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static GstFlowReturn gst_cuda_conv1d_prepare_output_buffer (GstBaseTransform
    * trans, GstBuffer * inbuf, GstBuffer ** outbuf);
static GstFlowReturn gst_cuda_conv1d_generate_output (GstBaseTransform *
    trans, GstBuffer ** outbuf);
static GstFlowReturn gst_cuda_conv1d_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf);
static GstCaps *gst_cuda_conv1d_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);

static void
gst_cuda_conv1d_class_init (GstCudaConv1dClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaFilterBaseClass *base_class = GST_CUDA_FILTER_BASE_CLASS (klass);

  gobject_class->finalize = gst_cuda_conv1d_finalize;
  gobject_class->set_property = gst_cuda_conv1d_set_property;
  gobject_class->get_property = gst_cuda_conv1d_get_property;

  gst_cuda_conv1d_props_install (gobject_class);

  gst_cuda_filter_base_class_add_templates (element_class,
      gst_caps_from_string (CONV1D_CAPS));
  gst_element_class_set_static_metadata (element_class,
      "CUDA FIR convolution", "Filter/Effect/Audio",
      "Convolves audio with a mask on the GPU: FIR filters, impulse response "
      "reverb, room correction", "gst-cuda-filters");

  base_class->start = GST_DEBUG_FUNCPTR (gst_cuda_conv1d_start);
  base_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_conv1d_stop);
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_conv1d_set_info);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_conv1d_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_conv1d_query);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_conv1d_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_conv1d_transform);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_conv1d_transform_caps);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_cuda_conv1d_generate_output);

}

static gboolean build_in_background (gpointer element,
    GstCudaConv1dTaps * taps, GstCudaConv1dAlgorithm * algorithm,
    gchar ** error);

/* Chains the stream is done with are freed by the preparer's thread. */
static gboolean
retire_chain (gpointer preparer, GstCudaConv1dChain * chain)
{
  return gst_cuda_conv1d_preparer_retire (preparer, chain);
}

static void
gst_cuda_conv1d_init (GstCudaConv1d * self)
{
  gst_cuda_conv1d_props_init (&self->props);
  gst_cuda_conv1d_outputs_init (&self->outputs, GST_CUDA_FILTER_BASE (self));
  gst_cuda_conv1d_filter_init (&self->filter, GST_CUDA_FILTER_BASE (self));
  gst_cuda_conv1d_preparer_init (&self->preparer, build_in_background,
      self);
  self->filter.retire = retire_chain;
  self->filter.retire_data = &self->preparer;
  self->filter.start_ts = GST_CLOCK_TIME_NONE;
}

static void
gst_cuda_conv1d_finalize (GObject * object)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (object);

  gst_cuda_conv1d_props_clear (&self->props);
  gst_cuda_conv1d_preparer_finalize (&self->preparer);
  gst_cuda_conv1d_filter_finalize (&self->filter);
  gst_cuda_conv1d_outputs_finalize (&self->outputs);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ---- properties ---------------------------------------------------------- */

static void
gst_cuda_conv1d_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (object);
  GstCudaImpulse loaded = { 0 };
  gchar *error = NULL, *refused = NULL;

  /* reading a file is done before taking the lock */
  if (prop_id == GST_CUDA_CONV1D_PROP_LOCATION && g_value_get_string (value)
      && !gst_cuda_impulse_load (g_value_get_string (value), &loaded,
          &error)) {
    GST_OBJECT_LOCK (self);
    refused = gst_cuda_conv1d_props_keep_unreadable_location (&self->props,
        value, error);
    GST_OBJECT_UNLOCK (self);
    goto done;
  }

  GST_OBJECT_LOCK (self);
  if ((prop_id == GST_CUDA_CONV1D_PROP_LATENCY
          || prop_id == GST_CUDA_CONV1D_PROP_OVERLAP
          || prop_id == GST_CUDA_CONV1D_PROP_OUT_CHANNELS)
      && gst_cuda_filter_base_is_running (GST_CUDA_FILTER_BASE (self))) {
    /* the reported latency, the history kept, the frames dropped, the
     * way outputs leave and the caps are fixed for a run: the streaming
     * thread reads them from the copy start took */
    refused = g_strdup ("it can change only in the NULL or READY state");
    GST_OBJECT_UNLOCK (self);
    goto done;
  }
  refused = gst_cuda_conv1d_props_set (&self->props, object, prop_id, value,
      &loaded, self->have_info ? &self->info : NULL, pspec);
  GST_OBJECT_UNLOCK (self);
  gst_cuda_impulse_clear (&loaded);
  /* a new response while a stream plays: prepared off the streaming
   * thread (before the first buffer, that thread builds it itself) */
  if (!refused && gst_cuda_conv1d_props_is_mask (prop_id))
    gst_cuda_conv1d_preparer_request (&self->preparer);

done:
  /* one full stop: the reason may bring its own */
  if (refused && g_str_has_suffix (refused, "."))
    refused[strlen (refused) - 1] = '\0';
  if (refused && prop_id == GST_CUDA_CONV1D_PROP_LOCATION) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("Refused location \"%s\": %s. The current mask stays.",
            g_value_get_string (value), refused), (NULL));
  } else if (refused) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("Refused %s: %s. The current mask stays.", pspec->name, refused),
        (NULL));
  }
  g_free (refused);
}

static void
gst_cuda_conv1d_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (object);

  if (prop_id == GST_CUDA_CONV1D_PROP_PREPARING) {
    g_value_set_boolean (value,
        gst_cuda_conv1d_preparer_busy (&self->preparer));
    return;
  }
  GST_OBJECT_LOCK (self);
  gst_cuda_conv1d_props_get (&self->props, object, prop_id, value, pspec);
  GST_OBJECT_UNLOCK (self);
}

/* ---- the mask ------------------------------------------------------------ */

/* Where the masks come from, for the take-over message. Called with the
 * object lock. */
static gchar *
source_name (GstCudaConv1d * self)
{
  GstCudaConv1dSettings *s = &self->props.settings;
  GEnumValue *preset;

  if (gst_cuda_mask_text_is_set (s->kernel))
    return g_strdup ("kernel");
  if (s->impulse.frames > 0 && self->props.location)
    return g_strdup (self->props.location);
  preset = g_enum_get_value (g_type_class_peek
      (GST_TYPE_CUDA_CONV1D_PRESET), s->preset);
  return g_strdup (preset ? preset->value_nick : "none");
}

/* The taps the properties describe, read under the lock and built outside
 * it, and the algorithm asked for. FALSE with *error set. */
static gboolean
build_taps (GstCudaConv1d * self, GstCudaConv1dTaps * taps,
    GstCudaConv1dAlgorithm * algorithm, gchar ** error)
{
  GstCudaConv1dSettings s;
  gchar *note = NULL, *name;
  gboolean ok;
  gint in, out, rate;
  guint64 latency;

  GST_OBJECT_LOCK (self);
  s = self->props.settings;
  s.kernel = g_strdup (s.kernel);
  s.matrix = g_strdup (s.matrix);
  gst_cuda_impulse_copy (&s.impulse, &self->props.settings.impulse);
  *algorithm = self->props.algorithm;
  name = source_name (self);
  rate = GST_AUDIO_INFO_RATE (&self->info);
  in = GST_AUDIO_INFO_CHANNELS (&self->info);
  out = GST_AUDIO_INFO_CHANNELS (&self->out_info);
  latency = self->props.latency;
  GST_OBJECT_UNLOCK (self);

  *error = NULL;
  ok = gst_cuda_conv1d_build (&s, rate, in, out, taps, error, &note);
  if (note)
    GST_INFO_OBJECT (self, "%s", note);
  if (ok && latency >= (guint64) taps->taps && latency > 0) {
    *error = g_strdup_printf ("latency=%" G_GUINT64_FORMAT " is not shorter "
        "than the mask (%d taps)", latency, taps->taps);
    gst_cuda_conv1d_taps_clear (taps);
    ok = FALSE;
  }
  if (ok)
    taps->name = name;
  else
    g_free (name);
  g_free (note);
  g_free (s.kernel);
  g_free (s.matrix);
  gst_cuda_impulse_clear (&s.impulse);
  return ok;
}

/* The preparer's build: the same, on its thread. */
static gboolean
build_in_background (gpointer element, GstCudaConv1dTaps * taps,
    GstCudaConv1dAlgorithm * algorithm, gchar ** error)
{
  return build_taps (GST_CUDA_CONV1D (element), taps, algorithm, error);
}

/* Frames after the input's end, for the duration query. */
static void
update_tail (GstCudaConv1d * self)
{
  gint tail = gst_cuda_conv1d_filter_tail (&self->filter)
      - (gint) self->filter.latency;

  GST_OBJECT_LOCK (self);
  self->tail_frames = tail;
  GST_OBJECT_UNLOCK (self);
}

/* Builds the first mask of a stream from the settings, on the streaming
 * thread (nothing plays yet). FALSE after posting an error. */
static gboolean
apply_settings (GstCudaConv1d * self, gint typical_frames)
{
  GstCudaConv1dAlgorithm algorithm;
  GstCudaConv1dChainSpec spec;
  GstCudaConv1dTaps taps;
  gchar *error = NULL;

  if (!build_taps (self, &taps, &algorithm, &error)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Invalid mask: %s.", error),
        (NULL));
    g_free (error);
    return FALSE;
  }
  if (!gst_cuda_conv1d_filter_set_taps (&self->filter, &taps, algorithm,
          typical_frames))
    return FALSE;
  update_tail (self);
  /* later changes are prepared off this thread, for buffers like these */
  spec = gst_cuda_conv1d_filter_spec (&self->filter, algorithm,
      typical_frames);
  gst_cuda_conv1d_preparer_set_spec (&self->preparer, &spec);
  return TRUE;
}

/* A response prepared off the streaming thread takes over at this buffer
 * (`inbuf`), crossfading from the one playing; the application hears of
 * it. FALSE after posting an error. */
static gboolean
take_prepared (GstCudaConv1d * self, GstBuffer * inbuf)
{
  GstCudaConv1dChain chain;
  GstStructure *st;
  GstClockTime running;
  gchar *error = NULL;
  guint crossfade;
  guint64 fade, starts_in;
  gint rate = GST_AUDIO_INFO_RATE (&self->info);

  if (!gst_cuda_conv1d_preparer_take (&self->preparer, &chain, &error)) {
    if (error)
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("The new mask could "
              "not be prepared: %s. The current one stays.", error), (NULL));
    g_free (error);
    return TRUE;
  }
  GST_OBJECT_LOCK (self);
  crossfade = self->props.crossfade;
  GST_OBJECT_UNLOCK (self);
  fade = gst_util_uint64_scale_int_round (crossfade, rate, 1000);
  st = gst_structure_new ("cudaconv1d-response",
      "name", G_TYPE_STRING, chain.taps.name ? chain.taps.name : "",
      "taps", G_TYPE_INT, chain.taps.taps,
      "channels", G_TYPE_INT, chain.taps.masks,
      "routes", G_TYPE_INT, chain.taps.routing.n_routes,
      "crossfade", G_TYPE_UINT64, gst_util_uint64_scale_int (fade,
          GST_SECOND, rate), NULL);
  if (!gst_cuda_conv1d_filter_take_over (&self->filter, &chain, fade,
          &starts_in)) {
    gst_structure_free (st);
    return FALSE;
  }
  /* where it is first heard: after its warm-up, if it needs one */
  running = gst_segment_to_running_time (&GST_BASE_TRANSFORM (self)->segment,
      GST_FORMAT_TIME, GST_BUFFER_PTS (inbuf));
  if (GST_CLOCK_TIME_IS_VALID (running))
    running += gst_util_uint64_scale_int (starts_in, GST_SECOND, rate);
  gst_structure_set (st, "offset", G_TYPE_UINT64, self->filter.frames_in
      + starts_in, "running-time", G_TYPE_UINT64, running, NULL);
  update_tail (self);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), st));
  return TRUE;
}

/* Pushes the rest of the convolution (taps - 1 frames of filtered
 * silence) and forgets the stream. */
static GstFlowReturn
drain (GstCudaConv1d * self)
{
  GstFlowReturn ret = gst_cuda_conv1d_wait_sent (&self->outputs);
  GstAudioBuffer abuf;
  GstBuffer *buf;
  gint frames, kept;
  gboolean ok;

  if (ret != GST_FLOW_OK)
    return ret;
  if (!gst_cuda_conv1d_filter_ready (&self->filter)
      || !GST_CLOCK_TIME_IS_VALID (self->filter.start_ts)
      || self->filter.frames_in == 0)
    return gst_cuda_conv1d_filter_reset (&self->filter) ? GST_FLOW_OK
        : GST_FLOW_ERROR;
  /* one buffer, however long the tail: a buffer stamped after the input's
   * end must not come before the EOS that follows it (chunks are the
   * filter's business, not the stream's) */
  frames = gst_cuda_conv1d_filter_tail (&self->filter);
  kept = gst_cuda_conv1d_filter_kept (&self->filter, frames);
  if (kept == 0) {
    ok = gst_cuda_conv1d_filter_process (&self->filter, NULL, frames, NULL,
        self->filter.dry_gain, self->filter.wet_gain);
    return ok && gst_cuda_conv1d_filter_reset (&self->filter) ? GST_FLOW_OK
        : GST_FLOW_ERROR;
  }
  if (!(buf = gst_cuda_conv1d_filter_new_output (&self->filter, kept)))
    return GST_FLOW_ERROR;
  gst_cuda_conv1d_filter_stamp (&self->filter, buf, kept);
  if (!gst_audio_buffer_map (&abuf, &self->out_info, buf, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot map an audio "
            "buffer for the tail."), (NULL));
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  ok = gst_cuda_conv1d_filter_process (&self->filter, NULL, frames,
      abuf.planes, self->filter.dry_gain, self->filter.wet_gain);
  gst_audio_buffer_unmap (&abuf);
  if (!ok) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
  if (!gst_cuda_conv1d_filter_reset (&self->filter) && ret == GST_FLOW_OK)
    ret = GST_FLOW_ERROR;
  return ret;
}

/* ---- GstBaseTransform ---------------------------------------------------------- */

static gboolean
gst_cuda_conv1d_start (GstCudaFilterBase * base)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (base);
  gchar *error;

  GST_OBJECT_LOCK (self);
  error = g_strdup (self->props.settings_error);
  GST_OBJECT_UNLOCK (self);
  if (error) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Invalid mask: %s.", error),
        (NULL));
    g_free (error);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  self->props.started = TRUE;
  /* fixed for the run: refused by state from now on */
  self->filter.latency = self->props.latency;
  self->filter.overlap = self->props.overlap;
  /* gain and mix set before the start hold from the first frame: only
   * changes while running glide */
  self->filter.dry_gain = 1.0 - self->props.mix;
  self->filter.wet_gain = self->props.gain * self->props.mix;
  GST_OBJECT_UNLOCK (self);
  return gst_cuda_conv1d_filter_reset (&self->filter);
}

static void
gst_cuda_conv1d_stop (GstCudaFilterBase * base)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (base);

  gst_cuda_conv1d_stop_outputs (&self->outputs);
  gst_cuda_conv1d_preparer_stop (&self->preparer);
  gst_cuda_conv1d_filter_clear (&self->filter);
  GST_OBJECT_LOCK (self);
  self->props.started = FALSE;
  self->tail_frames = 0;
  self->have_info = FALSE;
  GST_OBJECT_UNLOCK (self);
}

/* `out-channels`: the source's caps carry that count (stereo positions for
 * 2, the default ones otherwise), the sink's take any. */
static GstCaps *
gst_cuda_conv1d_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (trans);
  GstCaps *res, *both;
  guint out;

  GST_OBJECT_LOCK (self);
  out = self->props.out_channels;
  GST_OBJECT_UNLOCK (self);
  res = GST_BASE_TRANSFORM_CLASS (parent_class)->transform_caps (trans,
      direction, caps, NULL);
  if (out > 0) {
    res = gst_caps_make_writable (res);
    for (guint i = 0; i < gst_caps_get_size (res); i++) {
      GstStructure *s = gst_caps_get_structure (res, i);
      gst_structure_remove_field (s, "channel-mask");
      if (direction == GST_PAD_SRC) {
        gst_structure_set (s, "channels", GST_TYPE_INT_RANGE, 1, G_MAXINT,
            NULL);
        continue;
      }
      gst_structure_set (s, "channels", G_TYPE_INT, (gint) out, NULL);
      if (out > 1)
        gst_structure_set (s, "channel-mask", GST_TYPE_BITMASK,
            gst_audio_channel_get_fallback_mask ((gint) out), NULL);
    }
  }
  if (filter) {
    both = gst_caps_intersect_full (filter, res, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    res = both;
  }
  return res;
}

static gboolean
gst_cuda_conv1d_set_info (GstCudaFilterBase * base, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (base);
  GstAudioInfo info, out_info;
  gchar *error;

  if (!gst_audio_info_from_caps (&info, incaps)
      || !gst_audio_info_from_caps (&out_info, outcaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot filter caps %" GST_PTR_FORMAT ".", incaps), (NULL));
    return FALSE;
  }
  /* a running stream ends here: its tail goes out in the old format (or
   * nowhere, when the source pad is flushing or unlinked: the new caps
   * still stand) */
  if (gst_cuda_conv1d_filter_ready (&self->filter)
      && drain (self) <= GST_FLOW_NOT_NEGOTIATED)
    return FALSE;
  /* responses prepared for the old stream are not for this one */
  gst_cuda_conv1d_preparer_stop (&self->preparer);

  GST_OBJECT_LOCK (self);
  self->info = info;
  self->out_info = out_info;
  self->have_info = TRUE;
  error = gst_cuda_conv1d_props_check (&self->props, &self->info);
  GST_OBJECT_UNLOCK (self);
  if (error) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Cannot filter this "
            "stream: %s.", error), (NULL));
    g_free (error);
    return FALSE;
  }
  return gst_cuda_conv1d_filter_configure (&self->filter, &info, &out_info);
}

/* New caps; where `out-channels` is set and downstream takes no such
 * count, an error that says so (GstBaseTransform's own says only "not
 * negotiated"). */
static gboolean
caps_event (GstCudaConv1d * self, GstEvent * event)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  gboolean ok = GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans,
      event);
  GstCaps *wanted, *taken;
  guint out;

  GST_OBJECT_LOCK (self);
  out = self->props.out_channels;
  GST_OBJECT_UNLOCK (self);
  if (ok || out == 0)
    return ok;
  wanted = gst_caps_new_simple ("audio/x-raw", "channels", G_TYPE_INT,
      (gint) out, NULL);
  taken = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (trans),
      wanted);
  if (gst_caps_is_empty (taken))
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Downstream takes no "
            "audio of %u channels: out-channels=%u cannot be negotiated.",
            out, out), (NULL));
  gst_caps_unref (taken);
  gst_caps_unref (wanted);
  return ok;
}

static gboolean
gst_cuda_conv1d_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS)
    return caps_event (self, event);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:{
      /* the tail of the convolution goes out before the EOS; after an
       * error (posted) or a flush, the EOS goes no further */
      GstFlowReturn ret = drain (self);
      if (ret <= GST_FLOW_NOT_NEGOTIATED || ret == GST_FLOW_FLUSHING) {
        GST_DEBUG_OBJECT (self, "tail not pushed (%s): EOS dropped",
            gst_flow_get_name (ret));
        gst_event_unref (event);
        return FALSE;
      }
      break;
    }
    case GST_EVENT_FLUSH_START:
      gst_cuda_conv1d_discard (&self->outputs);
      break;
    case GST_EVENT_FLUSH_STOP:
      gst_cuda_conv1d_resume (&self->outputs);
      /* a failed reset is posted and tried again at the next buffer; the
       * flush-stop goes on regardless, so that nothing downstream stays
       * flushing */
      gst_cuda_conv1d_filter_reset (&self->filter);
      break;
    default:
      /* queued outputs go before any event that follows their input */
      if (GST_EVENT_IS_SERIALIZED (event))
        gst_cuda_conv1d_wait_sent (&self->outputs);
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* The tail pushed at EOS counts in the duration: the stream out is longer
 * than the stream in by taps - 1 - latency frames. */
static void
add_tail (GstCudaConv1d * self, GstQuery * query)
{
  GstFormat format;
  gint64 duration;
  gint tail, rate, bpf, in_bpf;

  gst_query_parse_duration (query, &format, &duration);
  GST_OBJECT_LOCK (self);
  tail = self->have_info ? self->tail_frames : 0;
  rate = GST_AUDIO_INFO_RATE (&self->info);
  in_bpf = GST_AUDIO_INFO_BPF (&self->info);
  bpf = GST_AUDIO_INFO_BPF (&self->out_info);
  GST_OBJECT_UNLOCK (self);
  if (duration < 0 || !self->have_info)
    return;
  /* bytes of the output, where its channels are not the input's */
  if (format == GST_FORMAT_BYTES && in_bpf > 0)
    duration = duration / in_bpf * bpf;
  if (tail <= 0) {
    gst_query_set_duration (query, format, duration);
    return;
  }
  if (format == GST_FORMAT_TIME)
    duration += gst_util_uint64_scale_int (tail, GST_SECOND, rate);
  else if (format == GST_FORMAT_DEFAULT)
    duration += tail;
  else if (format == GST_FORMAT_BYTES)
    duration += (gint64) tail * bpf;
  else
    return;
  gst_query_set_duration (query, format, duration);
}

static gboolean
gst_cuda_conv1d_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (trans);
  gboolean have_info, live;
  GstClockTime min, max, ours;

  if (direction != GST_PAD_SRC)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
        query);
  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_LATENCY:
      GST_OBJECT_LOCK (self);
      have_info = self->have_info;
      ours = have_info ? gst_util_uint64_scale_round (self->props.latency,
          GST_SECOND, GST_AUDIO_INFO_RATE (&self->info)) : 0;
      GST_OBJECT_UNLOCK (self);
      if (!have_info)
        break;
      if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (trans), query))
        return FALSE;
      gst_query_parse_latency (query, &live, &min, &max);
      min += ours;
      if (GST_CLOCK_TIME_IS_VALID (max))
        max += ours;
      gst_query_set_latency (query, live, min, max);
      return TRUE;
    case GST_QUERY_DURATION:
      if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (trans), query))
        return FALSE;
      add_tail (self, query);
      return TRUE;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

/* Frames in `inbuf`: its GstAudioMeta says, where planes lie apart. */
static gint
input_frames (GstCudaConv1d * self, GstBuffer * inbuf)
{
  GstAudioMeta *meta = gst_buffer_get_audio_meta (inbuf);
  gsize bpf = GST_AUDIO_INFO_BPF (&self->info);

  if (meta)
    return (gint) meta->samples;
  return bpf ? (gint) (gst_buffer_get_size (inbuf) / bpf) : 0;
}

/* Per buffer, before the output exists: discontinuities, new masks, and
 * the size of what comes out. */
static GstFlowReturn
gst_cuda_conv1d_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (trans);
  GstClockTime ts = GST_BUFFER_PTS (inbuf);
  gint frames = input_frames (self, inbuf);
  gboolean gap = FALSE;
  gint kept;

  if (!self->have_info)
    return GST_FLOW_NOT_NEGOTIATED;
  if (self->filter.reset_pending
      && !gst_cuda_conv1d_filter_reset (&self->filter))
    return GST_FLOW_ERROR;

  /* a DISCONT, or a timestamp 5 ms off the sample count, ends the stream */
  if (GST_CLOCK_TIME_IS_VALID (self->filter.start_ts)
      && GST_CLOCK_TIME_IS_VALID (ts)) {
    GstClockTime expected = self->filter.start_ts + gst_util_uint64_scale_int
        (self->filter.frames_in, GST_SECOND, GST_AUDIO_INFO_RATE (&self->info));
    gap = ts > expected + RESYNC_THRESHOLD
        || ts + RESYNC_THRESHOLD < expected;
  }
  if (GST_BUFFER_IS_DISCONT (inbuf) || gap) {
    GstFlowReturn ret = drain (self);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  if (!GST_CLOCK_TIME_IS_VALID (self->filter.start_ts)) {
    if (!GST_CLOCK_TIME_IS_VALID (ts)) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Buffer without a "
              "timestamp."), (NULL));
      return GST_FLOW_ERROR;
    }
    self->filter.start_ts = ts;
    self->filter.start_offset = GST_BUFFER_OFFSET (inbuf);
  }

  /* the first mask here; later ones once prepared */
  if (!gst_cuda_conv1d_filter_ready (&self->filter)) {
    if (!apply_settings (self, MAX (frames, 64)))
      return GST_FLOW_ERROR;
  } else if (!take_prepared (self, inbuf)) {
    return GST_FLOW_ERROR;
  }

  kept = gst_cuda_conv1d_filter_kept (&self->filter, frames);
  *outbuf = gst_cuda_conv1d_filter_new_output (&self->filter, kept);
  if (!*outbuf)
    return GST_FLOW_ERROR;
  gst_buffer_copy_into (*outbuf, inbuf, GST_BUFFER_COPY_FLAGS, 0, -1);
  gst_cuda_conv1d_filter_stamp (&self->filter, *outbuf, kept);
  return GST_FLOW_OK;
}

/* `overlap`: the output made for this input goes to the output thread. */
static GstFlowReturn
gst_cuda_conv1d_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (trans);
  GstBuffer *in = trans->queued_buf;
  GstFlowReturn ret;

  if (!in || !gst_cuda_conv1d_filter_overlapping (&self->filter))
    return GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
        outbuf);
  gst_buffer_ref (in);
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
      outbuf);
  if (ret != GST_FLOW_OK || !*outbuf) {
    gst_buffer_unref (in);
    return ret;
  }
  ret = gst_cuda_conv1d_send (&self->outputs, in, *outbuf);
  *outbuf = NULL;
  return ret;
}

static GstFlowReturn
gst_cuda_conv1d_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (trans);
  GstAudioBuffer in, out;
  gboolean have_out = gst_buffer_get_size (outbuf) > 0;
  gdouble dry1, wet1;
  gint frames;
  gboolean ok;

  /* GStreamer's rule: planes of non-interleaved audio are found through
   * the GstAudioMeta a buffer carries; without it they cannot be */
  if (GST_AUDIO_INFO_LAYOUT (&self->info) == GST_AUDIO_LAYOUT_NON_INTERLEAVED
      && !gst_buffer_get_audio_meta (inbuf)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("A non-interleaved audio "
            "buffer came without a GstAudioMeta: its planes cannot be found."),
        (NULL));
    return GST_FLOW_ERROR;
  }
  /* page-locked, the GPU reads the samples where they are */
  if (self->filter.backend->cuda)
    gst_cuda_pin_buffer (inbuf);
  if (!gst_audio_buffer_map (&in, &self->info, inbuf, GST_MAP_READ))
    goto map_failed;
  if (have_out
      && !gst_audio_buffer_map (&out, &self->out_info, outbuf,
          GST_MAP_WRITE)) {
    gst_audio_buffer_unmap (&in);
    goto map_failed;
  }
  GST_OBJECT_LOCK (self);
  dry1 = 1.0 - self->props.mix;
  wet1 = self->props.gain * self->props.mix;
  GST_OBJECT_UNLOCK (self);

  frames = (gint) in.n_samples;
  /* an output the output thread pushes is waited for there */
  self->filter.queued_output = have_out
      && gst_cuda_conv1d_filter_overlapping (&self->filter);
  ok = gst_cuda_conv1d_filter_process (&self->filter, in.planes, frames,
      have_out ? out.planes : NULL, dry1, wet1);
  self->filter.queued_output = FALSE;
  self->filter.frames_in += frames;
  if (have_out)
    gst_audio_buffer_unmap (&out);
  gst_audio_buffer_unmap (&in);
  if (!ok)
    return GST_FLOW_ERROR;
  /* the first `latency` frames are dropped */
  return have_out ? GST_FLOW_OK : GST_BASE_TRANSFORM_FLOW_DROPPED;

  /* ERRORS */
map_failed:
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot map an audio buffer."),
      (NULL));
  return GST_FLOW_ERROR;
}
