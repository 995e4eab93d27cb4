/* One plane of a frame copied or filtered whole: the pieces of
 * gstcudaconv2d.c that the regions (gstcudaconv2dregions.c) run on their
 * crops too. */
#ifndef __GST_CUDA_CONV2D_PLANE_H__
#define __GST_CUDA_CONV2D_PLANE_H__

#include "gstcudaconv2d.h"

G_BEGIN_DECLS

/* One plane (or a crop of one) on the CPU, for gst_cuda_rows_parallel(). */
typedef struct
{
  const cf_conv2d_plan *plan;
  cf_plane_format format;
  const guint8 *src;
  gsize src_stride;
  guint8 *dst;
  gsize dst_stride;
} GstCudaConv2dCpuJob;

/* Plane `p` of `in` into `out`, both in host memory. */
void gst_cuda_conv2d_copy_plane (const GstVideoFrame * in,
    GstVideoFrame * out, guint p);

/* Copies plane `p` when either frame is on the device, on the compute
 * stream: a source written by the element before ours is ready there.
 * FALSE with the error posted. */
gboolean gst_cuda_conv2d_copy_plane_cuda (GstCudaConv2d * self,
    const GstVideoFrame * in, gboolean in_on_device, GstVideoFrame * out,
    gboolean out_on_device, guint p);

/* One plane, or a crop of one (`p` < 0: its spectral transforms are not
 * kept), on the CPU; a CF_ status. */
int gst_cuda_conv2d_filter_plane_cpu (GstCudaConv2d * self,
    GstCudaConv2dCpuJob * job, gint p);

/* Posts the failure of a filter's CF_ status; GST_FLOW_ERROR. */
GstFlowReturn gst_cuda_conv2d_filter_failed (GstCudaConv2d * self,
    int status);

G_END_DECLS
#endif
