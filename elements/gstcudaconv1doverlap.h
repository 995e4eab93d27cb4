/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's `overlap`: each output buffer is held back until the next
 * input buffer's work is queued, so that the GPU filters buffer n while
 * the host hands buffer n - 1 downstream and takes in buffer n + 1. The
 * cost is one input buffer of latency, which the element reports. A
 * module of the element (gstcudaconv1d.c owns it and calls these, in the
 * streaming thread).
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
  GstBuffer *out;               /* held: its work may still run on the GPU */
  GstBuffer *in;                /* its input, whose page-locked samples the
                                 * GPU may still read */
  cf_event done[2];             /* recorded after a buffer's work */
  guint which;                  /* done[which] is `out`'s */
  GstClockTime longest;         /* the longest input buffer seen: the
                                 * latency the holding adds */
} GstCudaConv1dHeld;

/* `made`, the output just made for `in` (both taken), is held; *outbuf
 * receives the buffer held before it (NULL for a stream's first) once its
 * work is done. `duration`: the input's. */
GstFlowReturn gst_cuda_conv1d_hold (struct _GstCudaConv1d * self, GstBuffer * in,
    GstClockTime duration, GstBuffer * made, GstBuffer ** outbuf);

/* Pushes the held buffer, once its work is done (before a drain or an
 * event that must not overtake it). */
GstFlowReturn gst_cuda_conv1d_push_held (struct _GstCudaConv1d * self);

/* Forgets the held buffer (a flush), once the GPU is done with it. */
void gst_cuda_conv1d_drop_held (struct _GstCudaConv1d * self);

/* At stop: the held buffer dropped, the events freed, the latency
 * forgotten. */
void gst_cuda_conv1d_clear_held (struct _GstCudaConv1d * self);

G_END_DECLS

#endif
