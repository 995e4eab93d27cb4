#ifndef __GST_CUDA_CONV2D_H__
#define __GST_CUDA_CONV2D_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstcudafilterbase.h"
#include "conv2d_spectral.h"
#include "gstcudaconv2dmask.h"
#include "gstcudaconv2dprops.h"
#include "gstcudaconv2droi.h"
#include "gstcudastrips.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CONV2D (gst_cuda_conv2d_get_type ())
/* Spectral transforms kept for regions' crops of one size. */
#define N_CROP_TRANSFORMS 4
typedef struct
{
  cf_conv2d_spectral_gpu *spectral;
  const cf_conv2d_plan *plan;   /* the element's: roi-sigma's masks are
                                 * long, never spectral */
  gint width, height, channels, sample, keep;
  guint64 used;
} CropTransforms;

G_DECLARE_FINAL_TYPE (GstCudaConv2d, gst_cuda_conv2d, GST, CUDA_CONV2D,
    GstCudaFilterBase)

struct _GstCudaConv2d
{
  GstCudaFilterBase parent;

  /* properties, object lock */
  GstCudaConv2dSettings settings;
  cf_conv2d_algorithm algorithm;
  GstCudaConv2dPlanes planes;
  cf_conv2d_plan *pending;      /* new mask for the next frame, or NULL */
  gchar *settings_error;        /* why the settings make no mask, or NULL */
  gboolean started;             /* bad settings are refused, not stored */
  GstVideoInfo info;            /* the negotiated frames, for size checks */
  gboolean have_info;
  gboolean same_caps;           /* in and out: regions filter in place */
  gboolean downstream_video_meta;       /* it reads layouts of any stride */
  GstCudaConv2dRoi roi;
  gchar *roi_error;             /* why roi-types is unusable, or NULL */

  /* streaming thread */
  /* the CPU's or the GPU's, chosen with the caps */
  GstFlowReturn (*filter_frames) (struct _GstCudaConv2d * self,
      GstBuffer * inbuf, GstBuffer * outbuf);
  cf_conv2d_plan *plan;         /* the mask in use */
  cf_conv2d_algorithm frame_algorithm;
  GstCudaConv2dPlanes frame_planes;
  GstCudaConv2dRoi frame_roi;   /* this frame's roi settings */
  GstCudaConv2dSettings frame_settings; /* roi-sigma's masks start here */
  GArray *rects, *sigmas;       /* this frame's rectangles */
  cf_conv2d_plan *region_plan;  /* roi-sigma's mask of one region, rebuilt
                                 * for each */
  GstCudaDeviceBuffer d_rects;  /* a plane's rectangles */
  GstCudaDeviceBuffer d_crop, d_filtered, d_area;       /* a region's */
  CropTransforms crop_transforms[N_CROP_TRANSFORMS];
  guint64 crop_clock;
  gpointer cpu_filtered;        /* a region's filter output, CPU */
  gsize cpu_filtered_size;
  gboolean fallback_warned;     /* this plan's algorithm could not run */
  GstCudaDeviceBuffer d_src, d_dst;
  GstCudaDeviceBuffer d_work;   /* long masks' work planes (conv2d_long.h) */
  gpointer cpu_work;            /* the same on the CPU backend */
  gsize cpu_work_size;
  /* spectral masks' transforms (conv2d_spectral.h), a plane each, made for
   * the mask and the caps in use */
  cf_conv2d_spectral_gpu *gpu_spectral[GST_VIDEO_MAX_PLANES];
  cf_conv2d_spectral_cpu *cpu_spectral[GST_VIDEO_MAX_PLANES];
  gsize d_offset[GST_VIDEO_MAX_PLANES], d_pitch[GST_VIDEO_MAX_PLANES];
  gsize d_total;                /* bytes of d_src and of d_dst */
  GstCudaStrips strips;
};

GST_ELEMENT_REGISTER_DECLARE (cudaconv2d);

G_END_DECLS

#endif
