/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv2d's planes: see gstcudaconv2dplanes.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "conv2d_long.h"
#include "gstcudaconv2dplanes.h"
#include "conv2d_spectral.h"

/* Layout of `plane` of a negotiated format, for the kernels. */
void
gst_cuda_conv2d_describe_plane (const GstVideoInfo * info, guint plane,
    cf_plane_format * f)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (finfo, plane, comp);
  f->width = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]);
  f->height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
  f->sample = GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_GRAY16_LE
      ? CF_SAMPLE_U16 : CF_SAMPLE_U8;
  f->keep_channel = -1;
  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
      f->channels = 4;
      f->keep_channel = 3;
      break;
    case GST_VIDEO_FORMAT_ARGB:
    case GST_VIDEO_FORMAT_ABGR:
    case GST_VIDEO_FORMAT_xRGB:
    case GST_VIDEO_FORMAT_xBGR:
      f->channels = 4;
      f->keep_channel = 0;
      break;
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
      f->channels = 3;
      break;
    case GST_VIDEO_FORMAT_NV12:
      f->channels = plane == 0 ? 1 : 2;
      break;
    default:                   /* gray and planar YUV: one sample a pixel */
      f->channels = 1;
      break;
  }
}

/* Whether `plane` is filtered (others are copied). */
gboolean
gst_cuda_conv2d_plane_filtered (guint plane, GstCudaConv2dPlanes planes)
{
  return plane == 0 || planes == GST_CUDA_CONV2D_PLANES_ALL;
}

/* Checks that the mask fits inside every filtered plane (long and spectral
 * masks fit any). Returns NULL, or why not. */
gchar *
gst_cuda_conv2d_check_mask_fits (const cf_conv2d_plan * plan,
    const GstVideoInfo * info, GstCudaConv2dPlanes planes)
{
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    cf_plane_format f;
    if (!gst_cuda_conv2d_plane_filtered (p, planes))
      continue;
    gst_cuda_conv2d_describe_plane (info, p, &f);
    if (plan->long_mask && f.height > CF_CONV2D_LONG_MAX_HEIGHT)
      return g_strdup_printf ("masks above %d taps filter frames of at most "
          "%d rows, not %d", CF_CONV2D_MAX_SIZE, CF_CONV2D_LONG_MAX_HEIGHT,
          f.height);
    if (plan->spectral && (f.width > CF_CONV2D_SPECTRAL_MAX_SIDE
            || f.height > CF_CONV2D_SPECTRAL_MAX_SIDE))
      return g_strdup_printf ("masks above %d taps that are not separable "
          "filter frames of at most %d pixels a side, not %dx%d",
          CF_CONV2D_MAX_SIZE, CF_CONV2D_SPECTRAL_MAX_SIDE, f.width, f.height);
    /* the long and spectral paths read their borders at any distance */
    if (!plan->long_mask && !plan->spectral
        && (plan->kw > f.width || plan->kh > f.height))
      return g_strdup_printf ("the %dx%d mask is larger than the %dx%d %s",
          plan->kw, plan->kh, f.width, f.height, p == 0 ? "frame"
          : "chroma plane");
  }
  return NULL;
}
