/* cudaconv2d with roi=true: only the areas of the frame's rectangles
 * (gstcudaconv2droi.h) filtered, on the CPU or the GPU. For each filtered
 * plane, the frame is copied unless it is filtered in place (`out` is
 * `in`), every area's crop is filtered aside, then each area is blended
 * in (conv2d_roi.h): a crop reads the frame as it came, in place or not. */
#ifndef __GST_CUDA_CONV2D_REGIONS_H__
#define __GST_CUDA_CONV2D_REGIONS_H__

#include "gstcudaconv2d.h"

G_BEGIN_DECLS

GstFlowReturn gst_cuda_conv2d_regions_cpu (GstCudaConv2d * self,
    const GstVideoFrame * in, GstVideoFrame * out);

/* On the compute stream; each frame's memory on the device or on the
 * host, as mapped. */
GstFlowReturn gst_cuda_conv2d_regions_cuda (GstCudaConv2d * self,
    const GstVideoFrame * in, gboolean in_on_device, GstVideoFrame * out,
    gboolean out_on_device);

G_END_DECLS
#endif
