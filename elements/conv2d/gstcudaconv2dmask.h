/* cudaconv2d's mask from its properties: a parsed `kernel` string or a
 * preset, validated, with the automatic divisor resolved. */
#ifndef __GST_CUDA_CONV2D_MASK_H__
#define __GST_CUDA_CONV2D_MASK_H__

#include <glib-object.h>

#include "conv2d.h"

G_BEGIN_DECLS

typedef enum
{
  GST_CUDA_CONV2D_PRESET_NONE,
  GST_CUDA_CONV2D_PRESET_BOX,
  GST_CUDA_CONV2D_PRESET_GAUSSIAN,
  GST_CUDA_CONV2D_PRESET_SHARPEN,
  GST_CUDA_CONV2D_PRESET_UNSHARP,
  GST_CUDA_CONV2D_PRESET_SOBEL_X,
  GST_CUDA_CONV2D_PRESET_SOBEL_Y,
  GST_CUDA_CONV2D_PRESET_SOBEL,
  GST_CUDA_CONV2D_PRESET_LAPLACIAN,
  GST_CUDA_CONV2D_PRESET_EMBOSS,
  GST_CUDA_CONV2D_PRESET_DISC,
} GstCudaConv2dPreset;

#define GST_TYPE_CUDA_CONV2D_PRESET (gst_cuda_conv2d_preset_get_type ())
GType gst_cuda_conv2d_preset_get_type (void);

#define GST_TYPE_CUDA_CONV2D_BORDER (gst_cuda_conv2d_border_get_type ())
GType gst_cuda_conv2d_border_get_type (void);

/* The properties that define the mask. */
typedef struct
{
  gchar *kernel;                /* unset (NULL or blank): the file, else the
                                 * preset */
  gchar *mask_location;         /* unset (NULL or empty): the preset */
  gchar *mask_text;             /* the file's mask as kernel text, or NULL */
  gchar *mask_file_error;       /* why the file gave no mask, or NULL */
  GstCudaConv2dPreset preset;
  gint size;                    /* 0: the preset's default */
  gdouble sigma;
  gdouble radius;               /* the disc's, in pixels */
  gdouble divisor;              /* 0: automatic */
  gdouble offset;
  cf_border border;
} GstCudaConv2dSettings;

/* Size a Gaussian of this sigma gets when `size` is 0: 2 * ceil(3 sigma) + 1
 * (the mask then covers +-3 sigma), at most CF_CONV2D_MAX_FACTOR (the
 * unsharp mask cuts it at CF_CONV2D_MAX_SIZE). */
gint gst_cuda_conv2d_gaussian_size (gdouble sigma);

/* Largest disc radius, and the size of a disc's mask: the pixels its
 * circle reaches, 2 * ceil(radius + 1/2) - 1 a side. */
#define GST_CUDA_CONV2D_MAX_RADIUS 100.0
gint gst_cuda_conv2d_disc_size (gdouble radius);

/* Builds the plan the settings describe. On failure returns FALSE and sets
 * *error to a sentence for the user (free with g_free). */
gboolean gst_cuda_conv2d_build_plan (const GstCudaConv2dSettings * settings,
    cf_conv2d_plan * plan, gchar ** error);

G_END_DECLS

#endif
