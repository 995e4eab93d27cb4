/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum's properties: see gstcudaprefixsumprops.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "boxmean.h"
#include "gstcudaprefixsumprops.h"
#include "gstcudaprefixsumvideo.h"

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

/* Video: what comes out (frames, box means, thresholds) and the statistics
 * messages and tables. */
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
   * GstCudaPrefixSum:loudness:
   *
   * Audio: also measure loudness as ITU-R BS.1770-4 and EBU R128 define it
   * and post it every `interval` as `ebur128-level` element messages, with
   * the fields of GStreamer's ebur128level: momentary-loudness,
   * shortterm-loudness, global-loudness and relative-threshold (LUFS),
   * loudness-range (LU), sample-peak and true-peak (linear, an array of
   * one value a channel), timestamp, running-time and stream-time (the
   * end of the interval). Channels count by their positions (LFE not at
   * all, surround, rear and side pairs +1.5 dB, mono twice). Turned on
   * while playing, the measure starts there; a flush starts it again.
   * The level messages go on as before.
   */
  g_object_class_install_property (gobject_class, PROP_LOUDNESS,
      g_param_spec_boolean ("loudness", "Loudness",
          "Audio: also post EBU R128 loudness (ebur128-level messages)",
          DEFAULT_LOUDNESS, flags));

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
      "algorithm", "Algorithm",
      "How the GPU scans the rows of the integral images",
      gst_cuda_prefix_sum_algorithm_get_type (), DEFAULT_ALGORITHM,
      GST_PARAM_MUTABLE_READY);
}

void
gst_cuda_prefix_sum_install_properties (GObjectClass * gobject_class)
{
  install_video_properties (gobject_class);
  install_message_properties (gobject_class);
  install_audio_properties (gobject_class);
  install_algorithm_property (gobject_class);
}
