/* A thin C layer over the CUDA runtime: device choice, streams, events,
 * device and pinned host memory, asynchronous copies.
 *
 * It keeps CUDA headers out of the GStreamer elements and gives a CPU-only
 * build (no nvcc) the same API: there every call returns CF_ERR_NO_CUDA and
 * cf_gpu_device_count() reports no device, so callers take their CPU path.
 */
#ifndef CF_GPU_H
#define CF_GPU_H

#include <stddef.h>
#include "cf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The same types as cudaStream_t and cudaEvent_t, declared without the CUDA
 * headers. */
typedef struct CUstream_st *cf_stream;
typedef struct CUevent_st *cf_event;

typedef enum
{
  CF_COPY_HOST_TO_DEVICE,
  CF_COPY_DEVICE_TO_HOST,
  CF_COPY_DEVICE_TO_DEVICE,
} cf_copy_kind;

/* 1 when the library was built with CUDA kernels. */
int cf_gpu_built_with_cuda (void);

/* Number of usable CUDA devices in *count (0 when none). Returns the CUDA
 * error that made the count fail (no driver, ...) so callers can say why. */
int cf_gpu_device_count (int *count);

/* The CUDA version the driver supports (cudaDriverGetVersion: 12040 for
 * 12.4), 0 without a driver; and the one the library was built with, 0
 * without CUDA. */
int cf_gpu_driver_version (void);
int cf_gpu_build_version (void);
/* The architectures the library has machine code for, as the build was
 * given them ("75,80,90", PTX of the last one too); "" without CUDA. */
const char *cf_gpu_build_archs (void);
/* CF_OK when the driver can run the library's kernels and, for a `device`
 * of 0 or more (made current by the caller), the device has code among
 * them; else the CUDA error that says why (cudaErrorInsufficientDriver,
 * cudaErrorNoKernelImageForDevice, ...), with a sentence for the user,
 * naming the versions and the remedy, in `why` (see gpu_compat.h). */
int cf_gpu_check_build (int device, char *why, size_t size);
/* The same for `kernel`, a kernel of the caller's built for `archs`. */
int cf_gpu_check_kernel (const void *kernel, const char *archs, int device,
    char *why, size_t size);
int cf_gpu_device_name (int device, char *name, size_t size);
/* Makes `device` current for the calling thread. */
int cf_gpu_set_device (int device);
/* Makes a CUDA driver context (a CUcontext) current on the calling thread,
 * as cuCtxSetCurrent does: the runtime calls after it work in that context. */
int cf_gpu_set_context (void *context);
/* Pushes `context` on the calling thread's stack of current contexts (the
 * runtime calls after it work in it) and pops it again: code that pushes
 * and pops leaves the thread as it found it. */
int cf_gpu_push_context (void *context);
int cf_gpu_pop_context (void);
/* The calling thread's current context (NULL: none). */
int cf_gpu_current_context (void **context);
/* A number that names the calling thread's current context for the
 * process's whole life (cuCtxGetId), unlike its address. */
int cf_gpu_context_id (unsigned long long *id);
/* The primary context of `device` (the runtime's own), retained for the
 * whole process and not made current; its CUcontext in *context. */
int cf_gpu_primary_context (int device, void **context);

int cf_gpu_stream_create (cf_stream * stream);
/* A stream whose work the GPU takes up only when the streams of
 * cf_gpu_stream_create() have none waiting: for work done ahead of time
 * (a response prepared while another plays), so that it never holds up
 * the buffers. */
int cf_gpu_stream_create_background (cf_stream * stream);
int cf_gpu_stream_destroy (cf_stream stream);
int cf_gpu_stream_sync (cf_stream stream);

int cf_gpu_event_create (cf_event * event);
int cf_gpu_event_destroy (cf_event event);
int cf_gpu_event_record (cf_event event, cf_stream stream);
/* Waits on the host until the work before the event's last record is done. */
int cf_gpu_event_sync (cf_event event);
/* Work submitted to `stream` after this call waits for `event`. */
int cf_gpu_stream_wait (cf_stream stream, cf_event event);

int cf_gpu_malloc (void **ptr, size_t size);
/* Free and total memory of the current device. */
int cf_gpu_mem_info (size_t * free_bytes, size_t * total);
int cf_gpu_free (void *ptr);
/* Stream-ordered: the memory is usable by work queued on `stream` after
 * the call (by any stream once that is done), and freed once the work
 * queued before the free is done. Neither waits for the device, unlike
 * cf_gpu_free(), which waits for all of it: code that frees while other
 * threads' buffers flow uses these. Where the device has no memory pools
 * they fall back to cf_gpu_malloc() and cf_gpu_free(). */
int cf_gpu_malloc_async (void **ptr, size_t size, cf_stream stream);
int cf_gpu_free_async (void *ptr, cf_stream stream);
/* Page-locked host memory, usable by every device (portable). */
int cf_gpu_host_alloc (void **ptr, size_t size);
int cf_gpu_host_free (void *ptr);
/* 1 when `ptr` lies in page-locked memory the GPU can copy at full speed. */
int cf_gpu_host_is_pinned (const void *ptr);
/* Where kernels reach page-locked host memory directly (zero copy: each
 * access crosses the bus, which pays for a few bytes written or read once,
 * such as results); NULL for memory that is not page-locked. */
void *cf_gpu_host_device_pointer (const void *ptr);
/* Page-locks existing host memory (and unlocks it), so that copies from and
 * to it run asynchronously at full speed. */
int cf_gpu_host_register (void *ptr, size_t size);
int cf_gpu_host_unregister (void *ptr);

/* Copies `rows` rows of `row_bytes` bytes between pitched buffers,
 * asynchronously on `stream` (synchronously for pageable host memory). */
int cf_gpu_copy_2d (void *dst, size_t dst_pitch, const void *src,
    size_t src_pitch, size_t row_bytes, size_t rows, cf_copy_kind kind,
    cf_stream stream);
int cf_gpu_memset (void *ptr, int value, size_t size, cf_stream stream);

/* The CUDA name of a CUDA error code (cf_status_name() calls it). */
const char *cf_gpu_error_name (int error);

/* Returns and clears the last CUDA error of the calling thread. */
int cf_gpu_last_error (void);

#ifdef __cplusplus
}
#endif
#endif
