/* Page-locking of host memory that keeps coming back: buffers from pools,
 * or the one frame imagefreeze repeats. Copies from pageable memory run at a
 * fraction of PCIe speed and cannot overlap anything, and upstream does not
 * always allocate from the pinned pool an element proposes (imagefreeze
 * forwards the allocation query before caps reach the element, which cannot
 * answer it yet). So memory seen a second time is registered with the GPU
 * for the rest of its life. Memory seen once costs nothing. */
#ifndef __GST_CUDA_PIN_H__
#define __GST_CUDA_PIN_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Registers the memories of `buffer` that were seen before and are not yet
 * pinned; marks the others as seen. Best effort: memory that cannot be
 * registered is simply copied at pageable speed. */
void gst_cuda_pin_buffer (GstBuffer * buffer);

G_END_DECLS

#endif
