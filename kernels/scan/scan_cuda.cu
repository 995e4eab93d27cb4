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
 * predecessors, 32 at a time, until it meets an inclusive prefix; its own
 * tiles, below, load and store 16-byte vectors). `auto` runs the decoupled
 * scan; `cub` (scan_cub.cu) is CUB's, with the same accumulators. */
#include "cf_fault.h"
#include <atomic>
#include <chrono>
#include <cstdint>

#include <cuda_runtime.h>

#include "scan.h"
#include "scan_cub.cuh"

namespace cf_scan
{

constexpr int THREADS = 256;
constexpr int ITEMS = 8;
constexpr int TILE = THREADS * ITEMS;
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

/* Decoupled look-back, in one pass over memory and one launch.
 *
 * A tile is 256 threads x 16 bytes x 4 of elements (4096 floats, 2048
 * doubles). Each warp owns a contiguous stretch of the tile and reads it in
 * 4 rounds of one 16-byte vector a lane, so that every load and store
 * instruction moves 512 contiguous bytes. The stretch is then passed
 * through shared memory so that each lane holds 4 consecutive vectors: a
 * lane sums its elements, the warp scans the lane sums once with shuffles,
 * and the warps' totals are scanned through shared memory. Sums are
 * accumulated in Acc<T> (double for floats), each output rounded once; the
 * prefixes go back out the same way.
 *
 * Tiles publish their state in one 16-byte word each: (call tag << 2 |
 * state) and the value, written and read by single 16-byte accesses, so
 * that a reader that sees the state sees its value with no second trip to
 * memory (state 1: the tile's sum; 2: its inclusive prefix). A word of
 * another call's tag reads as nothing yet: each call draws a new 62-bit
 * tag, so the workspace needs no clearing between calls (a memset would be
 * a second launch, most of the time on short arrays). The first warp of a
 * tile finds its offset by reading its 32 nearest predecessors at once,
 * until it meets an inclusive prefix. Tiles are block indices: blocks start
 * in index order, so a tile only ever waits for tiles already running (CUB
 * relies on the same). */
enum : unsigned long long { NOTHING = 0, AGGREGATE = 1, PREFIX = 2 };

constexpr int LB_ROUNDS = 4;    /* 16-byte vectors a lane */
constexpr int LB_THREADS = 256;
constexpr int LB_WARPS = LB_THREADS / 32;

template <typename T>
struct LookBackShape
{
  static constexpr int V = 16 / sizeof (T);     /* elements a vector */
  static constexpr int WARP_ITEMS = 32 * LB_ROUNDS * V;
  static constexpr int TILE = LB_WARPS * WARP_ITEMS;
};

/* A tile's published state: its 16-byte word. */
struct alignas (16) TileWord
{
  unsigned long long status;
  unsigned long long value;     /* the accumulator's bits */
};

template <typename A>
__device__ __forceinline__ unsigned long long
to_bits (A v)
{
  if constexpr (sizeof (A) == 8) {
    unsigned long long b;
    memcpy (&b, &v, 8);
    return b;
  } else {
    uint32_t b;
    memcpy (&b, &v, 4);
    return b;
  }
}

template <typename A>
__device__ __forceinline__ A
from_bits (unsigned long long b)
{
  A v;
  if constexpr (sizeof (A) == 8) {
    memcpy (&v, &b, 8);
  } else {
    uint32_t w = (uint32_t) b;
    memcpy (&v, &w, 4);
  }
  return v;
}

__device__ __forceinline__ void
store_word (TileWord * p, unsigned long long status, unsigned long long value)
{
  asm volatile ("st.relaxed.gpu.v2.u64 [%0], {%1, %2};"::"l" (p),
      "l" (status), "l" (value):"memory");
}

__device__ __forceinline__ TileWord
load_word (const TileWord * p)
{
  TileWord w;
  asm volatile ("ld.relaxed.gpu.v2.u64 {%0, %1}, [%2];":"=l" (w.status),
      "=l" (w.value):"l" (p):"memory");
  return w;
}

template <typename A>
__device__ __forceinline__ void
publish (TileWord * words, unsigned tile, unsigned long long tag, A value,
    unsigned long long state)
{
  store_word (&words[tile], tag << 2 | state, to_bits (value));
}

/* The first warp finds the sum of everything before `tile`: lane l reads
 * tile - 1 - l (nearest first), 32 tiles a step, until a predecessor has
 * its prefix. Measured on 2^28 floats with separate state and value words:
 * one window of 32 a step 1541 µs, four 1797 µs (more waiting on tiles not
 * needed). */
template <typename A>
__device__ A
look_back (const TileWord * words, unsigned tile, unsigned long long tag)
{
  const int lane = threadIdx.x & 31;
  A prefix = A (0);
  long long window = (long long) tile - 1;      /* the nearest unread */

  while (true) {
    long long j = window - lane;
    unsigned long long state = PREFIX;
    A value = A (0);
    if (j >= 0) {
      TileWord w;
      while (((w = load_word (&words[j])).status >> 2) != tag)
        ;
      state = w.status & 3;
      value = from_bits<A> (w.value);
    }
    /* the nearest predecessor with a prefix ends the walk */
    unsigned prefixes = __ballot_sync (0xffffffffu, state == PREFIX);
    int stop = prefixes ? __ffs (prefixes) - 1 : 32;
    A v = lane > stop ? A (0) : value;
    for (int off = 16; off > 0; off >>= 1)
      v += __shfl_down_sync (0xffffffffu, v, off);
    prefix += __shfl_sync (0xffffffffu, v, 0);
    if (prefixes)
      return prefix;
    window -= 32;
  }
}

/* Loads this lane's rounds of a tile: vector r of the lane holds elements
 * base + (32 r + lane) V ... + V - 1. Whole tiles of 16-byte aligned arrays
 * load as vectors; others element by element, zeros past n. */
template <typename T, int V>
__device__ __forceinline__ void
load_rounds (const T * in, size_t base, size_t n, bool vectors,
    T (&x)[LB_ROUNDS][V])
{
  const int lane = threadIdx.x & 31;
  if (vectors) {
#pragma unroll
    for (int r = 0; r < LB_ROUNDS; r++) {
      const uint4 u = __ldcs (reinterpret_cast<const uint4 *>(in + base
              + (size_t) (32 * r + lane) * V));
      memcpy (&x[r][0], &u, 16);
    }
    return;
  }
#pragma unroll
  for (int r = 0; r < LB_ROUNDS; r++)
#pragma unroll
    for (int v = 0; v < V; v++) {
      size_t i = base + (size_t) (32 * r + lane) * V + v;
      x[r][v] = i < n ? in[i] : T (0);
    }
}

template <typename T, int V>
__device__ __forceinline__ void
store_rounds (T * out, size_t base, size_t n, bool vectors,
    const T (&y)[LB_ROUNDS][V])
{
  const int lane = threadIdx.x & 31;
  if (vectors) {
#pragma unroll
    for (int r = 0; r < LB_ROUNDS; r++) {
      uint4 u;
      memcpy (&u, &y[r][0], 16);
      __stcs (reinterpret_cast<uint4 *>(out + base + (size_t) (32 * r
                  + lane) * V), u);
    }
    return;
  }
#pragma unroll
  for (int r = 0; r < LB_ROUNDS; r++)
#pragma unroll
    for (int v = 0; v < V; v++) {
      size_t i = base + (size_t) (32 * r + lane) * V + v;
      if (i < n)
        out[i] = y[r][v];
    }
}

/* A warp's stretch in shared memory, as 32 x LB_ROUNDS 16-byte vectors.
 * Vector v is kept at cell v ^ ((v >> 3) & 3): the rounds (vectors
 * 32 r + lane) and the lanes' runs (vectors LB_ROUNDS lane + r) then both
 * put the 8 lanes of each 16-byte access phase on 8 different cells of 8,
 * free of bank conflicts. */
static_assert (LB_ROUNDS == 4, "the swizzle spreads runs of 4 vectors");

__device__ __forceinline__ int
stage_cell (int v)
{
  return v ^ ((v >> 3) & 3);
}

/* Rounds -> runs (or back, with TO_RUNS false): x[r] is the lane's vector
 * of round r before, its r-th consecutive vector after. */
template <bool TO_RUNS>
__device__ __forceinline__ void
transpose_stretch (uint4 (&x)[LB_ROUNDS], uint4 * stage)
{
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int r = 0; r < LB_ROUNDS; r++)
    stage[stage_cell (TO_RUNS ? 32 * r + lane : LB_ROUNDS * lane + r)] = x[r];
  __syncwarp ();
#pragma unroll
  for (int r = 0; r < LB_ROUNDS; r++)
    x[r] = stage[stage_cell (TO_RUNS ? LB_ROUNDS * lane + r : 32 * r + lane)];
  __syncwarp ();                /* the stage is free again */
}

/* Floats are widened to double again after the look-back rather than kept
 * widened across it: held, their doubles take twice the registers and
 * leave room for fewer blocks an SM, whose warps mostly wait at the barrier
 * behind the look-back. The empty asm makes the value opaque, so that the
 * compiler cannot reuse the first conversion. */
template <typename T>
__device__ __forceinline__ void
widen_again (T & v)
{
  if constexpr (sizeof (T) == 4 && sizeof (typename Acc<T>::type) == 8)
    asm ("" : "+f" (v));
}

/* Blocks an SM: their warps wait at the barrier behind the first warp's
 * look-back, so more blocks keep the SM busy. 32-bit sums fit 8 (32
 * registers, 12 bytes spilled: 2^28 u32 835 against 861 us at 6); with
 * 64-bit sums 8 would spill more, and 6 measured faster (f32 872 against
 * 894 us). */
template <typename T>
__host__ __device__ constexpr int
look_back_blocks ()
{
  return sizeof (typename Acc<T>::type) == 4 ? 8 : 6;
}

template <typename T>
__global__ void __launch_bounds__ (LB_THREADS, look_back_blocks<T> ())
scan_decoupled (const T * in, T * out, size_t n, bool inclusive,
    bool aligned16, TileWord * words, unsigned long long tag)
{
  using A = typename Acc<T>::type;
  using S = LookBackShape<T>;
  constexpr int V = S::V, ITEMS = LB_ROUNDS * V;
  __shared__ uint4 s_stage[LB_WARPS][32 * LB_ROUNDS];
  __shared__ A s_warp[LB_WARPS];
  __shared__ A s_offset;
  const unsigned tile = blockIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t base = (size_t) tile * S::TILE + (size_t) warp * S::WARP_ITEMS;
  const bool vectors = aligned16 && (size_t) (tile + 1) * S::TILE <= n;

  /* 1. load: every vector in flight before the first sum, then the lane's
   * ITEMS consecutive elements from the stage */
  uint4 u[LB_ROUNDS];
  {
    T x[LB_ROUNDS][V];
    load_rounds<T, V> (in, base, n, vectors, x);
    memcpy (u, x, sizeof u);
  }
  transpose_stretch<true> (u, s_stage[warp]);
  T x[ITEMS];
  memcpy (x, u, sizeof x);

  /* 2. the lane's sum, scanned across the warp */
  A sum = A (0);
#pragma unroll
  for (int k = 0; k < ITEMS; k++)
    sum += (A) x[k];
  A incl = sum;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    A y = __shfl_up_sync (0xffffffffu, incl, off);
    if (lane >= off)
      incl += y;
  }
  A lane_before = __shfl_up_sync (0xffffffffu, incl, 1);
  if (lane == 0)
    lane_before = A (0);

  /* 3. the warps' totals, then the tile's offset from its predecessors */
  if (lane == 31)
    s_warp[warp] = incl;
  __syncthreads ();
  A warp_before = A (0), total = A (0);
#pragma unroll
  for (int w = 0; w < LB_WARPS; w++) {
    A t = s_warp[w];
    if (w < warp)
      warp_before += t;
    total += t;
  }
  if (warp == 0) {
    A offset = A (0);
    if (tile == 0) {
      if (lane == 0)
        publish (words, 0, tag, total, PREFIX);
    } else {
      if (lane == 0)
        publish (words, tile, tag, total, AGGREGATE);
      offset = look_back<A> (words, tile, tag);
      if (lane == 0)
        publish (words, tile, tag, offset + total, PREFIX);
    }
    if (lane == 0)
      s_offset = offset;
  }
  __syncthreads ();

  /* 4. each element's prefix, rounded once, back out as it came in */
  A acc = s_offset + warp_before + lane_before;
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    widen_again (x[k]);
    A next = acc + (A) x[k];
    x[k] = to_element<T, A> (inclusive ? next : acc);
    acc = next;
  }
  memcpy (u, x, sizeof u);
  transpose_stretch<false> (u, s_stage[warp]);
  {
    T y[LB_ROUNDS][V];
    memcpy (y, u, sizeof y);
    store_rounds<T, V> (out, base, n, vectors, y);
  }
}

/* A tag no earlier call of this process used, and unlikely to match what
 * another process left in the memory: a counter started from the clock.
 * Never 0, the tag of a zeroed workspace. */
static unsigned long long
next_tag ()
{
  static std::atomic<unsigned long long> counter (
      (unsigned long long) std::chrono::steady_clock::now ()
      .time_since_epoch ().count () * 0x9E3779B97F4A7C15ull);
  unsigned long long tag;
  while ((tag = counter.fetch_add (1) & ((1ull << 62) - 1)) == 0)
    ;
  return tag;
}

template <typename T>
static size_t
look_back_tiles (size_t n)
{
  return (n + LookBackShape<T>::TILE - 1) / LookBackShape<T>::TILE;
}

template <typename T>
static size_t
look_back_workspace (size_t n)
{
  return aligned (look_back_tiles<T> (n) * sizeof (TileWord));
}

template <typename T>
static cudaError_t
decoupled (const T * in, T * out, size_t n, bool inclusive, char *ws,
    cudaStream_t stream)
{
  size_t tiles = look_back_tiles<T> (n);
  bool aligned16 = ((uintptr_t) in | (uintptr_t) out) % 16 == 0;

  scan_decoupled<T><<<(unsigned) tiles, LB_THREADS, 0, stream>>> (in, out,
      n, inclusive, aligned16, (TileWord *) ws, next_tag ());
  return (cudaError_t) cf_fault_check (CF_FAULT_LAUNCH, cudaGetLastError ());
}

/* `auto` runs the decoupled scan at every length: one launch where CUB
 * needs two (it clears its tile states in a kernel of its own), and more
 * bytes a second than CUB with the same accumulators at every size
 * measured (docs/performance-log.md, "The decoupled scan at CUB's speed"
 * and "Timed back to back"). */
static cf_scan_algorithm
resolve (cf_scan_algorithm algorithm, size_t)
{
  return algorithm == CF_SCAN_AUTO ? CF_SCAN_DECOUPLED : algorithm;
}

template <typename T>
static size_t
workspace_of (cf_scan_algorithm algorithm, size_t n)
{
  using A = typename Acc<T>::type;
  size_t bytes;
  switch (resolve (algorithm, n)) {
    case CF_SCAN_DECOUPLED: bytes = look_back_workspace<T> (n); break;
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

}                               /* namespace cf_scan */

extern "C" size_t
cf_scan_workspace_size (cf_scan_algorithm algorithm, cf_scan_type type,
    size_t n)
{
  switch (type) {
    case CF_SCAN_F32:
      return cf_scan::workspace_of<float> (algorithm, n);
    case CF_SCAN_F64:
      return cf_scan::workspace_of<double> (algorithm, n);
    case CF_SCAN_I32:
      return cf_scan::workspace_of<int32_t> (algorithm, n);
    case CF_SCAN_U32:
      return cf_scan::workspace_of<uint32_t> (algorithm, n);
    default:
      return cf_scan::workspace_of<uint64_t> (algorithm, n);
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
      || cf_scan::tiles_of (n) > 0xffffffffu)
    return CF_ERR_INVALID;
  if (n == 0)
    return CF_OK;
  switch (type) {
    case CF_SCAN_F32:
      err = cf_scan::run<float> (algorithm, inclusive, d_in, d_out, n,
          workspace, s);
      break;
    case CF_SCAN_F64:
      err = cf_scan::run<double> (algorithm, inclusive, d_in, d_out, n,
          workspace, s);
      break;
    case CF_SCAN_I32:
      err = cf_scan::run<int32_t> (algorithm, inclusive, d_in, d_out, n,
          workspace, s);
      break;
    case CF_SCAN_U32:
      err = cf_scan::run<uint32_t> (algorithm, inclusive, d_in, d_out, n,
          workspace, s);
      break;
    default:
      err = cf_scan::run<uint64_t> (algorithm, inclusive, d_in, d_out, n,
          workspace, s);
      break;
  }
  return (int) err;
}
