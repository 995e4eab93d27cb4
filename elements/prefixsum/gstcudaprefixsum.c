/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum: integral images of video frames and what they make cheap.
 *
 * Per frame, for each measured channel (GRAY, the luma of YUV, or R, G and
 * B of the RGBA family): the integral image and the integral of squares
 * (kernels/integral/integral.h), the channel's sum, sum of squares, minimum and
 * maximum (kernels/reduce/reduce.h), then, by `output`:
 *
 *   passthrough          the frame unchanged; with attach-meta the tables
 *                        travel on the buffer (GstCudaIntegralMeta)
 *   box-mean             each sample the rounded mean of its (2r+1)^2
 *                        window, clipped to the frame (kernels/integral/boxmean.h)
 *   adaptive-threshold   255 where a sample exceeds its window mean minus
 *                        `offset`, else 0
 *
 * Samples the element does not measure (alpha, chroma) pass unchanged. A
 * "cudaprefixsum" element message carries the statistics, at most once per
 * `interval` of running time.
 *
 * Audio passes unchanged and gets the level element's statistics and
 * messages (gstcudaprefixsumaudio.c, gstcudalevel.h).
 *
 * This file is the element: its properties, lifecycle, events and the
 * dispatch of each buffer; video frames are measured by
 * gstcudaprefixsumvideo.c, their messages made by gstcudaprefixsumstats.c. */

/**
 * SECTION:element-cudaprefixsum
 * @title: cudaprefixsum
 *
 * Integral images of video frames on the GPU, and what they make cheap:
 * the sum, mean, variance, minimum and maximum of each channel, the same
 * over a grid of regions, box means and adaptive thresholds whose cost
 * does not grow with the radius, and the tables themselves for
 * applications (GstCudaIntegralMeta, `attach-meta`). On audio, the
 * statistics of the level element, in its messages.
 *
 * Without a usable GPU the element computes the same on the CPU
 * (`backend=auto`, the default), or fails to start (`backend=cuda`).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m videotestsrc ! video/x-raw,format=GRAY8 ! cudaprefixsum grid-columns=4 grid-rows=3 ! fakesink
 * ]| Frame and region statistics as element messages.
 * |[
 * gst-launch-1.0 videotestsrc ! cudaprefixsum output=box-mean radius=40 ! videoconvert ! autovideosink
 * ]| A box blur of radius 40 at the cost of radius 1.
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=GRAY8 ! cudaprefixsum output=adaptive-threshold radius=15 offset=4 ! videoconvert ! autovideosink
 * ]| Adaptive threshold: white where a pixel is brighter than its
 * neighbourhood.
 * |[
 * gst-launch-1.0 -m audiotestsrc ! audio/x-raw,format=F32LE,channels=2 ! cudaprefixsum interval=500000000 ! fakesink
 * ]| Audio levels (rms, peak, decaying peak), as the level element posts
 * them.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "boxmean.h"
#include "gstcudaintegralmeta.h"
#include "gstcudaprefixsum.h"
#include "gstcudaprefixsumprops.h"

GST_DEBUG_CATEGORY (gst_cuda_prefix_sum_debug);
#define GST_CAT_DEFAULT gst_cuda_prefix_sum_debug

#define VIDEO_FORMATS "{ GRAY8, GRAY16_LE, RGBA, BGRA, RGBx, BGRx, ARGB, " \
    "ABGR, xRGB, xBGR, I420, YV12, NV12, Y444, Y42B }"
/* the formats GstCudaMemory has (no grey ones in GStreamer 1.22) */
#define VIDEO_CUDA_FORMATS "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, I420, " \
    "YV12, NV12, Y444, Y42B }"
#define AUDIO_CAPS "audio/x-raw, format = (string) { F32LE, F64LE, S16LE, " \
    "S32LE }, rate = (int) [ 1, MAX ], channels = (int) [ 1, MAX ], " \
    "layout = (string) interleaved"

#define gst_cuda_prefix_sum_parent_class parent_class
G_DEFINE_TYPE (GstCudaPrefixSum, gst_cuda_prefix_sum,
    GST_TYPE_CUDA_FILTER_BASE);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudaprefixsum, "cudaprefixsum",
    GST_RANK_NONE, GST_TYPE_CUDA_PREFIX_SUM,
    gst_cuda_integral_meta_api_get_type ());

static void gst_cuda_prefix_sum_finalize (GObject * object);
static void gst_cuda_prefix_sum_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_cuda_prefix_sum_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static gboolean gst_cuda_prefix_sum_start (GstCudaFilterBase * base);
static void gst_cuda_prefix_sum_stop (GstCudaFilterBase * base);
static gboolean gst_cuda_prefix_sum_set_info (GstCudaFilterBase * base,
    GstCaps * incaps, GstCaps * outcaps);
static GstFlowReturn gst_cuda_prefix_sum_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf);
static GstFlowReturn gst_cuda_prefix_sum_transform_ip (GstBaseTransform *
    trans, GstBuffer * buf);
static gboolean gst_cuda_prefix_sum_sink_event (GstBaseTransform * trans,
    GstEvent * event);

static void
gst_cuda_prefix_sum_class_init (GstCudaPrefixSumClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaFilterBaseClass *base_class = GST_CUDA_FILTER_BASE_CLASS (klass);
  GstCaps *caps = gst_caps_merge (gst_cuda_filter_memory_video_caps
      (VIDEO_FORMATS, VIDEO_CUDA_FORMATS), gst_caps_from_string (AUDIO_CAPS));

  GST_DEBUG_CATEGORY_INIT (gst_cuda_prefix_sum_debug, "cudaprefixsum", 0,
      "CUDA integral images and statistics");

  gobject_class->finalize = gst_cuda_prefix_sum_finalize;
  gobject_class->set_property = gst_cuda_prefix_sum_set_property;
  gobject_class->get_property = gst_cuda_prefix_sum_get_property;

  gst_cuda_prefix_sum_install_properties (gobject_class);

  gst_cuda_filter_base_class_add_templates (element_class,
      caps);
  gst_element_class_set_static_metadata (element_class,
      "CUDA prefix sums", "Filter/Analyzer/Video;Filter/Analyzer/Audio",
      "Integral images of video frames on the GPU: frame and region "
      "statistics, box means and adaptive thresholds in time independent "
      "of the radius, and the tables for applications; level statistics "
      "of audio in the messages of the level element",
      "gst-cuda-filters");

  base_class->start = GST_DEBUG_FUNCPTR (gst_cuda_prefix_sum_start);
  base_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_prefix_sum_stop);
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_prefix_sum_set_info);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_prefix_sum_transform);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_cuda_prefix_sum_transform_ip);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_prefix_sum_sink_event);
  trans_class->transform_ip_on_passthrough = TRUE;
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_filter_base_transform_caps);
  GST_CUDA_FILTER_BASE_CLASS (klass)->shares_stream = TRUE;
}

static void
gst_cuda_prefix_sum_init (GstCudaPrefixSum * self)
{
  self->output = DEFAULT_OUTPUT;
  self->radius = DEFAULT_RADIUS;
  self->offset = DEFAULT_OFFSET;
  self->interval = DEFAULT_INTERVAL;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->attach_meta = DEFAULT_ATTACH_META;
  self->grid_columns = self->grid_rows = DEFAULT_GRID;
  self->peak_ttl = DEFAULT_PEAK_TTL;
  self->peak_falloff = DEFAULT_PEAK_FALLOFF;
  self->algorithm = DEFAULT_ALGORITHM;
  self->loudness = DEFAULT_LOUDNESS;
  /* GAP buffers keep their flag: level statistics count them as silence */
  gst_base_transform_set_gap_aware (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_cuda_prefix_sum_finalize (GObject * object)
{
  g_free (GST_CUDA_PREFIX_SUM (object)->video.tables);
  gst_cuda_prefix_sum_audio_free (&GST_CUDA_PREFIX_SUM (object)->audio);
  gst_cuda_prefix_sum_loudness_free (&GST_CUDA_PREFIX_SUM
      (object)->loudness_meter);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ---- properties -------------------------------------------------------------- */

/* Why a grid of `columns` x `rows` does not fit the negotiated frames, or
 * NULL. Called with the object lock. */
static gchar *
grid_error (GstCudaPrefixSum * self, gint columns, gint rows)
{
  gint w, h;

  if (!self->have_info || (columns == 0 && rows == 0))
    return NULL;
  w = GST_VIDEO_INFO_WIDTH (&self->video.info);
  h = GST_VIDEO_INFO_HEIGHT (&self->video.info);
  if (columns == 0 || rows == 0)
    return g_strdup_printf ("a grid of %d x %d regions: set both or "
        "neither", columns, rows);
  if (columns > w || rows > h)
    return g_strdup_printf ("a grid of %d x %d regions is larger than the "
        "%d x %d frame", columns, rows, w, h);
  return NULL;
}

/* One side of the grid; why it was refused, or NULL. Called with the
 * object lock. */
static gchar *
set_grid_side (GstCudaPrefixSum * self, guint prop_id, gint value)
{
  gint columns = prop_id == PROP_GRID_COLUMNS ? value : self->grid_columns;
  gint rows = prop_id == PROP_GRID_ROWS ? value : self->grid_rows;
  /* while frames flow a grid that cannot fit is refused; a grid half set
   * (one side 0) is taken as none until the other comes */
  gchar *refused = columns && rows ? grid_error (self, columns, rows) : NULL;

  if (!refused) {
    self->grid_columns = columns;
    self->grid_rows = rows;
  }
  return refused;
}

static void
gst_cuda_prefix_sum_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaPrefixSum *self = GST_CUDA_PREFIX_SUM (object);
  gchar *refused = NULL;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_OUTPUT:
    case PROP_ATTACH_META:
    case PROP_ALGORITHM:
      if (self->started) {
        refused = g_strdup ("it can change only in the NULL or READY state");
        break;
      }
      if (prop_id == PROP_OUTPUT)
        self->output = g_value_get_enum (value);
      else if (prop_id == PROP_ALGORITHM)
        self->algorithm = g_value_get_enum (value);
      else
        self->attach_meta = g_value_get_boolean (value);
      break;
    case PROP_PEAK_TTL:
      self->peak_ttl = g_value_get_uint64 (value);
      break;
    case PROP_PEAK_FALLOFF:
      self->peak_falloff = g_value_get_double (value);
      break;
    case PROP_RADIUS:
      self->radius = g_value_get_int (value);
      break;
    case PROP_OFFSET:
      self->offset = g_value_get_double (value);
      break;
    case PROP_INTERVAL:
      self->interval = g_value_get_uint64 (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    case PROP_LOUDNESS:
      self->loudness = g_value_get_boolean (value);
      break;
    case PROP_GRID_COLUMNS:
    case PROP_GRID_ROWS:
      refused = set_grid_side (self, prop_id, g_value_get_int (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (refused) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("Refused %s: %s.",
            pspec->name, refused), (NULL));
    g_free (refused);
  }
}

static void
gst_cuda_prefix_sum_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaPrefixSum *self = GST_CUDA_PREFIX_SUM (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_OUTPUT:
      g_value_set_enum (value, self->output);
      break;
    case PROP_RADIUS:
      g_value_set_int (value, self->radius);
      break;
    case PROP_OFFSET:
      g_value_set_double (value, self->offset);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, self->interval);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_LOUDNESS:
      g_value_set_boolean (value, self->loudness);
      break;
    case PROP_ATTACH_META:
      g_value_set_boolean (value, self->attach_meta);
      break;
    case PROP_GRID_COLUMNS:
      g_value_set_int (value, self->grid_columns);
      break;
    case PROP_GRID_ROWS:
      g_value_set_int (value, self->grid_rows);
      break;
    case PROP_PEAK_TTL:
      g_value_set_uint64 (value, self->peak_ttl);
      break;
    case PROP_PEAK_FALLOFF:
      g_value_set_double (value, self->peak_falloff);
      break;
    case PROP_ALGORITHM:
      g_value_set_enum (value, self->algorithm);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ---- state ---------------------------------------------------------------------- */

static gboolean
gst_cuda_prefix_sum_start (GstCudaFilterBase * base)
{
  GstCudaPrefixSum *self = GST_CUDA_PREFIX_SUM (base);

  GST_OBJECT_LOCK (self);
  self->started = TRUE;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_prefix_sum_video_start (&self->video);
  return TRUE;
}

static void
gst_cuda_prefix_sum_stop (GstCudaFilterBase * base)
{
  GstCudaPrefixSum *self = GST_CUDA_PREFIX_SUM (base);
  gboolean cuda = gst_cuda_filter_base_uses_cuda (GST_CUDA_FILTER_BASE (self));

  /* first: queued level work may still read the device buffers */
  gst_cuda_prefix_sum_audio_free (&self->audio);
  gst_cuda_prefix_sum_loudness_free (&self->loudness_meter);
  gst_cuda_prefix_sum_video_free (&self->video, cuda);
  GST_OBJECT_LOCK (self);
  self->started = FALSE;
  self->have_info = FALSE;
  self->have_audio = FALSE;
  GST_OBJECT_UNLOCK (self);
}

/* The settings an audio buffer is measured with. */
static void
audio_settings (GstCudaPrefixSum * self, GstCudaPrefixSumAudioSettings * set)
{
  GST_OBJECT_LOCK (self);
  set->post = self->post_messages;
  set->interval = self->interval;
  set->peak_ttl = self->peak_ttl;
  set->peak_falloff = self->peak_falloff;
  set->loudness = self->loudness;
  GST_OBJECT_UNLOCK (self);
}

/* Audio: the level statistics restart for the new stream. */
static gboolean
set_audio_caps (GstCudaPrefixSum * self, GstCaps * caps)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstCudaPrefixSumAudioSettings set;
  GstCudaPrefixSumOutput output;
  GstAudioInfo info;

  GST_OBJECT_LOCK (self);
  output = self->output;
  GST_OBJECT_UNLOCK (self);
  audio_settings (self, &set);
  if (output != GST_CUDA_PREFIX_SUM_OUTPUT_PASSTHROUGH) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("output=%s works on video "
            "only; audio passes through (output=passthrough).",
            output == GST_CUDA_PREFIX_SUM_OUTPUT_BOX_MEAN ? "box-mean" :
            "adaptive-threshold"), (NULL));
    return FALSE;
  }
  if (!gst_audio_info_from_caps (&info, caps)
      || !gst_cuda_prefix_sum_audio_configure (&self->audio,
          GST_CUDA_FILTER_BASE (self), &info, &set)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot measure caps %" GST_PTR_FORMAT ".", caps), (NULL));
    return FALSE;
  }
  /* a meter for any stream: `loudness` may be turned on later */
  gst_cuda_prefix_sum_loudness_configure (&self->loudness_meter,
      GST_CUDA_FILTER_BASE (self), &info);
  self->metering = FALSE;
  GST_OBJECT_LOCK (self);
  self->have_info = FALSE;
  self->have_audio = TRUE;
  GST_OBJECT_UNLOCK (self);
  gst_base_transform_set_in_place (trans, TRUE);
  gst_base_transform_set_passthrough (trans, TRUE);
  return TRUE;
}

static gboolean
gst_cuda_prefix_sum_set_info (GstCudaFilterBase * base, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (base);
  GstCudaPrefixSum *self = GST_CUDA_PREFIX_SUM (base);
  GstVideoInfo info;
  GstCudaPrefixSumOutput output;
  gboolean attach, in_place, loudness;
  gchar *error;

  if (gst_structure_has_name (gst_caps_get_structure (incaps, 0),
          "audio/x-raw"))
    return set_audio_caps (self, incaps);
  GST_OBJECT_LOCK (self);
  self->have_audio = FALSE;
  loudness = self->loudness;
  GST_OBJECT_UNLOCK (self);
  if (loudness)
    GST_ELEMENT_WARNING (self, CORE, NEGOTIATION, ("loudness=true measures "
            "audio; on video frames it does nothing."), (NULL));
  if (!gst_video_info_from_caps (&info, incaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot measure caps %" GST_PTR_FORMAT ".", incaps), (NULL));
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  self->video.info = info;
  self->have_info = TRUE;
  error = grid_error (self, self->grid_columns, self->grid_rows);
  if (error)
    self->have_info = FALSE;
  output = self->output;
  attach = self->attach_meta;
  GST_OBJECT_UNLOCK (self);
  if (error) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Cannot measure %dx%d "
            "frames: %s.", GST_VIDEO_INFO_WIDTH (&info),
            GST_VIDEO_INFO_HEIGHT (&info), error), (NULL));
    g_free (error);
    return FALSE;
  }
  gst_cuda_prefix_sum_video_configure (&self->video, base, &info);
  /* passthrough measures in place, without the meta writing nothing; from
   * one memory type to the other it copies the frames */
  in_place = output == GST_CUDA_PREFIX_SUM_OUTPUT_PASSTHROUGH
      && gst_cuda_filter_caps_are_cuda (incaps)
      == gst_cuda_filter_caps_are_cuda (outcaps);
  gst_base_transform_set_in_place (trans, in_place);
  gst_base_transform_set_passthrough (trans, in_place && !attach);
  return TRUE;
}

/* ---- measuring -------------------------------------------------------------------- */

/* The properties for this frame, read once. `buf` is the buffer that
 * leaves. */
static void
read_settings (GstCudaPrefixSum * self, GstBuffer * buf,
    GstCudaPrefixSumVideoSettings * s)
{
  GST_OBJECT_LOCK (self);
  s->output = self->output;
  s->radius = self->radius;
  s->offset = self->offset;
  s->post = self->post_messages;
  /* the meta goes with the frames passed on, copied or not */
  s->attach = self->attach_meta
      && s->output == GST_CUDA_PREFIX_SUM_OUTPUT_PASSTHROUGH
      && gst_buffer_is_writable (buf);
  s->columns = self->grid_columns;
  s->rows = self->grid_rows;
  s->algorithm = self->algorithm;
  s->interval = self->interval;
  GST_OBJECT_UNLOCK (self);
  s->squares = FALSE;
}

static GstFlowReturn
measure (GstCudaPrefixSum * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaPrefixSumVideoSettings s;

  if (!self->have_info) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("buffer before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  read_settings (self, outbuf ? outbuf : inbuf, &s);
  return gst_cuda_prefix_sum_video_measure (&self->video, inbuf, outbuf, &s);
}

static GstFlowReturn
gst_cuda_prefix_sum_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  return measure (GST_CUDA_PREFIX_SUM (trans), inbuf, outbuf);
}

static GstFlowReturn
gst_cuda_prefix_sum_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstCudaPrefixSum *self = GST_CUDA_PREFIX_SUM (trans);

  GstCudaPrefixSumAudioSettings set;
  GstFlowReturn ret;

  if (!self->have_audio)
    return measure (self, buf, NULL);
  audio_settings (self, &set);
  ret = gst_cuda_prefix_sum_audio_measure (&self->audio, buf, &set);
  if (ret == GST_FLOW_OK && set.loudness) {
    /* turned on: the measure starts here */
    if (!self->metering)
      gst_cuda_prefix_sum_loudness_reset (&self->loudness_meter);
    /* (the meter reads the level statistics' copy of the samples, where
     * there is one) */
    ret = gst_cuda_prefix_sum_loudness_measure (&self->loudness_meter, buf,
        gst_cuda_prefix_sum_audio_on_device (&self->audio), set.interval,
        set.post);
  }
  self->metering = set.loudness;
  /* the level messages of the buffer: one wait for both measures */
  if (gst_cuda_prefix_sum_audio_settle (&self->audio) != GST_FLOW_OK)
    ret = GST_FLOW_ERROR;
  return ret;
}

static gboolean
gst_cuda_prefix_sum_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaPrefixSum *self = GST_CUDA_PREFIX_SUM (trans);
  gboolean audio;

  /* a flush comes on the seeking thread: have_audio under the lock */
  GST_OBJECT_LOCK (self);
  audio = self->have_audio;
  GST_OBJECT_UNLOCK (self);
  if (audio) {
    GstCudaPrefixSumAudioSettings set;

    audio_settings (self, &set);
    /* the last, partial interval has its message, as with level */
    if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
      gst_cuda_prefix_sum_audio_finish (&self->audio, set.post);
      gst_cuda_prefix_sum_loudness_finish (&self->loudness_meter, set.post
          && set.loudness);
    } else if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
      gst_cuda_prefix_sum_audio_flush (&self->audio);
      gst_cuda_prefix_sum_loudness_reset (&self->loudness_meter);
    }
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}
