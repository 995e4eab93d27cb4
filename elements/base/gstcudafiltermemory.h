/* Frames in CUDA memory (GstCudaMemory of GStreamer's CUDA library): the
 * pools the elements propose and decide, and whether the element after
 * ours computes on our stream. Without the library (HAVE_GST_CUDA unset)
 * every frame is in system memory and these say so. */
#ifndef __GST_CUDA_FILTER_MEMORY_H__
#define __GST_CUDA_FILTER_MEMORY_H__

#include <gst/gst.h>

#include <gst/video/video.h>

#include "gstcudafilterdevice.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudamemory.h>
#endif

G_BEGIN_DECLS

#ifdef HAVE_GST_CUDA
#define GST_CUDA_FILTER_MEMORY_FEATURE GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY
#else
#define GST_CUDA_FILTER_MEMORY_FEATURE "memory:CUDAMemory"
#endif

/* Template caps: `cuda_formats` in CUDA memory (when the plugin is built
 * with GStreamer's CUDA library) followed by `formats` in system memory. */
GstCaps *gst_cuda_filter_memory_video_caps (const gchar * formats,
    const gchar * cuda_formats);

/* TRUE when `caps` carry the memory:CUDAMemory feature. */
gboolean gst_cuda_filter_caps_are_cuda (const GstCaps * caps);

/* FALSE for caps whose frames CUDA memory cannot hold intact (I420 and
 * YV12 of odd height in GStreamer 1.22's layout). */
gboolean gst_cuda_filter_memory_holds (const GstStructure * s);

/* TRUE when every memory of `buffer` is CUDA memory of `device`'s context. */
gboolean gst_cuda_filter_memory_is_device_buffer (GstCudaFilterDevice *
    device, GstBuffer * buffer);

/* Offers a pool of CUDA memory of `device`'s context for `caps` upstream. */
void gst_cuda_filter_memory_propose (GstCudaFilterDevice * device,
    GstQuery * query, GstCaps * caps);

/* Keeps downstream's CUDA pool when it is of `device`'s context, else puts
 * a pool of our own first. FALSE when no pool can be made. */
gboolean gst_cuda_filter_memory_decide (GstCudaFilterDevice * device,
    GstQuery * query, GstCaps * caps);

/* `caps` (taken) with the structures of the wanted memory type first: an
 * element takes the first its peer offers (GstBaseTransform lets the
 * peer's order win), so the order is how the elements ask for CUDA memory
 * from cudaupload, whose own order puts system memory first. */
GstCaps *gst_cuda_filter_memory_prefer (GstCaps * caps, gboolean cuda);

/* GStreamer 1.24+ streams on memories (a build against 1.22 has none: both
 * return CF_OK and do nothing). Before the kernels on `ours` read (or,
 * `write`, write) `buffer`'s CUDA memory: they wait on the GPU, through
 * `event`, for the stream of each memory of another stream when it may
 * still be writing the memory (GST_CUDA_MEMORY_TRANSFER_NEED_SYNC) or, for
 * a write, for whatever was queued on it. */
int gst_cuda_filter_memory_order_before (GstBuffer * buffer, gboolean write,
    cf_stream ours, cf_event event);

/* After the kernels on `ours` were queued on `buffer`'s CUDA memory: the
 * stream of each memory of another stream waits for them on the GPU, so
 * that its next writer (upstream's pool) or reader (downstream) comes
 * after. *streamed: every memory carries a stream, whose users order
 * themselves on the GPU, so that no wait on the host is needed for it. */
int gst_cuda_filter_memory_order_after (GstBuffer * buffer, cf_stream ours,
    cf_event event, gboolean * streamed);

G_END_DECLS

#endif
