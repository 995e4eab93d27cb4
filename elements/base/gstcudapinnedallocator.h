/* A GstAllocator of page-locked (pinned) host memory, so that copies to and
 * from the GPU run asynchronously at full PCIe speed. */
#ifndef __GST_CUDA_PINNED_ALLOCATOR_H__
#define __GST_CUDA_PINNED_ALLOCATOR_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_PINNED_ALLOCATOR (gst_cuda_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaPinnedAllocator, gst_cuda_pinned_allocator,
    GST, CUDA_PINNED_ALLOCATOR, GstAllocator)

/* The process-wide instance (transfer full). */
GstAllocator *gst_cuda_pinned_allocator_get (void);

G_END_DECLS

#endif
