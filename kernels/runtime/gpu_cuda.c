/* The device layer (gpu.h) over the CUDA runtime. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>

#include "cf_fault.h"
#include "gpu.h"

const char *
cf_gpu_error_name (int error)
{
  return cudaGetErrorName ((cudaError_t) error);
}

int
cf_gpu_built_with_cuda (void)
{
  return 1;
}

int
cf_gpu_device_count (int *count)
{
  cudaError_t err;

  if (cf_fault_armed && cf_fault_lost ()) {
    *count = 0;
    return cudaErrorNoDevice;
  }
  /* a driver too old for the build, as the runtime would find it */
  if (cf_fault_armed && cf_fault_driver ()
      && cf_fault_driver () / 1000 < CUDART_VERSION / 1000) {
    *count = 0;
    return cudaErrorInsufficientDriver;
  }
  err = cudaGetDeviceCount (count);
  if (err != cudaSuccess) {
    *count = 0;
    cudaGetLastError ();        /* do not leave it sticky for the next call */
  }
  return err;
}

int
cf_gpu_driver_version (void)
{
  int version = 0;

  if (cf_fault_armed && cf_fault_driver ())
    return cf_fault_driver ();
  if (cudaDriverGetVersion (&version) != cudaSuccess)
    version = 0;
  return version;
}

int
cf_gpu_device_name (int device, char *name, size_t size)
{
  struct cudaDeviceProp prop;
  cudaError_t err = cudaGetDeviceProperties (&prop, device);
  if (err == cudaSuccess)
    snprintf (name, size, "%s (compute %d.%d, %d SMs)", prop.name,
        prop.major, prop.minor, prop.multiProcessorCount);
  return err;
}

int
cf_gpu_set_device (int device)
{
  return cudaSetDevice (device);
}

/* Driver entry points through the runtime, so that the library needs no
 * link to libcuda (absent where there is no driver). */
static int
driver_entry (const char *name, void **fn)
{
  enum cudaDriverEntryPointQueryResult found;
  cudaError_t err;

  if (*fn)
    return cudaSuccess;
#if CUDART_VERSION >= 12050
  /* the unversioned query is deprecated in 12.5 and gone in 13.0 */
  /* the version asked must be at least the one that brought the symbol:
   * cuDevicePrimaryCtxRetain came with 7.0, cuCtxGetId with 12.0 */
  err = cudaGetDriverEntryPointByVersion (name, fn, 12000, cudaEnableDefault,
      &found);
#else
  err = cudaGetDriverEntryPoint (name, fn, cudaEnableDefault, &found);
#endif
  if (err != cudaSuccess)
    return err;
  return found == cudaDriverEntryPointSuccess && *fn ? cudaSuccess
      : cudaErrorSymbolNotFound;
}

/* A driver call of one pointer argument; CUresult and cudaError_t differ:
 * any failure reads as a bad context. */
static int
context_call (const char *name, void **fn, void *arg)
{
  int err = driver_entry (name, fn);

  if (err != cudaSuccess)
    return err;
  return ((int (*)(void *)) *fn) (arg) == 0 ? cudaSuccess
      : cudaErrorInvalidResourceHandle;
}

int
cf_gpu_set_context (void *context)
{
  static void *set_current;
  return context_call ("cuCtxSetCurrent", &set_current, context);
}

int
cf_gpu_push_context (void *context)
{
  static void *push;
  return context_call ("cuCtxPushCurrent", &push, context);
}

int
cf_gpu_pop_context (void)
{
  static void *pop;
  void *popped = NULL;
  return context_call ("cuCtxPopCurrent", &pop, &popped);
}

int
cf_gpu_current_context (void **context)
{
  static void *get_current;
  *context = NULL;
  return context_call ("cuCtxGetCurrent", &get_current, context);
}

int
cf_gpu_context_id (unsigned long long *id)
{
  static void *get_current, *get_id;
  void *context = NULL;
  int err = driver_entry ("cuCtxGetCurrent", &get_current);

  if (err == cudaSuccess)
    err = driver_entry ("cuCtxGetId", &get_id);
  if (err != cudaSuccess)
    return err;
  if (((int (*)(void **)) get_current) (&context) != 0 || !context
      || ((int (*)(void *, unsigned long long *)) get_id) (context, id) != 0)
    return cudaErrorInvalidResourceHandle;
  return cudaSuccess;
}

int
cf_gpu_primary_context (int device, void **context)
{
  static void *init, *get_device, *retain;
  int handle = 0, err;

  /* the driver initialised, no context made current (a runtime call such
   * as cudaFree would leave the primary context current on this thread) */
  *context = NULL;
  err = driver_entry ("cuInit", &init);
  if (err == cudaSuccess && ((int (*)(unsigned int)) init) (0) != 0)
    err = cudaErrorInitializationError;
  if (err == cudaSuccess)
    err = driver_entry ("cuDeviceGet", &get_device);
  if (err == cudaSuccess)
    err = driver_entry ("cuDevicePrimaryCtxRetain", &retain);
  if (err != cudaSuccess)
    return err;
  /* retained once more for every call, never released: the primary
   * context lives as long as the process */
  if (((int (*)(int *, int)) get_device) (&handle, device) != 0
      || ((int (*)(void **, int)) retain) (context, handle) != 0)
    return cudaErrorInvalidDevice;
  return cudaSuccess;
}

/* Streams made with no priority get the lowest, as most code's do: the
 * plugin's own come one above it, and its background ones at it. */
static int
stream_at (cf_stream * stream, int above_lowest)
{
  int lowest = 0, highest = 0;

  if (cudaDeviceGetStreamPriorityRange (&lowest, &highest) != cudaSuccess) {
    cudaGetLastError ();
    return cudaStreamCreateWithFlags (stream, cudaStreamNonBlocking);
  }
  /* a smaller number is a higher priority */
  return cudaStreamCreateWithPriority (stream, cudaStreamNonBlocking,
      above_lowest && highest < lowest ? lowest - 1 : lowest);
}

int
cf_gpu_stream_create (cf_stream * stream)
{
  return stream_at (stream, 1);
}

int
cf_gpu_stream_create_background (cf_stream * stream)
{
  return stream_at (stream, 0);
}

int
cf_gpu_stream_destroy (cf_stream stream)
{
  return cudaStreamDestroy (stream);
}

int
cf_gpu_stream_sync (cf_stream stream)
{
  return cf_fault_check (CF_FAULT_SYNC, cudaStreamSynchronize (stream));
}

int
cf_gpu_event_create (cf_event * event)
{
  return cudaEventCreateWithFlags (event, cudaEventDisableTiming);
}

int
cf_gpu_event_destroy (cf_event event)
{
  return cudaEventDestroy (event);
}

int
cf_gpu_event_record (cf_event event, cf_stream stream)
{
  return cudaEventRecord (event, stream);
}

int
cf_gpu_event_sync (cf_event event)
{
  return cf_fault_check (CF_FAULT_SYNC, cudaEventSynchronize (event));
}

int
cf_gpu_stream_wait (cf_stream stream, cf_event event)
{
  return cudaStreamWaitEvent (stream, event, 0);
}

int
cf_gpu_malloc (void **ptr, size_t size)
{
  int injected = cf_fault_armed ? cf_fault_hit (CF_FAULT_ALLOC) : 0;

  if (injected) {
    *ptr = NULL;
    return injected;
  }
  return cudaMalloc (ptr, size);
}

int
cf_gpu_mem_info (size_t * free_bytes, size_t * total)
{
  return cudaMemGetInfo (free_bytes, total);
}

int
cf_gpu_free (void *ptr)
{
  return cudaFree (ptr);
}

/* The stream-ordered allocations come from a pool of the plugin's own on
 * each device, which keeps up to POOL_KEEP bytes of freed memory for the
 * next allocations instead of handing it back to the driver at the next
 * synchronisation: a response freed while buffers flow would otherwise
 * be unmapped inside some streaming thread's wait. */
#define POOL_DEVICES 64
#define POOL_KEEP (256u << 20)

static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static cudaMemPool_t pools[POOL_DEVICES];
static signed char pools_known[POOL_DEVICES];  /* 1 made, -1 none */

/* The current device's pool, NULL where the device has none. */
static cudaMemPool_t
pool_here (void)
{
  int device = 0, supported = 0;
  cudaMemPool_t pool = NULL;

  if (cudaGetDevice (&device) != cudaSuccess || device < 0
      || device >= POOL_DEVICES) {
    cudaGetLastError ();
    return NULL;
  }
  pthread_mutex_lock (&pools_lock);
  if (!pools_known[device]) {
    struct cudaMemPoolProps props = { 0 };
    unsigned long long keep = POOL_KEEP;

    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    if (cudaDeviceGetAttribute (&supported, cudaDevAttrMemoryPoolsSupported,
            device) == cudaSuccess && supported
        && cudaMemPoolCreate (&pools[device], &props) == cudaSuccess) {
      cudaMemPoolSetAttribute (pools[device],
          cudaMemPoolAttrReleaseThreshold, &keep);
      pools_known[device] = 1;
    } else {
      cudaGetLastError ();
      pools_known[device] = -1;
    }
  }
  if (pools_known[device] > 0)
    pool = pools[device];
  pthread_mutex_unlock (&pools_lock);
  return pool;
}

int
cf_gpu_malloc_async (void **ptr, size_t size, cf_stream stream)
{
  int injected = cf_fault_armed ? cf_fault_hit (CF_FAULT_ALLOC) : 0;
  cudaMemPool_t pool;

  if (injected) {
    *ptr = NULL;
    return injected;
  }
  if (!(pool = pool_here ()))
    return cudaMalloc (ptr, size);
  return cudaMallocFromPoolAsync (ptr, size, pool, stream);
}

int
cf_gpu_free_async (void *ptr, cf_stream stream)
{
  if (!ptr)
    return cudaSuccess;
  /* pointers from cudaMalloc where the device had no pool */
  if (!pool_here ())
    return cudaFree (ptr);
  return cudaFreeAsync (ptr, stream);
}

int
cf_gpu_host_alloc (void **ptr, size_t size)
{
  unsigned flags = cudaHostAllocPortable | cudaHostAllocMapped;
  cudaError_t err = cudaHostAlloc (ptr, size, flags);

  if (err == cudaErrorDeviceUninitialized || err == cudaErrorContextIsDestroyed) {
    /* a thread reused from an earlier pipeline may still name its context,
     * since destroyed: portable memory can come from any context */
    cudaGetLastError ();
    cf_gpu_set_context (NULL);
    err = cudaHostAlloc (ptr, size, flags);
  }
  return err;
}

int
cf_gpu_host_free (void *ptr)
{
  return cudaFreeHost (ptr);
}

int
cf_gpu_host_is_pinned (const void *ptr)
{
  struct cudaPointerAttributes attr;
  if (cudaPointerGetAttributes (&attr, ptr) != cudaSuccess) {
    cudaGetLastError ();
    return 0;
  }
  return attr.type == cudaMemoryTypeHost;
}

void *
cf_gpu_host_device_pointer (const void *ptr)
{
  struct cudaPointerAttributes attr;
  if (cudaPointerGetAttributes (&attr, ptr) != cudaSuccess) {
    cudaGetLastError ();
    return NULL;
  }
  return attr.type == cudaMemoryTypeHost ? attr.devicePointer : NULL;
}

int
cf_gpu_host_register (void *ptr, size_t size)
{
  return cudaHostRegister (ptr, size, cudaHostRegisterPortable);
}

int
cf_gpu_host_unregister (void *ptr)
{
  return cudaHostUnregister (ptr);
}

static enum cudaMemcpyKind
copy_kind (cf_copy_kind kind)
{
  switch (kind) {
    case CF_COPY_HOST_TO_DEVICE: return cudaMemcpyHostToDevice;
    case CF_COPY_DEVICE_TO_HOST: return cudaMemcpyDeviceToHost;
    default: return cudaMemcpyDeviceToDevice;
  }
}

int
cf_gpu_copy_2d (void *dst, size_t dst_pitch, const void *src,
    size_t src_pitch, size_t row_bytes, size_t rows, cf_copy_kind kind,
    cf_stream stream)
{
  if (rows == 0 || row_bytes == 0)
    return CF_OK;
  return cf_fault_check (CF_FAULT_COPY, cudaMemcpy2DAsync (dst, dst_pitch,
          src, src_pitch, row_bytes, rows, copy_kind (kind), stream));
}

int
cf_gpu_memset (void *ptr, int value, size_t size, cf_stream stream)
{
  return cf_fault_check (CF_FAULT_CLEAR, cudaMemsetAsync (ptr, value, size,
          stream));
}

int
cf_gpu_last_error (void)
{
  return cudaGetLastError ();
}
