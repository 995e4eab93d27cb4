/* Programmatic dependent launch (compute capability 9.0 on): a kernel
 * launched with launch_after may be scheduled while the kernel before it
 * on the stream is still running, so that its launch and whatever it reads
 * that the earlier kernel does not write overlap that kernel's tail; it
 * calls wait_for_previous before reading anything the earlier one wrote,
 * and in at least one block before it ends (so that its end still means
 * the earlier one's end to whatever follows on the stream). The earlier
 * kernel calls let_next_start once all of its blocks are running. On older
 * GPUs both calls do nothing and launches queue as usual. Written for the
 * integral image, whose namespace it keeps; the reductions use it too. */
#pragma once

#include <cuda_runtime.h>

namespace cf_integral
{

__device__ __forceinline__ void
wait_for_previous ()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile ("griddepcontrol.wait;":::"memory");
#endif
}

__device__ __forceinline__ void
let_next_start ()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile ("griddepcontrol.launch_dependents;");
#endif
}

/* Whether the current device launches dependents early. */
static inline bool
dependent_launch_supported ()
{
  int device = 0, major = 0;
  return cudaGetDevice (&device) == cudaSuccess
      && cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
      device) == cudaSuccess && major >= 9;
}

/* kernel<<<grid, block, shared, stream>>> (args...), allowed to start
 * before the kernel ahead of it on the stream ends. */
template <typename... Params, typename... Args>
static inline void
launch_after_shared (void (*kernel) (Params...), dim3 grid, dim3 block,
    size_t shared, cudaStream_t stream, Args... args)
{
  cudaLaunchConfig_t cfg = { };
  cudaLaunchAttribute attr[1];

  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = shared;
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = dependent_launch_supported ()? 1 : 0;
  cudaLaunchKernelEx (&cfg, kernel, args...);
}

template <typename... Params, typename... Args>
static inline void
launch_after (void (*kernel) (Params...), dim3 grid, dim3 block,
    cudaStream_t stream, Args... args)
{
  launch_after_shared (kernel, grid, block, 0, stream, args...);
}

}                               /* namespace cf_integral */
