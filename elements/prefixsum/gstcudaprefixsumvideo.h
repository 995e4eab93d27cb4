/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum on video: each frame's integral images, its statistics,
 * box means and adaptive thresholds, on the GPU (frames in CUDA or host
 * memory, the latter box-filtered in strips) or the CPU, and the tables
 * attached to the frames. The element owns a GstCudaPrefixSumVideo and
 * calls these, giving the settings each frame is measured with (read
 * under its object lock); the module knows the element only as a
 * GstCudaFilterBase, which posts the messages (gstcudaprefixsumstats.h).
 */
#ifndef __GST_CUDA_PREFIX_SUM_VIDEO_H__
#define __GST_CUDA_PREFIX_SUM_VIDEO_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstcudafilterbase.h"
#include "gstcudastrips.h"
#include "gstcudatablepool.h"
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

/* What a frame is measured with, read under the element's object lock. */
typedef struct
{
  GstCudaPrefixSumOutput output;
  gint radius;
  gdouble offset;
  gboolean post, attach;
  gint columns, rows;
  cf_scan_algorithm algorithm;
  guint64 interval;             /* least running time between messages */
  gboolean squares;             /* the tables of squares are wanted: set
                                 * by measure for the frame */
} GstCudaPrefixSumVideoSettings;

typedef struct _GstCudaPrefixSumVideo GstCudaPrefixSumVideo;

struct _GstCudaPrefixSumVideo
{
  GstCudaFilterBase *owner;     /* posts the messages, owns the streams */
  /* the CPU's or the GPU's, chosen when a stream is configured */
  GstFlowReturn (*measure_frame) (GstCudaPrefixSumVideo * v,
      GstBuffer * inbuf, GstBuffer * outbuf,
      const GstCudaPrefixSumVideoSettings * set, gboolean post);
  /* the frames: written by the element under its object lock, where the
   * grid's check reads it too */
  GstVideoInfo info;
  cf_integral_type type;
  guint n_channels;
  GstCudaPrefixSumChannel channels[GST_CUDA_PREFIX_SUM_MAX_CHANNELS];
  GstClockTime last_post;       /* running time of the last message */
  gpointer tables;              /* host tables when no meta takes them */
  GstCudaDeviceBuffer d_in, d_out, d_tables, d_stats, d_work, d_scan;
  GstCudaTablePool *table_pool; /* device tables that travel on buffers */
  GstCudaStrips strips;         /* box means of frames in host memory */
};

/* A new run: the next frame posts its statistics. */
void gst_cuda_prefix_sum_video_start (GstCudaPrefixSumVideo * v);
/* A new stream of `info` (already in v->info): the channels measured; the
 * tables of the old one are dropped. */
void gst_cuda_prefix_sum_video_configure (GstCudaPrefixSumVideo * v,
    GstCudaFilterBase * owner, const GstVideoInfo * info);
/* Measures one frame: `inbuf` in place when `outbuf` is NULL, else into
 * `outbuf`; posts its statistics when they are due. */
GstFlowReturn gst_cuda_prefix_sum_video_measure (GstCudaPrefixSumVideo * v,
    GstBuffer * inbuf, GstBuffer * outbuf,
    const GstCudaPrefixSumVideoSettings * set);
/* Frees the tables and, when `cuda`, the device memory (stop). */
void gst_cuda_prefix_sum_video_free (GstCudaPrefixSumVideo * v,
    gboolean cuda);

G_END_DECLS

#endif
