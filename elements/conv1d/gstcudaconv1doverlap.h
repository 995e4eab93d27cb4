/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's `overlap`: outputs pushed by a thread of the element's own.
 * The streaming thread queues a buffer's work on the GPU and returns at
 * once to take in the next buffer; the output thread waits for each
 * buffer's work, in order, and pushes its output downstream as soon as it
 * is done. The GPU filters buffer n while the host takes in buffer n + 1,
 * and no output waits for the next input: no latency is added beyond the
 * output thread's wake-up. A module of the element (gstcudaconv1d.c owns
 * it and calls these).
 */
#ifndef __GST_CUDA_CONV1D_OVERLAP_H__
#define __GST_CUDA_CONV1D_OVERLAP_H__

#include <gst/gst.h>

#include "gpu.h"

G_BEGIN_DECLS

/* the element's type, from gstcudaconv1d.h (which includes this) */
struct _GstCudaConv1d;

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
} GstCudaConv1dOutputs;

void gst_cuda_conv1d_outputs_init (struct _GstCudaConv1d *self);
void gst_cuda_conv1d_outputs_finalize (struct _GstCudaConv1d *self);

/* `made`, the output of `in` (both taken), whose work is queued on the
 * element's stream: the output thread pushes it once that work is done.
 * Waits while GST_CUDA_CONV1D_QUEUED outputs are on their way. Returns the
 * flow of the pushes so far. */
GstFlowReturn gst_cuda_conv1d_send (struct _GstCudaConv1d *self,
    GstBuffer * in, GstBuffer * made);

/* Waits until every queued output has been pushed (before the streaming
 * thread pushes a tail or an event itself); returns their flow. */
GstFlowReturn gst_cuda_conv1d_wait_sent (struct _GstCudaConv1d *self);

/* A flush starts: what is queued is dropped, not pushed. */
void gst_cuda_conv1d_discard (struct _GstCudaConv1d *self);

/* The flush ends: once what was queued is gone, outputs go out again. */
void gst_cuda_conv1d_resume (struct _GstCudaConv1d *self);

/* At stop: what is queued dropped, the thread ended, the events freed. */
void gst_cuda_conv1d_stop_outputs (struct _GstCudaConv1d *self);

G_END_DECLS

#endif
