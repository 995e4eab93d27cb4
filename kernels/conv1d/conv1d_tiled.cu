/* Tiled variant, halo in shared memory: a block loads the samples its 256
 * outputs read (256 + taps - 1, history included) into shared memory once,
 * then computes from there: global loads per output fall from taps to
 * (256 + taps - 1) / 256. */
#include "cf_fault.h"
#include "conv1d_common.cuh"

namespace cf_conv1d {

constexpr int TILED_OUT = 256;  /* outputs per block, one per thread */

template <int CAP>
__global__ void __launch_bounds__ (TILED_OUT)
conv1d_tiled_kernel (Signal s, const __grid_constant__ Taps<CAP> t)
{
  extern __shared__ float tile[];
  int n0 = blockIdx.x * TILED_OUT, c = blockIdx.y;
  int count = min (TILED_OUT, s.frames - n0);
  const float *x = s.x + c * s.x_pitch + n0;
  const float *h = mask_of (t, c);

  /* load: the tile's outputs and the taps - 1 frames before them */
  for (int i = threadIdx.x; i < count + t.taps - 1; i += TILED_OUT)
    tile[i] = __ldg (x + i);
  __syncthreads ();

  /* compute */
  int n = threadIdx.x;
  if (n >= count)
    return;
  float acc = 0.0f;
  const float *cur = tile + n + t.taps - 1;
  for (int k = 0; k < t.taps; k++)
    acc = fmaf (h[k], cur[-k], acc);
  s.y[c * s.y_pitch + n0 + n] = acc;
}

template <int CAP>
int
cf_conv1d_tiled (const Signal & s, const Taps<CAP> & t, int channels,
    cudaStream_t stream)
{
  size_t bytes = sizeof (float) * (TILED_OUT + t.taps - 1);
  dim3 grid (div_up (s.frames, TILED_OUT), channels);
  conv1d_tiled_kernel<CAP><<<grid, TILED_OUT, bytes, stream>>> (s, t);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

#define INSTANTIATE(CAP) template int cf_conv1d_tiled<CAP> (const Signal &, \
    const Taps<CAP> &, int, cudaStream_t);
CF_CONV1D_FOR_EACH_TAPS_CLASS (INSTANTIATE)

}  /* namespace cf_conv1d */
