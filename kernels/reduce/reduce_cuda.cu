/* CUDA reductions (see reduce.h). Kernel 1: a grid of blocks walks the
 * samples with a grid-wide stride, keeping sum, sum of squares, min and
 * max in registers, then each block folds its threads' (warp shuffles,
 * then one barrier). Buffers of 1, 2 or 4 interleaved channels that lie
 * contiguous and 16-byte aligned (mono and stereo audio, planes of RGBA
 * pixels without row padding) are read as 16-byte vectors of whole pixels
 * by one grid for every channel; other layouts take a grid per channel
 * (grid.y), each sample read alone. Kernel 2: one block per channel folds
 * the blocks' partials, launched to start while kernel 1 ends; where one
 * block takes a whole channel (short audio buffers) it writes the
 * statistics itself and kernel 2 is not launched. */
#include "cf_fault.h"
#include <cstdint>
#include <limits>
#include <type_traits>

#include <cuda_runtime.h>

#include "dependent_launch.cuh"
#include "reduce.h"

namespace cf_reduce
{

constexpr int THREADS = 256;
constexpr int ITEMS_PER_THREAD = 16;    /* at least, before more blocks */
constexpr int MAX_BLOCKS = 2048;        /* 8 blocks of 256 on each of 132 SMs,
                                         * and more: full occupancy */

struct Partial
{
  double sum, squares, min, max;

  __device__ void add (double v)
  {
    sum += v;
    squares += v * v;
    min = fmin (min, v);
    max = fmax (max, v);
  }

  __device__ void merge (const Partial &o)
  {
    sum += o.sum;
    squares += o.squares;
    min = fmin (min, o.min);
    max = fmax (max, o.max);
  }
};

__device__ Partial
empty ()
{
  return Partial { 0.0, 0.0, INFINITY, -INFINITY };
}

__device__ Partial
shuffle_xor (const Partial &p, int lanes)
{
  return Partial { __shfl_xor_sync (0xffffffffu, p.sum, lanes),
    __shfl_xor_sync (0xffffffffu, p.squares, lanes),
    __shfl_xor_sync (0xffffffffu, p.min, lanes),
    __shfl_xor_sync (0xffffffffu, p.max, lanes) };
}

/* a if c, else b, field by field (a conditional between two elements of
 * an array would put the array in local memory) */
__device__ __forceinline__ Partial
pick (bool c, const Partial &a, const Partial &b)
{
  return Partial { c ? a.sum : b.sum, c ? a.squares : b.squares,
    c ? a.min : b.min, c ? a.max : b.max };
}

/* One of block_fold's first steps, and the ones after it: the lane holds
 * N partials, p[0 .. N - 1], of channels channel .. channel + N - 1, and
 * keeps the lower or upper half of them, merged with the partner's. */
template <int N, int C>
__device__ __forceinline__ void
keep_half (Partial (&p)[C], int lane, int &channel)
{
  if constexpr (N > 1) {
    constexpr int LANES = 16 * N / C;
    const bool upper = lane & LANES;
#pragma unroll
    for (int i = 0; i < N / 2; i++) {
      const Partial lower = p[i], higher = p[N / 2 + i];
      Partial keep = pick (upper, higher, lower);
      keep.merge (shuffle_xor (pick (upper, lower, higher), LANES));
      p[i] = keep;
    }
    channel += upper ? N / 2 : 0;
    keep_half<N / 2, C> (p, lane, channel);
  }
}

/* Folds the C partials of each thread (C a power of two) into thread c's
 * partial of channel c (c < C). Within a warp, each of the first log2 C
 * shuffle steps halves the channels a lane holds: the lanes of one half
 * keep the lower channels and send the upper ones, the others the
 * reverse, so that a lane exchanges C / 2 partials, then C / 4 ..., then
 * one a step (2C - 1 + 5 - log2 C in all, against 5C shuffling every
 * channel down the warp); then one barrier, and thread c merges the
 * warps' partials of its channel. */
template <int C>
__device__ void
block_fold (Partial (&p)[C])
{
  static_assert (C >= 1 && C <= 32 && (C & (C - 1)) == 0, "a power of two");
  constexpr int WARPS = THREADS / 32;
  __shared__ Partial s[WARPS][C];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int channel = 0;              /* of p[0], once one is left */

  keep_half<C, C> (p, lane, channel);
  for (int lanes = 16 / C; lanes > 0; lanes /= 2)
    p[0].merge (shuffle_xor (p[0], lanes));
  if (lane % (32 / C) == 0)
    s[warp][channel] = p[0];
  __syncthreads ();
  if (threadIdx.x < C) {
    Partial q = s[0][threadIdx.x];
    for (int w = 1; w < WARPS; w++)
      q.merge (s[w][threadIdx.x]);
#pragma unroll
    for (int c = 0; c < C; c++)
      if (c == (int) threadIdx.x)
        p[c] = q;
  }
}

/* The textbook fold, kept as the `tree` variant (reduce.h): the block's
 * partials in shared memory, halved by a tree whose active threads are
 * always the first `stride` (whole warps drop out, none diverges), down
 * to one warp, then shuffles. log2(THREADS) - 5 barriers, where
 * block_fold needs one. Thread 0 ends with the block's partial. */
__device__ Partial
tree_fold (Partial p)
{
  __shared__ Partial s[THREADS];
  const int t = threadIdx.x;

  s[t] = p;
  __syncthreads ();
  for (int stride = THREADS / 2; stride >= 32; stride >>= 1) {
    if (t < stride) {
      p.merge (s[t + stride]);
      s[t] = p;
    }
    __syncthreads ();
  }
  if (t < 32)
    for (int lanes = 16; lanes > 0; lanes >>= 1)
      p.merge (shuffle_xor (p, lanes));
  return p;
}

/* A block's one partial in p[0] for thread 0: by the tree or by
 * block_fold */
template <bool TREE>
__device__ __forceinline__ void
fold_one (Partial (&p)[1])
{
  if constexpr (TREE)
    p[0] = tree_fold (p[0]);
  else
    block_fold (p);
}

/* A block's sums of channel c: the channel's statistics when the block is
 * its only one (short audio buffers: no second launch), else a partial to
 * fold. */
__device__ void
finish (const Partial &p, Partial * partials, cf_stats * out, int c)
{
  if (gridDim.x == 1)
    out[c] = cf_stats { p.sum, p.squares, p.min, p.max };
  else
    partials[(size_t) c * gridDim.x + blockIdx.x] = p;
}

template <typename T, bool TREE>
__global__ void __launch_bounds__ (THREADS)
reduce_items (const uint8_t * data, cf_reduce_layout l, Partial * partials,
    cf_stats * out)
{
  const int c = blockIdx.y;
  const size_t items = (size_t) l.width * l.rows;
  const size_t stride = (size_t) gridDim.x * THREADS;
  Partial p[1] = { empty () };

  cf_integral::let_next_start ();
  if (l.rows == 1) {
    /* one row (audio, or a plane without row padding): no index division */
    const T *row = (const T *) data + c;
    for (size_t k = (size_t) blockIdx.x * THREADS + threadIdx.x; k < items;
        k += stride)
      p[0].add ((double) row[k * l.channels]);
  } else {
    /* rows apart: a division per item, in 32 bits (a 64-bit division is
     * about a hundred instructions and set the pace) */
    const unsigned width = (unsigned) l.width;
    for (size_t k = (size_t) blockIdx.x * THREADS + threadIdx.x; k < items;
        k += stride) {
      size_t y = items <= UINT32_MAX ? (unsigned) k / width : k / width;
      size_t x = k - y * width;
      const T *row = (const T *) (data + y * l.pitch);
      p[0].add ((double) row[x * l.channels + c]);
    }
  }
  fold_one<TREE> (p);
  if (threadIdx.x == 0)
    finish (p[0], partials, out, c);
}

/* A thread's statistics of one channel over the samples it reads: sums
 * in double, or for bytes in 32 bits (exact: a thread reads at most 4096
 * samples of a channel, and 4096 x 255^2 < 2^32), which spares a
 * conversion a sample on the GPU's slow conversion unit; minimum and
 * maximum in the samples' own type, where they are exact. */
template <typename T>
struct Sums
{
  double sum = 0.0, squares = 0.0;
  T min = std::numeric_limits<T>::has_infinity
      ? std::numeric_limits<T>::infinity () : std::numeric_limits<T>::max ();
  T max = std::numeric_limits<T>::has_infinity
      ? -std::numeric_limits<T>::infinity ()
      : std::numeric_limits<T>::lowest ();

  __device__ void add (T v)
  {
    double d = (double) v;
    sum += d;
    squares = fma (d, d, squares);
    min = v < min ? v : min;
    max = v > max ? v : max;
  }

  __device__ Partial partial () const
  {
    return Partial { sum, squares, (double) min, (double) max };
  }
};

template <>
struct Sums<uint8_t>
{
  uint32_t sum = 0, squares = 0, min = 255, max = 0;

  __device__ void add (uint8_t v)
  {
    sum += v;
    squares += (uint32_t) v * v;
    min = ::min (min, (uint32_t) v);
    max = ::max (max, (uint32_t) v);
  }

  __device__ Partial partial () const
  {
    return Partial { (double) sum, (double) squares, (double) min,
      (double) max };
  }
};

/* Sample j of a 16-byte vector, from its words (a pointer into the
 * vector would put it in local memory). */
__device__ __forceinline__ uint32_t
word (const uint4 &v, int k)
{
  return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

template <typename T>
__device__ __forceinline__ T
sample (const uint4 &v, int j)
{
  if constexpr (sizeof (T) == 1)
    return (T) (word (v, j / 4) >> 8 * (j % 4));
  else if constexpr (sizeof (T) == 2)
    return (T) (word (v, j / 2) >> 16 * (j % 2));
  else if constexpr (std::is_same<T, float>::value)
    return __uint_as_float (word (v, j));
  else if constexpr (sizeof (T) == 4)
    return (T) word (v, j);
  else
    return __hiloint2double ((int) word (v, 2 * j + 1), (int) word (v,
            2 * j));
}

/* The samples of a 16-byte vector, channel by channel: vectors start on a
 * pixel (a frame), since C samples of T divide 16 bytes. */
template <typename T, int C>
__device__ __forceinline__ void
add_vector (Sums<T> (&a)[C], const uint4 &v)
{
#pragma unroll
  for (int j = 0; j < (int) (16 / sizeof (T)); j++)
    a[j % C].add (sample<T> (v, j));
}

/* Blocks an SM for 4 channels: registers capped at 64 a thread, so that
 * half the threads an SM holds (4 blocks of 256) keep loads in flight
 * while they hold the sums of 4 channels twice over. */
constexpr int VECTOR_BLOCKS_AN_SM = 4;
/* 16-byte loads in flight a thread, in pairs (two sets of sums) */
constexpr int LOADS = 4;
static_assert (LOADS % 2 == 0, "loads go in pairs");
/* 16-byte vectors a thread of the vector kernel reads, at least, for each
 * channel, before the grid grows */
constexpr int VECTORS_A_THREAD = 8;

/* C channels of interleaved samples, contiguous and 16-byte aligned (a
 * mono or stereo buffer, a plane of RGBA pixels without row padding):
 * 16-byte loads, four in flight per thread, two sets of sums so that the
 * adds of one load do not wait on the other's. NaN samples are skipped by
 * the minimum and maximum, as fmin and fmax skip them. */
template <typename T, int C>
__global__ void __launch_bounds__ (THREADS, C == 4 ? VECTOR_BLOCKS_AN_SM : 1)
reduce_vectors (const T * data, size_t samples, Partial * partials,
    cf_stats * out)
{
  const uint4 *v = reinterpret_cast<const uint4 *>(data);
  const size_t vectors = samples * sizeof (T) / 16;
  const size_t stride = (size_t) gridDim.x * THREADS;
  size_t k = (size_t) blockIdx.x * THREADS + threadIdx.x;
  Sums<T> a[C], b[C];
  Partial p[C];

  cf_integral::let_next_start ();
  for (; k + (LOADS - 1) * stride < vectors; k += LOADS * stride) {
    uint4 x[LOADS];
#pragma unroll
    for (int i = 0; i < LOADS; i++)
      x[i] = __ldg (v + k + i * stride);
#pragma unroll
    for (int i = 0; i < LOADS; i += 2) {
      add_vector (a, x[i]);
      add_vector (b, x[i + 1]);
    }
  }
  for (; k < vectors; k += stride)
    add_vector (a, __ldg (v + k));
  /* the last samples that fill no vector: whole pixels, sample j of them
   * in channel j % C (merged by selects: a run-time index into a or p
   * would put them in local memory) */
  const size_t tail = vectors * 16 / sizeof (T);
  Sums<T> t;
  if (blockIdx.x == 0 && threadIdx.x < samples - tail)
    t.add (data[tail + threadIdx.x]);
  const Partial tp = t.partial ();
#pragma unroll
  for (int c = 0; c < C; c++) {
    p[c] = a[c].partial ();
    p[c].merge (b[c].partial ());
    p[c].merge (pick (threadIdx.x % C == c, tp, empty ()));
  }
  block_fold (p);
#pragma unroll
  for (int c = 0; c < C; c++)
    if (threadIdx.x == c)
      finish (p[c], partials, out, c);
}

/* Started while the kernel before it ends (dependent launch): its
 * partials are read only after wait_for_previous. */
template <bool TREE>
__global__ void __launch_bounds__ (THREADS)
fold_partials (const Partial * partials, int blocks, cf_stats * out)
{
  const int c = blockIdx.x;
  Partial p[1] = { empty () };

  cf_integral::wait_for_previous ();
  for (int b = threadIdx.x; b < blocks; b += THREADS)
    p[0].merge (partials[(size_t) c * blocks + b]);
  fold_one<TREE> (p);
  if (threadIdx.x == 0)
    out[c] = cf_stats { p[0].sum, p[0].squares, p[0].min, p[0].max };
}

static int
blocks_for (const cf_reduce_layout * l)
{
  size_t items = (size_t) l->width * l->rows;
  size_t b = (items + THREADS * ITEMS_PER_THREAD - 1) /
      (THREADS * ITEMS_PER_THREAD);
  return (int) (b < 1 ? 1 : b > MAX_BLOCKS ? MAX_BLOCKS : b);
}

/* The vector kernel for C channels of T, if C samples of T divide 16
 * bytes; false otherwise. A block's fold costs about C times a channel's
 * (its shuffles and double adds set the pace of short sums of many
 * channels), so each thread takes C times the vectors, within the grid
 * the workspace has room for (`blocks`). Sets *blocks to the grid. */
template <typename T, int C>
static bool
launch_vectors (const void *data, size_t samples, int *blocks,
    Partial * partials, cf_stats * out, cudaStream_t stream)
{
  if constexpr (16 % (C * sizeof (T)) != 0)
    return false;
  else {
    const size_t vectors = samples * sizeof (T) / 16;
    const size_t per_block = (size_t) THREADS * VECTORS_A_THREAD * C;
    const size_t b = (vectors + per_block - 1) / per_block;
    *blocks = (int) (b < 1 ? 1 : b < (size_t) *blocks ? b : *blocks);
    reduce_vectors<T, C><<<*blocks, THREADS, 0, stream>>> ((const T *) data,
        samples, partials, out);
    return true;
  }
}

template <typename T>
static cudaError_t
run (bool tree, const cf_reduce_layout * l, const void *data, cf_stats * out,
    Partial * partials, cudaStream_t stream)
{
  int blocks = blocks_for (l);
  dim3 grid (blocks, l->channels);
  cf_reduce_layout flat = *l;
  bool done = false;

  /* rows without padding are one long row */
  if (l->rows > 1 && l->pitch == (size_t) l->width * l->channels * sizeof (T)
      && (size_t) l->width * l->rows <= INT32_MAX) {
    flat.width = l->width * l->rows;
    flat.rows = 1;
  }
  if (tree) {
    /* the textbook: a grid per channel, two launches one after the other */
    reduce_items<T, true><<<grid, THREADS, 0, stream>>> ((const uint8_t *)
        data, flat, partials, out);
    if (blocks > 1)
      fold_partials<true><<<l->channels, THREADS, 0, stream>>> (partials,
          blocks, out);
    return (cudaError_t) cf_fault_check (CF_FAULT_LAUNCH,
        cudaGetLastError ());
  }
  if (flat.rows == 1 && ((uintptr_t) data & 15) == 0) {
    const size_t samples = (size_t) flat.width * l->channels;
    if (l->channels == 1)
      done = launch_vectors<T, 1> (data, samples, &blocks, partials, out,
          stream);
    else if (l->channels == 2)
      done = launch_vectors<T, 2> (data, samples, &blocks, partials, out,
          stream);
    else if (l->channels == 4)
      done = launch_vectors<T, 4> (data, samples, &blocks, partials, out,
          stream);
  }
  if (!done)
    reduce_items<T, false><<<grid, THREADS, 0, stream>>> ((const uint8_t *)
        data, flat, partials, out);
  if (blocks > 1)
    cf_integral::launch_after (fold_partials<false>, dim3 (l->channels),
        dim3 (THREADS), stream, (const Partial *) partials, blocks, out);
  return (cudaError_t) cf_fault_check (CF_FAULT_LAUNCH, cudaGetLastError ());
}

}                               /* namespace cf_reduce */

extern "C" size_t
cf_reduce_workspace_size (const cf_reduce_layout * l)
{
  if (cf_reduce_layout_check (l) != CF_OK)
    return 0;
  return sizeof (cf_reduce::Partial) * (size_t) cf_reduce::blocks_for (l)
      * l->channels;
}

extern "C" int
cf_reduce_cuda (const cf_reduce_layout * l, const void *d_data,
    cf_stats * d_out, void *workspace, cf_stream stream)
{
  return cf_reduce_cuda_variant (CF_REDUCE_AUTO, l, d_data, d_out, workspace,
      stream);
}

extern "C" int
cf_reduce_cuda_variant (cf_reduce_algorithm algorithm,
    const cf_reduce_layout * l, const void *d_data, cf_stats * d_out,
    void *workspace, cf_stream stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  cf_reduce::Partial *p = (cf_reduce::Partial *) workspace;
  const bool tree = algorithm == CF_REDUCE_TREE;
  cudaError_t err;

  if ((unsigned) algorithm >= CF_REDUCE_N_ALGORITHMS
      || cf_reduce_layout_check (l) != CF_OK || !d_data || !d_out
      || !workspace)
    return CF_ERR_INVALID;
  switch (l->type) {
    case CF_REDUCE_U8:
      err = cf_reduce::run<uint8_t> (tree, l, d_data, d_out, p, s);
      break;
    case CF_REDUCE_U16:
      err = cf_reduce::run<uint16_t> (tree, l, d_data, d_out, p, s);
      break;
    case CF_REDUCE_S16:
      err = cf_reduce::run<int16_t> (tree, l, d_data, d_out, p, s);
      break;
    case CF_REDUCE_S32:
      err = cf_reduce::run<int32_t> (tree, l, d_data, d_out, p, s);
      break;
    case CF_REDUCE_F32:
      err = cf_reduce::run<float> (tree, l, d_data, d_out, p, s);
      break;
    default:
      err = cf_reduce::run<double> (tree, l, d_data, d_out, p, s);
      break;
  }
  return (int) err;
}
