/* Cached variant: a block keeps only its own 256 current samples in shared
 * memory; taps that reach further back read global memory, where the
 * caches hold them (the previous block loaded them as its own). */
#include "cf_fault.h"
#include "conv1d_common.cuh"

namespace cf1 {

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

}  /* namespace cf1 */

template <int CAP>
int
cf_conv1d_cached (const cf1::Signal & s, const cf1::Taps<CAP> & t, int channels,
    cudaStream_t stream)
{
  dim3 grid (cf1::div_up (s.frames, cf1::CACHED_OUT), channels);
  cf1::conv1d_cached_kernel<CAP><<<grid, cf1::CACHED_OUT, 0, stream>>> (s, t);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

#define INSTANTIATE(CAP) template int cf_conv1d_cached<CAP> (const cf1::Signal &, \
    const cf1::Taps<CAP> &, int, cudaStream_t);
CF1_FOR_EACH_TAPS_CLASS (INSTANTIATE)
