/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_CUDA_PREFIX_SUM_H__
#define __GST_CUDA_PREFIX_SUM_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/audio/audio.h>

#include "gstcudafilterbase.h"
#include "gstcudastrips.h"
#include "gstcudatablepool.h"
#include "gstcudalevel.h"
#include "integral.h"
#include "scan.h"

G_BEGIN_DECLS

/* Audio on the GPU (gstcudaprefixsumaudio.c): buffers whose level sums
 * may be in flight at once, and blocks (messages ending inside) a buffer
 * may have to be measured there. */
#define GST_CUDA_LEVEL_QUEUE 16
#define GST_CUDA_LEVEL_MAX_GPU_BLOCKS 16

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
  cf_reduce_type audio_type;
  GstCudaLevel level;
  GstClockTime level_interval;  /* the interval `level` was last given */
  guint *level_blocks;          /* a buffer's blocks, level_room of them */
  cf_stats *level_stats;        /* their sums, level_room x channels */
  guint level_room;
  /* GPU: buffers whose sums are on their way back, waited for when an
   * interval ends (gstcudaprefixsumaudio.c): their samples staged in
   * page-locked slots, their blocks' sums written to page-locked memory */
  guint8 *level_staging;        /* GST_CUDA_LEVEL_QUEUE slots */
  gsize level_slot_bytes;
  cf_stats *level_queued_stats; /* block k of the queue at k x channels */
  cf_stats *level_queued_dev;   /* the same, as the GPU addresses it */
  guint level_queued_frames[GST_CUDA_LEVEL_QUEUE];
  guint level_queued_blocks[GST_CUDA_LEVEL_QUEUE
      * GST_CUDA_LEVEL_MAX_GPU_BLOCKS];
  guint level_queued_n[GST_CUDA_LEVEL_QUEUE];   /* blocks of each buffer */
  guint level_n_queued, level_n_blocks;
  guint64 level_queued_total;   /* frames of all queued buffers */
  gpointer tables;              /* host tables when no meta takes them */
  GstCudaDeviceBuffer d_in, d_out, d_tables, d_stats, d_work, d_scan;
  GstCudaTablePool *table_pool; /* device tables that travel on buffers */
  GstCudaStrips strips;         /* box means of frames in host memory */
};

GST_ELEMENT_REGISTER_DECLARE (cudaprefixsum);

G_END_DECLS

#endif
