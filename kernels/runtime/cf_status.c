/* Names of status codes; see cf_status.h. */
#include "cf_status.h"
#include "gpu.h"

const char *
cf_status_name (int status)
{
  switch (status) {
    case CF_OK: return "CF_OK";
    case CF_ERR_INVALID: return "CF_ERR_INVALID";
    case CF_ERR_UNSUPPORTED: return "CF_ERR_UNSUPPORTED";
    case CF_ERR_NO_CUDA: return "CF_ERR_NO_CUDA (built without CUDA)";
    case CF_ERR_NO_MEMORY: return "CF_ERR_NO_MEMORY";
    case CF_ERR_FFT: return "CF_ERR_FFT (cuFFT failure)";
    case CF_ERR_CONTEXT: return "CF_ERR_CONTEXT (cannot make the CUDA context current)";
    case CF_ERR_NO_CUFFT: return "CF_ERR_NO_CUFFT (the CUDA toolkit's cuFFT library, needed for long masks on the GPU, was not found)";
    default: return status > 0 ? cf_gpu_error_name (status) : "CF_ERR_UNKNOWN";
  }
}
