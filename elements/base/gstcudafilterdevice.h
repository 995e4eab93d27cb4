/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GPU the elements compute on: a CUDA context pushed around each piece
 * of GPU work, and the stream on which every element of the plugin
 * that shares the context processes frames.
 *
 * With GStreamer's CUDA library (HAVE_GST_CUDA) the context is a
 * GstCudaContext, the one the pipeline shares with nvh264dec, cudaupload,
 * cudadownload and the plugin's other elements; without it, the device's
 * primary context. There is one GstCudaFilterDevice per context, so that
 * elements of one context find the same stream: work queued on it by one
 * element runs after the work of the element before it and before that of
 * the element after it, which orders every read and write of the frames
 * they hand each other in CUDA memory without waiting on the host. */
#ifndef __GST_CUDA_FILTER_DEVICE_H__
#define __GST_CUDA_FILTER_DEVICE_H__

#include <gst/gst.h>

#include "gpu.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#endif
#ifdef HAVE_GST_CUDA_STREAM
#include <gst/cuda/gstcudastream.h>
#endif

G_BEGIN_DECLS

typedef struct _GstCudaFilterDevice GstCudaFilterDevice;

#ifdef HAVE_GST_CUDA
/* The device of `context` (taken by reference, not stolen); NULL with
 * *error set when its stream cannot be made. */
GstCudaFilterDevice *gst_cuda_filter_device_for_context (GstCudaContext *
    context, gchar ** error);
GstCudaContext *gst_cuda_filter_device_context (GstCudaFilterDevice * dev);
#else
/* The primary context of CUDA device `id`. */
GstCudaFilterDevice *gst_cuda_filter_device_for_id (gint id, gchar ** error);
#endif

GstCudaFilterDevice *gst_cuda_filter_device_ref (GstCudaFilterDevice * dev);
void gst_cuda_filter_device_unref (GstCudaFilterDevice * dev);

gint gst_cuda_filter_device_id (GstCudaFilterDevice * dev);
cf_stream gst_cuda_filter_device_stream (GstCudaFilterDevice * dev);
#ifdef HAVE_GST_CUDA_STREAM
/* The same stream as a GstCudaStream (GStreamer 1.24+), for the pools that
 * put it on the memories they hand out, so that GStreamer's CUDA elements
 * of 1.24 and newer write and read those frames on it, or wait for it on
 * the GPU. */
GstCudaStream *gst_cuda_filter_device_cuda_stream (GstCudaFilterDevice * dev);
#endif

/* Pushes the context on the calling thread's stack of current contexts,
 * and pops it: every piece of GPU work runs between the two, as
 * gst_cuda_context_push and _pop do, so that no thread is left with a
 * context it did not set (an application's own CUDA work finds its context
 * as it left it). Push returns a cf status; pop only after a push that
 * succeeded. */
int gst_cuda_filter_device_push (GstCudaFilterDevice * dev);
void gst_cuda_filter_device_pop (GstCudaFilterDevice * dev);

G_END_DECLS

#endif
