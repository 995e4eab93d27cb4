/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum's integral tables on video: their layout (per channel the
 * sums, then the squares, as GstCudaIntegralMeta keeps them), and where
 * they live for a frame: in host memory (a meta's block, or the element's
 * own for the grid and the CPU's box filter), or on the device in a block
 * of the element's table pool that travels on the buffer.
 */
#ifndef __GST_CUDA_PREFIX_SUM_TABLES_H__
#define __GST_CUDA_PREFIX_SUM_TABLES_H__

#include "gstcudaintegralmeta.h"
#include "gstcudaprefixsumvideo.h"

G_BEGIN_DECLS

/* The pitches of one channel's sums and squares, and the bytes of both. */
void gst_cuda_prefix_sum_video_table_layout (GstCudaPrefixSumVideo * v,
    gsize * sum_pitch, gsize * sq_pitch, gsize * per_channel);
/* Host tables: with `attach`, a new block in a meta added to `buf` (which
 * must be writable: before its frame is mapped), else the element's own,
 * described by `storage`. The meta describing them, or NULL. */
GstCudaIntegralMeta *gst_cuda_prefix_sum_video_host_tables
    (GstCudaPrefixSumVideo * v, GstBuffer * buf, gboolean attach,
    GstCudaIntegralMeta * storage);
/* Device tables in a block of the table pool (`block`), in a meta added
 * to `buf`; NULL after an error. */
GstCudaIntegralMeta *gst_cuda_prefix_sum_video_device_tables
    (GstCudaPrefixSumVideo * v, GstBuffer * buf, GstCudaTableBlock ** block);

G_END_DECLS

#endif
