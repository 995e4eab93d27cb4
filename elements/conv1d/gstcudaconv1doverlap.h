/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's `overlap`: outputs pushed by a thread of the element's own.
 * The streaming thread queues a buffer's work on the GPU and returns at
 * once to take in the next buffer; the output thread waits for each
 * buffer's work, in order, and pushes its output downstream as soon as it
 * is done. The GPU filters buffer n while the host takes in buffer n + 1,
 * and no output waits for the next input: no latency is added beyond the
 * output thread's wake-up. The element owns a GstCudaConv1dOutputs and
 * calls these; the module knows the element only as a GstCudaFilterBase.
 */
#ifndef __GST_CUDA_CONV1D_OVERLAP_H__
#define __GST_CUDA_CONV1D_OVERLAP_H__

#include <gst/gst.h>

#include "gstcudafilterbase.h"

G_BEGIN_DECLS

typedef struct
{
  GMutex lock;
  GCond cond;                   /* the queue or the state changed */
  GThread *thread;
  GQueue queue;                 /* outputs on their way, oldest first; the
                                 * head leaves the queue once pushed */
  GQueue spare;                 /* events free for the next outputs */
  gboolean stopping;            /* the thread ends */
  gboolean discarding;          /* a flush: outputs are dropped, not pushed */
  GstFlowReturn ret;            /* the first push that failed, for upstream */
  GstCudaFilterBase *owner;     /* whose source pad and stream */
} GstCudaConv1dOutputs;

void gst_cuda_conv1d_outputs_init (GstCudaConv1dOutputs * o,
    GstCudaFilterBase * owner);
void gst_cuda_conv1d_outputs_finalize (GstCudaConv1dOutputs * o);

/* `made`, the output of `in` (both taken), whose work is queued on the
 * element's stream: the output thread pushes it once that work is done.
 * Waits while GST_CUDA_CONV1D_QUEUED outputs are on their way. Returns the
 * flow of the pushes so far. */
GstFlowReturn gst_cuda_conv1d_send (GstCudaConv1dOutputs * o,
    GstBuffer * in, GstBuffer * made);

/* Waits until every queued output has been pushed (before the streaming
 * thread pushes a tail or an event itself); returns their flow. */
GstFlowReturn gst_cuda_conv1d_wait_sent (GstCudaConv1dOutputs * o);

/* A flush starts: what is queued is dropped, not pushed. */
void gst_cuda_conv1d_discard (GstCudaConv1dOutputs * o);

/* The flush ends: once what was queued is gone, outputs go out again. */
void gst_cuda_conv1d_resume (GstCudaConv1dOutputs * o);

/* At stop: what is queued dropped, the thread ended, the events freed. */
void gst_cuda_conv1d_stop_outputs (GstCudaConv1dOutputs * o);

G_END_DECLS

#endif
