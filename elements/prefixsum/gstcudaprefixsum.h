/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_CUDA_PREFIX_SUM_H__
#define __GST_CUDA_PREFIX_SUM_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/audio/audio.h>

#include "gstcudafilterbase.h"
#include "gstcudaprefixsumaudio.h"
#include "gstcudaprefixsumloudness.h"
#include "gstcudaprefixsumvideo.h"
#include "scan.h"

G_BEGIN_DECLS

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
  gboolean loudness;
  gboolean started;

  /* streaming thread */
  gboolean have_info;
  /* video: the tables, statistics and box means */
  GstCudaPrefixSumVideo video;
  /* audio: the level statistics */
  gboolean have_audio;
  GstCudaPrefixSumAudio audio;
  /* audio: the loudness meter, and whether the last buffer was metered */
  GstCudaPrefixSumLoudness loudness_meter;
  gboolean metering;
};

GST_ELEMENT_REGISTER_DECLARE (cudaprefixsum);

G_END_DECLS

#endif
