/* The output of a steady FIR step: the head partition applied directly to
 * one buffer, plus the tail kept from the block before.
 *
 * A buffer of B frames through a head of B taps is B x B multiply-adds a
 * channel: a direct variant gives it one thread block per 2048 outputs,
 * 8 blocks for 8 channels of 1024 frames, so most of the GPU idles while
 * each block runs through all the taps. Here a block takes 128 outputs of
 * one channel, and its 8 warps take an eighth of the taps each (a lane 4
 * outputs, from a register window over the tile in shared memory, as the
 * fast variant does); the warps' sums meet in shared memory, are added in
 * a fixed order with the tail, and go out. */
#include "cf_fault.h"
#include "fir_steady.cuh"

namespace {

constexpr int WARPS = 8;        /* tap slices a block */
constexpr int THREADS = 32 * WARPS;
constexpr int RUN = 4;          /* outputs per lane */
constexpr int CHUNK = 32 * RUN; /* outputs per block */

/* Shared cell of tile sample i: one pad cell after every 4, so that lanes
 * 4 samples apart hit different banks. */
__host__ __device__ constexpr int
pad4 (int i)
{
  return i + (i >> 2);
}

/* Taps of one warp: the head's taps over the warps, whole windows. */
__host__ __device__ constexpr int
slice_of (int count)
{
  return (count + WARPS * RUN - 1) / (WARPS * RUN) * RUN;
}

template <typename T>
constexpr size_t
shared_bytes (int count)
{
  int slice = slice_of (count);
  return sizeof (T) * (WARPS * slice + pad4 (CHUNK + WARPS * slice - 1) + 1
      + WARPS * CHUNK);
}

struct Shape
{
  int count, masks, frames;
  size_t x_pitch, y_pitch;
};

template <typename T>
__global__ void __launch_bounds__ (THREADS)
head_kernel (Shape s, const T * taps, const T * x, T * y, const T * current)
{
  extern __shared__ unsigned char shared_bytes_[];
  const int slice = slice_of (s.count), span = WARPS * slice;
  T *g = (T *) shared_bytes_;   /* the taps reversed, zeros after */
  T *tile = g + span;
  T *sums = tile + pad4 (CHUNK + span - 1) + 1;      /* [warp][output] */
  const int n0 = blockIdx.x * CHUNK, c = blockIdx.y;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const T *h = taps + (size_t) (s.masks == 1 ? 0 : c) * s.count;
  /* x[c] starts count - 1 frames before output n0 = 0 */
  const T *xc = x + c * s.x_pitch + n0;

  /* y[n0 + n] = sum_q g[q] tile[n + q], g[q] = h[count - 1 - q], tile[i] =
   * sample n0 - (count - 1) + i; none past the buffer (they meet zero taps
   * or unused outputs) */
  for (int q = threadIdx.x; q < span; q += THREADS)
    g[q] = q < s.count ? h[s.count - 1 - q] : T (0);
  for (int i = threadIdx.x; i < CHUNK + span - 1; i += THREADS)
    tile[pad4 (i)] = n0 + i - (s.count - 1) < s.frames ? xc[i] : T (0);
  __syncthreads ();

  const int t0 = lane * RUN;
  T acc[RUN] = { };
  for (int q0 = warp * slice; q0 < (warp + 1) * slice; q0 += RUN) {
    const T *base = tile + ((t0 + q0) >> 2) * 5;
    T w[2 * RUN - 1];
#pragma unroll
    for (int i = 0; i < 2 * RUN - 1; i++)
      w[i] = base[pad4 (i)];
#pragma unroll
    for (int qq = 0; qq < RUN; qq++) {
      T gq = g[q0 + qq];
#pragma unroll
      for (int r = 0; r < RUN; r++)
        acc[r] = fma (gq, w[r + qq], acc[r]);
    }
  }
#pragma unroll
  for (int r = 0; r < RUN; r++)
    sums[warp * CHUNK + t0 + r] = acc[r];
  __syncthreads ();

  /* the slices in order, then the tail */
  for (int n = threadIdx.x; n < CHUNK && n0 + n < s.frames; n += THREADS) {
    T sum = sums[n];
#pragma unroll
    for (int w = 1; w < WARPS; w++)
      sum += sums[w * CHUNK + n];
    y[c * s.y_pitch + n0 + n] = current[(size_t) c * s.frames + n0 + n] + sum;
  }
}

}  /* namespace */

template <typename T>
int
cf_fir_head_prepare (void)
{
  cudaError_t err = cudaFuncSetAttribute (head_kernel<T>,
      cudaFuncAttributeMaxDynamicSharedMemorySize,
      (int) shared_bytes<T> (CF_FIR_HEAD_MAX_TAPS));
  if (err != cudaSuccess) {
    cudaGetLastError ();        /* not sticky: the filter goes direct */
    return CF_ERR_UNSUPPORTED;
  }
  return CF_OK;
}

template <typename T>
int
cf_fir_head (const T * taps, int count, int masks, int channels,
    const T * x, size_t x_pitch, T * y, size_t y_pitch, int frames,
    const T * current, cudaStream_t stream)
{
  Shape s = { count, masks, frames, x_pitch, y_pitch };

  if (count > CF_FIR_HEAD_MAX_TAPS)
    return CF_ERR_UNSUPPORTED;
  if (frames <= 0)
    return CF_OK;
  dim3 grid ((frames + CHUNK - 1) / CHUNK, channels);
  head_kernel<T><<<grid, THREADS, shared_bytes<T> (count), stream>>> (s,
      taps, x, y, current);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

template int cf_fir_head_prepare<float> (void);
template int cf_fir_head_prepare<double> (void);
template int cf_fir_head<float> (const float *, int, int, int, const float *,
    size_t, float *, size_t, int, const float *, cudaStream_t);
template int cf_fir_head<double> (const double *, int, int, int,
    const double *, size_t, double *, size_t, int, const double *,
    cudaStream_t);
