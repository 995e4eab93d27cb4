/* Fast variant: the tiled algorithm tuned for throughput.
 *
 * - The masks are a __grid_constant__ kernel parameter (constant memory):
 *   every thread of a warp reads the same tap, which the constant cache
 *   broadcasts.
 * - Thread coarsening with a register window: each thread computes 8
 *   consecutive outputs; per group of 8 taps it loads 15 samples from
 *   shared memory into registers and does 64 multiply-adds, so shared loads
 *   per multiply-add fall from 1 to about 1/4.
 * - Shared memory is padded by one cell per 8, so that threads 8 samples
 *   apart hit different banks.
 * - Every channel of a buffer in one launch (blockIdx.y), each with its own
 *   mask or the shared one.
 *
 * Written as a correlation, y[n] = sum_q g[q] s[n + q] with g[q] =
 * h[taps - 1 - q] and s the tile (history first): taps are padded with zeros
 * to a multiple of 8 so every window is whole. */
#include "cf_fault.h"
#include "conv1d_common.cuh"

namespace cf_conv1d {

constexpr int FAST_THREADS = 256;
constexpr int FAST_RUN = 8;     /* outputs per thread */
constexpr int FAST_OUT = FAST_THREADS * FAST_RUN;       /* outputs per block */

/* Shared cell of sample i: one pad cell after every 8. */
__host__ __device__ constexpr int pad8 (int i) { return i + (i >> 3); }

template <int CAP>
__global__ void __launch_bounds__ (FAST_THREADS)
conv1d_fast_kernel (Signal s, const __grid_constant__ Taps<CAP> t)
{
  extern __shared__ float tile[];
  int n0 = blockIdx.x * FAST_OUT, c = blockIdx.y;
  int taps = t.taps;
  int padded_taps = (taps + FAST_RUN - 1) / FAST_RUN * FAST_RUN;
  int count = min (FAST_OUT, s.frames - n0);
  int valid = count + taps - 1; /* tile cells holding samples */
  int length = FAST_OUT + padded_taps - 1;      /* tile cells read */
  const float *x = s.x + c * s.x_pitch + n0;
  const float *h = mask_of (t, c);

  /* load: samples, zeros past them (they meet zero taps or unused outputs,
   * but must not be NaN) */
  for (int i = threadIdx.x; i < length; i += FAST_THREADS)
    tile[pad8 (i)] = i < valid ? __ldg (x + i) : 0.0f;
  __syncthreads ();

  /* compute: outputs t0 .. t0 + 7, 8 taps at a time */
  int t0 = threadIdx.x * FAST_RUN;
  if (t0 >= count)
    return;
  float acc[FAST_RUN] = { };
  for (int q0 = 0; q0 < padded_taps; q0 += FAST_RUN) {
    /* window: samples t0 + q0 .. t0 + q0 + 14 (t0 + q0 is a multiple of 8) */
    const float *base = tile + ((t0 + q0) >> 3) * 9;
    float w[2 * FAST_RUN - 1];
#pragma unroll
    for (int i = 0; i < 2 * FAST_RUN - 1; i++)
      w[i] = base[pad8 (i)];
#pragma unroll
    for (int qq = 0; qq < FAST_RUN; qq++) {
      int q = q0 + qq;
      float g = q < taps ? h[taps - 1 - q] : 0.0f;
#pragma unroll
      for (int r = 0; r < FAST_RUN; r++)
        acc[r] = fmaf (g, w[r + qq], acc[r]);
    }
  }

  /* store */
  float *y = s.y + c * s.y_pitch + n0 + t0;
#pragma unroll
  for (int r = 0; r < FAST_RUN; r++)
    if (t0 + r < count)
      y[r] = acc[r];
}

template <int CAP>
int
cf_conv1d_fast (const Signal & s, const Taps<CAP> & t, int channels,
    cudaStream_t stream)
{
  int padded_taps = (t.taps + FAST_RUN - 1) / FAST_RUN * FAST_RUN;
  size_t bytes = sizeof (float)
      * (pad8 (FAST_OUT + padded_taps - 1) + 1);
  dim3 grid (div_up (s.frames, FAST_OUT), channels);
  conv1d_fast_kernel<CAP><<<grid, FAST_THREADS, bytes, stream>>> (s, t);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

#define INSTANTIATE(CAP) template int cf_conv1d_fast<CAP> (const Signal &, \
    const Taps<CAP> &, int, cudaStream_t);
CF_CONV1D_FOR_EACH_TAPS_CLASS (INSTANTIATE)

}  /* namespace cf_conv1d */
