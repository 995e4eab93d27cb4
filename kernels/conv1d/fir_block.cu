/* The whole work of one FFT block in one kernel: window, real FFT, the
 * multiply-accumulate along the delay line with every partition, the
 * head's included, the inverse FFT and the output, which as separate steps
 * cost one launch each (a direct head, cuFFT's two transforms and small
 * kernels) for a few microseconds of work.
 *
 * One thread block per channel. The 2B real samples of the window go in as
 * B complex numbers z[m] = x[2m] + i x[2m+1]; a B-point complex FFT of
 * them (fft_shared.cuh), untangled, gives the B + 1 bins of the real FFT
 * (the usual half-length trick), and the inverse runs the same way back.
 * Both transforms keep natural order, as the spectra in global memory have
 * it (cuFFT's). */
#include <cooperative_groups.h>
#include <mutex>

#include "audio_sample.h"
#include "cf_fault.h"
#include "dependent_launch.cuh"
#include "fft_shared.cuh"
#include "fir_steady.cuh"

namespace cf_fir {

namespace {

using cf_fft::cadd;
using cf_fft::cmul;
using cf_fft::cmulc;

/* Threads a block: B / GROUP, 32 to MAX_THREADS, a thread taking GROUP
 * values of a transform's pass; so a thread has at most PER_THREAD of the
 * B + 1 bins. Doubles take twice the registers: half the threads, each with
 * twice the values, stay within them. */
template <typename T> struct Shape
{
  static constexpr int GROUP = sizeof (T) == 8 ? 8 : 4;
  static constexpr int MAX_THREADS = CF_FIR_BLOCK_MAX / GROUP;
  static constexpr int PER_THREAD = GROUP + 1;
};

/* Bins k and B - k of the real FFT of x from Z, the FFT of z: with
 * E = (Z[k] + conj Z[B-k]) / 2 and O = (Z[k] - conj Z[B-k]) / 2i,
 * X[k] = E + w^k O, w = exp(-i pi / B). */
template <typename C> __device__ C
untangle (C zk, C zm, C w)
{
  using T = decltype (zk.x);
  const T half = (T) 0.5;
  C e = { (zk.x + zm.x) * half, (zk.y - zm.y) * half };
  C o = { (zk.y + zm.y) * half, (zm.x - zk.x) * half };
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

/* Partitions a slice of the older part takes at most: few enough that
 * the slices' blocks, together, keep enough loads in flight to stream the
 * delay line and the spectra (a few MB for responses of seconds) at the
 * memory's speed. */
constexpr int SLICE_PARTITIONS = 16;
constexpr int MAX_SLICES = 16;

/* The slices the older part is cut into, each summed apart. */
__host__ __device__ inline int
older_slices (const cf_fir_layout & l)
{
  int s = (l.partitions - 3 + SLICE_PARTITIONS - 1) / SLICE_PARTITIONS;
  return s < 1 ? 1 : s > MAX_SLICES ? MAX_SLICES : s;
}

/* Where slice `slice`'s sum for block `target` and channel c lies. */
template <typename C>
__device__ inline C *
older_at (const cf_fir_layout & l, C * older, long long target, int slice,
    int c)
{
  return older + ((size_t) ((target & 1) * older_slices (l) + slice)
      * l.channels + c) * l.bins;
}

/* Blocks past the channels' own: the terms of partitions 3..P-1 of the
 * next launch's block, first + 1, which need no spectrum newer than block
 * first - 2: sum_p X[first + 1 - p] x spectra[mask(c)][p], in slices
 * (older_at). They run beside the transforms, spreading the longest part
 * of the multiply-accumulate over the GPU. A block takes nt / 4 bins of
 * one channel in one slice, its four groups of threads every fourth
 * partition of the slice's, added in a fixed order; the next launch adds
 * the slices in order, so that the sums are the same from run to run. */
template <typename C>
__device__ void
older_part (const cf_fir_layout & l, const C * ring, const C * spectra,
    C * older, long long first, C * sums)
{
  const int slices = older_slices (l);
  const int piece = (blockIdx.x - l.channels) / slices;
  const int slice = (blockIdx.x - l.channels) % slices;
  const int width = blockDim.x / 4;
  const int per_channel = (l.bins + width - 1) / width;
  const int c = piece / per_channel, bin = threadIdx.x % width;
  const int group = threadIdx.x / width;
  const int k = (piece % per_channel) * width + bin;
  const C *h = spectra + (size_t) (l.masks == 1 ? 0 : c) * l.partitions
      * l.bins;
  const C *line = ring + (size_t) c * l.ring * l.bins;
  const long long target = first + 1;
  const int target_slot = (int) (target % l.ring);
  C acc = { 0, 0 };

  if (k < l.bins)
#pragma unroll 4
    for (int p = 3 + 4 * slice + group; p < l.partitions && target - p >= 0;
        p += 4 * slices) {
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
    older_at (l, older, target, slice, c)[k] =
        cadd (cadd (sums[bin], sums[width + bin]),
        cadd (sums[2 * width + bin], sums[3 * width + bin]));
}

/* Interleaved samples of the whole block, read or written where they lie
 * (page-locked host memory, over the bus) by the cluster of the channels'
 * thread blocks: block r takes samples [r B, (r + 1) B) of the buffer, so
 * that the bus sees each block's share as one contiguous run, and hands
 * each sample to (or takes it from) its channel's block through
 * distributed shared memory. Window sample t of channel c lives in
 * part t % 2 of that block's cell t / 2. A thread has at most GROUP
 * samples (B / GROUP threads or more); all of its reads go out before the
 * first comes back. */
template <typename T>
__device__ void
raw_load (const cf_fir_layout & l, const cf_fir_interleaved & io,
    T (&v)[Shape<T>::GROUP])
{
  const int b = l.block, base = blockIdx.x * b;
#pragma unroll
  for (int u = 0; u < Shape<T>::GROUP; u++) {
    int i = threadIdx.x + u * blockDim.x;
    if (i < b)
      v[u] = (T) cf_sample_get (io.layout.format, io.in, base + i);
  }
}

template <typename T, typename C>
__device__ void
raw_scatter (const cf_fir_layout & l, const T (&v)[Shape<T>::GROUP], C * s)
{
#if __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster ();
  const int b = l.block, base = blockIdx.x * b;

  cluster.sync ();              /* every block of the cluster has started */
#pragma unroll
  for (int u = 0; u < Shape<T>::GROUP; u++) {
    int i = threadIdx.x + u * blockDim.x, k = base + i, t = b + k
        / l.channels;
    if (i < b) {
      C *cells = cluster.map_shared_rank (s, k % l.channels);
      ((T *) &cells[cf_fft::pad<C> (t >> 1)])[t & 1] = v[u];
    }
  }
  cluster.sync ();
#endif
}

template <typename T, typename C>
__device__ void
raw_out (const cf_fir_layout & l, const cf_fir_interleaved & io, C * s,
    T scale)
{
#if __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster ();
  const int b = l.block, base = blockIdx.x * b;
  T v[Shape<T>::GROUP];

  cluster.sync ();              /* every block's inverse FFT is done */
#pragma unroll
  for (int u = 0; u < Shape<T>::GROUP; u++) {
    int i = threadIdx.x + u * blockDim.x, k = base + i, t = b + k
        / l.channels;
    if (i < b) {
      const C *cells = cluster.map_shared_rank (s, k % l.channels);
      v[u] = ((const T *) &cells[cf_fft::pad<C> (t >> 1)])[t & 1];
    }
  }
  cluster.sync ();              /* no block leaves while others read it */
#pragma unroll
  for (int u = 0; u < Shape<T>::GROUP; u++) {
    int i = threadIdx.x + u * blockDim.x;
    if (i < b)
      cf_sample_put (io.layout.format, io.out, base + i, scale * v[u]);
  }
#endif
}

template <typename T>
__global__ void __launch_bounds__ (Shape<T>::MAX_THREADS)
block_kernel (cf_fir_layout l, T * stage, size_t stage_pitch,
    typename Complex<T>::type * ring,
    const typename Complex<T>::type * spectra, T * y, size_t y_pitch,
    cf_fir_interleaved io, const typename Complex<T>::type * twiddles,
    typename Complex<T>::type * older, long long first, int chained,
    T scale, int bits)
{
  using C = typename Complex<T>::type;
  using cf_fft::pad;
  constexpr int PER_THREAD = Shape<T>::PER_THREAD;
  extern __shared__ unsigned char shared_bytes[];
  C *s = (C *) shared_bytes;    /* B + 1 cells, padded */
  C *w = s + pad<C> (l.block) + 1;      /* B + 1 twiddles */
  C *sum = w + l.block + 1;     /* B + 1 bins: the older partitions' terms,
                                 * out of the registers the transforms use */
  const int b = l.block, half_b = b / 2, nt = blockDim.x, c = blockIdx.x;
  T *x = stage + c * stage_pitch;
  const C *h = spectra + (size_t) (l.masks == 1 ? 0 : c) * l.partitions
      * l.bins;
  C *line = ring + (size_t) c * l.ring * l.bins;
  const int newest = (int) (first % l.ring);

  /* launched early behind the conversion before it (dependent launch):
   * nothing the kernels ahead write is read before the wait, only the
   * twiddles */
  cf_integral::let_next_start ();
  if (blockIdx.x >= l.channels) {
    cf_integral::wait_for_previous ();
    older_part (l, ring, spectra, older, first, (C *) shared_bytes);
    return;
  }
  for (int m = threadIdx.x; m <= b; m += nt)
    w[m] = twiddles[m];
  cf_integral::wait_for_previous ();

  /* 1. every load from global memory at once, so that their latencies
   * overlap: the window as B complex numbers, the twiddles, and the
   * multiply-accumulate along the delay line (partition p >= 1 meets the
   * spectrum p blocks older, none before the stream's start), which does
   * not need this block's spectrum. Thread t takes bins t + i nt. The new
   * block comes from the stage, or interleaved from io.in (those reads
   * first: they cross the bus). */
  T raw[Shape<T>::GROUP];
  if (io.in)
    raw_load (l, io, raw);
  C acc[PER_THREAD];
#pragma unroll
  for (int i = 0; i < PER_THREAD; i++) {
    int m = threadIdx.x + i * nt;
    if (m < (io.in ? half_b : b))
      s[pad<C> (m)] = C { x[2 * m], x[2 * m + 1] };
    acc[i] = C { 0, 0 };
  }
  {
    /* partitions from 3 on come summed from the launch before, when it
     * was this filter's block before */
    int reach = first < l.partitions ? (int) first : l.partitions - 1;
    int last = chained && reach > 2 ? 2 : reach;
    int slot = newest;
    for (int sl = 0; chained && sl < older_slices (l); sl++) {
      const C *ahead = older_at (l, older, first, sl, c);
#pragma unroll
      for (int i = 0; i < PER_THREAD; i++) {
        int k = threadIdx.x + i * nt;
        if (k <= b)
          acc[i] = cadd (acc[i], ahead[k]);
      }
    }
#pragma unroll 2
    for (int p = 1; p <= last; p++) {
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
#pragma unroll
  for (int i = 0; i < PER_THREAD; i++) {
    int k = threadIdx.x + i * nt;
    if (k <= b)
      sum[k] = acc[i];          /* read back by this thread alone */
  }
  if (io.in)
    raw_scatter (l, raw, s);    /* in step after it, as below */
  __syncthreads ();

  /* the block moves to the front, from the copy now in shared memory */
  for (int m = half_b + threadIdx.x; m < b; m += nt) {
    C v = s[pad<C> (m)];
    x[2 * m - b] = v.x;
    x[2 * m - b + 1] = v.y;
  }

  /* 2. forward FFT */
  cf_fft::fft<-1, Shape<T>::GROUP> (s, b, bits, w);

  /* 3. per pair of bins (k, B - k), in registers: the real FFT's bins
   * (untangled), filed in the ring, times the head partition's spectrum
   * plus the older partitions' terms, and back to B complex numbers
   * (tangled); a thread's pairs are its own cells, so no barrier between */
  constexpr int PAIRS = Shape<T>::GROUP / 2 + 1;
  C hk[PAIRS], hm[PAIRS];
#pragma unroll
  for (int i = 0; i < PAIRS; i++) {
    int k = threadIdx.x + i * nt;
    if (k <= half_b) {
      hk[i] = h[k];
      hm[i] = h[b - k];
    }
  }
#pragma unroll
  for (int i = 0; i < PAIRS; i++) {
    int k = threadIdx.x + i * nt, m = b - k;
    if (k <= half_b) {
      C zk = s[pad<C> (k)], zm = s[pad<C> (m & (b - 1))];
      C xk = untangle (zk, zm, w[k]), xm = untangle (zm, zk, w[m]);
      line[(size_t) newest * l.bins + k] = xk;
      line[(size_t) newest * l.bins + m] = xm;
      C yk = cadd (sum[k], cmul (xk, hk[i]));
      C ym = cadd (sum[m], cmul (xm, hm[i]));
      s[pad<C> (k)] = tangle (yk, ym, w[k]);
      if (k > 0)
        s[pad<C> (m)] = tangle (ym, yk, w[m]);
    }
  }
  __syncthreads ();

  /* 4. inverse FFT */
  cf_fft::fft<1, Shape<T>::GROUP> (s, b, bits, w);

  /* 5. overlap-save keeps the second half: samples B..2B-1 of the window,
   * z[B/2 .. B) */
  if (io.out) {
    raw_out (l, io, s, scale);
    return;
  }
  T *out = y + c * y_pitch;
  for (int m = half_b + threadIdx.x; m < b; m += nt) {
    C v = s[pad<C> (m)];
    out[2 * m - b] = scale * v.x;
    out[2 * m - b + 1] = scale * v.y;
  }
}

/* One thread block a partition (blockIdx.x = m P + p): the 2B padded
 * samples in as B complex numbers, of which only the first B / 2 hold
 * taps, the FFT, then the bins untangled by pairs as in block_kernel. */
template <typename T>
__global__ void __launch_bounds__ (Shape<T>::MAX_THREADS)
spectra_kernel (cf_fir_layout l, const T * h, int taps,
    typename Complex<T>::type * spectra,
    const typename Complex<T>::type * twiddles, int bits)
{
  using C = typename Complex<T>::type;
  using cf_fft::pad;
  extern __shared__ unsigned char shared_bytes[];
  C *s = (C *) shared_bytes;    /* B cells, padded */
  const int b = l.block, half_b = b / 2, nt = blockDim.x;
  const int m = blockIdx.x / l.partitions, p = blockIdx.x % l.partitions;
  const T *x = h + (size_t) m * taps + (size_t) p * b;
  const int left = taps - p * b;        /* taps in this partition, >= 1 */
  C *out = spectra + (size_t) blockIdx.x * l.bins;

  for (int i = threadIdx.x; i < b; i += nt) {
    C v = { 0, 0 };
    if (i < half_b && 2 * i < left)
      v.x = x[2 * i];
    if (i < half_b && 2 * i + 1 < left)
      v.y = x[2 * i + 1];
    s[pad<C> (i)] = v;
  }
  __syncthreads ();
  cf_fft::fft<-1, Shape<T>::GROUP> (s, b, bits, twiddles);
  for (int k = threadIdx.x; k <= half_b; k += nt) {
    int mk = b - k;
    C zk = s[pad<C> (k)], zm = s[pad<C> (mk & (b - 1))];
    out[k] = untangle (zk, zm, twiddles[k]);
    out[mk] = untangle (zm, zk, twiddles[mk]);
  }
}

template <typename T>
int
threads_for (int block)
{
  int nt = block / Shape<T>::GROUP;
  return nt < 32 ? 32 : nt > Shape<T>::MAX_THREADS ? Shape<T>::MAX_THREADS
      : nt;
}

template <typename T>
size_t
shared_bytes_for (int block)
{
  using C = typename Complex<T>::type;
  return (size_t) (cf_fft::pad<C> (block) + 1 + 2 * (block + 1))
      * sizeof (C);
}

/* Blocks of older_part for a filter: none below 4 partitions. */
template <typename T>
int
older_blocks (const cf_fir_layout & l)
{
  int width = threads_for<T> (l.block) / 4;
  return l.partitions < 4 ? 0 : l.channels * ((l.bins + width - 1) / width)
      * older_slices (l);
}

}  /* namespace */

/* The kernel's shared memory limit is one per device for every filter:
 * it only ever grows, under a lock, so that a filter of a smaller block
 * made beside one of a larger (a response prepared while another plays)
 * does not take away the room the larger one launches with. */
template <typename T>
int
cf_fir_block_prepare (int block)
{
  static std::mutex lock;
  cudaFuncAttributes now;
  int needed = (int) shared_bytes_for<T> (block);
  cudaError_t err;

  if (block < 16 || block > CF_FIR_BLOCK_MAX || (block & (block - 1)))
    return CF_ERR_UNSUPPORTED;
  std::lock_guard<std::mutex> hold (lock);
  err = cudaFuncGetAttributes (&now, block_kernel<T>);
  if (err == cudaSuccess && now.maxDynamicSharedSizeBytes < needed)
    err = cudaFuncSetAttribute (block_kernel<T>,
        cudaFuncAttributeMaxDynamicSharedMemorySize, needed);
  if (err != cudaSuccess) {
    cudaGetLastError ();        /* not sticky: the filter takes cuFFT then */
    return CF_ERR_UNSUPPORTED;
  }
  return CF_OK;
}

template <typename T>
size_t
cf_fir_block_older_bytes (const cf_fir_layout & l)
{
  return older_blocks<T> (l) > 0 ? 2 * sizeof (typename Complex<T>::type)
      * older_slices (l) * l.channels * l.bins : 0;
}

/* A launch of `grid` blocks in clusters of one block a channel (the
 * interleaved form); `attr` must outlive `cfg`. */
template <typename T>
cudaLaunchConfig_t
cluster_launch (const cf_fir_layout & l, int grid, cudaStream_t stream,
    cudaLaunchAttribute * attr)
{
  cudaLaunchConfig_t cfg = { };
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = l.channels;
  attr->val.clusterDim.y = attr->val.clusterDim.z = 1;
  cfg.gridDim = dim3 (grid);
  cfg.blockDim = dim3 (threads_for<T> (l.block));
  cfg.dynamicSmemBytes = shared_bytes_for<T> (l.block);
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

/* Whether this GPU launches the kernel in clusters of `channels` blocks
 * (the interleaved form): compute capability 9.0 on, at most 8 channels
 * (the portable cluster size), and room for such a cluster. */
template <typename T>
bool
cf_fir_block_clusters_fit (const cf_fir_layout & l)
{
  int device, can = 0, clusters = 0;
  if (l.channels > 8 || cudaGetDevice (&device) != cudaSuccess
      || cudaDeviceGetAttribute (&can, cudaDevAttrClusterLaunch, device)
      != cudaSuccess || !can) {
    cudaGetLastError ();
    return false;
  }
  cudaLaunchAttribute attr;
  cudaLaunchConfig_t cfg = cluster_launch<T> (l, l.channels, 0, &attr);
  if (cudaOccupancyMaxActiveClusters (&clusters, block_kernel<T>, &cfg)
      != cudaSuccess) {
    cudaGetLastError ();
    return false;
  }
  return clusters > 0;
}

template <typename T>
int
cf_fir_block (const cf_fir_layout & l, T * stage, size_t stage_pitch,
    typename Complex<T>::type * ring,
    const typename Complex<T>::type * spectra, T * y, size_t y_pitch,
    const cf_fir_interleaved * io,
    const typename Complex<T>::type * twiddles,
    typename Complex<T>::type * older, long long first, int chained,
    T scale, cudaStream_t stream)
{
  int bits = 0, extra = older ? older_blocks<T> (l) : 0;
  cf_fir_interleaved planar = { };
  cudaError_t err;

  while ((1 << bits) < l.block)
    bits++;
  chained = chained && extra > 0;
  if (!io) {
    cf_integral::launch_after_shared (block_kernel<T>, l.channels + extra,
        threads_for<T> (l.block), shared_bytes_for<T> (l.block), stream, l,
        stage, stage_pitch, ring, spectra, y, y_pitch, planar, twiddles,
        older, first, chained, scale, bits);
    return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
  }
  /* the channels' blocks form one cluster; the older part's blocks come in
   * whole clusters too (channels x pieces), unused */
  cudaLaunchAttribute attr;
  cudaLaunchConfig_t cfg = cluster_launch<T> (l, l.channels + extra, stream,
      &attr);
  err = cudaLaunchKernelEx (&cfg, block_kernel<T>, l, stage, stage_pitch,
      ring, spectra, y, y_pitch, *io, twiddles, older, first, chained,
      scale, bits);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) err);
}

template <typename T>
int
cf_fir_block_spectra (const cf_fir_layout & l, const T * h, int taps,
    typename Complex<T>::type * spectra,
    const typename Complex<T>::type * twiddles, cudaStream_t stream)
{
  using C = typename Complex<T>::type;
  static std::once_flag raised;
  static cudaError_t raised_err;
  /* B cells, padded: up to 69 KB for doubles at the largest block */
  size_t bytes = (size_t) (cf_fft::pad<C> (l.block) + 1) * sizeof (C);
  int bits = 0;

  if (l.block < 16 || l.block > CF_FIR_BLOCK_MAX || (l.block & (l.block - 1)))
    return CF_ERR_UNSUPPORTED;
  std::call_once (raised, [] {
        raised_err = cudaFuncSetAttribute (spectra_kernel<T>,
            cudaFuncAttributeMaxDynamicSharedMemorySize,
            (int) ((cf_fft::pad<C> (CF_FIR_BLOCK_MAX) + 1) * sizeof (C)));
      });
  if (raised_err != cudaSuccess)
    return CF_ERR_UNSUPPORTED;
  while ((1 << bits) < l.block)
    bits++;
  spectra_kernel<T><<<l.masks * l.partitions, threads_for<T> (l.block),
      bytes, stream>>> (l, h, taps, spectra, twiddles, bits);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

template int cf_fir_block_prepare<float> (int);
template int cf_fir_block_spectra<float> (const cf_fir_layout &,
    const float *, int, float2 *, const float2 *, cudaStream_t);
template int cf_fir_block_spectra<double> (const cf_fir_layout &,
    const double *, int, double2 *, const double2 *, cudaStream_t);
template size_t cf_fir_block_older_bytes<float> (const cf_fir_layout &);
template size_t cf_fir_block_older_bytes<double> (const cf_fir_layout &);
template int cf_fir_block_prepare<double> (int);
template bool cf_fir_block_clusters_fit<float> (const cf_fir_layout &);
template bool cf_fir_block_clusters_fit<double> (const cf_fir_layout &);
template int cf_fir_block<float> (const cf_fir_layout &, float *, size_t,
    float2 *, const float2 *, float *, size_t, const cf_fir_interleaved *,
    const float2 *, float2 *, long long, int, float, cudaStream_t);
template int cf_fir_block<double> (const cf_fir_layout &, double *, size_t,
    double2 *, const double2 *, double *, size_t,
    const cf_fir_interleaved *, const double2 *, double2 *, long long, int,
    double, cudaStream_t);

}  /* namespace cf_fir */
