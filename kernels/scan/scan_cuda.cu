/* CUDA scans (see scan.h). A tile is TILE = THREADS x ITEMS elements: it is
 * loaded into shared memory with coalesced reads, each thread sums its
 * ITEMS consecutive elements, the block scans the THREADS thread sums with
 * one of three block scans, and each thread then writes its elements'
 * prefixes, stored back through shared memory with coalesced writes.
 *
 *   kogge-stone  log2(THREADS) steps of "add the value `offset` to the
 *                left", reading one buffer and writing the other, so one
 *                barrier a step suffices
 *   brent-kung   a reduction tree (up-sweep) then a reverse tree that
 *                spreads the partial sums down: 2 x THREADS adds, not
 *                THREADS log2(THREADS)
 *   warp         shuffles within each warp, the warp totals scanned by the
 *                first warp, then added
 *
 * Any length: hierarchical (scan tiles and keep their sums; scan the sums
 * the same way, recursively; add each tile's offset) or decoupled look-back
 * (one pass, one launch: each tile publishes its sum, then its inclusive
 * prefix once known; a tile finds its offset by walking back over its
 * predecessors, 32 at a time, until it meets an inclusive prefix). `auto`
 * runs the decoupled scan on short arrays and CUB's (scan_cub.cu) on long
 * ones, where it moves more bytes per second. */
#include "cf_fault.h"
#include <atomic>
#include <chrono>
#include <cstdint>

#include <cuda/atomic>
#include <cuda_runtime.h>

#include "scan.h"
#include "scan_cub.cuh"

namespace cfs
{

constexpr int THREADS = 256;
constexpr int ITEMS = 8;
constexpr int TILE = THREADS * ITEMS;
/* decoupled look-back: larger tiles, half as many steps of the chain */
constexpr int LOOK_BACK_ITEMS = 16;
constexpr int LOOK_BACK_TILE = THREADS * LOOK_BACK_ITEMS;
static_assert (TILE == CF_SCAN_TILE, "scan.h documents the tile size");
constexpr int WARPS = THREADS / 32;

/* accumulator -> element: integers keep their low bits */
template <typename T, typename A>
__device__ __forceinline__ T
to_element (A v)
{
  return (T) v;
}

template <>
__device__ __forceinline__ int32_t
to_element<int32_t, uint32_t> (uint32_t v)
{
  return (int32_t) v;           /* two's complement: the same bits */
}

enum BlockScan { KOGGE_STONE, BRENT_KUNG, WARP };

/* Shared memory of one tile: its elements (padded against bank conflicts:
 * each thread reads ITEMS consecutive ones) and the block scan's buffers. */
__host__ __device__ constexpr int
padded (int i)
{
  return i + i / 32;
}

template <typename T, typename A, int I = ITEMS>
struct TileSmem
{
  T items[padded (THREADS * I)];
  A scan[2 * THREADS];
  A offset;
};

/* Exclusive scan of one value per thread; *total gets the block's sum. */
template <BlockScan B, typename A>
__device__ A
block_exclusive (A v, A * total, A * buf)
{
  const int t = threadIdx.x;
  A excl;

  if (B == KOGGE_STONE) {
    int in = 0;
    buf[t] = v;
    __syncthreads ();
    for (int off = 1; off < THREADS; off <<= 1) {
      A x = buf[in * THREADS + t];
      if (t >= off)
        x += buf[in * THREADS + t - off];
      buf[(1 - in) * THREADS + t] = x;  /* the other buffer: no race */
      in = 1 - in;
      __syncthreads ();
    }
    excl = t ? buf[in * THREADS + t - 1] : A (0);
    *total = buf[in * THREADS + THREADS - 1];
  } else if (B == BRENT_KUNG) {
    buf[t] = v;
    __syncthreads ();
    for (int stride = 1; stride < THREADS; stride <<= 1) {
      int i = (t + 1) * 2 * stride - 1;
      if (i < THREADS)
        buf[i] += buf[i - stride];
      __syncthreads ();
    }
    for (int stride = THREADS / 4; stride > 0; stride >>= 1) {
      int i = (t + 1) * 2 * stride - 1;
      if (i + stride < THREADS)
        buf[i + stride] += buf[i];
      __syncthreads ();
    }
    excl = t ? buf[t - 1] : A (0);
    *total = buf[THREADS - 1];
  } else {
    const int lane = t & 31, warp = t >> 5;
    A x = v, w;
    for (int off = 1; off < 32; off <<= 1) {
      A y = __shfl_up_sync (0xffffffffu, x, off);
      if (lane >= off)
        x += y;
    }
    if (lane == 31)
      buf[warp] = x;
    __syncthreads ();
    if (warp == 0) {
      w = lane < WARPS ? buf[lane] : A (0);
      for (int off = 1; off < WARPS; off <<= 1) {
        A y = __shfl_up_sync (0xffffffffu, w, off);
        if (lane >= off)
          w += y;
      }
      if (lane < WARPS)
        buf[THREADS + lane] = w;
    }
    __syncthreads ();
    excl = __shfl_up_sync (0xffffffffu, x, 1);
    if (lane == 0)
      excl = A (0);
    if (warp > 0)
      excl += buf[THREADS + warp - 1];
    *total = buf[THREADS + WARPS - 1];
  }
  __syncthreads ();             /* the buffers are free again */
  return excl;
}

/* Loads tile `tile` into shared memory (zeros past n) and returns this
 * thread's sum of its I consecutive elements. */
template <typename T, typename A, int I>
__device__ A
load_tile (const T * in, size_t n, size_t tile, TileSmem<T, A, I> &s)
{
  const size_t base = tile * THREADS * I;
  A sum = A (0);

#pragma unroll
  for (int k = 0; k < I; k++) {
    int i = k * THREADS + threadIdx.x;
    s.items[padded (i)] = base + i < n ? in[base + i] : T (0);
  }
  __syncthreads ();
#pragma unroll
  for (int k = 0; k < I; k++)
    sum += (A) s.items[padded (threadIdx.x * I + k)];
  return sum;
}

/* Writes the tile's prefixes: this thread's elements start at `running`. */
template <typename T, typename A, int I>
__device__ void
store_tile (T * out, size_t n, size_t tile, A running, bool inclusive,
    TileSmem<T, A, I> &s)
{
  const size_t base = tile * THREADS * I;

#pragma unroll
  for (int k = 0; k < I; k++) {
    int i = padded (threadIdx.x * I + k);
    A v = (A) s.items[i];
    if (inclusive)
      running += v;
    s.items[i] = to_element<T, A> (running);
    if (!inclusive)
      running += v;
  }
  __syncthreads ();
#pragma unroll
  for (int k = 0; k < I; k++) {
    int i = k * THREADS + threadIdx.x;
    if (base + i < n)
      out[base + i] = s.items[padded (i)];
  }
}

/* Hierarchical, kernel 1: each tile scanned alone; its sum kept. */
template <BlockScan B, typename T>
__global__ void __launch_bounds__ (THREADS)
scan_tiles (const T * in, T * out, size_t n, bool inclusive,
    typename Acc<T>::type * sums)
{
  using A = typename Acc<T>::type;
  __shared__ TileSmem<T, A> s;
  A total, sum = load_tile (in, n, blockIdx.x, s);
  A excl = block_exclusive<B> (sum, &total, s.scan);

  store_tile (out, n, blockIdx.x, excl, inclusive, s);
  if (sums && threadIdx.x == 0)
    sums[blockIdx.x] = total;
}

/* Hierarchical, kernel 3: each tile's offset (the exclusive scan of the
 * tile sums) added back. */
template <typename T>
__global__ void __launch_bounds__ (THREADS)
add_offsets (T * out, size_t n, const typename Acc<T>::type * offsets)
{
  using A = typename Acc<T>::type;
  const size_t tile = blockIdx.x + 1;   /* tile 0 has no offset */
  const A offset = offsets[tile];

  for (int k = 0; k < ITEMS; k++) {
    size_t i = tile * TILE + k * THREADS + threadIdx.x;
    if (i < n)
      out[i] = to_element<T, A> ((A) out[i] + offset);
  }
}

static size_t
tiles_of (size_t n)
{
  return (n + TILE - 1) / TILE;
}

static size_t
aligned (size_t bytes)
{
  return (bytes + 255) / 256 * 256;
}

/* Workspace of a hierarchical scan: the tile sums, then theirs, ... */
template <typename A>
static size_t
hierarchical_workspace (size_t n)
{
  size_t bytes = 0;
  for (size_t m = tiles_of (n); m > 1; m = tiles_of (m))
    bytes += aligned (m * sizeof (A));
  return bytes;
}

template <BlockScan B, typename T>
static cudaError_t
hierarchical (const T * in, T * out, size_t n, bool inclusive, char *ws,
    cudaStream_t stream)
{
  using A = typename Acc<T>::type;
  size_t m = tiles_of (n);
  A *sums = m > 1 ? (A *) ws : nullptr;
  cudaError_t err;

  scan_tiles<B, T><<<(unsigned) m, THREADS, 0, stream>>> (in, out, n,
      inclusive, sums);
  if ((err = cudaGetLastError ()) != cudaSuccess || m == 1)
    return err;
  /* the sums, exclusive, in place: each tile's offset */
  err = hierarchical<B, A> (sums, sums, m, false, ws + aligned (m *
          sizeof (A)), stream);
  if (err != cudaSuccess)
    return err;
  add_offsets<T><<<(unsigned) (m - 1), THREADS, 0, stream>>> (out, n, sums);
  return (cudaError_t) cf_fault_check (CF_FAULT_LAUNCH, cudaGetLastError ());
}

/* Decoupled look-back. Per tile: a status word, its sum and its inclusive
 * prefix. The status is (call tag << 2 | state), state 1 when the sum is
 * published, 2 when the prefix is; a word carrying another call's tag reads
 * as nothing yet. Each call draws a new 62-bit tag, so the workspace needs
 * no clearing between calls (a memset would be a second launch, which is
 * most of the time on short arrays), and stale or uninitialised words are
 * ignored. Tiles are block indices: blocks start in index order, so a tile
 * only ever waits for tiles already running (CUB relies on the same). */
enum : unsigned { NOTHING = 0, AGGREGATE = 1, PREFIX = 2 };

template <typename A>
struct LookBack
{
  unsigned long long *status;
  A *aggregates;
  A *prefixes;
  unsigned long long tag;
};

template <typename A>
static LookBack<A>
look_back_layout (char *ws, size_t tiles, unsigned long long tag)
{
  LookBack<A> l;
  l.status = (unsigned long long *) ws;
  l.aggregates = (A *) (ws + aligned (tiles * sizeof (unsigned long long)));
  l.prefixes = l.aggregates + tiles;
  l.tag = tag;
  return l;
}

/* A tag no earlier call of this process used, and unlikely to match what
 * another process left in the memory: a counter started from the clock. */
static unsigned long long
next_tag ()
{
  static std::atomic<unsigned long long> counter (
      (unsigned long long) std::chrono::steady_clock::now ()
      .time_since_epoch ().count () * 0x9E3779B97F4A7C15ull);
  return counter.fetch_add (1) & ((1ull << 62) - 1);
}

static size_t
look_back_tiles (size_t n)
{
  return (n + LOOK_BACK_TILE - 1) / LOOK_BACK_TILE;
}

template <typename A>
static size_t
look_back_workspace (size_t n)
{
  size_t tiles = look_back_tiles (n);
  return aligned (tiles * sizeof (unsigned long long)) +
      aligned (2 * tiles * sizeof (A));
}

/* The value, then the flag with release semantics: a reader that sees the
 * flag with acquire semantics sees the value. */
template <typename A>
__device__ void
publish (const LookBack<A> &l, unsigned tile, A value, unsigned flag)
{
  (flag == PREFIX ? l.prefixes : l.aggregates)[tile] = value;
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>
      (l.status[tile]).store (l.tag << 2 | flag, cuda::memory_order_release);
}

/* The first warp finds the sum of everything before `tile`, reading
 * LOOK_BACK_DEPTH x 32 predecessors at once (nearest first: lane l of
 * round r reads tile - 1 - 32 r - l). Measured on 2^28 floats: one round
 * 1541 µs, four rounds 1797 µs (more waiting on tiles not needed). */
constexpr int LOOK_BACK_DEPTH = 1;

template <typename A>
__device__ A
look_back (const LookBack<A> &l, unsigned tile)
{
  const int lane = threadIdx.x & 31;
  A prefix = A (0);
  long long window = (long long) tile - 1;      /* the nearest unread */

  while (true) {
    unsigned flag[LOOK_BACK_DEPTH];
    A value[LOOK_BACK_DEPTH];

#pragma unroll
    for (int r = 0; r < LOOK_BACK_DEPTH; r++) {
      long long j = window - 32 * r - lane;
      flag[r] = PREFIX;
      value[r] = A (0);
      if (j >= 0) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>
            f (l.status[j]);
        unsigned long long s;
        while ((s = f.load (cuda::memory_order_acquire)) >> 2 != l.tag)
          ;
        flag[r] = (unsigned) (s & 3);
        value[r] = flag[r] == PREFIX ? l.prefixes[j] : l.aggregates[j];
      }
    }
#pragma unroll
    for (int r = 0; r < LOOK_BACK_DEPTH; r++) {
      /* the nearest predecessor with a prefix ends the walk */
      unsigned prefixes = __ballot_sync (0xffffffffu, flag[r] == PREFIX);
      int stop = prefixes ? __ffs (prefixes) - 1 : 32;
      A v = lane > stop ? A (0) : value[r];
      for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync (0xffffffffu, v, off);
      prefix += __shfl_sync (0xffffffffu, v, 0);
      if (prefixes)
        return prefix;
    }
    window -= 32 * LOOK_BACK_DEPTH;
  }
}

template <typename T>
__global__ void __launch_bounds__ (THREADS)
scan_decoupled (const T * in, T * out, size_t n, bool inclusive,
    LookBack<typename Acc<T>::type> l)
{
  using A = typename Acc<T>::type;
  __shared__ TileSmem<T, A, LOOK_BACK_ITEMS> s;
  const unsigned tile = blockIdx.x;
  A total, sum, excl;

  sum = load_tile (in, n, tile, s);
  excl = block_exclusive<WARP> (sum, &total, s.scan);
  if (threadIdx.x < 32) {
    A offset = A (0);
    if (tile == 0) {
      if (threadIdx.x == 0)
        publish (l, 0, total, PREFIX);
    } else {
      if (threadIdx.x == 0)
        publish (l, tile, total, AGGREGATE);
      offset = look_back (l, tile);
      if (threadIdx.x == 0)
        publish (l, tile, offset + total, PREFIX);
    }
    if (threadIdx.x == 0)
      s.offset = offset;
  }
  __syncthreads ();
  store_tile (out, n, tile, s.offset + excl, inclusive, s);
}

template <typename T>
static cudaError_t
decoupled (const T * in, T * out, size_t n, bool inclusive, char *ws,
    cudaStream_t stream)
{
  using A = typename Acc<T>::type;
  size_t tiles = look_back_tiles (n);
  LookBack<A> l = look_back_layout<A> (ws, tiles, next_tag ());

  scan_decoupled<T><<<(unsigned) tiles, THREADS, 0, stream>>> (in, out, n,
      inclusive, l);
  return (cudaError_t) cf_fault_check (CF_FAULT_LAUNCH, cudaGetLastError ());
}

/* From this many elements on, `auto` runs CUB's scan: below it, the
 * decoupled scan's single launch costs less than CUB's two (it clears its
 * tile states in a kernel of its own); above, CUB's tuned tiles move more
 * bytes per second (docs/performance.md has the crossover measured). */
constexpr size_t AUTO_CUB_FROM = (size_t) 1 << 23;

static cf_scan_algorithm
resolve (cf_scan_algorithm algorithm, size_t n)
{
  if (algorithm != CF_SCAN_AUTO)
    return algorithm;
  return n >= AUTO_CUB_FROM ? CF_SCAN_CUB : CF_SCAN_DECOUPLED;
}

template <typename T>
static size_t
workspace_of (cf_scan_algorithm algorithm, size_t n)
{
  using A = typename Acc<T>::type;
  size_t bytes;
  switch (resolve (algorithm, n)) {
    case CF_SCAN_DECOUPLED: bytes = look_back_workspace<A> (n); break;
    case CF_SCAN_CUB: bytes = aligned (cub_workspace<T> (n)); break;
    default: bytes = hierarchical_workspace<A> (n); break;
  }
  return bytes > 256 ? bytes : 256;
}

template <typename T>
static cudaError_t
run (cf_scan_algorithm algorithm, bool inclusive, const void *in, void *out,
    size_t n, void *ws, cudaStream_t stream)
{
  const T *x = (const T *) in;
  T *y = (T *) out;
  char *w = (char *) ws;

  switch (resolve (algorithm, n)) {
    case CF_SCAN_CUB:
      return cub_scan<T> (x, y, n, inclusive, ws, stream);
    case CF_SCAN_KOGGE_STONE:
      return hierarchical<KOGGE_STONE, T> (x, y, n, inclusive, w, stream);
    case CF_SCAN_BRENT_KUNG:
      return hierarchical<BRENT_KUNG, T> (x, y, n, inclusive, w, stream);
    case CF_SCAN_WARP:
      return hierarchical<WARP, T> (x, y, n, inclusive, w, stream);
    default:
      return decoupled<T> (x, y, n, inclusive, w, stream);
  }
}

}                               /* namespace cfs */

extern "C" size_t
cf_scan_workspace_size (cf_scan_algorithm algorithm, cf_scan_type type,
    size_t n)
{
  switch (type) {
    case CF_SCAN_F32:
      return cfs::workspace_of<float> (algorithm, n);
    case CF_SCAN_F64:
      return cfs::workspace_of<double> (algorithm, n);
    case CF_SCAN_I32:
      return cfs::workspace_of<int32_t> (algorithm, n);
    case CF_SCAN_U32:
      return cfs::workspace_of<uint32_t> (algorithm, n);
    default:
      return cfs::workspace_of<uint64_t> (algorithm, n);
  }
}

extern "C" int
cf_scan_cuda (cf_scan_algorithm algorithm, cf_scan_type type, int inclusive,
    const void *d_in, void *d_out, size_t n, void *workspace,
    cf_stream stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  cudaError_t err;

  if (algorithm >= CF_SCAN_N_ALGORITHMS || type >= CF_SCAN_N_TYPES
      || (n > 0 && (!d_in || !d_out || !workspace))
      || cfs::tiles_of (n) > 0xffffffffu)
    return CF_ERR_INVALID;
  if (n == 0)
    return CF_OK;
  switch (type) {
    case CF_SCAN_F32:
      err = cfs::run<float> (algorithm, inclusive, d_in, d_out, n, workspace,
          s);
      break;
    case CF_SCAN_F64:
      err = cfs::run<double> (algorithm, inclusive, d_in, d_out, n,
          workspace, s);
      break;
    case CF_SCAN_I32:
      err = cfs::run<int32_t> (algorithm, inclusive, d_in, d_out, n,
          workspace, s);
      break;
    case CF_SCAN_U32:
      err = cfs::run<uint32_t> (algorithm, inclusive, d_in, d_out, n,
          workspace, s);
      break;
    default:
      err = cfs::run<uint64_t> (algorithm, inclusive, d_in, d_out, n,
          workspace, s);
      break;
  }
  return (int) err;
}
