/* cudaconv2d's properties: their ids and defaults, the enum types of the
 * algorithm and planes, and their installation on the class. Nothing here
 * knows the element; gstcudaconv2d.c stores and reads the values. */
#ifndef __GST_CUDA_CONV2D_PROPS_H__
#define __GST_CUDA_CONV2D_PROPS_H__

#include <glib-object.h>

#include "gstcudaconv2dmask.h"

G_BEGIN_DECLS

typedef enum
{
  GST_CUDA_CONV2D_PLANES_LUMA,
  GST_CUDA_CONV2D_PLANES_ALL,
} GstCudaConv2dPlanes;

/* used both in the element's init and in the GParamSpecs */
#define GST_CUDA_CONV2D_DEFAULT_KERNEL NULL
#define GST_CUDA_CONV2D_DEFAULT_PRESET GST_CUDA_CONV2D_PRESET_GAUSSIAN
#define GST_CUDA_CONV2D_DEFAULT_SIZE 0
#define GST_CUDA_CONV2D_DEFAULT_SIGMA 1.2
#define GST_CUDA_CONV2D_DEFAULT_RADIUS 8.0
#define GST_CUDA_CONV2D_DEFAULT_DIVISOR 0.0
#define GST_CUDA_CONV2D_DEFAULT_OFFSET 0.0
#define GST_CUDA_CONV2D_DEFAULT_BORDER CF_BORDER_CLAMP
#define GST_CUDA_CONV2D_DEFAULT_ALGORITHM CF_CONV2D_AUTO
#define GST_CUDA_CONV2D_DEFAULT_PLANES GST_CUDA_CONV2D_PLANES_LUMA

/* the ids the installation gives and the element's get/set_property take;
 * KERNEL to MASK_LOCATION in order (set_property checks that range) */
enum
{
  GST_CUDA_CONV2D_PROP_0,
  GST_CUDA_CONV2D_PROP_KERNEL,
  GST_CUDA_CONV2D_PROP_PRESET,
  GST_CUDA_CONV2D_PROP_SIZE,
  GST_CUDA_CONV2D_PROP_SIGMA,
  GST_CUDA_CONV2D_PROP_DIVISOR,
  GST_CUDA_CONV2D_PROP_OFFSET,
  GST_CUDA_CONV2D_PROP_BORDER,
  GST_CUDA_CONV2D_PROP_ALGORITHM,
  GST_CUDA_CONV2D_PROP_PLANES,
  GST_CUDA_CONV2D_PROP_MASK_LOCATION,
  GST_CUDA_CONV2D_PROP_RADIUS,
  GST_CUDA_CONV2D_PROP_ROI,
  GST_CUDA_CONV2D_PROP_ROI_TYPES,
  GST_CUDA_CONV2D_PROP_ROI_GROW,
  GST_CUDA_CONV2D_PROP_ROI_FEATHER,
  GST_CUDA_CONV2D_PROP_ROI_SIGMA,
};

#define GST_TYPE_CUDA_CONV2D_ALGORITHM (gst_cuda_conv2d_algorithm_get_type ())
GType gst_cuda_conv2d_algorithm_get_type (void);

#define GST_TYPE_CUDA_CONV2D_PLANES (gst_cuda_conv2d_planes_get_type ())
GType gst_cuda_conv2d_planes_get_type (void);

/* The mask: written out, or a preset and its size and sigma. */
void gst_cuda_conv2d_install_mask_properties (GObjectClass * gobject_class);
/* The arithmetic after the sums, the borders, the planes filtered, and the
 * GPU variant. */
void gst_cuda_conv2d_install_output_properties (GObjectClass * gobject_class);
/* roi, roi-types, roi-grow, roi-feather, roi-sigma */
void gst_cuda_conv2d_install_roi_properties (GObjectClass * gobject_class);

G_END_DECLS

#endif
