/* Basic variant: one thread per output sample, every tap read from global
 * memory (taps loads per output, served by the caches). */
#include "cf_fault.h"
#include "conv1d_common.cuh"

namespace cf_conv1d {

constexpr int BASIC_THREADS = 256;

template <int CAP>
__global__ void __launch_bounds__ (BASIC_THREADS)
conv1d_basic_kernel (Signal s, const __grid_constant__ Taps<CAP> t)
{
  int n = blockIdx.x * BASIC_THREADS + threadIdx.x;
  int c = blockIdx.y;
  const float *h = mask_of (t, c);
  const float *x = s.x + c * s.x_pitch + t.taps - 1 + n;
  float acc = 0.0f;

  if (n >= s.frames)
    return;
  for (int k = 0; k < t.taps; k++)
    acc = fmaf (h[k], __ldg (x - k), acc);
  s.y[c * s.y_pitch + n] = acc;
}

template <int CAP>
int
cf_conv1d_basic (const Signal & s, const Taps<CAP> & t, int channels,
    cudaStream_t stream)
{
  dim3 grid (div_up (s.frames, BASIC_THREADS), channels);
  conv1d_basic_kernel<CAP><<<grid, BASIC_THREADS, 0, stream>>> (s, t);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

#define INSTANTIATE(CAP) template int cf_conv1d_basic<CAP> (const Signal &, \
    const Taps<CAP> &, int, cudaStream_t);
CF_CONV1D_FOR_EACH_TAPS_CLASS (INSTANTIATE)

}  /* namespace cf_conv1d */
