/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv2d's planes: how the kernels see each plane of a negotiated
 * format, which planes the `planes` property filters, and whether a mask
 * fits them.
 */
#ifndef __GST_CUDA_CONV2D_PLANES_H__
#define __GST_CUDA_CONV2D_PLANES_H__

#include <gst/video/video.h>

#include "conv2d.h"
#include "gstcudaconv2dprops.h"

G_BEGIN_DECLS

/* Layout of `plane` of a negotiated format, for the kernels. */
void gst_cuda_conv2d_describe_plane (const GstVideoInfo * info, guint plane,
    cf_plane_format * f);
/* Whether `plane` is filtered (others are copied). */
gboolean gst_cuda_conv2d_plane_filtered (guint plane,
    GstCudaConv2dPlanes planes);
/* NULL if the mask fits inside every filtered plane (long masks fit
 * any), else why not (to be freed). */
gchar *gst_cuda_conv2d_check_mask_fits (const cf_conv2d_plan * plan,
    const GstVideoInfo * info, GstCudaConv2dPlanes planes);

G_END_DECLS

#endif
