/* The frequency-domain work of one FFT block in one kernel: window, real
 * FFT, multiply-accumulate along the delay line, inverse FFT and the kept
 * tail, which as separate steps cost one launch each (cuFFT's two
 * transforms and four small kernels) for a few microseconds of work.
 *
 * One thread block per channel. The 2B real samples of the window go in as
 * B complex numbers z[m] = x[2m] + i x[2m+1]; a B-point complex FFT of
 * them, untangled, gives the B + 1 bins of the real FFT (the usual
 * half-length trick), and the inverse runs the same way back. The forward
 * FFT is decimation in frequency (natural order in, bit-reversed out) and
 * the inverse decimation in time (bit-reversed in, natural out), so the
 * bins never need reordering: bin k lives in shared cell rev(k) between the
 * two, and the spectra in global memory stay in cuFFT's natural order. */
#include "cf_fault.h"
#include "fir_steady.cuh"

namespace {

template <typename C> __device__ C
cadd (C a, C b)
{
  return C { a.x + b.x, a.y + b.y };
}

template <typename C> __device__ C
csub (C a, C b)
{
  return C { a.x - b.x, a.y - b.y };
}

template <typename C> __device__ C
cmul (C a, C b)
{
  return C { a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x };
}

/* a times the conjugate of b */
template <typename C> __device__ C
cmulc (C a, C b)
{
  return C { a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y };
}

/* Threads a block: one a butterfly, up to 1024; so a thread has at most
 * PER_THREAD of the B + 1 bins (B at most CF_FIR_BLOCK_STEP_MAX). */
constexpr int MAX_THREADS = 1024;
constexpr int PER_THREAD = (CF_FIR_BLOCK_STEP_MAX + 1 + MAX_THREADS - 1)
    / MAX_THREADS;
static_assert (PER_THREAD <= 5, "a thread's bins live in registers");

/* Shared cell of element i: one pad cell after every 32, so that the
 * bit-reversed order (consecutive bins 2^n cells apart) spreads over the
 * banks. */
__host__ __device__ constexpr int
pad (int i)
{
  return i + (i >> 5);
}

/* Shared cell of bin k (0..B): bit-reversed below B, B itself last. */
__device__ int
cell (int k, int block, int bits)
{
  return pad (k == block ? block : (int) (__brev ((unsigned) k)
          >> (32 - bits)));
}

/* Bins k and B - k of the real FFT of x from Z, the FFT of z: with
 * E = (Z[k] + conj Z[B-k]) / 2 and O = (Z[k] - conj Z[B-k]) / 2i,
 * X[k] = E + w^k O, w = exp(-i pi / B). */
template <typename C> __device__ C
untangle (C zk, C zm, C w)
{
  C e = { (zk.x + zm.x) / 2, (zk.y - zm.y) / 2 };
  C o = { (zk.y + zm.y) / 2, (zm.x - zk.x) / 2 };
  return cadd (e, cmul (w, o));
}

/* The reverse: Z'[k] = (X[k] + conj X[B-k]) + i w^-k (X[k] - conj X[B-k]),
 * twice the FFT of z, so that the unscaled inverse of Z' is 2B x, as
 * cuFFT's unscaled real inverse gives. */
template <typename C> __device__ C
tangle (C xk, C xm, C w)
{
  C e = { xk.x + xm.x, xk.y - xm.y };
  C d = cmulc (C { xk.x - xm.x, xk.y + xm.y }, w);
  return C { e.x - d.y, e.y + d.x };
}

/* Blocks past the channels' own: the terms of partitions 3..P-1 of the
 * tail that the next launch computes, for block first + 2, which need no
 * spectrum newer than block first - 1: sum_p X[first + 2 - p] x
 * spectra[mask(c)][p], into older[(first + 2) % 2][c]. They run beside
 * the transforms, spreading the longest part of the multiply-accumulate
 * over the GPU. A block takes nt / 4 bins of one channel, its four groups
 * of threads every fourth partition, added in a fixed order. */
template <typename C>
__device__ void
older_part (const cf_fir_layout & l, const C * ring, const C * spectra,
    C * older, long long first, C * sums)
{
  const int piece = blockIdx.x - l.channels, width = blockDim.x / 4;
  const int per_channel = (l.bins + width - 1) / width;
  const int c = piece / per_channel, bin = threadIdx.x % width;
  const int group = threadIdx.x / width;
  const int k = (piece % per_channel) * width + bin;
  const C *h = spectra + (size_t) (l.masks == 1 ? 0 : c) * l.partitions
      * l.bins;
  const C *line = ring + (size_t) c * l.ring * l.bins;
  const long long target = first + 2;
  const int target_slot = (int) (target % l.ring);
  C acc = { 0, 0 };

  if (k < l.bins)
    for (int p = 3 + group; p < l.partitions && target - p >= 0; p += 4) {
      int slot = target_slot - p % l.ring;
      slot += slot < 0 ? l.ring : 0;
      C xv = line[(size_t) slot * l.bins + k];
      C hv = h[(size_t) p * l.bins + k];
      acc.x = fma (xv.x, hv.x, fma (-xv.y, hv.y, acc.x));
      acc.y = fma (xv.x, hv.y, fma (xv.y, hv.x, acc.y));
    }
  sums[threadIdx.x] = acc;
  __syncthreads ();
  if (group == 0 && k < l.bins)
    older[(target & 1) * l.channels * l.bins + (size_t) c * l.bins + k] =
        cadd (cadd (sums[bin], sums[width + bin]),
        cadd (sums[2 * width + bin], sums[3 * width + bin]));
}

template <typename T>
__global__ void __launch_bounds__ (MAX_THREADS)
block_step_kernel (cf_fir_layout l, T * stage, size_t stage_pitch,
    typename Complex<T>::type * ring,
    const typename Complex<T>::type * spectra, T * current,
    const typename Complex<T>::type * twiddles,
    typename Complex<T>::type * older, long long first, int chained,
    T scale, int bits)
{
  using C = typename Complex<T>::type;
  extern __shared__ unsigned char shared_bytes[];
  C *s = (C *) shared_bytes;    /* B + 1 cells, padded */
  C *w = s + pad (l.block) + 1; /* B + 1 twiddles */
  C *tw = w + l.block + 1;      /* the butterflies' twiddles, those of span
                                 * h at tw[h - 1 ..], each stage's lanes on
                                 * consecutive banks */
  const int b = l.block, half_b = b / 2, nt = blockDim.x, c = blockIdx.x;
  T *x = stage + c * stage_pitch;
  const C *h = spectra + (size_t) (l.masks == 1 ? 0 : c) * l.partitions
      * l.bins;
  C *line = ring + (size_t) c * l.ring * l.bins;
  const int newest = (int) (first % l.ring);

  if (blockIdx.x >= l.channels) {
    older_part (l, ring, spectra, older, first, (C *) shared_bytes);
    return;
  }

  /* 1. every load from global memory at once, so that their latencies
   * overlap: the window as B complex numbers, the twiddles, and the
   * multiply-accumulate along the older part of the delay line (partition
   * p meets the spectrum p - 1 blocks older, none before the stream's
   * start), which does not need this block's spectrum. Thread t takes bins
   * t + i nt. */
  C acc[PER_THREAD];
#pragma unroll
  for (int i = 0; i < PER_THREAD; i++) {
    int m = threadIdx.x + i * nt;
    if (m < b)
      s[pad (m)] = C { x[2 * m], x[2 * m + 1] };
    if (m <= b)
      w[m] = twiddles[m];
    acc[i] = C { 0, 0 };
  }
  {
    /* partitions from 3 on come summed from the launch before, when it
     * was this filter's step of the block before */
    int reach = first + 1 < l.partitions ? (int) first + 1 : l.partitions - 1;
    int last = chained && reach > 2 ? 2 : reach;
    int slot = newest;
    if (chained) {
      const C *sum = older + ((first + 1) & 1) * l.channels * l.bins
          + (size_t) c * l.bins;
#pragma unroll
      for (int i = 0; i < PER_THREAD; i++) {
        int k = threadIdx.x + i * nt;
        if (k <= b)
          acc[i] = sum[k];
      }
    }
#pragma unroll 4
    for (int p = 2; p <= last; p++) {
      slot = slot == 0 ? l.ring - 1 : slot - 1;
#pragma unroll
      for (int i = 0; i < PER_THREAD; i++) {
        int k = threadIdx.x + i * nt;
        if (k <= b) {
          C xv = line[(size_t) slot * l.bins + k];
          C hv = h[(size_t) p * l.bins + k];
          acc[i].x = fma (xv.x, hv.x, fma (-xv.y, hv.y, acc[i].x));
          acc[i].y = fma (xv.x, hv.y, fma (xv.y, hv.x, acc[i].y));
        }
      }
    }
  }
  __syncthreads ();

  /* span h, butterfly o: exp(-2 pi i o / 2h) = w^(o B / h) */
  for (int span = half_b; span >= 1; span >>= 1)
    for (int o = threadIdx.x; o < span; o += nt)
      tw[span - 1 + o] = w[o * (b / span)];
  /* the block moves to the front, from the copy now in shared memory */
  for (int m = half_b + threadIdx.x; m < b; m += nt) {
    C v = s[pad (m)];
    x[2 * m - b] = v.x;
    x[2 * m - b + 1] = v.y;
  }
  __syncthreads ();

  /* 2. forward FFT, decimation in frequency */
  for (int span = half_b; span >= 1; span >>= 1) {
    for (int j = threadIdx.x; j < half_b; j += nt) {
      int o = j & (span - 1), i0 = (j - o) * 2 + o, i1 = i0 + span;
      C u = s[pad (i0)], v = s[pad (i1)];
      s[pad (i0)] = cadd (u, v);
      s[pad (i1)] = cmul (csub (u, v), tw[span - 1 + o]);
    }
    __syncthreads ();
  }

  /* 3. the real FFT's bins, pairs (k, B - k) in place */
  for (int k = threadIdx.x; k <= half_b; k += nt) {
    int ck = cell (k, b, bits), cm = cell ((b - k) & (b - 1), b, bits);
    C zk = s[ck], zm = s[cm];
    s[ck] = untangle (zk, zm, w[k]);
    s[cell (b - k, b, bits)] = untangle (zm, zk, w[b - k]);
  }
  __syncthreads ();

  /* 4. the spectrum filed in the ring, and partition 1's term: the tail of
   * the next block */
#pragma unroll
  for (int i = 0; i < PER_THREAD; i++) {
    int k = threadIdx.x + i * nt;
    if (k <= b) {
      int ck = cell (k, b, bits);
      C xk = s[ck], t = cmul (xk, h[l.bins + k]);
      line[(size_t) newest * l.bins + k] = xk;
      s[ck] = cadd (acc[i], t);
    }
  }
  __syncthreads ();

  /* 5. back to B complex numbers, pairs in place */
  for (int k = threadIdx.x; k <= half_b; k += nt) {
    int ck = cell (k, b, bits), cm = cell (b - k, b, bits);
    C yk = s[ck], ym = s[cm];
    s[ck] = tangle (yk, ym, w[k]);
    if (k > 0)
      s[cm] = tangle (ym, yk, w[b - k]);
  }
  __syncthreads ();

  /* 6. inverse FFT, decimation in time, conjugate twiddles */
  for (int span = 1; span < b; span <<= 1) {
    for (int j = threadIdx.x; j < half_b; j += nt) {
      int o = j & (span - 1), i0 = (j - o) * 2 + o, i1 = i0 + span;
      C u = s[pad (i0)], v = cmulc (s[pad (i1)], tw[span - 1 + o]);
      s[pad (i0)] = cadd (u, v);
      s[pad (i1)] = csub (u, v);
    }
    __syncthreads ();
  }

  /* 7. overlap-save keeps the second half: samples B..2B-1 of the window,
   * z[B/2 .. B) */
  T *tail = current + (size_t) c * b;
  for (int m = half_b + threadIdx.x; m < b; m += nt) {
    C v = s[pad (m)];
    tail[2 * m - b] = scale * v.x;
    tail[2 * m - b + 1] = scale * v.y;
  }
}

int
threads_for (int block)
{
  int nt = block / 2;
  return nt < 32 ? 32 : nt > MAX_THREADS ? MAX_THREADS : nt;
}

template <typename T>
size_t
shared_bytes_for (int block)
{
  return (size_t) (pad (block) + 1 + block + 1 + block - 1)
      * sizeof (typename Complex<T>::type);
}

/* Blocks of older_part for a filter: none below 4 partitions. */
int
older_blocks (const cf_fir_layout & l)
{
  int width = threads_for (l.block) / 4;
  return l.partitions < 4 ? 0 : l.channels * ((l.bins + width - 1) / width);
}

}  /* namespace */

template <typename T>
int
cf_fir_block_step_prepare (int block)
{
  if (block < 16 || block > CF_FIR_BLOCK_STEP_MAX || (block & (block - 1)))
    return CF_ERR_UNSUPPORTED;
  cudaError_t err = cudaFuncSetAttribute (block_step_kernel<T>,
      cudaFuncAttributeMaxDynamicSharedMemorySize,
      (int) shared_bytes_for<T> (block));
  if (err != cudaSuccess) {
    cudaGetLastError ();        /* not sticky: the filter takes cuFFT then */
    return CF_ERR_UNSUPPORTED;
  }
  return CF_OK;
}

size_t
cf_fir_block_step_older_bytes (const cf_fir_layout & l, size_t complex_bytes)
{
  return older_blocks (l) > 0 ? 2 * complex_bytes * l.channels * l.bins : 0;
}

template <typename T>
int
cf_fir_block_step (const cf_fir_layout & l, T * stage, size_t stage_pitch,
    typename Complex<T>::type * ring,
    const typename Complex<T>::type * spectra, T * current,
    const typename Complex<T>::type * twiddles,
    typename Complex<T>::type * older, long long first, int chained,
    T scale, cudaStream_t stream)
{
  int bits = 0, extra = older ? older_blocks (l) : 0;
  while ((1 << bits) < l.block)
    bits++;
  block_step_kernel<T><<<l.channels + extra, threads_for (l.block),
      shared_bytes_for<T> (l.block), stream>>> (l, stage, stage_pitch, ring,
      spectra, current, twiddles, older, first, chained && extra > 0, scale,
      bits);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

template int cf_fir_block_step_prepare<float> (int);
template int cf_fir_block_step_prepare<double> (int);
template int cf_fir_block_step<float> (const cf_fir_layout &, float *,
    size_t, float2 *, const float2 *, float *, const float2 *, float2 *,
    long long, int, float, cudaStream_t);
template int cf_fir_block_step<double> (const cf_fir_layout &, double *,
    size_t, double2 *, const double2 *, double *, const double2 *,
    double2 *, long long, int, double, cudaStream_t);
