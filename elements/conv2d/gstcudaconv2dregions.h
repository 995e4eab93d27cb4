/* cudaconv2d with roi=true: only the areas of the frame's rectangles
 * (gstcudaconv2droi.h) filtered, on the CPU or the GPU, each area's crop
 * filtered aside and blended in (conv2d_roi.h). In place (`out` is `in`),
 * every crop of a plane is filtered before any area is blended, so that
 * each reads the frame as it came; into a copy, area by area, the crops
 * read from `in`. */
#ifndef __GST_CUDA_CONV2D_REGIONS_H__
#define __GST_CUDA_CONV2D_REGIONS_H__

#include "gstcudaconv2d.h"

G_BEGIN_DECLS

/* Whether this frame's rectangles (self->rects) may be filtered in
 * place: its crops, all held at once, take at most a frame's bytes or
 * 16 MB, whichever is more (beyond, a copy of the frame, whose crops are
 * filtered one at a time, costs less memory). */
gboolean gst_cuda_conv2d_regions_fit_in_place (GstCudaConv2d * self);

GstFlowReturn gst_cuda_conv2d_regions_cpu (GstCudaConv2d * self,
    const GstVideoFrame * in, GstVideoFrame * out);

/* On the compute stream; each frame's memory on the device or on the
 * host, as mapped. */
GstFlowReturn gst_cuda_conv2d_regions_cuda (GstCudaConv2d * self,
    const GstVideoFrame * in, gboolean in_on_device, GstVideoFrame * out,
    gboolean out_on_device);

G_END_DECLS
#endif
