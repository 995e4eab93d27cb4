/* CUDA reductions (see reduce.h). Kernel 1: grid (blocks, channels); the
 * threads of a block walk their channel's items with a grid-wide stride,
 * keeping sum, sum of squares, min and max in registers, then fold them
 * (one channel of aligned floats reads 16 bytes at a time). Kernel 2: one
 * block per channel folds the blocks' partials; where one block takes a
 * whole channel (short audio buffers) it writes the statistics itself and
 * kernel 2 is not launched. */
#include "cf_fault.h"
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "reduce.h"

namespace cfr
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
shuffle_down (const Partial &p, int off)
{
  return Partial { __shfl_down_sync (0xffffffffu, p.sum, off),
    __shfl_down_sync (0xffffffffu, p.squares, off),
    __shfl_down_sync (0xffffffffu, p.min, off),
    __shfl_down_sync (0xffffffffu, p.max, off) };
}

/* Folds the block's partials into thread 0's: a tree in shared memory
 * whose active threads are always the first `stride` (whole warps drop
 * out, none diverges), then shuffles within the last warp. */
__device__ Partial
block_fold (Partial p)
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
  if (t < 32) {
    p = s[t];
    for (int off = 16; off > 0; off >>= 1)
      p.merge (shuffle_down (p, off));
  }
  return p;
}

/* A block's sums: the channel's statistics when the block is its only
 * one (short audio buffers: no second launch), else a partial to fold. */
__device__ void
finish (const Partial &p, Partial * partial, cf_stats * out)
{
  if (gridDim.x == 1)
    *out = cf_stats { p.sum, p.squares, p.min, p.max };
  else
    *partial = p;
}

template <typename T>
__global__ void __launch_bounds__ (THREADS)
reduce_items (const uint8_t * data, cf_reduce_layout l, Partial * partials,
    cf_stats * out)
{
  const int c = blockIdx.y;
  const size_t items = (size_t) l.width * l.rows;
  const size_t stride = (size_t) gridDim.x * THREADS;
  Partial p = empty ();

  if (l.rows == 1) {
    /* one row (audio, or a plane without row padding): no index division */
    const T *row = (const T *) data + c;
    for (size_t k = (size_t) blockIdx.x * THREADS + threadIdx.x; k < items;
        k += stride)
      p.add ((double) row[k * l.channels]);
  } else {
    /* rows apart: a division per item, in 32 bits (a 64-bit division is
     * about a hundred instructions and set the pace) */
    const unsigned width = (unsigned) l.width;
    for (size_t k = (size_t) blockIdx.x * THREADS + threadIdx.x; k < items;
        k += stride) {
      size_t y = items <= UINT32_MAX ? (unsigned) k / width : k / width;
      size_t x = k - y * width;
      const T *row = (const T *) (data + y * l.pitch);
      p.add ((double) row[x * l.channels + c]);
    }
  }
  p = block_fold (p);
  if (threadIdx.x == 0)
    finish (p, partials + (size_t) c * gridDim.x + blockIdx.x, out + c);
}

/* One channel of contiguous, 16-byte aligned floats (a mono buffer, a
 * plane of one float sample): 16-byte loads, two in flight per thread, two
 * sets of double sums so that the adds of one load do not wait on the
 * other's; min and max stay in float, where they are exact. */
struct Sums
{
  double sum = 0.0, squares = 0.0;
  float min = INFINITY, max = -INFINITY;

  __device__ void add (float v)
  {
    double d = v;
    sum += d;
    squares = fma (d, d, squares);
    min = fminf (min, v);
    max = fmaxf (max, v);
  }

  __device__ void add (float4 v)
  {
    add (v.x);
    add (v.y);
    add (v.z);
    add (v.w);
  }
};

__global__ void __launch_bounds__ (THREADS)
reduce_f32_vectors (const float *data, size_t items, Partial * partials,
    cf_stats * out)
{
  const float4 *v = reinterpret_cast<const float4 *>(data);
  const size_t vectors = items / 4;
  const size_t stride = (size_t) gridDim.x * THREADS;
  size_t k = (size_t) blockIdx.x * THREADS + threadIdx.x;
  Sums a, b;

  for (; k + stride < vectors; k += 2 * stride) {
    float4 x = __ldg (v + k), y = __ldg (v + k + stride);
    a.add (x);
    b.add (y);
  }
  if (k < vectors)
    a.add (__ldg (v + k));
  /* the last items % 4 floats */
  if (blockIdx.x == 0 && threadIdx.x < items % 4)
    a.add (data[vectors * 4 + threadIdx.x]);
  Partial p = { a.sum + b.sum, a.squares + b.squares,
    (double) fminf (a.min, b.min), (double) fmaxf (a.max, b.max)
  };
  p = block_fold (p);
  if (threadIdx.x == 0)
    finish (p, partials + blockIdx.x, out);
}

__global__ void __launch_bounds__ (THREADS)
fold_partials (const Partial * partials, int blocks, cf_stats * out)
{
  const int c = blockIdx.x;
  Partial p = empty ();

  for (int b = threadIdx.x; b < blocks; b += THREADS)
    p.merge (partials[(size_t) c * blocks + b]);
  p = block_fold (p);
  if (threadIdx.x == 0)
    out[c] = cf_stats { p.sum, p.squares, p.min, p.max };
}

static int
blocks_for (const cf_reduce_layout * l)
{
  size_t items = (size_t) l->width * l->rows;
  size_t b = (items + THREADS * ITEMS_PER_THREAD - 1) /
      (THREADS * ITEMS_PER_THREAD);
  return (int) (b < 1 ? 1 : b > MAX_BLOCKS ? MAX_BLOCKS : b);
}

template <typename T>
static cudaError_t
run (const cf_reduce_layout * l, const void *data, cf_stats * out,
    Partial * partials, cudaStream_t stream)
{
  int blocks = blocks_for (l);
  dim3 grid (blocks, l->channels);
  cf_reduce_layout flat = *l;

  /* rows without padding are one long row */
  if (l->rows > 1 && l->pitch == (size_t) l->width * l->channels * sizeof (T)
      && (size_t) l->width * l->rows <= INT32_MAX) {
    flat.width = l->width * l->rows;
    flat.rows = 1;
  }
  if (std::is_same<T, float>::value && flat.rows == 1 && l->channels == 1
      && ((uintptr_t) data & 15) == 0)
    reduce_f32_vectors<<<blocks, THREADS, 0, stream>>> ((const float *) data,
        (size_t) flat.width, partials, out);
  else
    reduce_items<T><<<grid, THREADS, 0, stream>>> ((const uint8_t *) data,
        flat, partials, out);
  if (blocks > 1)
    fold_partials<<<l->channels, THREADS, 0, stream>>> (partials, blocks,
        out);
  return (cudaError_t) cf_fault_check (CF_FAULT_LAUNCH, cudaGetLastError ());
}

}                               /* namespace cfr */

extern "C" size_t
cf_reduce_workspace_size (const cf_reduce_layout * l)
{
  if (cf_reduce_layout_check (l) != CF_OK)
    return 0;
  return sizeof (cfr::Partial) * (size_t) cfr::blocks_for (l) * l->channels;
}

extern "C" int
cf_reduce_cuda (const cf_reduce_layout * l, const void *d_data,
    cf_stats * d_out, void *workspace, cf_stream stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  cfr::Partial *p = (cfr::Partial *) workspace;
  cudaError_t err;

  if (cf_reduce_layout_check (l) != CF_OK || !d_data || !d_out || !workspace)
    return CF_ERR_INVALID;
  switch (l->type) {
    case CF_REDUCE_U8:
      err = cfr::run<uint8_t> (l, d_data, d_out, p, s);
      break;
    case CF_REDUCE_U16:
      err = cfr::run<uint16_t> (l, d_data, d_out, p, s);
      break;
    case CF_REDUCE_S16:
      err = cfr::run<int16_t> (l, d_data, d_out, p, s);
      break;
    case CF_REDUCE_S32:
      err = cfr::run<int32_t> (l, d_data, d_out, p, s);
      break;
    case CF_REDUCE_F32:
      err = cfr::run<float> (l, d_data, d_out, p, s);
      break;
    default:
      err = cfr::run<double> (l, d_data, d_out, p, s);
      break;
  }
  return (int) err;
}
