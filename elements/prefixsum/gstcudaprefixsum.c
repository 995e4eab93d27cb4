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
 * messages (gstcudaprefixsumaudio.c, gstcudalevel.h). */

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

#include <math.h>
#include <string.h>

#include "boxmean.h"
#include "gstcudaintegralmeta.h"
#include "gstcudapin.h"
#include "gstcudaprefixsum.h"
#include "reduce.h"

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

#define DEFAULT_OUTPUT GST_CUDA_PREFIX_SUM_OUTPUT_PASSTHROUGH
#define DEFAULT_RADIUS 8
#define DEFAULT_OFFSET 5.0
#define DEFAULT_INTERVAL (GST_SECOND / 10)      /* as level */
#define DEFAULT_PEAK_TTL (GST_SECOND / 10 * 3)   /* as level */
#define DEFAULT_PEAK_FALLOFF 10.0               /* dB per second, as level */
#define DEFAULT_ALGORITHM CF_SCAN_AUTO
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_ATTACH_META TRUE
#define DEFAULT_GRID 0
#define MAX_GRID 4096

enum
{
  PROP_0,
  PROP_OUTPUT,
  PROP_RADIUS,
  PROP_OFFSET,
  PROP_INTERVAL,
  PROP_POST_MESSAGES,
  PROP_ATTACH_META,
  PROP_GRID_COLUMNS,
  PROP_GRID_ROWS,
  PROP_PEAK_TTL,
  PROP_PEAK_FALLOFF,
  PROP_ALGORITHM,
};

static GType
gst_cuda_prefix_sum_output_get_type (void)
{
  static GType type;
  static const GEnumValue values[] = {
    {GST_CUDA_PREFIX_SUM_OUTPUT_PASSTHROUGH, "The frames unchanged",
        "passthrough"},
    {GST_CUDA_PREFIX_SUM_OUTPUT_BOX_MEAN, "Box mean of radius `radius`",
        "box-mean"},
    {GST_CUDA_PREFIX_SUM_OUTPUT_ADAPTIVE_THRESHOLD,
        "255 above the box mean minus `offset`, else 0",
        "adaptive-threshold"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaPrefixSumOutput", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GType
gst_cuda_prefix_sum_algorithm_get_type (void)
{
  static GType type;
  static const GEnumValue values[] = {
    {CF_SCAN_AUTO, "Bands of rows, each table entry written once; box means "
          "up to radius 16 straight from the frame", "auto"},
    {CF_SCAN_KOGGE_STONE, "Hierarchical scan, Kogge-Stone blocks",
        "kogge-stone"},
    {CF_SCAN_BRENT_KUNG, "Hierarchical scan, Brent-Kung blocks",
        "brent-kung"},
    {CF_SCAN_WARP, "Hierarchical scan, warp-shuffle blocks", "warp"},
    {CF_SCAN_DECOUPLED, "Single-pass decoupled look-back scan", "decoupled"},
    {CF_SCAN_CUB, "CUB's single-pass device-wide scan", "cub"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaPrefixSumAlgorithm", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

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

/* Video: what comes out (frames, box means, thresholds) and the statistics\n * messages and tables. */
static void
install_video_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  /**
   * GstCudaPrefixSum:output:
   *
   * What comes out: the frames unchanged (with the integral images attached
   * when `attach-meta`), their box mean, or their adaptive threshold.
   * Changes in the NULL or READY state only.
   */
  gst_cuda_filter_base_class_install_enum (gobject_class, PROP_OUTPUT,
      "output", "Output", "passthrough, box-mean or adaptive-threshold",
      gst_cuda_prefix_sum_output_get_type (), DEFAULT_OUTPUT,
      GST_PARAM_MUTABLE_READY);

  /**
   * GstCudaPrefixSum:radius:
   *
   * The box of `box-mean` and `adaptive-threshold`: (2r+1) x (2r+1)
   * pixels, clipped to the frame. Any radius costs the same.
   */
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_int ("radius", "Radius",
          "Box radius r: windows of (2r+1) x (2r+1) pixels", 1,
          CF_BOX_MAX_RADIUS, DEFAULT_RADIUS, flags | GST_PARAM_CONTROLLABLE));

  /**
   * GstCudaPrefixSum:offset:
   *
   * `adaptive-threshold`: a sample becomes 255 where it exceeds its box
   * mean minus `offset`, else 0; positive values keep more of a flat area.
   */
  g_object_class_install_property (gobject_class, PROP_OFFSET,
      g_param_spec_double ("offset", "Offset",
          "adaptive-threshold: 255 where a sample exceeds its box mean "
          "minus offset", -65535.0, 65535.0, DEFAULT_OFFSET,
          flags | GST_PARAM_CONTROLLABLE));

}

/* Video: the statistics messages, their grid of regions, and the tables
 * attached to the frames. */
static void
install_message_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  /**
   * GstCudaPrefixSum:interval:
   *
   * Video: the least running time between two statistics messages (1:
   * every frame). Audio: the time each level message covers, as level's
   * property of the same name. In nanoseconds.
   */
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Video: least running time between two statistics messages (1: "
          "every frame); audio: the time each level message covers; in ns",
          1, G_MAXUINT64, DEFAULT_INTERVAL, flags));

  /**
   * GstCudaPrefixSum:post-messages:
   *
   * Post the statistics as element messages ("cudaprefixsum" for video,
   * "level" for audio).
   */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post the statistics as element messages", DEFAULT_POST_MESSAGES,
          flags));

  /**
   * GstCudaPrefixSum:attach-meta:
   *
   * With `output=passthrough`, attach each frame's integral images (and
   * of squares) to it as a GstCudaIntegralMeta, on the device when the
   * frames are in CUDA memory. Changes in the NULL or READY state only.
   */
  g_object_class_install_property (gobject_class, PROP_ATTACH_META,
      g_param_spec_boolean ("attach-meta", "Attach meta",
          "output=passthrough: attach the integral images "
          "(GstCudaIntegralMeta) to each frame", DEFAULT_ATTACH_META,
          flags | GST_PARAM_MUTABLE_READY));

  /**
   * GstCudaPrefixSum:grid-columns:
   *
   * Columns of the grid of regions whose means and variances the video
   * messages carry; 0 (with `grid-rows` 0) for none.
   */
  g_object_class_install_property (gobject_class, PROP_GRID_COLUMNS,
      g_param_spec_int ("grid-columns", "Grid columns",
          "Columns of the grid of regions whose means and variances the "
          "messages carry (0: no grid)", 0, MAX_GRID, DEFAULT_GRID, flags));

  /**
   * GstCudaPrefixSum:grid-rows:
   *
   * Rows of the grid of regions; 0 (with `grid-columns` 0) for none.
   */
  g_object_class_install_property (gobject_class, PROP_GRID_ROWS,
      g_param_spec_int ("grid-rows", "Grid rows",
          "Rows of the grid of regions (0: no grid)", 0, MAX_GRID,
          DEFAULT_GRID, flags));
}

/* Audio: the decaying peak of the level messages. */
static void
install_audio_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  /**
   * GstCudaPrefixSum:peak-ttl:
   *
   * Audio: how long the decaying peak holds before it falls, in ns; as
   * level's property of the same name.
   */
  g_object_class_install_property (gobject_class, PROP_PEAK_TTL,
      g_param_spec_uint64 ("peak-ttl", "Peak TTL",
          "Audio: time the decaying peak holds before falling, in ns", 0,
          G_MAXUINT64, DEFAULT_PEAK_TTL, flags));

  /**
   * GstCudaPrefixSum:peak-falloff:
   *
   * Audio: how fast the decaying peak falls once `peak-ttl` has passed, in
   * dB per second; as level's property of the same name.
   */
  g_object_class_install_property (gobject_class, PROP_PEAK_FALLOFF,
      g_param_spec_double ("peak-falloff", "Peak falloff",
          "Audio: how fast the decaying peak falls, in dB per second", 0.0,
          G_MAXDOUBLE, DEFAULT_PEAK_FALLOFF, flags));
}

/* The scan variant of the integral images on the GPU. */
static void
install_algorithm_property (GObjectClass * gobject_class)
{
  /**
   * GstCudaPrefixSum:algorithm:
   *
   * Video on the GPU: how the rows of the integral images are scanned:
   * `auto`, the tables built in bands of rows (each entry written once),
   * or one of the kernels/scan/scan.h variants run over the whole plane as
   * one array (then each row's start taken off), for comparing them. Every
   * choice gives the same tables. Changes in the NULL or READY state only.
   */
  gst_cuda_filter_base_class_install_enum (gobject_class, PROP_ALGORITHM,
      "algorithm", "Algorithm", "How the GPU scans the rows of the integral images",
      gst_cuda_prefix_sum_algorithm_get_type (), DEFAULT_ALGORITHM, GST_PARAM_MUTABLE_READY);
}

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

  install_video_properties (gobject_class);
  install_message_properties (gobject_class);
  install_audio_properties (gobject_class);
  install_algorithm_property (gobject_class);

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
  /* GAP buffers keep their flag: level statistics count them as silence */
  gst_base_transform_set_gap_aware (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_cuda_prefix_sum_finalize (GObject * object)
{
  g_free (GST_CUDA_PREFIX_SUM (object)->tables);
  gst_cuda_prefix_sum_audio_free (&GST_CUDA_PREFIX_SUM (object)->audio);
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
  w = GST_VIDEO_INFO_WIDTH (&self->info);
  h = GST_VIDEO_INFO_HEIGHT (&self->info);
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
  self->last_post = GST_CLOCK_TIME_NONE;
  return TRUE;
}

static void
gst_cuda_prefix_sum_stop (GstCudaFilterBase * base)
{
  GstCudaPrefixSum *self = GST_CUDA_PREFIX_SUM (base);
  gboolean cuda = gst_cuda_filter_base_uses_cuda (GST_CUDA_FILTER_BASE (self));

  /* first: queued level work may still read the device buffers */
  gst_cuda_prefix_sum_audio_free (&self->audio);
  if (cuda) {
    gst_cuda_strips_clear (&self->strips);
    gst_cuda_filter_base_free_device (&self->d_in);
    gst_cuda_filter_base_free_device (&self->d_out);
    gst_cuda_filter_base_free_device (&self->d_tables);
    gst_cuda_filter_base_free_device (&self->d_stats);
    gst_cuda_filter_base_free_device (&self->d_work);
    gst_cuda_filter_base_free_device (&self->d_scan);
  }
  g_clear_pointer (&self->table_pool, gst_cuda_table_pool_release);
  g_clear_pointer (&self->tables, g_free);
  GST_OBJECT_LOCK (self);
  self->started = FALSE;
  self->have_info = FALSE;
  self->have_audio = FALSE;
  GST_OBJECT_UNLOCK (self);
}

/* The channels measured: the colour components of packed RGB, else the
 * first component (grey or luma). */
static void
describe_channels (GstCudaPrefixSum * self, const GstVideoInfo * info)
{
  const GstVideoFormatInfo *f = info->finfo;
  gboolean rgb = GST_VIDEO_FORMAT_INFO_IS_RGB (f);
  gint bytes = GST_VIDEO_FORMAT_INFO_DEPTH (f, 0) > 8 ? 2 : 1;

  self->type = bytes == 2 ? CF_INTEGRAL_U16 : CF_INTEGRAL_U8;
  self->n_channels = rgb ? 3 : 1;
  for (guint c = 0; c < self->n_channels; c++) {
    GstCudaPrefixSumChannel *ch = &self->channels[c];
    ch->plane = GST_VIDEO_FORMAT_INFO_PLANE (f, c);
    ch->offset = GST_VIDEO_FORMAT_INFO_POFFSET (f, c);
    ch->step = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, c) / bytes;
    ch->sample = (gint) ch->offset / bytes;
  }
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
  gboolean attach, in_place;
  gchar *error;

  if (gst_structure_has_name (gst_caps_get_structure (incaps, 0),
          "audio/x-raw"))
    return set_audio_caps (self, incaps);
  GST_OBJECT_LOCK (self);
  self->have_audio = FALSE;
  GST_OBJECT_UNLOCK (self);
  if (!gst_video_info_from_caps (&info, incaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot measure caps %" GST_PTR_FORMAT ".", incaps), (NULL));
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  self->info = info;
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
  describe_channels (self, &info);
  /* passthrough measures in place, without the meta writing nothing; from
   * one memory type to the other it copies the frames */
  in_place = output == GST_CUDA_PREFIX_SUM_OUTPUT_PASSTHROUGH
      && gst_cuda_filter_caps_are_cuda (incaps)
      == gst_cuda_filter_caps_are_cuda (outcaps);
  gst_base_transform_set_in_place (trans, in_place);
  gst_base_transform_set_passthrough (trans, in_place && !attach);
  g_clear_pointer (&self->tables, g_free);
  g_clear_pointer (&self->table_pool, gst_cuda_table_pool_release);
  return TRUE;
}

/* ---- measuring -------------------------------------------------------------------- */

typedef struct
{
  GstCudaPrefixSumOutput output;
  gint radius;
  gdouble offset;
  gboolean post, attach;
  gint columns, rows;
  cf_scan_algorithm algorithm;
  gboolean squares;             /* the tables of squares are wanted */
} Settings;

/* Bytes of the tables of all channels: per channel its sums, then its
 * squares, as GstCudaIntegralMeta keeps them. */
static void
table_layout (GstCudaPrefixSum * self, gsize * sum_pitch, gsize * sq_pitch,
    gsize * per_channel)
{
  gint w = GST_VIDEO_INFO_WIDTH (&self->info);
  gint h = GST_VIDEO_INFO_HEIGHT (&self->info);

  /* rows of whole 8-byte words: every table (the squares' u64 after the
   * sums, the next channel's after those) starts 8-byte aligned, as the
   * GPU needs */
  *sum_pitch = GST_ROUND_UP_8 (((gsize) w + 1) * cf_integral_sum_size
      (self->type));
  *sq_pitch = ((gsize) w + 1) * 8;
  *per_channel = (*sum_pitch + *sq_pitch) * ((gsize) h + 1);
}

static cf_integral_layout
channel_layout (GstCudaPrefixSum * self, guint c, gsize in_pitch)
{
  gsize sum_pitch, sq_pitch, per;
  cf_integral_layout l = { 0 };

  table_layout (self, &sum_pitch, &sq_pitch, &per);
  l.type = self->type;
  l.width = GST_VIDEO_INFO_WIDTH (&self->info);
  l.height = GST_VIDEO_INFO_HEIGHT (&self->info);
  l.in_pitch = in_pitch;
  l.sum_pitch = sum_pitch;
  l.squares_pitch = sq_pitch;
  l.in_step = self->channels[c].step;
  return l;
}

static cf_reduce_layout
plane_reduce_layout (GstCudaPrefixSum * self, gsize pitch)
{
  cf_reduce_layout r;

  r.type = self->type == CF_INTEGRAL_U8 ? CF_REDUCE_U8 : CF_REDUCE_U16;
  r.width = GST_VIDEO_INFO_WIDTH (&self->info);
  r.rows = GST_VIDEO_INFO_HEIGHT (&self->info);
  r.channels = self->channels[0].step;
  r.pitch = pitch;
  return r;
}

static void
append_double (GValueArray * a, gdouble v)
{
  GValue value = G_VALUE_INIT;

  g_value_init (&value, G_TYPE_DOUBLE);
  g_value_set_double (&value, v);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  g_value_array_append (a, &value);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  g_value_unset (&value);
}

static void
set_array (GstStructure * s, const gchar * name, GValueArray * a)
{
  GValue v = G_VALUE_INIT;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  g_value_init (&v, g_value_array_get_type ());
  g_value_take_boxed (&v, a);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  gst_structure_take_value (s, name, &v);
}

/* The grid's means and variances, cell by cell (rows of cells, channels
 * within a cell), read from the host tables. */
static void
add_grid (GstCudaPrefixSum * self, GstStructure * msg,
    const GstCudaIntegralMeta * tables, const Settings * s)
{
  gint w = GST_VIDEO_INFO_WIDTH (&self->info);
  gint h = GST_VIDEO_INFO_HEIGHT (&self->info);
  GValueArray *gm, *gv;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  gm = g_value_array_new (s->columns * s->rows * self->n_channels);
  gv = g_value_array_new (s->columns * s->rows * self->n_channels);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  for (gint gy = 0; gy < s->rows; gy++)
    for (gint gx = 0; gx < s->columns; gx++) {
      guint x0 = (guint) ((gint64) gx * w / s->columns);
      guint x1 = (guint) ((gint64) (gx + 1) * w / s->columns);
      guint y0 = (guint) ((gint64) gy * h / s->rows);
      guint y1 = (guint) ((gint64) (gy + 1) * h / s->rows);
      for (guint c = 0; c < self->n_channels; c++) {
        gdouble m = 0, v = 0;
        gst_cuda_integral_meta_rect (tables, c, x0, y0, x1 - x0, y1 - y0,
            NULL, &m, &v);
        append_double (gm, m);
        append_double (gv, v);
      }
    }
  gst_structure_set (msg, "grid-columns", G_TYPE_INT, s->columns,
      "grid-rows", G_TYPE_INT, s->rows, NULL);
  set_array (msg, "grid-mean", gm);
  set_array (msg, "grid-variance", gv);
}

/* The element message of one frame; `tables` (a meta laid out over the
 * host tables) for the grid. */
static void
post_stats (GstCudaPrefixSum * self, GstBuffer * buf, const cf_stats * st,
    const GstCudaIntegralMeta * tables, const Settings * s)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstClockTime ts = GST_BUFFER_PTS (buf);
  gdouble n = (gdouble) GST_VIDEO_INFO_WIDTH (&self->info)
      * GST_VIDEO_INFO_HEIGHT (&self->info);
  GValueArray *mean, *var, *min, *max;
  GstStructure *msg;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  mean = g_value_array_new (self->n_channels);
  var = g_value_array_new (self->n_channels);
  min = g_value_array_new (self->n_channels);
  max = g_value_array_new (self->n_channels);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  for (guint c = 0; c < self->n_channels; c++) {
    const cf_stats *x = &st[self->channels[c].sample];
    gdouble mu = x->sum / n, v = x->sum_squares / n - mu * mu;
    append_double (mean, mu);
    append_double (var, v > 0 ? v : 0);
    append_double (min, x->min);
    append_double (max, x->max);
  }
  msg = gst_structure_new ("cudaprefixsum",
      "timestamp", G_TYPE_UINT64, ts,
      "stream-time", G_TYPE_UINT64, gst_segment_to_stream_time
      (&trans->segment, GST_FORMAT_TIME, ts),
      "running-time", G_TYPE_UINT64, gst_segment_to_running_time
      (&trans->segment, GST_FORMAT_TIME, ts),
      "duration", G_TYPE_UINT64, GST_BUFFER_DURATION (buf),
      "channels", G_TYPE_INT, self->n_channels, NULL);
  set_array (msg, "mean", mean);
  set_array (msg, "variance", var);
  set_array (msg, "min", min);
  set_array (msg, "max", max);
  if (tables && s->columns > 0 && s->rows > 0)
    add_grid (self, msg, tables, s);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), msg));
}

/* Whether this frame posts: the first, then one per `interval`. */
static gboolean
time_to_post (GstCudaPrefixSum * self, GstBuffer * buf, guint64 interval)
{
  GstClockTime rt = gst_segment_to_running_time
      (&GST_BASE_TRANSFORM (self)->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf));

  if (GST_CLOCK_TIME_IS_VALID (self->last_post)
      && GST_CLOCK_TIME_IS_VALID (rt) && rt < self->last_post + interval
      && rt >= self->last_post)
    return FALSE;
  self->last_post = GST_CLOCK_TIME_IS_VALID (rt) ? rt : 0;
  return TRUE;
}

/* The shape of the tables a meta describes. */
static void
describe_tables (GstCudaPrefixSum * self, GstCudaIntegralMeta * view)
{
  gsize sum_pitch, sq_pitch, per;

  table_layout (self, &sum_pitch, &sq_pitch, &per);
  view->width = GST_VIDEO_INFO_WIDTH (&self->info);
  view->height = GST_VIDEO_INFO_HEIGHT (&self->info);
  view->n_channels = self->n_channels;
  view->sum_bytes = (guint) cf_integral_sum_size (self->type);
  view->sums_stride = sum_pitch;
  view->squares_stride = sq_pitch;
}

/* The host tables: a meta's block (attached to `buf`, which must be
 * writable: before its frame is mapped) or the element's, described by the
 * returned meta or by `storage`. */
static GstCudaIntegralMeta *
host_tables (GstCudaPrefixSum * self, GstBuffer * buf, gboolean attach,
    GstCudaIntegralMeta * storage)
{
  GstCudaIntegralMeta *view = storage;
  gsize sum_pitch, sq_pitch, per;
  gpointer block;

  table_layout (self, &sum_pitch, &sq_pitch, &per);
  if (attach) {
    block = g_malloc (per * self->n_channels);
    view = gst_buffer_add_cuda_integral_meta (buf, block);
    if (!view)
      return NULL;
  } else {
    if (!self->tables)
      self->tables = g_malloc (per * self->n_channels);
    block = self->tables;
    view->host_ready = 1;
  }
  describe_tables (self, view);
  for (guint c = 0; c < self->n_channels; c++) {
    view->sums[c] = (const guint8 *) block + c * per;
    view->squares[c] = view->sums[c] + sum_pitch * (view->height + 1);
  }
  return view;
}

/* map_host of a meta whose tables are on the device. */
static gboolean
map_device_tables (gpointer meta)
{
  GstCudaIntegralMeta *m = meta;
  GstCudaTableBlock *block = m->data;
  const guint8 *host = gst_cuda_table_block_host (block);

  if (!host)
    return FALSE;
  for (guint c = 0; c < m->n_channels; c++) {
    m->sums[c] = host + (m->device_sums[c] - (guintptr) block->device);
    m->squares[c] = host + (m->device_squares[c] - (guintptr) block->device);
  }
  g_atomic_int_set (&m->host_ready, 1);
  return TRUE;
}

/* GPU: the tables stay on the device, in a block of the element's pool
 * that travels on `buf` in the meta (attached before the frame is mapped,
 * while the buffer is writable). */
static GstCudaIntegralMeta *
device_tables (GstCudaPrefixSum * self, GstBuffer * buf,
    GstCudaTableBlock ** block)
{
  GstCudaFilterDevice *device =
      gst_cuda_filter_base_device (GST_CUDA_FILTER_BASE (self));
  GstCudaIntegralMeta *view;
  gsize sum_pitch, sq_pitch, per;
  int status;

  table_layout (self, &sum_pitch, &sq_pitch, &per);
  if (!self->table_pool)
    self->table_pool = gst_cuda_table_pool_new (device,
        per * self->n_channels);
  *block = gst_cuda_table_pool_acquire (self->table_pool, &status);
  if (!GST_CUDA_FILTER_CHECK (self, status, "allocating integral tables"))
    return NULL;
  view = gst_buffer_add_cuda_integral_meta_device (buf, *block,
      (GDestroyNotify) gst_cuda_table_block_release, map_device_tables);
  if (!view)
    return NULL;
  describe_tables (self, view);
  for (guint c = 0; c < self->n_channels; c++) {
    guintptr sums = (guintptr) (*block)->device + c * per;
    view->device_sums[c] = sums;
    view->device_squares[c] = sums + sum_pitch * (view->height + 1);
  }
#ifdef HAVE_GST_CUDA
  view->cuda_context = gst_cuda_filter_device_context (device);
#endif
  view->cuda_device = gst_cuda_filter_device_id (device);
  view->cuda_event = (*block)->written;
  return view;
}

static cf_box_params
box_params (const Settings * s, gsize pitch, gint step)
{
  cf_box_params p = { 0 };

  p.radius = s->radius;
  p.threshold = s->output == GST_CUDA_PREFIX_SUM_OUTPUT_ADAPTIVE_THRESHOLD;
  p.offset = s->offset;
  p.out_pitch = pitch;
  p.out_step = step;
  return p;
}

/* Box means straight from the frame, with no tables (boxmean.h's
 * cf_box_direct_cuda): one launch rather than five, for radii up to
 * CF_BOX_DIRECT_MAX_RADIUS, when the tables' scan is the element's own
 * (`algorithm=auto`; the others are there to be compared on tables) and
 * the tables do not leave with the frame. */
static gboolean
box_direct (GstCudaPrefixSum * self, const Settings * s)
{
  return s->radius <= CF_BOX_DIRECT_MAX_RADIUS
      && s->algorithm == CF_SCAN_AUTO
      && self->n_channels <= CF_BOX_DIRECT_MAX_CHANNELS;
}

/* `view`: where the tables go on the host (NULL: nowhere). */
static GstFlowReturn
process_cpu (GstCudaPrefixSum * self, GstVideoFrame * in, GstVideoFrame * out,
    GstBuffer * buf, GstCudaIntegralMeta * view, const Settings * s,
    gboolean post)
{
  const GstCudaPrefixSumChannel *ch0 = &self->channels[0];
  gsize pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in, ch0->plane);
  const guint8 *plane = GST_VIDEO_FRAME_PLANE_DATA (in, ch0->plane);
  cf_reduce_layout rl = plane_reduce_layout (self, pitch);
  cf_stats stats[4];

  if (post && cf_reduce_cpu (&rl, plane, stats) != CF_OK)
    goto failed;
  if (view) {
    for (guint c = 0; c < self->n_channels; c++) {
      cf_integral_layout l = channel_layout (self, c, pitch);
      if (cf_integral_cpu (&l, plane + self->channels[c].offset,
              (gpointer) view->sums[c], s->squares ? (gpointer)
              view->squares[c] : NULL) != CF_OK)
        goto failed;
    }
  }
  if (out) {
    gst_video_frame_copy (out, in);
    for (guint c = 0; s->output != GST_CUDA_PREFIX_SUM_OUTPUT_PASSTHROUGH
        && c < self->n_channels; c++) {
      cf_integral_layout l = channel_layout (self, c, pitch);
      cf_box_params p = box_params (s, GST_VIDEO_FRAME_PLANE_STRIDE (out,
              ch0->plane), self->channels[c].step);
      guint8 *dst = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out, ch0->plane)
          + self->channels[c].offset;
      if (cf_box_cpu (&l, plane + self->channels[c].offset, view->sums[c],
              &p, dst) != CF_OK)
        goto failed;
    }
  }
  if (post)
    post_stats (self, buf, stats, view, s);
  return GST_FLOW_OK;

failed:
  GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
      ("the CPU kernels refused the frame"));
  return GST_FLOW_ERROR;
}

/* A frame on the GPU side: its planes and whether they are device memory
 * (CUDA memory of the element's context) or host memory. */
typedef struct
{
  GstVideoFrame *frame;
  gboolean on_device;
} Side;

/* Copies plane `p` from `in` to `out` on `stream`, or on the CPU when both
 * are in host memory. */
static int
copy_plane (const Side * in, const Side * out, guint p, cf_stream stream)
{
  static const cf_copy_kind kinds[2][2] = {
    {CF_COPY_HOST_TO_DEVICE, CF_COPY_HOST_TO_DEVICE},
    {CF_COPY_DEVICE_TO_HOST, CF_COPY_DEVICE_TO_DEVICE},
  };
  const GstVideoInfo *info = &in->frame->info;
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gsize row_bytes;

  if (!in->on_device && !out->on_device)
    return gst_video_frame_copy_plane (out->frame, in->frame, p)
        ? CF_OK : CF_ERR_INVALID;
  gst_video_format_info_component (info->finfo, p, comp);
  row_bytes = (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0])
      * GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
  return cf_gpu_copy_2d (GST_VIDEO_FRAME_PLANE_DATA (out->frame, p),
      GST_VIDEO_FRAME_PLANE_STRIDE (out->frame, p),
      GST_VIDEO_FRAME_PLANE_DATA (in->frame, p),
      GST_VIDEO_FRAME_PLANE_STRIDE (in->frame, p), row_bytes,
      GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]), kinds[in->on_device]
      [out->on_device], stream);
}

/* Device buffers of the element for this frame: the input and output
 * planes when they come in host memory, the tables when no pooled block
 * holds them, the statistics and the workspaces. */
static gboolean
ensure_workspace (GstCudaPrefixSum * self, const Side * in, const Side * out,
    gboolean tables, GstCudaTableBlock * block, const Settings * s)
{
  GstCudaFilterBase *base = GST_CUDA_FILTER_BASE (self);
  guint plane = self->channels[0].plane;
  gsize pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in->frame, plane);
  gsize out_pitch = out ? GST_VIDEO_FRAME_PLANE_STRIDE (out->frame, plane) : 0;
  gint h = GST_VIDEO_INFO_HEIGHT (&self->info);
  cf_reduce_layout rl = plane_reduce_layout (self, pitch);
  gsize sum_pitch, sq_pitch, per;

  table_layout (self, &sum_pitch, &sq_pitch, &per);
  if ((!in->on_device && !gst_cuda_filter_base_ensure_device (base,
              &self->d_in, pitch * h))
      || (tables && !block && !gst_cuda_filter_base_ensure_device (base,
              &self->d_tables, per * self->n_channels))
      || !gst_cuda_filter_base_ensure_device (base, &self->d_stats,
          sizeof (cf_stats) * 4)
      || !gst_cuda_filter_base_ensure_device (base, &self->d_work,
          MAX (cf_reduce_workspace_size (&rl), 256))
      || (out && !out->on_device && !gst_cuda_filter_base_ensure_device (base,
              &self->d_out, out_pitch * h)))
    return FALSE;
  if (tables && s->algorithm != CF_SCAN_AUTO) {
    cf_integral_layout l = channel_layout (self, 0, pitch);
    void *before = self->d_scan.ptr;
    if (!gst_cuda_filter_base_ensure_device (base, &self->d_scan,
            cf_integral_scan_workspace_size (&l, s->algorithm)))
      return FALSE;
    /* a new scan workspace starts zeroed (scan.h), on the stream the
     * scans run on, ahead of them */
    if (self->d_scan.ptr != before
        && !gst_cuda_filter_base_check (base, cf_gpu_memset (self->d_scan.ptr,
                0, self->d_scan.size, gst_cuda_filter_base_streams
                (base)->compute), "clearing the scan workspace"))
      return FALSE;
  }
  return TRUE;
}

/* The integral tables of every channel, from the plane at d_in. */
static int
queue_tables (GstCudaPrefixSum * self, const guint8 * d_in, gsize pitch,
    guint8 * d_tables, const Settings * s, cf_stream stream)
{
  gint h = GST_VIDEO_INFO_HEIGHT (&self->info);
  gsize sum_pitch, sq_pitch, per;
  int st = CF_OK;

  table_layout (self, &sum_pitch, &sq_pitch, &per);
  for (guint c = 0; c < self->n_channels && st == CF_OK; c++) {
    cf_integral_layout l = channel_layout (self, c, pitch);
    const guint8 *src = d_in + self->channels[c].offset;
    guint8 *sums = d_tables + c * per;
    guint8 *squares = s->squares ? sums + sum_pitch * (h + 1) : NULL;
    st = s->algorithm == CF_SCAN_AUTO
        ? cf_integral_cuda (&l, src, sums, squares, stream)
        : cf_integral_cuda_with_scan (&l, s->algorithm, src, sums, squares,
        self->d_scan.ptr, stream);
  }
  return st;
}

/* The measured channels as one layout of consecutive samples (the colours
 * of packed RGB, whatever their order, or the one grey or luma channel),
 * whose tables and box filter take one set of launches for them all;
 * *first: the sample the run starts at. FALSE when they are not
 * consecutive. */
static gboolean
channels_layout (GstCudaPrefixSum * self, gsize pitch, gsize per,
    cf_integral_layout * l, gint * first)
{
  gint lo = G_MAXINT, hi = -1;

  for (guint c = 0; c < self->n_channels; c++) {
    lo = MIN (lo, self->channels[c].sample);
    hi = MAX (hi, self->channels[c].sample);
  }
  *l = channel_layout (self, 0, pitch);
  l->channels = self->n_channels;
  l->channel_stride = per;
  *first = lo;
  return hi - lo + 1 == (gint) self->n_channels;
}

/* The frame that leaves: box-filtered (`box`: from the tables, or from
 * the plane when `d_tables` is NULL) or the measured plane as it came,
 * and the other planes copied. */
static int
queue_output (GstCudaPrefixSum * self, const Side * in, const Side * out,
    const guint8 * d_in, const guint8 * d_tables, gboolean box,
    const Settings * s, cf_stream stream)
{
  const GstCudaPrefixSumChannel *ch0 = &self->channels[0];
  guint plane = ch0->plane;
  gsize pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in->frame, plane);
  gsize out_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (out->frame, plane);
  gint h = GST_VIDEO_INFO_HEIGHT (&self->info);
  gsize row_bytes = (gsize) GST_VIDEO_INFO_WIDTH (&self->info)
      * GST_VIDEO_INFO_COMP_PSTRIDE (&self->info, 0);
  gsize sum_pitch, sq_pitch, per;
  guint8 *d_out = out->on_device ? GST_VIDEO_FRAME_PLANE_DATA (out->frame,
      plane) : self->d_out.ptr;
  cf_integral_layout all;
  gint lo;
  int st = CF_OK;

  table_layout (self, &sum_pitch, &sq_pitch, &per);
  if (box && !d_tables && channels_layout (self, pitch, 0, &all, &lo)) {
    /* every channel by one launch, the unmeasured samples (alpha) copied
     * by it */
    gsize sample = cf_integral_in_size (self->type);
    cf_box_params p = box_params (s, out_pitch, ch0->step);
    p.copy_others = ch0->step > (gint) self->n_channels;
    p.pixel_start = lo;
    st = cf_box_direct_cuda (&all, d_in + lo * sample, &p,
        d_out + lo * sample, stream);
  } else {
    /* unmeasured samples (alpha), or the whole plane, as they came */
    if (!box || ch0->step > 1)
      st = cf_gpu_copy_2d (d_out, out_pitch, d_in, pitch, row_bytes, h,
          CF_COPY_DEVICE_TO_DEVICE, stream);
    for (guint c = 0; box && c < self->n_channels && st == CF_OK; c++) {
      cf_integral_layout l = channel_layout (self, c, pitch);
      cf_box_params p = box_params (s, out_pitch, self->channels[c].step);
      const guint8 *from = d_in + self->channels[c].offset;
      guint8 *to = d_out + self->channels[c].offset;
      st = d_tables ? cf_box_cuda (&l, from, d_tables + c * per, &p, to,
          stream) : cf_box_direct_cuda (&l, from, &p, to, stream);
    }
  }
  if (st == CF_OK && !out->on_device)
    st = cf_gpu_copy_2d (GST_VIDEO_FRAME_PLANE_DATA (out->frame, plane),
        out_pitch, d_out, out_pitch, row_bytes, h, CF_COPY_DEVICE_TO_HOST,
        stream);
  /* the other planes (chroma) as they came */
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in->frame) && st == CF_OK;
      p++)
    if (p != plane)
      st = copy_plane (in, out, p, stream);
  return st;
}

/* Box means (or thresholds) of a frame in host memory, in strips
 * (gstcudastrips.h): while one strip is uploaded, the next is filtered and
 * a third downloaded. Each strip's tables are made from its own rows and
 * the halo its radius reaches (boxmean.h's `table_row`), so that a strip
 * waits for no other strip's tables; the halo rows are summed twice, once
 * for each strip they reach, and strips are kept at least twice the
 * radius high so that this stays at most as much again. */
typedef struct
{
  GstCudaPrefixSum *self;
  const Settings *s;
  const guint8 *d_in;
  guint8 *d_out, *d_tables;
  gsize pitch, out_pitch;
} BoxStrips;

static int
box_strip (gpointer user, gint row_begin, gint row_end, cf_stream stream)
{
  const BoxStrips *b = user;
  GstCudaPrefixSum *self = b->self;
  gint h = GST_VIDEO_INFO_HEIGHT (&self->info), r = b->s->radius;
  gint first = MAX (0, row_begin - r), last = MIN (h, row_end + r);
  gsize sample = cf_integral_in_size (self->type);
  gsize sum_pitch, sq_pitch, per;
  cf_integral_layout l, rows;
  cf_box_params p;
  const guint8 *in;
  gint lo;
  int st;

  table_layout (self, &sum_pitch, &sq_pitch, &per);
  if (!channels_layout (self, b->pitch, per, &l, &lo))
    return CF_ERR_UNSUPPORTED;
  rows = l;
  rows.height = last - first;
  p = box_params (b->s, b->out_pitch, self->channels[0].step);
  p.row_begin = row_begin;
  p.row_end = row_end;
  p.table_row = first;
  /* unmeasured samples (alpha) as they came, by the same kernel */
  p.copy_others = self->channels[0].step > (gint) self->n_channels;
  p.pixel_start = lo;
  in = b->d_in + lo * sample;
  if (box_direct (self, b->s))
    return cf_box_direct_cuda (&l, in, &p, b->d_out + lo * sample, stream);
  st = cf_integral_cuda (&rows, in + first * b->pitch, b->d_tables, NULL,
      stream);
  if (st == CF_OK)
    st = cf_box_cuda (&l, in, b->d_tables, &p, b->d_out + lo * sample,
        stream);
  return st;
}

static gint
box_strip_last_read (gpointer user, gint row_begin G_GNUC_UNUSED,
    gint row_end)
{
  const BoxStrips *b = user;

  return MIN (GST_VIDEO_INFO_HEIGHT (&b->self->info), row_end
      + b->s->radius) - 1;
}

static gboolean
consecutive_channels (GstCudaPrefixSum * self)
{
  cf_integral_layout l;
  gint first;

  return channels_layout (self, 0, 0, &l, &first);
}

static GstFlowReturn
process_cuda_box_strips (GstCudaPrefixSum * self, const Side * in,
    const Side * out, GstBuffer * buf, const Settings * s, gboolean post)
{
  GstCudaFilterBase *base = GST_CUDA_FILTER_BASE (self);
  const GstCudaStreams *streams = gst_cuda_filter_base_streams (base);
  guint plane = self->channels[0].plane;
  gsize pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in->frame, plane);
  cf_reduce_layout rl = plane_reduce_layout (self, pitch);
  GstCudaPlaneCopy copy = { 0 };
  BoxStrips job;
  cf_stats stats[4];
  int st;

  if (!ensure_workspace (self, in, out, !box_direct (self, s), NULL, s)
      || !GST_CUDA_FILTER_CHECK (self, gst_cuda_strips_init (&self->strips),
          "creating events"))
    return GST_FLOW_ERROR;
  job.self = self;
  job.s = s;
  job.d_in = self->d_in.ptr;
  job.d_out = self->d_out.ptr;
  job.d_tables = self->d_tables.ptr;
  job.pitch = pitch;
  job.out_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (out->frame, plane);
  copy.src = GST_VIDEO_FRAME_PLANE_DATA (in->frame, plane);
  copy.src_stride = pitch;
  copy.dst = GST_VIDEO_FRAME_PLANE_DATA (out->frame, plane);
  copy.dst_stride = job.out_pitch;
  copy.d_src = self->d_in.ptr;
  copy.d_src_stride = pitch;
  copy.d_dst = self->d_out.ptr;
  copy.d_dst_stride = job.out_pitch;
  copy.row_bytes = (gsize) GST_VIDEO_INFO_WIDTH (&self->info)
      * GST_VIDEO_INFO_COMP_PSTRIDE (&self->info, 0);
  copy.height = GST_VIDEO_INFO_HEIGHT (&self->info);
  copy.min_rows = 2 * s->radius;
  st = gst_cuda_strips_enqueue (&self->strips, streams, &copy, box_strip,
      box_strip_last_read, &job);
  /* the statistics, once the last strip (and so every row) is up */
  if (st == CF_OK && post)
    st = cf_reduce_cuda (&rl, self->d_in.ptr, self->d_stats.ptr,
        self->d_work.ptr, streams->compute);
  if (st == CF_OK && post)
    st = cf_gpu_copy_2d (stats, sizeof (stats), self->d_stats.ptr,
        sizeof (stats), sizeof (cf_stats) * rl.channels, 1,
        CF_COPY_DEVICE_TO_HOST, streams->compute);
  /* the other planes (chroma) as they came, while the GPU works */
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in->frame) && st == CF_OK;
      p++)
    if (p != plane)
      st = copy_plane (in, out, p, streams->compute);
  if (!GST_CUDA_FILTER_CHECK (self, st, "filtering a frame")
      || !gst_cuda_filter_base_sync (base))
    return GST_FLOW_ERROR;
  if (post)
    post_stats (self, buf, stats, NULL, s);
  return GST_FLOW_OK;
}

/* `view`: where the tables go (a meta over `block` when they stay on the
 * device, else host tables; NULL: nowhere). `out`: the frame written, by
 * the box filter or, in passthrough from one memory type to the other, as
 * a copy. */
static GstFlowReturn
process_cuda (GstCudaPrefixSum * self, const Side * in, const Side * out,
    GstBuffer * buf, GstCudaIntegralMeta * view, GstCudaTableBlock * block,
    const Settings * s, gboolean post)
{
  GstCudaFilterBase *base = GST_CUDA_FILTER_BASE (self);
  cf_stream stream = gst_cuda_filter_base_streams (base)->compute;
  guint plane = self->channels[0].plane;
  gsize pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in->frame, plane);
  gsize row_bytes = (gsize) GST_VIDEO_INFO_WIDTH (&self->info)
      * GST_VIDEO_INFO_COMP_PSTRIDE (&self->info, 0);
  gsize tables_bytes, sum_pitch, sq_pitch;
  gboolean box = out && s->output != GST_CUDA_PREFIX_SUM_OUTPUT_PASSTHROUGH;
  gboolean direct = box && !view && box_direct (self, s);
  gboolean tables = view || (box && !direct);
  cf_reduce_layout rl = plane_reduce_layout (self, pitch);
  cf_stats stats[4];
  const guint8 *d_in;
  guint8 *d_tables;
  int st = CF_OK;

  /* box means of frames in host memory, tables by bands: in strips */
  if (box && !view && !in->on_device && !out->on_device
      && s->algorithm == CF_SCAN_AUTO && consecutive_channels (self))
    return process_cuda_box_strips (self, in, out, buf, s, post);
  table_layout (self, &sum_pitch, &sq_pitch, &tables_bytes);
  tables_bytes *= self->n_channels;
  if (!ensure_workspace (self, in, out, tables, block, s))
    return GST_FLOW_ERROR;
  d_tables = block ? block->device : self->d_tables.ptr;
  if (in->on_device) {
    d_in = GST_VIDEO_FRAME_PLANE_DATA (in->frame, plane);
  } else {
    d_in = self->d_in.ptr;
    st = cf_gpu_copy_2d (self->d_in.ptr, pitch,
        GST_VIDEO_FRAME_PLANE_DATA (in->frame, plane), pitch, row_bytes,
        GST_VIDEO_INFO_HEIGHT (&self->info), CF_COPY_HOST_TO_DEVICE, stream);
  }
  if (st == CF_OK && post)
    st = cf_reduce_cuda (&rl, d_in, self->d_stats.ptr, self->d_work.ptr,
        stream);
  if (st == CF_OK && tables)
    st = queue_tables (self, d_in, pitch, d_tables, s, stream);
  if (st == CF_OK && block)
    st = cf_gpu_event_record (block->written, stream);
  if (st == CF_OK && out)
    st = queue_output (self, in, out, d_in, tables ? d_tables : NULL, box,
        s, stream);
  /* what the host reads: the statistics, the host tables */
  if (st == CF_OK && post)
    st = cf_gpu_copy_2d (stats, sizeof (stats), self->d_stats.ptr,
        sizeof (stats), sizeof (cf_stats) * rl.channels, 1,
        CF_COPY_DEVICE_TO_HOST, stream);
  if (st == CF_OK && view && !block)
    st = cf_gpu_copy_2d ((gpointer) view->sums[0], tables_bytes, d_tables,
        tables_bytes, tables_bytes, 1, CF_COPY_DEVICE_TO_HOST, stream);
  if (!GST_CUDA_FILTER_CHECK (self, st, "measuring a frame"))
    return GST_FLOW_ERROR;
  /* the statistics are read now; otherwise only what leaves must be done */
  if (!(post ? gst_cuda_filter_base_sync (base)
          : gst_cuda_filter_base_finish (base, in->frame->buffer,
              out ? out->frame->buffer : in->frame->buffer)))
    return GST_FLOW_ERROR;
  if (post)
    post_stats (self, buf, stats, view, s);
  return GST_FLOW_OK;
}

/* Maps `buffer` for the GPU path (device pointers for CUDA memory of the
 * element's context) or the CPU path. */
static gboolean
map_side (GstCudaPrefixSum * self, Side * side, GstVideoFrame * frame,
    GstBuffer * buffer, GstMapFlags flags, gboolean cuda)
{
  side->frame = frame;
  side->on_device = FALSE;
  if (!cuda)
    return gst_video_frame_map (frame, &self->info, buffer, flags);
  if (!gst_cuda_filter_base_is_device_buffer (GST_CUDA_FILTER_BASE (self),
          buffer))
    gst_cuda_pin_buffer (buffer);
  return gst_cuda_filter_base_map_frame (GST_CUDA_FILTER_BASE (self), frame,
      &self->info, buffer, flags, &side->on_device);
}

/* The properties for this frame, read once; TRUE when it posts its
 * statistics. `buf` is the buffer that leaves. */
static gboolean
read_settings (GstCudaPrefixSum * self, GstBuffer * inbuf, GstBuffer * buf,
    Settings * s)
{
  guint64 interval;
  gboolean post;

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
  interval = self->interval;
  GST_OBJECT_UNLOCK (self);
  post = s->post && time_to_post (self, inbuf, interval);
  /* variances need the squares; box means do not */
  s->squares = s->attach || (post && s->columns > 0);
  return post;
}

static GstFlowReturn
measure (GstCudaPrefixSum * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstVideoFrame in_frame, out_frame;
  Side in, out;
  GstFlowReturn ret;
  Settings s;
  gboolean post, cuda;
  GstBuffer *buf = outbuf ? outbuf : inbuf;     /* the one that leaves */
  GstCudaIntegralMeta storage = { 0 }, *view = NULL;
  GstCudaTableBlock *block = NULL;

  if (!self->have_info) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("buffer before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  post = read_settings (self, inbuf, buf, &s);
  cuda = gst_cuda_filter_base_uses_cuda (GST_CUDA_FILTER_BASE (self));

  /* tables for the meta, the grid, or (CPU) the box filter; the meta is
   * added before the frame is mapped, while the buffer is writable */
  if (cuda && s.attach)
    view = device_tables (self, buf, &block);
  else if (s.attach || (post && s.columns > 0) || (!cuda
          && s.output != GST_CUDA_PREFIX_SUM_OUTPUT_PASSTHROUGH))
    view = host_tables (self, buf, s.attach, &storage);
  if ((s.attach || (post && s.columns > 0)) && !view) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("cannot attach the integral image meta"));
    return GST_FLOW_ERROR;
  }
  if (!map_side (self, &in, &in_frame, inbuf, GST_MAP_READ, cuda))
    goto map_failed;
  if (outbuf && !map_side (self, &out, &out_frame, outbuf, GST_MAP_WRITE,
          cuda)) {
    gst_video_frame_unmap (&in_frame);
    goto map_failed;
  }
  if (cuda)
    ret = process_cuda (self, &in, outbuf ? &out : NULL, buf, view, block,
        &s, post);
  else
    ret = process_cpu (self, &in_frame, outbuf ? &out_frame : NULL, buf,
        view, &s, post);
  if (outbuf)
    gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  return ret;

map_failed:
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot map a video frame."),
      (NULL));
  return GST_FLOW_ERROR;
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

  if (!self->have_audio)
    return measure (self, buf, NULL);
  audio_settings (self, &set);
  return gst_cuda_prefix_sum_audio_measure (&self->audio, buf, &set);
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
    if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
      gst_cuda_prefix_sum_audio_finish (&self->audio, set.post);
    else if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
      gst_cuda_prefix_sum_audio_flush (&self->audio);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}
