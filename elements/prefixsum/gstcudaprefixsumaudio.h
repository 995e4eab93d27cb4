/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum on audio: the level statistics of each buffer, posted as
 * the level element's messages. A module of the element (gstcudaprefixsum.c
 * owns it and calls these); the statistics themselves are gstcudalevel.h's.
 */
#ifndef __GST_CUDA_PREFIX_SUM_AUDIO_H__
#define __GST_CUDA_PREFIX_SUM_AUDIO_H__

#include "gstcudaprefixsum.h"

G_BEGIN_DECLS

/* Measures one audio buffer, posting the level messages it completes. */
GstFlowReturn gst_cuda_prefix_sum_measure_audio (GstCudaPrefixSum * self,
    GstBuffer * buf);
/* At EOS: posts what is left of the last interval. */
void gst_cuda_prefix_sum_finish_audio (GstCudaPrefixSum * self);
/* At a flush: forgets the interval being gathered. */
void gst_cuda_prefix_sum_flush_audio (GstCudaPrefixSum * self);
/* Frees the level state and its memory (new caps, stop), after the GPU
 * is done with it. */
void gst_cuda_prefix_sum_free_audio (GstCudaPrefixSum * self);

G_END_DECLS

#endif
