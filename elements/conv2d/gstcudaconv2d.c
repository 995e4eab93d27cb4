/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GStreamer CUDA filters: 2D convolution of video frames
 */

/**
 * SECTION:element-cudaconv2d
 * @title: cudaconv2d
 *
 * Convolves video frames with a 2D mask on the GPU: blur, sharpen, edge
 * detection, emboss, lens (disc) blur or any mask up to 255x255 (above
 * 31x31 through the frequency domain); Gaussians of sigma up to 170, boxes
 * up to 1023x1023 and masks of one row or column up to 1023 taps
 * (separable: a row pass and a column pass). With `roi`, only the
 * rectangles of the frames' region-of-interest metas (from a detector such
 * as facedetect) are filtered. The mask comes from `kernel`
 * (rows separated by `;`), from a file (`mask-location`: PGM, PNG or text)
 * or from `preset`; it is applied as written, not flipped:
 *
 *   out(x, y) = sum over i, j of M[j][i] * in(x + i - rx, y + j - ry)
 *
 * then divided by `divisor`, shifted by `offset`, rounded and saturated to
 * the format's range. Pixels outside the frame come from `border`. Packed
 * RGB formats filter every colour channel and keep alpha; YUV formats filter
 * the luma plane, or every plane at its own resolution with `planes=all`.
 *
 * Without a usable GPU the element runs the same filter on the CPU
 * (`backend=auto`, the default), or fails to start (`backend=cuda`).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! cudaconv2d preset=gaussian sigma=2.5 ! autovideosink
 * ]| Gaussian blur.
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! video/x-raw,format=GRAY8 ! cudaconv2d preset=sobel ! videoconvert ! autovideosink
 * ]| Edges: the Sobel gradient magnitude.
 * |[
 * gst-launch-1.0 videotestsrc ! cudaconv2d kernel="0 -1 0; -1 5 -1; 0 -1 0" border=mirror ! autovideosink
 * ]| A custom sharpening mask.
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,width=1920,height=1080 ! cudaconv2d preset=gaussian sigma=100 border=mirror ! autovideosink
 * ]| A Gaussian of sigma 100 (601 x 601 taps).
 * |[
 * gst-launch-1.0 videotestsrc ! cudaconv2d preset=disc radius=30 border=mirror ! videoconvert ! autovideosink
 * ]| A lens blur: the mean over a disc of radius 30.
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! facedetect display=false ! videoconvert ! cudaconv2d roi=true roi-types=face roi-sigma=0.15 roi-feather=8 ! videoconvert ! autovideosink
 * ]| Faces blurred where facedetect finds them, each by a Gaussian of 0.15
 * times its size.
 *
 * A bad `kernel`, `mask-location`, `size`, `radius` or `roi-types` set before the element starts makes the start
 * fail with a LIBRARY/SETTINGS error naming the problem; set while playing
 * it is refused with a warning message and the current mask stays.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudaconv2d.h"
#include "conv2d_long.h"
#include "gstcudamaskparse.h"
#include "gstcudaconv2dmaskfile.h"
#include "gstcudaconv2dplane.h"
#include "gstcudaconv2dplanes.h"
#include "gstcudaconv2dregions.h"
#include "gstcudapin.h"
#include "gstcudarows.h"

GST_DEBUG_CATEGORY (gst_cuda_conv2d_debug);
#define GST_CAT_DEFAULT gst_cuda_conv2d_debug

#define CONV2D_FORMATS "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, " \
    "RGB, BGR, GRAY8, GRAY16_LE, I420, YV12, NV12, Y444, Y42B }"
/* the formats GstCudaMemory has (no grey ones in GStreamer 1.22) */
#define CONV2D_CUDA_FORMATS "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, " \
    "BGR, I420, YV12, NV12, Y444, Y42B }"

#define gst_cuda_conv2d_parent_class parent_class
G_DEFINE_TYPE (GstCudaConv2d, gst_cuda_conv2d, GST_TYPE_CUDA_FILTER_BASE);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudaconv2d, "cudaconv2d",
    GST_RANK_NONE, GST_TYPE_CUDA_CONV2D,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_conv2d_debug, "cudaconv2d", 0,
        "CUDA 2D convolution"));

static void gst_cuda_conv2d_finalize (GObject * object);
static void free_settings (GstCudaConv2dSettings * s);
static void gst_cuda_conv2d_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_conv2d_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_cuda_conv2d_start (GstCudaFilterBase * base);
static void gst_cuda_conv2d_stop (GstCudaFilterBase * base);
static gboolean gst_cuda_conv2d_set_info (GstCudaFilterBase * base,
    GstCaps * incaps, GstCaps * outcaps);
static GstFlowReturn gst_cuda_conv2d_prepare_output_buffer (GstBaseTransform
    * trans, GstBuffer * inbuf, GstBuffer ** outbuf);
static gboolean gst_cuda_conv2d_transform_meta (GstBaseTransform * trans,
    GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf);
static gboolean gst_cuda_conv2d_decide_allocation (GstBaseTransform * trans,
    GstQuery * query);
static GstFlowReturn gst_cuda_conv2d_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf);

static void
gst_cuda_conv2d_class_init (GstCudaConv2dClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaFilterBaseClass *base_class = GST_CUDA_FILTER_BASE_CLASS (klass);

  gobject_class->finalize = gst_cuda_conv2d_finalize;
  gobject_class->set_property = gst_cuda_conv2d_set_property;
  gobject_class->get_property = gst_cuda_conv2d_get_property;

  gst_cuda_conv2d_install_mask_properties (gobject_class);
  gst_cuda_conv2d_install_output_properties (gobject_class);
  gst_cuda_conv2d_install_roi_properties (gobject_class);

  gst_cuda_filter_base_class_add_templates (element_class,
      gst_cuda_filter_memory_video_caps (CONV2D_FORMATS,
          CONV2D_CUDA_FORMATS));
  gst_element_class_set_static_metadata (element_class,
      "CUDA 2D convolution", "Filter/Effect/Video",
      "Convolves video frames with a 2D mask on the GPU: blur, sharpen, "
      "edges, emboss, any mask", "gst-cuda-filters");

  base_class->start = GST_DEBUG_FUNCPTR (gst_cuda_conv2d_start);
  base_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_conv2d_stop);
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_conv2d_set_info);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_conv2d_prepare_output_buffer);
  trans_class->transform_meta =
      GST_DEBUG_FUNCPTR (gst_cuda_conv2d_transform_meta);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_conv2d_decide_allocation);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_conv2d_transform);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_filter_base_transform_caps);
  GST_CUDA_FILTER_BASE_CLASS (klass)->shares_stream = TRUE;

}

static void
gst_cuda_conv2d_init (GstCudaConv2d * self)
{
  gchar *error = NULL;

  self->settings.kernel = g_strdup (GST_CUDA_CONV2D_DEFAULT_KERNEL);
  self->settings.preset = GST_CUDA_CONV2D_DEFAULT_PRESET;
  self->settings.size = GST_CUDA_CONV2D_DEFAULT_SIZE;
  self->settings.sigma = GST_CUDA_CONV2D_DEFAULT_SIGMA;
  self->settings.radius = GST_CUDA_CONV2D_DEFAULT_RADIUS;
  self->settings.divisor = GST_CUDA_CONV2D_DEFAULT_DIVISOR;
  self->settings.offset = GST_CUDA_CONV2D_DEFAULT_OFFSET;
  self->settings.border = GST_CUDA_CONV2D_DEFAULT_BORDER;
  self->algorithm = GST_CUDA_CONV2D_DEFAULT_ALGORITHM;
  self->planes = GST_CUDA_CONV2D_DEFAULT_PLANES;
  self->pending = g_new (cf_conv2d_plan, 1);
  if (!gst_cuda_conv2d_build_plan (&self->settings, self->pending, &error))
    g_error ("the default mask is invalid: %s", error);
  self->rects = g_array_new (FALSE, FALSE, sizeof (cf_rect));
  self->sigmas = g_array_new (FALSE, FALSE, sizeof (gdouble));
  /* a video filter: drop late frames */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_cuda_conv2d_finalize (GObject * object)
{
  GstCudaConv2d *self = GST_CUDA_CONV2D (object);

  free_settings (&self->settings);
  free_settings (&self->frame_settings);
  gst_cuda_conv2d_roi_clear (&self->roi);
  gst_cuda_conv2d_roi_clear (&self->frame_roi);
  g_free (self->roi_error);
  g_free (self->cpu_filtered);
  g_free (self->region_plan);
  g_array_unref (self->rects);
  g_array_unref (self->sigmas);
  g_free (self->settings_error);
  g_free (self->cpu_work);
  g_free (self->pending);
  g_free (self->plan);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ---- properties ---------------------------------------------------------- */

static gboolean
is_roi_property (guint prop_id)
{
  return prop_id >= GST_CUDA_CONV2D_PROP_ROI
      && prop_id <= GST_CUDA_CONV2D_PROP_ROI_SIGMA;
}

static gboolean
is_mask_property (guint prop_id)
{
  return prop_id != GST_CUDA_CONV2D_PROP_ALGORITHM
      && !is_roi_property (prop_id);
}

/* Stores `value` into the settings (or planes). Called with object lock. */
static void
store_property (GstCudaConv2d * self, guint prop_id, const GValue * value)
{
  GstCudaConv2dSettings *s = &self->settings;

  switch (prop_id) {
    case GST_CUDA_CONV2D_PROP_KERNEL:
      g_free (s->kernel);
      s->kernel = g_value_dup_string (value);
      break;
    case GST_CUDA_CONV2D_PROP_MASK_LOCATION:
      /* the file was read before the lock was taken (set_property) */
      g_free (s->mask_location);
      s->mask_location = g_value_dup_string (value);
      break;
    case GST_CUDA_CONV2D_PROP_PRESET:
      s->preset = g_value_get_enum (value);
      break;
    case GST_CUDA_CONV2D_PROP_SIZE:
      s->size = g_value_get_int (value);
      break;
    case GST_CUDA_CONV2D_PROP_SIGMA:
      s->sigma = g_value_get_double (value);
      break;
    case GST_CUDA_CONV2D_PROP_RADIUS:
      s->radius = g_value_get_double (value);
      break;
    case GST_CUDA_CONV2D_PROP_DIVISOR:
      s->divisor = g_value_get_double (value);
      break;
    case GST_CUDA_CONV2D_PROP_OFFSET:
      s->offset = g_value_get_double (value);
      break;
    case GST_CUDA_CONV2D_PROP_BORDER:
      s->border = g_value_get_enum (value);
      break;
    case GST_CUDA_CONV2D_PROP_PLANES:
      self->planes = g_value_get_enum (value);
      break;
    case GST_CUDA_CONV2D_PROP_ALGORITHM:
      self->algorithm = g_value_get_enum (value);
      break;
    case GST_CUDA_CONV2D_PROP_ROI:
      self->roi.enabled = g_value_get_boolean (value);
      break;
    case GST_CUDA_CONV2D_PROP_ROI_TYPES:
      g_free (self->roi.types);
      self->roi.types = g_value_dup_string (value);
      break;
    case GST_CUDA_CONV2D_PROP_ROI_GROW:
      self->roi.grow = g_value_get_int (value);
      break;
    case GST_CUDA_CONV2D_PROP_ROI_FEATHER:
      self->roi.feather = g_value_get_int (value);
      break;
    case GST_CUDA_CONV2D_PROP_ROI_SIGMA:
      self->roi.sigma = g_value_get_double (value);
      break;
  }
}

/* Builds the mask of the current settings into self->pending, for the next
 * frame. Returns NULL, or why the settings make no usable mask. Called with
 * object lock. */
static gchar *
rebuild_mask (GstCudaConv2d * self)
{
  cf_conv2d_plan *plan = g_new (cf_conv2d_plan, 1);
  gchar *error = NULL;

  if (gst_cuda_conv2d_build_plan (&self->settings, plan, &error)
      && self->have_info)
    error = gst_cuda_conv2d_check_mask_fits (plan, &self->info, self->planes);
  if (error) {
    g_free (plan);
    return error;
  }
  g_free (self->pending);
  self->pending = plan;
  return NULL;
}

static void
free_settings (GstCudaConv2dSettings * s)
{
  g_free (s->kernel);
  g_free (s->mask_location);
  g_free (s->mask_text);
  g_free (s->mask_file_error);
}

static void
copy_settings (GstCudaConv2dSettings * dst, const GstCudaConv2dSettings * src)
{
  free_settings (dst);
  *dst = *src;
  dst->kernel = g_strdup (src->kernel);
  dst->mask_location = g_strdup (src->mask_location);
  dst->mask_text = g_strdup (src->mask_text);
  dst->mask_file_error = g_strdup (src->mask_file_error);
}

static void
gst_cuda_conv2d_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaConv2d *self = GST_CUDA_CONV2D (object);
  GstCudaConv2dSettings saved = { 0 };
  GstCudaConv2dPlanes saved_planes;
  gchar *error, *refused = NULL, *file_text = NULL, *file_error = NULL;

  if (prop_id < GST_CUDA_CONV2D_PROP_KERNEL
      || prop_id > GST_CUDA_CONV2D_PROP_ROI_SIGMA) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  /* a mask file is read here, not under the lock the streaming thread
   * takes */
  if (prop_id == GST_CUDA_CONV2D_PROP_MASK_LOCATION) {
    const gchar *path = g_value_get_string (value);
    if (path && path[0])
      file_text = gst_cuda_conv2d_read_mask_file (path, &file_error);
  }

  GST_OBJECT_LOCK (self);
  if (prop_id == GST_CUDA_CONV2D_PROP_ROI_TYPES) {
    /* a bad list is refused while running, kept for the start else */
    error = gst_cuda_conv2d_roi_check_types (g_value_get_string (value));
    g_clear_pointer (&self->roi_error, g_free);
    if (error && self->started)
      refused = error;
    else
      self->roi_error = error;
  }
  copy_settings (&saved, &self->settings);
  saved_planes = self->planes;
  if (!refused)
    store_property (self, prop_id, value);
  if (prop_id == GST_CUDA_CONV2D_PROP_MASK_LOCATION) {
    g_free (self->settings.mask_text);
    g_free (self->settings.mask_file_error);
    self->settings.mask_text = file_text;
    self->settings.mask_file_error = file_error;
  }
  if (is_mask_property (prop_id)) {
    error = rebuild_mask (self);
    g_clear_pointer (&self->settings_error, g_free);
    if (error && self->started) {
      /* while running a bad value is refused: the current mask stays */
      copy_settings (&self->settings, &saved);
      self->planes = saved_planes;
      refused = error;
    } else {
      /* before start the error is kept and reported when starting, since
       * properties may be set in any order */
      self->settings_error = error;
    }
  }
  GST_OBJECT_UNLOCK (self);
  free_settings (&saved);

  if (refused) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("Refused %s: %s. The current %s stays.", pspec->name, refused,
            is_roi_property (prop_id) ? "value" : "mask"), (NULL));
    g_free (refused);
  }
}

static void
gst_cuda_conv2d_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaConv2d *self = GST_CUDA_CONV2D (object);
  GstCudaConv2dSettings *s = &self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case GST_CUDA_CONV2D_PROP_KERNEL:
      g_value_set_string (value, s->kernel);
      break;
    case GST_CUDA_CONV2D_PROP_MASK_LOCATION:
      g_value_set_string (value, s->mask_location);
      break;
    case GST_CUDA_CONV2D_PROP_PRESET:
      g_value_set_enum (value, s->preset);
      break;
    case GST_CUDA_CONV2D_PROP_SIZE:
      g_value_set_int (value, s->size);
      break;
    case GST_CUDA_CONV2D_PROP_SIGMA:
      g_value_set_double (value, s->sigma);
      break;
    case GST_CUDA_CONV2D_PROP_RADIUS:
      g_value_set_double (value, s->radius);
      break;
    case GST_CUDA_CONV2D_PROP_DIVISOR:
      g_value_set_double (value, s->divisor);
      break;
    case GST_CUDA_CONV2D_PROP_OFFSET:
      g_value_set_double (value, s->offset);
      break;
    case GST_CUDA_CONV2D_PROP_BORDER:
      g_value_set_enum (value, s->border);
      break;
    case GST_CUDA_CONV2D_PROP_ALGORITHM:
      g_value_set_enum (value, self->algorithm);
      break;
    case GST_CUDA_CONV2D_PROP_PLANES:
      g_value_set_enum (value, self->planes);
      break;
    case GST_CUDA_CONV2D_PROP_ROI:
      g_value_set_boolean (value, self->roi.enabled);
      break;
    case GST_CUDA_CONV2D_PROP_ROI_TYPES:
      g_value_set_string (value, self->roi.types);
      break;
    case GST_CUDA_CONV2D_PROP_ROI_GROW:
      g_value_set_int (value, self->roi.grow);
      break;
    case GST_CUDA_CONV2D_PROP_ROI_FEATHER:
      g_value_set_int (value, self->roi.feather);
      break;
    case GST_CUDA_CONV2D_PROP_ROI_SIGMA:
      g_value_set_double (value, self->roi.sigma);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ---- state --------------------------------------------------------------- */

static gboolean
gst_cuda_conv2d_start (GstCudaFilterBase * base)
{
  GstCudaConv2d *self = GST_CUDA_CONV2D (base);
  gchar *error, *roi_error;

  GST_OBJECT_LOCK (self);
  error = g_strdup (self->settings_error);
  roi_error = g_strdup (self->roi_error);
  GST_OBJECT_UNLOCK (self);
  if (error || roi_error) {
    if (error)
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
          ("Invalid mask: %s.", error), (NULL));
    else
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
          ("Invalid regions: %s.", roi_error), (NULL));
    g_free (error);
    g_free (roi_error);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  self->started = TRUE;
  GST_OBJECT_UNLOCK (self);
  self->fallback_warned = FALSE;
  return TRUE;
}

/* Frees the spectral masks' transforms: the mask or the caps changed.
 * On the GPU backend with the element's context current. */
static void
clear_spectral (GstCudaConv2d * self)
{
  for (guint p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
    g_clear_pointer (&self->gpu_spectral[p], cf_conv2d_spectral_cuda_free);
    g_clear_pointer (&self->cpu_spectral[p], cf_conv2d_spectral_cpu_free);
  }
  for (guint k = 0; k < N_CROP_TRANSFORMS; k++)
    g_clear_pointer (&self->crop_transforms[k].spectral,
        cf_conv2d_spectral_cuda_free);
}

static void
gst_cuda_conv2d_stop (GstCudaFilterBase * base)
{
  GstCudaConv2d *self = GST_CUDA_CONV2D (base);

  clear_spectral (self);

  if (gst_cuda_filter_base_uses_cuda (GST_CUDA_FILTER_BASE (self))) {
    gst_cuda_strips_clear (&self->strips);
    gst_cuda_filter_base_free_device (&self->d_src);
    gst_cuda_filter_base_free_device (&self->d_dst);
    gst_cuda_filter_base_free_device (&self->d_work);
    gst_cuda_filter_base_free_device (&self->d_rects);
    gst_cuda_filter_base_free_device (&self->d_crop);
    gst_cuda_filter_base_free_device (&self->d_filtered);
    gst_cuda_filter_base_free_device (&self->d_area);
  }
  g_clear_pointer (&self->cpu_work, g_free);
  self->cpu_work_size = 0;
  GST_OBJECT_LOCK (self);
  self->started = FALSE;
  self->have_info = FALSE;
  /* the next start uses the latest settings */
  if (self->plan && !self->pending) {
    self->pending = self->plan;
    self->plan = NULL;
  }
  GST_OBJECT_UNLOCK (self);
  g_clear_pointer (&self->plan, g_free);
}

/* Where each plane goes in the scratch copies of frames in host memory,
 * each row padded to 256 bytes so that rows start aligned for vector
 * loads and stores. The copies are allocated when a frame needs them. */
static gboolean
lay_out_device_planes (GstCudaConv2d * self, const GstVideoInfo * info)
{
  gsize total = 0;

  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    cf_plane_format f;
    gst_cuda_conv2d_describe_plane (info, p, &f);
    self->d_pitch[p] = GST_ROUND_UP_N (f.width
        * cf_plane_format_pixel_bytes (&f), 256);
    self->d_offset[p] = total;
    total += self->d_pitch[p] * f.height;
  }
  self->d_total = total;
  return GST_CUDA_FILTER_CHECK (self, gst_cuda_strips_init (&self->strips),
      "creating events");
}

static GstFlowReturn filter_frames_cuda (GstCudaConv2d * self,
    GstBuffer * inbuf, GstBuffer * outbuf);
static GstFlowReturn filter_frames_cpu (GstCudaConv2d * self,
    GstBuffer * inbuf, GstBuffer * outbuf);

static gboolean
gst_cuda_conv2d_set_info (GstCudaFilterBase * base, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaConv2d *self = GST_CUDA_CONV2D (base);
  GstVideoInfo info;
  gchar *error;

  if (!gst_video_info_from_caps (&info, incaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot filter caps %" GST_PTR_FORMAT ".", incaps), (NULL));
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  error = gst_cuda_conv2d_check_mask_fits (self->pending ? self->pending
      : self->plan, &info, self->planes);
  if (!error) {
    self->info = info;
    self->have_info = TRUE;
  }
  /* memory of one kind on both sides: regions may filter in place */
  self->same_caps = gst_caps_is_equal (incaps, outcaps);
  GST_OBJECT_UNLOCK (self);
  if (error) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Cannot filter %dx%d "
            "frames: %s.", GST_VIDEO_INFO_WIDTH (&info),
            GST_VIDEO_INFO_HEIGHT (&info), error), (NULL));
    g_free (error);
    return FALSE;
  }
  clear_spectral (self);
  /* the backend is fixed from start to stop: chosen once a stream */
  if (!gst_cuda_filter_base_uses_cuda (base)) {
    self->filter_frames = filter_frames_cpu;
    return TRUE;
  }
  self->filter_frames = filter_frames_cuda;
  return lay_out_device_planes (self, &info);
}

/* ---- processing ---------------------------------------------------------- */

/* Takes a new mask, if any, for this frame: masks change between frames,
 * never inside one. */
static void
take_pending_mask (GstCudaConv2d * self)
{
  gboolean changed = FALSE;

  GST_OBJECT_LOCK (self);
  if (self->pending) {
    g_free (self->plan);
    self->plan = self->pending;
    self->pending = NULL;
    self->fallback_warned = FALSE;
    changed = TRUE;
  }
  self->frame_algorithm = self->algorithm;
  self->frame_planes = self->planes;
  gst_cuda_conv2d_roi_copy (&self->frame_roi, &self->roi);
  if (self->roi.enabled && self->roi.sigma > 0)
    copy_settings (&self->frame_settings, &self->settings);
  GST_OBJECT_UNLOCK (self);
  /* out of the lock: freeing device memory waits for the device */
  if (changed)
    clear_spectral (self);
}

void
gst_cuda_conv2d_copy_plane (const GstVideoFrame * in, GstVideoFrame * out,
    guint p)
{
  cf_plane_format f;
  const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (in, p);
  guint8 *dst = GST_VIDEO_FRAME_PLANE_DATA (out, p);
  gint ss = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);
  gint ds = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
  gsize row_bytes;

  gst_cuda_conv2d_describe_plane (&in->info, p, &f);
  row_bytes = f.width * cf_plane_format_pixel_bytes (&f);
  for (gint y = 0; y < f.height; y++)
    memcpy (dst + (gsize) y * ds, src + (gsize) y * ss, row_bytes);
}

static int
filter_rows_cpu (gpointer user, gint row_begin, gint row_end)
{
  GstCudaConv2dCpuJob *job = user;
  return cf_conv2d_cpu (job->plan, &job->format, job->src, job->src_stride,
      job->dst, job->dst_stride, row_begin, row_end);
}

/* Rows a CPU thread takes at least: below that, starting a strip (its
 * ring of kh rows) costs more than it saves. */
#define CPU_MIN_ROWS 32

/* One stage of a long mask on the CPU (conv2d_long.h), for
 * gst_cuda_rows_parallel(). */
typedef struct
{
  GstCudaConv2dCpuJob *job;
  gpointer work;
  cf_conv2d_long_stage stage;
} LongStage;

static int
filter_long_stage (gpointer user, gint begin, gint end)
{
  LongStage *ls = user;
  GstCudaConv2dCpuJob *job = ls->job;
  return cf_conv2d_long_cpu_stage (job->plan, &job->format, job->src,
      job->src_stride, job->dst, job->dst_stride, ls->work, ls->stage, begin,
      end);
}

/* A long mask's plane: each stage's rows over every core, the stages one
 * after the other, in work planes kept from frame to frame. */
static int
filter_long_cpu (GstCudaConv2d * self, GstCudaConv2dCpuJob * job)
{
  LongStage ls = { job, NULL, CF_CONV2D_LONG_ROWS };
  gsize bytes = cf_conv2d_long_cpu_work_bytes (job->plan, &job->format);
  int status = CF_OK;

  if (bytes > self->cpu_work_size) {
    g_free (self->cpu_work);
    self->cpu_work = g_try_malloc (bytes);
    self->cpu_work_size = self->cpu_work ? bytes : 0;
    if (!self->cpu_work)
      return CF_ERR_NO_MEMORY;
  }
  ls.work = self->cpu_work;
  for (gint s = CF_CONV2D_LONG_ROWS; s <= CF_CONV2D_LONG_OUTPUT
      && status == CF_OK; s++) {
    ls.stage = (cf_conv2d_long_stage) s;
    status = gst_cuda_rows_parallel (cf_conv2d_long_cpu_rows (job->plan,
            &job->format, ls.stage), CPU_MIN_ROWS, filter_long_stage, &ls);
  }
  return status;
}

/* A spectral mask's plane on the CPU: its channels over the cores. */
typedef struct
{
  GstCudaConv2dCpuJob *job;
  cf_conv2d_spectral_cpu *spectral;
} SpectralJob;

static int
filter_spectral_channels (gpointer user, gint begin, gint end)
{
  SpectralJob *sj = user;
  int status = CF_OK;

  for (gint k = begin; k < end && status == CF_OK; k++)
    status = cf_conv2d_spectral_cpu_channel (sj->spectral, sj->job->src,
        sj->job->src_stride, sj->job->dst, sj->job->dst_stride, k);
  return status;
}

static int
filter_spectral_cpu (GstCudaConv2d * self, GstCudaConv2dCpuJob * job, guint p)
{
  SpectralJob sj = { job, NULL };
  int status;

  if (!self->cpu_spectral[p]) {
    status = cf_conv2d_spectral_cpu_new (&self->cpu_spectral[p], job->plan,
        &job->format);
    if (status != CF_OK)
      return status;
  }
  sj.spectral = self->cpu_spectral[p];
  return gst_cuda_rows_parallel (cf_conv2d_spectral_cpu_channels
      (sj.spectral), 1, filter_spectral_channels, &sj);
}

int
gst_cuda_conv2d_filter_plane_cpu (GstCudaConv2d * self,
    GstCudaConv2dCpuJob * job, gint p)
{
  if (job->plan->long_mask)
    return filter_long_cpu (self, job);
  if (job->plan->spectral && p >= 0)
    return filter_spectral_cpu (self, job, p);
  if (job->plan->spectral)
    return cf_conv2d_cpu (job->plan, &job->format, job->src, job->src_stride,
        job->dst, job->dst_stride, 0, job->format.height);
  return gst_cuda_rows_parallel (job->format.height, CPU_MIN_ROWS,
      filter_rows_cpu, job);
}

GstFlowReturn
gst_cuda_conv2d_filter_failed (GstCudaConv2d * self, int status)
{
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Filtering failed: %s.",
          cf_status_name (status)), (NULL));
  return GST_FLOW_ERROR;
}

static GstFlowReturn
process_cpu (GstCudaConv2d * self, const GstVideoFrame * in,
    GstVideoFrame * out)
{
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in); p++) {
    GstCudaConv2dCpuJob job;
    int status;

    if (!gst_cuda_conv2d_plane_filtered (p, self->frame_planes)) {
      gst_cuda_conv2d_copy_plane (in, out, p);
      continue;
    }
    job.plan = self->plan;
    gst_cuda_conv2d_describe_plane (&in->info, p, &job.format);
    job.src = GST_VIDEO_FRAME_PLANE_DATA (in, p);
    job.src_stride = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);
    job.dst = GST_VIDEO_FRAME_PLANE_DATA (out, p);
    job.dst_stride = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
    /* long and spectral masks filter a plane whole, through planes of
     * their own */
    status = gst_cuda_conv2d_filter_plane_cpu (self, &job, (gint) p);
    if (status != CF_OK)
      return gst_cuda_conv2d_filter_failed (self, status);
  }
  return GST_FLOW_OK;
}

/* What the strip callbacks need to filter one plane on the GPU. */
typedef struct
{
  const cf_conv2d_plan *plan;
  cf_conv2d_algorithm algorithm;
  cf_plane_format format;
  const guint8 *d_src;
  guint8 *d_dst;
  gsize src_pitch, dst_pitch;
  gpointer d_work;              /* long masks' work planes */
  cf_conv2d_spectral_gpu **spectral;    /* the plane's transforms, made on
                                         * first use */
  gboolean fell_back;
} PlaneJob;

static int
compute_strip (gpointer user, gint row_begin, gint row_end, cf_stream stream)
{
  PlaneJob *job = user;
  int status;

  /* long and spectral masks run on the whole plane, one strip
   * (plan_plane) */
  if (job->plan->long_mask)
    return cf_conv2d_long_cuda (job->plan, &job->format, job->d_src,
        job->src_pitch, job->d_dst, job->dst_pitch, job->d_work, stream);
  if (job->plan->spectral) {
    if (!*job->spectral
        && (status = cf_conv2d_spectral_cuda_new (job->spectral, job->plan,
                &job->format, stream)) != CF_OK)
      return status;
    return cf_conv2d_spectral_cuda (*job->spectral, job->d_src,
        job->src_pitch, job->d_dst, job->dst_pitch, stream);
  }
  status = cf_conv2d_cuda (job->algorithm, job->plan, &job->format,
      job->d_src, job->src_pitch, job->d_dst, job->dst_pitch, row_begin,
      row_end, stream);

  if (status == CF_ERR_UNSUPPORTED && job->algorithm != CF_CONV2D_AUTO) {
    job->fell_back = TRUE;
    job->algorithm = CF_CONV2D_AUTO;
    status = cf_conv2d_cuda (CF_CONV2D_AUTO, job->plan, &job->format,
        job->d_src, job->src_pitch, job->d_dst, job->dst_pitch, row_begin,
        row_end, stream);
  }
  return status;
}

/* The last source row output rows [row_begin, row_end) read, borders
 * included (wrap reads the other edge). */
static gint
last_read_row (gpointer user, gint row_begin, gint row_end)
{
  PlaneJob *job = user;
  gint ry = job->plan->kh / 2, last = row_end - 1;

  for (gint v = row_begin - ry; v < row_end + ry; v++) {
    if (v >= row_begin && v < row_end)
      continue;
    last = MAX (last, cf_border_index (v, job->format.height,
            job->plan->border));
  }
  return last;
}

gboolean
gst_cuda_conv2d_copy_plane_cuda (GstCudaConv2d * self, const GstVideoFrame * in,
    gboolean in_on_device, GstVideoFrame * out, gboolean out_on_device,
    guint p)
{
  static const cf_copy_kind kinds[2][2] = {
    {CF_COPY_HOST_TO_DEVICE, CF_COPY_HOST_TO_DEVICE},
    {CF_COPY_DEVICE_TO_HOST, CF_COPY_DEVICE_TO_DEVICE},
  };
  cf_plane_format f;

  gst_cuda_conv2d_describe_plane (&in->info, p, &f);
  return GST_CUDA_FILTER_CHECK (self,
      cf_gpu_copy_2d (GST_VIDEO_FRAME_PLANE_DATA (out, p),
          GST_VIDEO_FRAME_PLANE_STRIDE (out, p),
          GST_VIDEO_FRAME_PLANE_DATA (in, p),
          GST_VIDEO_FRAME_PLANE_STRIDE (in, p),
          f.width * cf_plane_format_pixel_bytes (&f), f.height,
          kinds[in_on_device][out_on_device],
          gst_cuda_filter_base_streams (GST_CUDA_FILTER_BASE (self))->compute),
      "copying a plane");
}

/* Where filtered plane `p` is read and written on the device, and what
 * goes through the scratch planes for a side in host memory. */
static void
plan_plane (GstCudaConv2d * self, const GstVideoFrame * in,
    gboolean in_on_device, GstVideoFrame * out, gboolean out_on_device,
    guint p, PlaneJob * job, GstCudaPlaneCopy * copy)
{
  memset (copy, 0, sizeof (*copy));
  job->plan = self->plan;
  job->algorithm = self->frame_algorithm;
  gst_cuda_conv2d_describe_plane (&in->info, p, &job->format);
  job->fell_back = FALSE;
  if (in_on_device) {
    job->d_src = GST_VIDEO_FRAME_PLANE_DATA (in, p);
    job->src_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);
  } else {
    job->d_src = (guint8 *) self->d_src.ptr + self->d_offset[p];
    job->src_pitch = self->d_pitch[p];
    copy->src = GST_VIDEO_FRAME_PLANE_DATA (in, p);
    copy->src_stride = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);
  }
  if (out_on_device) {
    job->d_dst = GST_VIDEO_FRAME_PLANE_DATA (out, p);
    job->dst_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
  } else {
    job->d_dst = (guint8 *) self->d_dst.ptr + self->d_offset[p];
    job->dst_pitch = self->d_pitch[p];
    copy->dst = GST_VIDEO_FRAME_PLANE_DATA (out, p);
    copy->dst_stride = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
  }
  copy->d_src = (guint8 *) job->d_src;
  copy->d_dst = job->d_dst;
  copy->d_src_stride = job->src_pitch;
  copy->d_dst_stride = job->dst_pitch;
  copy->row_bytes = job->format.width
      * cf_plane_format_pixel_bytes (&job->format);
  copy->height = job->format.height;
  job->d_work = self->d_work.ptr;
  job->spectral = &self->gpu_spectral[p];
  if (job->plan->long_mask || job->plan->spectral)
    copy->min_rows = job->format.height;
}

/* Grows the long masks' work planes to what the largest filtered plane
 * needs. */
static gboolean
ensure_work (GstCudaConv2d * self, const GstVideoFrame * in,
    const GstCudaStreams * streams)
{
  gsize bytes = 0;

  if (!self->plan->long_mask)
    return TRUE;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in); p++) {
    cf_plane_format f;
    if (!gst_cuda_conv2d_plane_filtered (p, self->frame_planes))
      continue;
    gst_cuda_conv2d_describe_plane (&in->info, p, &f);
    bytes = MAX (bytes, cf_conv2d_long_work_bytes (self->plan, &f));
  }
  return gst_cuda_filter_base_ensure_device_ordered (GST_CUDA_FILTER_BASE
      (self), &self->d_work, bytes, streams->compute);
}

/* Frames in host memory go through the scratch planes in strips; frames in
 * CUDA memory are read or written where they are. */
static GstFlowReturn
process_cuda (GstCudaConv2d * self, const GstVideoFrame * in,
    gboolean in_on_device, GstVideoFrame * out, gboolean out_on_device)
{
  GstCudaFilterBase *base = GST_CUDA_FILTER_BASE (self);
  const GstCudaStreams *streams = gst_cuda_filter_base_streams (base);
  gboolean fell_back = FALSE;

  if ((!in_on_device && !gst_cuda_filter_base_ensure_device (base,
              &self->d_src, self->d_total))
      || (!out_on_device && !gst_cuda_filter_base_ensure_device (base,
              &self->d_dst, self->d_total))
      || !ensure_work (self, in, streams))
    return GST_FLOW_ERROR;
  /* the GPU works through the filtered planes while the CPU copies the
   * others */
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in); p++) {
    PlaneJob job;
    GstCudaPlaneCopy copy;

    if (!gst_cuda_conv2d_plane_filtered (p, self->frame_planes))
      continue;
    plan_plane (self, in, in_on_device, out, out_on_device, p, &job, &copy);
    if (!GST_CUDA_FILTER_CHECK (self, gst_cuda_strips_enqueue (&self->strips,
                streams, &copy, compute_strip, last_read_row, &job),
            "filtering a plane"))
      return GST_FLOW_ERROR;
    fell_back |= job.fell_back;
  }
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in); p++) {
    if (gst_cuda_conv2d_plane_filtered (p, self->frame_planes))
      continue;
    if (!in_on_device && !out_on_device)
      gst_cuda_conv2d_copy_plane (in, out, p);
    else if (!gst_cuda_conv2d_copy_plane_cuda (self, in, in_on_device, out,
            out_on_device, p))
      return GST_FLOW_ERROR;
  }

  if (fell_back && !self->fallback_warned) {
    self->fallback_warned = TRUE;
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("algorithm=%s cannot run this mask; using auto instead.",
            cf_conv2d_algorithm_name (self->frame_algorithm)),
        ("the separable variant needs a mask of rank 1, the wide one "
            "mask sides of 3 or 5 (3x3 for two masks) on a format whose "
            "pixels divide 16 bytes, and each variant enough shared memory "
            "on the device"));
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
map_failed (GstCudaConv2d * self)
{
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot map a video frame."),
      (NULL));
  return GST_FLOW_ERROR;
}

/* Both buffers mapped where they are: CUDA memory on the device, system
 * memory page-locked, so that the copies run at the bus's speed. A frame
 * filtered in place (inbuf is outbuf) is mapped once, for both. */
static GstFlowReturn
filter_frames_cuda (GstCudaConv2d * self, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaFilterBase *base = GST_CUDA_FILTER_BASE (self);
  gboolean in_place = inbuf == outbuf, in_on_device, out_on_device;
  GstVideoFrame in, out_frame, *out = in_place ? &in : &out_frame;
  GstFlowReturn ret;

  if (!gst_cuda_filter_base_is_device_buffer (base, inbuf))
    gst_cuda_pin_buffer (inbuf);
  if (!in_place && !gst_cuda_filter_base_is_device_buffer (base, outbuf))
    gst_cuda_pin_buffer (outbuf);
  if (!gst_cuda_filter_base_map_frame (base, &in, &self->info, inbuf,
          in_place ? GST_MAP_READWRITE : GST_MAP_READ, &in_on_device))
    return map_failed (self);
  out_on_device = in_on_device;
  if (!in_place && !gst_cuda_filter_base_map_frame (base, out, &self->info,
          outbuf, GST_MAP_WRITE, &out_on_device)) {
    gst_video_frame_unmap (&in);
    return map_failed (self);
  }
  GST_LOG_OBJECT (self, "input on the %s, output on the %s%s",
      in_on_device ? "device" : "host", out_on_device ? "device" : "host",
      in_place ? ", in place" : "");
  if (self->frame_roi.enabled) {
    /* the rectangles were collected by prepare_output_buffer */
    ret = gst_cuda_conv2d_regions_cuda (self, &in, in_on_device, out,
        out_on_device);
  } else {
    ret = process_cuda (self, &in, in_on_device, out, out_on_device);
  }
  if (!gst_cuda_filter_base_finish (base, inbuf, outbuf))
    ret = GST_FLOW_ERROR;
  if (!in_place)
    gst_video_frame_unmap (out);
  gst_video_frame_unmap (&in);
  return ret;
}

/* The CPU maps CUDA memory for the host (GStreamer copies it). */
static GstFlowReturn
filter_frames_cpu (GstCudaConv2d * self, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  gboolean in_place = inbuf == outbuf;
  GstVideoFrame in, out_frame, *out = in_place ? &in : &out_frame;
  GstFlowReturn ret;

  if (!gst_video_frame_map (&in, &self->info, inbuf,
          in_place ? GST_MAP_READWRITE : GST_MAP_READ))
    return map_failed (self);
  if (!in_place && !gst_video_frame_map (out, &self->info, outbuf,
          GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in);
    return map_failed (self);
  }
  if (self->frame_roi.enabled) {
    /* the rectangles were collected by prepare_output_buffer */
    ret = gst_cuda_conv2d_regions_cpu (self, &in, out);
  } else {
    ret = process_cpu (self, &in, out);
  }
  if (!in_place)
    gst_video_frame_unmap (out);
  gst_video_frame_unmap (&in);
  return ret;
}

/* Whether `buf` may go downstream as it came: CUDA memory describes its
 * own layout; system memory must have the caps' layout unless downstream
 * reads video metas. */
static gboolean
layout_passes (GstCudaConv2d * self, GstBuffer * buf)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);

  if (self->downstream_video_meta || !meta
      || gst_cuda_filter_base_is_device_buffer (GST_CUDA_FILTER_BASE (self),
          buf))
    return TRUE;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&self->info); p++)
    if (meta->offset[p] != GST_VIDEO_INFO_PLANE_OFFSET (&self->info, p)
        || meta->stride[p] != GST_VIDEO_INFO_PLANE_STRIDE (&self->info, p))
      return FALSE;
  return TRUE;
}

/* Per frame, before the output exists: the settings the frame takes, its
 * rectangles, and where it goes. Regions change only the pixels they
 * cover, so a writable frame is filtered where it is, without a copy,
 * when its caps stay the same, downstream can take its layout and its
 * crops, all held at once, fit in a frame's bytes; else (a frame others
 * hold, a tee's) it goes into a new one. */
static GstFlowReturn
gst_cuda_conv2d_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstCudaConv2d *self = GST_CUDA_CONV2D (trans);

  take_pending_mask (self);
  if (self->frame_roi.enabled) {
    gst_cuda_conv2d_roi_collect (inbuf, &self->frame_roi, self->rects,
        self->sigmas);
    if (self->have_info && self->plan && self->same_caps
        && gst_buffer_is_writable (inbuf) && layout_passes (self, inbuf)
        && gst_cuda_conv2d_regions_fit_in_place (self)) {
      GST_LOG_OBJECT (self, "filtering in place");
      *outbuf = inbuf;
      return GST_FLOW_OK;
    }
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->prepare_output_buffer
      (trans, inbuf, outbuf);
}

/* Metas about the frame's geometry and colours stay true through a
 * filter that changes neither: a detector's regions among them, kept for
 * the elements after this one, as in place. The output's own layout
 * (GstVideoMeta) is its pool's. */
static gboolean
gst_cuda_conv2d_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf)
{
  static const gchar *const kept[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_ORIENTATION_STR, GST_META_TAG_VIDEO_SIZE_STR,
    GST_META_TAG_VIDEO_COLORSPACE_STR, NULL
  };
  const gchar *const *tags = gst_meta_api_type_get_tags (meta->info->api);

  if (meta->info->api == GST_VIDEO_META_API_TYPE)
    return FALSE;
  for (guint k = 0; tags && tags[k]; k++)
    if (!g_strv_contains (kept, tags[k]))
      return GST_BASE_TRANSFORM_CLASS (parent_class)->transform_meta (trans,
          outbuf, meta, inbuf);
  return TRUE;
}

/* Whether downstream reads video metas: a frame filtered in place keeps
 * the layout it came with. */
static gboolean
gst_cuda_conv2d_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstCudaConv2d *self = GST_CUDA_CONV2D (trans);

  self->downstream_video_meta = gst_query_find_allocation_meta (query,
      GST_VIDEO_META_API_TYPE, NULL);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

static GstFlowReturn
gst_cuda_conv2d_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaConv2d *self = GST_CUDA_CONV2D (trans);

  /* the settings were taken by prepare_output_buffer */
  if (!self->have_info || !self->plan) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("buffer before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  return self->filter_frames (self, inbuf, outbuf);
}
