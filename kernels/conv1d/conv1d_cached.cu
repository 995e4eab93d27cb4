/* Cached variant: a block keeps only its own 256 current samples in shared
 * memory; taps that reach further back read global memory, where the
 * caches hold them (the previous block loaded them as its own). */
#include "cf_fault.h"
#include "conv1d_common.cuh"

namespace cf_conv1d {

constexpr int CACHED_OUT = 256;

template <int CAP>
__global__ void __launch_bounds__ (CACHED_OUT)
conv1d_cached_kernel (Signal s, const __grid_constant__ Taps<CAP> t)
{
  __shared__ float own[CACHED_OUT];
  int n0 = blockIdx.x * CACHED_OUT, c = blockIdx.y, n = threadIdx.x;
  const float *x = s.x + c * s.x_pitch + t.taps - 1 + n0;
  const float *h = mask_of (t, c);
  bool active = n0 + n < s.frames;

  if (active)
    own[n] = __ldg (x + n);
  __syncthreads ();
  if (!active)
    return;

  float acc = 0.0f;
  for (int k = 0; k < t.taps; k++) {
    float v = k <= n ? own[n - k] : __ldg (x + n - k);
    acc = fmaf (h[k], v, acc);
  }
  s.y[c * s.y_pitch + n0 + n] = acc;
}

template <int CAP>
int
cf_conv1d_cached (const Signal & s, const Taps<CAP> & t, int channels,
    cudaStream_t stream)
{
  dim3 grid (div_up (s.frames, CACHED_OUT), channels);
  conv1d_cached_kernel<CAP><<<grid, CACHED_OUT, 0, stream>>> (s, t);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

#define INSTANTIATE(CAP) template int cf_conv1d_cached<CAP> (const Signal &, \
    const Taps<CAP> &, int, cudaStream_t);
CF_CONV1D_FOR_EACH_TAPS_CLASS (INSTANTIATE)

}  /* namespace cf_conv1d */
