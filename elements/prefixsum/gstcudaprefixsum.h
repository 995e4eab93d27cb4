/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_CUDA_PREFIX_SUM_H__
#define __GST_CUDA_PREFIX_SUM_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/audio/audio.h>

#include "gstcudafilterbase.h"
#include "gstcudastrips.h"
#include "gstcudatablepool.h"
#include "gstcudaprefixsumaudio.h"
#include "integral.h"
#include "scan.h"

G_BEGIN_DECLS

typedef enum
{
  GST_CUDA_PREFIX_SUM_OUTPUT_PASSTHROUGH,
  GST_CUDA_PREFIX_SUM_OUTPUT_BOX_MEAN,
  GST_CUDA_PREFIX_SUM_OUTPUT_ADAPTIVE_THRESHOLD,
} GstCudaPrefixSumOutput;

#define GST_CUDA_PREFIX_SUM_MAX_CHANNELS 3

/* One channel the element measures: a component of the frame. */
typedef struct
{
  guint plane;
  gsize offset;                 /* bytes from the plane's start */
  gint step;                    /* samples from pixel to pixel */
  gint sample;                  /* its index among a pixel's samples */
} GstCudaPrefixSumChannel;

#define GST_TYPE_CUDA_PREFIX_SUM (gst_cuda_prefix_sum_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaPrefixSum, gst_cuda_prefix_sum, GST,
    CUDA_PREFIX_SUM, GstCudaFilterBase)

struct _GstCudaPrefixSum
{
  GstCudaFilterBase parent;

  /* properties, object lock */
  GstCudaPrefixSumOutput output;
  gint radius;
  gdouble offset;
  guint64 interval;
  gboolean post_messages, attach_meta;
  gint grid_columns, grid_rows;
  guint64 peak_ttl;
  gdouble peak_falloff;
  cf_scan_algorithm algorithm;
  gboolean started;

  /* streaming thread */
  GstVideoInfo info;
  gboolean have_info;
  cf_integral_type type;
  guint n_channels;
  GstCudaPrefixSumChannel channels[GST_CUDA_PREFIX_SUM_MAX_CHANNELS];
  GstClockTime last_post;       /* running time of the last message */
  /* audio: the level statistics */
  gboolean have_audio;
  GstCudaPrefixSumAudio audio;
  gpointer tables;              /* host tables when no meta takes them */
  GstCudaDeviceBuffer d_in, d_out, d_tables, d_stats, d_work, d_scan;
  GstCudaTablePool *table_pool; /* device tables that travel on buffers */
  GstCudaStrips strips;         /* box means of frames in host memory */
};

GST_ELEMENT_REGISTER_DECLARE (cudaprefixsum);

G_END_DECLS

#endif
