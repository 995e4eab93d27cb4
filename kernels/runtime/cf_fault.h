/* Fault injection for tests: CF_FAULT=KIND:N[,KIND:N...] in the
 * environment makes the Nth CUDA call of KIND in the process fail, once:
 *
 *   alloc    device allocations (cf_gpu_malloc)
 *   copy     copies (cf_gpu_copy_2d)
 *   sync     waits for a stream or an event (cf_gpu_stream_sync,
 *            cf_gpu_event_sync)
 *   launch   kernel launches (the check after each one)
 *   clear    clears of device memory (cf_gpu_memset, the FIR's)
 *
 * with the error a real failure of that kind returns (out of memory, an
 * invalid value, an unknown error, a launch failure), and
 *
 *   lost     the GPU lost: from the Nth call of the first four kinds
 *            together, every one fails (clears too) (cudaErrorDevicesUnavailable) and the device
 *            count is 0 (cudaErrorNoDevice), for good
 *   driver   not a count: N is the CUDA version the driver says it supports
 *            (12020 for 12.2, as cudaDriverGetVersion gives it); below the
 *            build's major version the device count fails as with such a
 *            driver (cudaErrorInsufficientDriver)
 *   image    not a count: image:1 makes cf_gpu_check_build() find no code
 *            for the device (cudaErrorNoKernelImageForDevice), as on a GPU
 *            the build has no architecture for
 *
 * For developers and
 * the GPU suite's fault tests; unset, each call costs one load of a flag.
 */
#ifndef CF_FAULT_H
#define CF_FAULT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CF_FAULT_ALLOC,
  CF_FAULT_COPY,
  CF_FAULT_SYNC,
  CF_FAULT_LAUNCH,
  CF_FAULT_CLEAR,
  CF_FAULT_N_KINDS
} cf_fault_kind;

/* Non-zero when CF_FAULT names KIND: a flag read once, then free. */
extern int cf_fault_armed;

/* Non-zero once a `lost` fault has struck. */
int cf_fault_lost (void);

/* The driver's CUDA version `driver:N` pretends, or 0. */
int cf_fault_driver (void);

/* Non-zero when `image:1` hides the build's code from the device. */
int cf_fault_image (void);

/* Counts one call of `kind`; returns the CUDA error to fail it with, or 0. */
int cf_fault_hit (cf_fault_kind kind);

/* `status` unless this call of `kind` is the one to fail. */
static inline int
cf_fault_check (cf_fault_kind kind, int status)
{
  if (cf_fault_armed) {
    int injected = cf_fault_hit (kind);
    if (injected)
      return injected;
  }
  return status;
}

#ifdef __cplusplus
}
#endif
#endif
