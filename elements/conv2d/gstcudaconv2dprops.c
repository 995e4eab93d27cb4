/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GStreamer CUDA filters: cudaconv2d's properties, their documentation and
 * their enum types. The element stores and reads them (gstcudaconv2d.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaconv2dprops.h"
#include "gstcudaconv2droi.h"
#include "gstcudafilterbase.h"

GType
gst_cuda_conv2d_algorithm_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CF_CONV2D_AUTO, "The fastest variant for the mask", "auto"},
    {CF_CONV2D_BASIC, "One thread per pixel, global memory", "basic"},
    {CF_CONV2D_TILED, "Input tile and halo in shared memory", "tiled"},
    {CF_CONV2D_CACHED, "Output tile in shared memory, halo from the cache",
        "cached"},
    {CF_CONV2D_FAST, "Tiled, coarsened, register sliding window", "fast"},
    {CF_CONV2D_SEPARABLE, "Row pass then column pass (rank-1 masks)",
        "separable"},
    {CF_CONV2D_WIDE, "16-byte words in registers, no shared memory "
          "(masks 3x3 to 5x5)", "wide"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaConv2dAlgorithm", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_cuda_conv2d_planes_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_CONV2D_PLANES_LUMA, "YUV: the luma plane only", "luma"},
    {GST_CUDA_CONV2D_PLANES_ALL, "YUV: every plane, chroma at its own "
          "resolution", "all"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaConv2dPlanes", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* The mask: written out, or a preset and its size and sigma. */
void
gst_cuda_conv2d_install_mask_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  /**
   * GstCudaConv2d:kernel:
   *
   * The mask: numbers separated by spaces or commas, rows separated by `;`,
   * e.g. "1 2 1; 2 4 2; 1 2 1". Every row has the same length; width and
   * height are odd, at most 31, or up to 1023 for a mask of one row (a
   * horizontal filter) or one column (a vertical one); the anchor is the
   * centre. When set, it is used instead of `preset`.
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV2D_PROP_KERNEL,
      g_param_spec_string ("kernel", "Kernel",
          "Mask as rows of numbers separated by ';' (e.g. \"1 2 1; 2 4 2; "
          "1 2 1\"), odd width and height up to 31, or one row or column "
          "up to 1023; overrides preset",
          GST_CUDA_CONV2D_DEFAULT_KERNEL, flags));

  /**
   * GstCudaConv2d:mask-location:
   *
   * A file holding the mask, used when `kernel` is empty (and instead of
   * `preset`): a PGM image (P2 or P5, 8 or 16 bits) or a PNG (read with
   * GStreamer's pngdec; colours as their luma), whose samples are the taps,
   * or text: rows of numbers, a row a line. The same sizes as `kernel`;
   * divided by the sum of the taps unless `divisor` says otherwise. The
   * file is read when the property is set.
   */
  g_object_class_install_property (gobject_class,
      GST_CUDA_CONV2D_PROP_MASK_LOCATION,
      g_param_spec_string ("mask-location", "Mask location",
          "File of the mask (PGM, PNG or rows of text), used when kernel is "
          "empty; read when set", NULL, flags));

  /**
   * GstCudaConv2d:preset:
   *
   * A ready-made mask, used when `kernel` and `mask-location` are empty.
   * `box`, `gaussian` and
   * `unsharp` take `size` (and `sigma` for the last two); the others are
   * 3x3. `none` with no kernel copies the frames (identity mask).
   */
  gst_cuda_filter_base_class_install_enum (gobject_class,
      GST_CUDA_CONV2D_PROP_PRESET,
      "preset", "Preset", "Ready-made mask, used when kernel is empty",
      GST_TYPE_CUDA_CONV2D_PRESET, GST_CUDA_CONV2D_DEFAULT_PRESET, 0);

  /**
   * GstCudaConv2d:size:
   *
   * Odd width and height of the box, gaussian and unsharp presets: up to
   * 1023 for box and gaussian, 31 for unsharp. 0 picks 3 for box and
   * 2 * ceil(3 sigma) + 1 for the Gaussians (at most 31 for unsharp).
   * Masks above 31 run as a row pass and a column pass at a cost that
   * grows little with the size (see the element's documentation).
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV2D_PROP_SIZE,
      g_param_spec_int ("size", "Size",
          "Odd size of the box/gaussian presets up to 1023, unsharp up to 31 "
          "(0 = automatic)",
          0, CF_CONV2D_MAX_FACTOR, GST_CUDA_CONV2D_DEFAULT_SIZE, flags));

  /**
   * GstCudaConv2d:sigma:
   *
   * Standard deviation, in pixels, of the gaussian and unsharp presets, up
   * to 170 (whose automatic mask, 2 * ceil(3 sigma) + 1 = 1021 taps a
   * side, is the largest below 1023).
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV2D_PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Standard deviation in pixels of the gaussian/unsharp presets",
          0.05, 170.0, GST_CUDA_CONV2D_DEFAULT_SIGMA,
          flags | GST_PARAM_CONTROLLABLE));

  /**
   * GstCudaConv2d:radius:
   *
   * Radius, in pixels, of the disc preset (a lens blur): from 0.5 to 100.
   * The mask is 2 * ceil(radius + 1/2) - 1 pixels a side; each tap is the
   * share of its pixel inside the circle (measured on 16 x 16 points), so
   * that the edge is smooth and fractional radii grow the disc gradually.
   * Radii up to 15 run as a 31x31 mask; above, through the frequency
   * domain, at a cost that does not depend on the radius.
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV2D_PROP_RADIUS,
      g_param_spec_double ("radius", "Radius",
          "Radius in pixels of the disc preset (0.5 to 100)", 0.0,
          GST_CUDA_CONV2D_MAX_RADIUS, GST_CUDA_CONV2D_DEFAULT_RADIUS,
          flags | GST_PARAM_CONTROLLABLE));
}

/* The arithmetic after the sums, the borders, the planes filtered, and the
 * GPU variant. */
void
gst_cuda_conv2d_install_output_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  /**
   * GstCudaConv2d:divisor:
   *
   * The sums are divided by it; 0 means the sum of the mask, or 1 where
   * that sum is 0 (edge masks) and for the Sobel magnitude.
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV2D_PROP_DIVISOR,
      g_param_spec_double ("divisor", "Divisor",
          "Divide the sums by this (0 = the sum of the mask, or 1 if that "
          "is 0)", -1e9, 1e9, GST_CUDA_CONV2D_DEFAULT_DIVISOR,
          flags | GST_PARAM_CONTROLLABLE));

  /**
   * GstCudaConv2d:offset:
   *
   * Added after the division, e.g. 128 to see both signs of an edge mask.
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV2D_PROP_OFFSET,
      g_param_spec_double ("offset", "Offset",
          "Added after the division (e.g. 128 shows negative edges)",
          -1e9, 1e9, GST_CUDA_CONV2D_DEFAULT_OFFSET,
          flags | GST_PARAM_CONTROLLABLE));

  /**
   * GstCudaConv2d:border:
   *
   * Where the mask reads outside the frame.
   */
  gst_cuda_filter_base_class_install_enum (gobject_class,
      GST_CUDA_CONV2D_PROP_BORDER,
      "border", "Border", "Where the mask reads outside the frame",
      GST_TYPE_CUDA_CONV2D_BORDER, GST_CUDA_CONV2D_DEFAULT_BORDER, 0);

  /**
   * GstCudaConv2d:algorithm:
   *
   * The GPU kernel variant, for experiments; `auto` picks the fastest for
   * the mask. The CPU backend ignores it. A variant that cannot run the
   * mask (separable on a mask of rank > 1, wide on a mask side other than
   * 3 or 5 or an RGB frame) falls back to `auto`, with a warning.
   */
  gst_cuda_filter_base_class_install_enum (gobject_class,
      GST_CUDA_CONV2D_PROP_ALGORITHM,
      "algorithm", "Algorithm",
      "GPU kernel variant (auto = the fastest for the mask)",
      GST_TYPE_CUDA_CONV2D_ALGORITHM, GST_CUDA_CONV2D_DEFAULT_ALGORITHM, 0);

  /**
   * GstCudaConv2d:planes:
   *
   * For YUV formats: filter the luma plane only, or every plane.
   */
  gst_cuda_filter_base_class_install_enum (gobject_class,
      GST_CUDA_CONV2D_PROP_PLANES,
      "planes", "Planes", "YUV formats: filter the luma plane or all planes",
      GST_TYPE_CUDA_CONV2D_PLANES, GST_CUDA_CONV2D_DEFAULT_PLANES, 0);
}

/* Filtering only the regions a detector marks. */
void
gst_cuda_conv2d_install_roi_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  /**
   * GstCudaConv2d:roi:
   *
   * Filter only the rectangles of the frame's
   * GstVideoRegionOfInterestMeta (grown by `roi-grow`, feathered by
   * `roi-feather`); every other pixel leaves unchanged, and a frame
   * without such metas leaves whole. Rectangles reaching past the frame
   * are clipped; overlapping ones are filtered once.
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV2D_PROP_ROI,
      g_param_spec_boolean ("roi", "Regions of interest",
          "Filter only the rectangles of the frames' region-of-interest "
          "metas", FALSE, flags));

  /**
   * GstCudaConv2d:roi-types:
   *
   * Which metas `roi` takes, by their type (the `roi_type` a detector
   * gives them), comma-separated, e.g. "face,license-plate"; empty: all.
   */
  g_object_class_install_property (gobject_class,
      GST_CUDA_CONV2D_PROP_ROI_TYPES, g_param_spec_string ("roi-types",
          "Region types", "Comma-separated types of the metas roi takes "
          "(empty = all)", NULL, flags));

  /**
   * GstCudaConv2d:roi-grow:
   *
   * Pixels added to every side of each rectangle.
   */
  g_object_class_install_property (gobject_class,
      GST_CUDA_CONV2D_PROP_ROI_GROW, g_param_spec_int ("roi-grow",
          "Region growth", "Pixels added to each side of every rectangle",
          0, GST_CUDA_CONV2D_MAX_ROI_GROW, 0, flags));

  /**
   * GstCudaConv2d:roi-feather:
   *
   * Width in pixels of the edge outside each rectangle over which the
   * filtered frame fades into the source, with a raised-cosine weight of
   * the distance to the rectangle; 0: a hard edge.
   */
  g_object_class_install_property (gobject_class,
      GST_CUDA_CONV2D_PROP_ROI_FEATHER, g_param_spec_int ("roi-feather",
          "Region feather", "Pixels outside each rectangle over which the "
          "filter fades out (0 = hard edge)", 0,
          GST_CUDA_CONV2D_MAX_ROI_FEATHER, 0, flags));

  /**
   * GstCudaConv2d:roi-sigma:
   *
   * With `preset=gaussian` (and neither `kernel` nor `mask-location`),
   * each rectangle's Gaussian takes sigma = roi-sigma times the
   * rectangle's smaller side (grown, before clipping), at most 170, so
   * that small and large faces are blurred alike; 0: `sigma` for all.
   */
  g_object_class_install_property (gobject_class,
      GST_CUDA_CONV2D_PROP_ROI_SIGMA, g_param_spec_double ("roi-sigma",
          "Region sigma", "Gaussian sigma as a fraction of each rectangle's "
          "smaller side (0 = the sigma property)", 0.0,
          GST_CUDA_CONV2D_MAX_ROI_SIGMA, 0.0, flags));
}
