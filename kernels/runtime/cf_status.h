/* Status codes shared by every kernel launcher and the device layer.
 *
 * 0 is success. Positive values are CUDA runtime errors (cudaError_t) passed
 * through unchanged, so that cf_status_name() can report the CUDA name.
 * Negative values are the project's own precondition failures.
 */
#ifndef CF_STATUS_H
#define CF_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

enum
{
  CF_OK = 0,
  CF_ERR_INVALID = -1,          /* an argument breaks the documented contract */
  CF_ERR_UNSUPPORTED = -2,      /* valid, but this variant cannot do it */
  CF_ERR_NO_CUDA = -3,          /* the library was built without CUDA */
  CF_ERR_NO_MEMORY = -4,        /* host allocation failed */
  CF_ERR_FFT = -5,              /* the FFT library failed */
  CF_ERR_CONTEXT = -6,          /* a CUDA context could not be made current */
  CF_ERR_NO_CUFFT = -7,         /* the toolkit's cuFFT library is missing */
};

/* A short, stable name for a status: "cudaErrorMemoryAllocation",
 * "CF_ERR_INVALID", ... Never NULL. */
const char *cf_status_name (int status);

#ifdef __cplusplus
}
#endif
#endif
