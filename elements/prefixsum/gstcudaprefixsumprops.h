/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum's properties: their ids, defaults, enum types and
 * documentation, installed on the element's class.
 */
#ifndef __GST_CUDA_PREFIX_SUM_PROPS_H__
#define __GST_CUDA_PREFIX_SUM_PROPS_H__

#include <gst/gst.h>

#include "gstcudafilterbase.h"
#include "scan.h"

G_BEGIN_DECLS

#define DEFAULT_OUTPUT GST_CUDA_PREFIX_SUM_OUTPUT_PASSTHROUGH
#define DEFAULT_RADIUS 8
#define DEFAULT_OFFSET 5.0
#define DEFAULT_INTERVAL (GST_SECOND / 10)      /* as level */
#define DEFAULT_PEAK_TTL (GST_SECOND / 10 * 3)   /* as level */
#define DEFAULT_PEAK_FALLOFF 10.0               /* dB per second, as level */
#define DEFAULT_ALGORITHM CF_SCAN_AUTO
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_ATTACH_META TRUE
#define DEFAULT_GRID 0
#define DEFAULT_LOUDNESS FALSE
#define MAX_GRID 4096

enum
{
  PROP_0,
  PROP_OUTPUT,
  PROP_RADIUS,
  PROP_OFFSET,
  PROP_INTERVAL,
  PROP_POST_MESSAGES,
  PROP_ATTACH_META,
  PROP_GRID_COLUMNS,
  PROP_GRID_ROWS,
  PROP_PEAK_TTL,
  PROP_PEAK_FALLOFF,
  PROP_ALGORITHM,
  PROP_LOUDNESS,
};

void gst_cuda_prefix_sum_install_properties (GObjectClass * gobject_class);

G_END_DECLS

#endif
