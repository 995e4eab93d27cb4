/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum on video: the "cudaprefixsum" element message of a frame,
 * from its statistics and, for the grid of regions, its host tables. The
 * message is posted by `owner`.
 */
#ifndef __GST_CUDA_PREFIX_SUM_STATS_H__
#define __GST_CUDA_PREFIX_SUM_STATS_H__

#include <gst/gst.h>

#include "gstcudafilterbase.h"
#include "gstcudaintegralmeta.h"
#include "reduce.h"

G_BEGIN_DECLS

/* Posts the message of `buf`, a `width` x `height` frame: channel c's
 * statistics are st[samples[c]]; `tables` (a meta laid out over the host
 * tables, or NULL) gives the means and variances of a grid of `columns`
 * x `rows` regions. */
void gst_cuda_prefix_sum_stats_post (GstCudaFilterBase * owner,
    GstBuffer * buf, gint width, gint height, guint n_channels,
    const gint * samples, const cf_stats * st,
    const GstCudaIntegralMeta * tables, gint columns, gint rows);

G_END_DECLS

#endif
