/* cudaconv2d's regions: which rectangles of GstVideoRegionOfInterestMeta
 * a frame's filter is limited to (roi, roi-types, roi-grow, roi-feather,
 * roi-sigma), in the coordinates of each plane. */
#ifndef __GST_CUDA_CONV2D_ROI_H__
#define __GST_CUDA_CONV2D_ROI_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "conv2d_roi.h"

G_BEGIN_DECLS

typedef struct
{
  gboolean enabled;
  gchar *types;                 /* comma-separated; NULL or empty: all */
  gint grow, feather;           /* pixels of the frame */
  gdouble sigma;                /* 0: the element's mask; else a Gaussian
                                 * of this times the smaller side */
} GstCudaConv2dRoi;

#define GST_CUDA_CONV2D_MAX_ROI_GROW 8192
#define GST_CUDA_CONV2D_MAX_ROI_FEATHER 1024
#define GST_CUDA_CONV2D_MAX_ROI_SIGMA 10.0

void gst_cuda_conv2d_roi_copy (GstCudaConv2dRoi * dst,
    const GstCudaConv2dRoi * src);
void gst_cuda_conv2d_roi_clear (GstCudaConv2dRoi * roi);

/* NULL when `types` is a usable roi-types list, else why not (free with
 * g_free). */
gchar *gst_cuda_conv2d_roi_check_types (const gchar * types);

/* The frame's rectangles of the wanted types, grown by `grow`, in frame
 * pixels (not clipped: a rectangle may reach past the frame); `sigmas`
 * (may be NULL) gets roi-sigma times each rectangle's smaller side. */
void gst_cuda_conv2d_roi_collect (GstBuffer * buffer,
    const GstCudaConv2dRoi * roi, GArray * rects, GArray * sigmas);

/* Rectangles of the frame in the coordinates of plane `p` (chroma planes
 * subsampled, each rectangle covering every sample it touches), and the
 * frame's `feather` there: across and down, each divided by the plane's
 * subsampling that way, rounded up. */
void gst_cuda_conv2d_roi_to_plane (const GstVideoInfo * info, guint p,
    const cf_rect * frame_rects, guint n, cf_rect * plane_rects,
    gint feather, gint * feather_x, gint * feather_y);

G_END_DECLS
#endif
