/* Whether the GPU and its driver can run this build's kernels; see
 * cf_gpu_check_build() in gpu.h and the messages in gpu_compat.h.
 *
 * Every .cu file of the library is compiled with the same architectures
 * (CF_GPU_ARCHS, from -Dgpu_archs), so one empty kernel tells for all: the
 * runtime finds machine code or PTX for the device, or says why not. */
#include <cuda_runtime.h>
#include <stdio.h>

#include "cf_fault.h"
#include "gpu.h"
#include "gpu_compat.h"

#ifndef CF_GPU_ARCHS
#error "CF_GPU_ARCHS (the -gencode architectures) must be defined"
#endif

namespace {

__global__ void
cf_probe_kernel ()
{
}

}  /* namespace */

extern "C" int
cf_gpu_build_version (void)
{
  return CUDART_VERSION;
}

extern "C" const char *
cf_gpu_build_archs (void)
{
  return CF_GPU_ARCHS;
}

extern "C" int
cf_gpu_check_kernel (const void *kernel, const char *archs, int device,
    char *why, size_t size)
{
  int driver = cf_gpu_driver_version ();
  struct cudaFuncAttributes attr;
  struct cudaDeviceProp prop;
  cudaError_t err;
  cf_gpu_image_problem problem;

  if (cf_gpu_driver_message (driver, CUDART_VERSION, why, size))
    return cudaErrorInsufficientDriver;
  if (device < 0)
    return CF_OK;
  err = cudaFuncGetAttributes (&attr, kernel);
  if (err == cudaSuccess && cf_fault_armed && cf_fault_image ())
    err = cudaErrorNoKernelImageForDevice;
  switch (err) {
    case cudaSuccess:
      return CF_OK;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorInvalidKernelImage:
      problem = CF_GPU_IMAGE_NONE;
      break;
    case cudaErrorUnsupportedPtxVersion:
      problem = CF_GPU_IMAGE_PTX_TOO_NEW;
      break;
    default:
      cudaGetLastError ();
      snprintf (why, size, "device %d cannot load the plugin's kernels: %s",
          device, cudaGetErrorName (err));
      return err;
  }
  cudaGetLastError ();          /* not sticky: clear it for the next call */
  if (cudaGetDeviceProperties (&prop, device) != cudaSuccess) {
    cudaGetLastError ();
    snprintf (prop.name, sizeof (prop.name), "device %d", device);
    prop.major = prop.minor = 0;
  }
  cf_gpu_image_message (problem, prop.major, prop.minor, prop.name, archs,
      driver, CUDART_VERSION, why, size);
  return err;
}

extern "C" int
cf_gpu_check_build (int device, char *why, size_t size)
{
  return cf_gpu_check_kernel ((const void *) cf_probe_kernel, CF_GPU_ARCHS,
      device, why, size);
}
