/* Integral images in bands of BAND rows (see integral.h). Every table entry
 * is written once; only each band's last row is read back. The plane is cut
 * into tiles of one band by one segment of TILE_THREADS x CPT entries:
 *
 * 1. tile_sums (per tile): the band's column sums go into the band's last
 *    table row, unscanned, and each inner row's sum over the tile's columns
 *    into that row's entry where the segment starts.
 * 2. scan_columns down the bands' last rows: column sums over every row
 *    above.
 * 3. band_ends (per band): each last row scanned along the row, which makes
 *    it final; each inner row's segment sums turned into the row's sum
 *    before each segment.
 * 4. band_rows (per tile): the inner rows, from the final row above the
 *    band, the row sums before the segment and the tile's own samples.
 *
 * Tiles make every step but the third run on the whole GPU at once: a band
 * per block would leave a 4K frame's 270 bands in two rounds of long blocks.
 * A thread takes CPT consecutive entries, 4t .. 4t + 3 of its segment (the
 * sums of the columns before them: columns 4t - 1 .. 4t + 2). The input is
 * read twice (the second time mostly from L2); the tables go through DRAM
 * once, but for the bands' last rows. */
#include "cf_fault.h"
#include <cstdint>

#include <cuda_runtime.h>

#include "integral.h"
#include "integral_bands.h"
#include "integral_columns.cuh"

namespace cf_integral
{

constexpr int BAND = 8;                 /* rows per band */
constexpr int CPT = 4;                  /* table entries per thread */
constexpr int TILE_THREADS = 128;       /* most threads of a tile: twice
                                         * the tiles of 256, measured
                                         * faster (docs/performance-log.md,
                                         * "Bands of rows") */
constexpr int ENDS_THREADS = 512;       /* most threads scanning a last row:
                                         * 4 blocks an SM, all 270 bands
                                         * of 4K at once */

struct Args
{
  const uint8_t *in;
  cf_integral_layout l;
  int step;                     /* samples from pixel to pixel */
  int words;                    /* u8 plane, rows 4-byte aligned: 32-bit loads */
};

/* The tables one set of launches builds: the sums of every channel, and
 * their squares when `squares` is not NULL. Grids carry the table in their
 * third dimension: z < channels, the sums of channel z; from there, the
 * squares of channel z - channels. Channel c's samples start c samples
 * after the first channel's, its tables c x channel_stride bytes after the
 * first channel's. The squares' blocks run beside the sums', so that the
 * two sets of latency-bound kernels cover each other's waits. */
struct Tables
{
  uint8_t *sums, *squares;
  size_t sum_pitch, squares_pitch, channel_stride;
  unsigned channels;

  /* This block's table and pitch; moves a.in to its channel; TRUE for
   * squares. */
  template <typename IN>
  __device__ bool pick (Args & a, uint8_t *& table, size_t & pitch) const
  {
    const bool sq = blockIdx.z >= channels;
    const unsigned c = sq ? blockIdx.z - channels : blockIdx.z;
    a.in += c * sizeof (IN);
    table = (sq ? squares : sums) + c * channel_stride;
    pitch = sq ? squares_pitch : sum_pitch;
    return sq;
  }
};

/* What a tile sums its own samples in: the table's type, but 32 bits for
 * the squares of bytes, whose sums within a tile stay below 2^28 (a tile
 * holds BAND x CPT x TILE_THREADS = 4096 samples, each square at most
 * 255^2): half the registers of the 64-bit table entries, which would
 * otherwise halve the blocks an SM holds. The table's entries stay 64-bit. */
template <typename IN, typename S> struct Local { using type = S; };
template <> struct Local<uint8_t, uint64_t> { using type = uint32_t; };

/* ---- scans across the block ---------------------------------------------- */

template <typename S>
__device__ __forceinline__ S
warp_inclusive (S v)
{
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    S y = __shfl_up_sync (0xffffffffu, v, off);
    if (lane >= off)
      v += y;
  }
  return v;
}

/* The inclusive scan's value of the lane below (0 for lane 0): exclusive
 * without subtracting, which floats would not undo exactly. */
template <typename S>
__device__ __forceinline__ S
lane_below (S inclusive)
{
  S y = __shfl_up_sync (0xffffffffu, inclusive, 1);
  return (threadIdx.x & 31) ? y : S (0);
}

/* v[n] becomes the sum of v[n] over the block's threads before this one,
 * for N rows at once; total[n] is the sum over all of them. Ends with a
 * barrier, so it can be called again at once. */
template <typename S, int N>
__device__ __forceinline__ void
block_exclusive (S (&v)[N], S (&total)[N])
{
  __shared__ S warp_sums[N][32];
  __shared__ S sums[N];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  S below[N];

#pragma unroll
  for (int n = 0; n < N; n++) {
    S incl = warp_inclusive (v[n]);
    below[n] = lane_below (incl);
    if (lane == 31)
      warp_sums[n][warp] = incl;
  }
  __syncthreads ();
  if (warp == 0) {
#pragma unroll
    for (int n = 0; n < N; n++) {
      S w = lane < (int) (blockDim.x >> 5) ? warp_sums[n][lane] : S (0);
      S incl = warp_inclusive (w);
      warp_sums[n][lane] = lane_below (incl);
      if (lane == 31)
        sums[n] = incl;
    }
  }
  __syncthreads ();
#pragma unroll
  for (int n = 0; n < N; n++) {
    v[n] = warp_sums[n][warp] + below[n];
    total[n] = sums[n];
  }
  __syncthreads ();
}

/* ---- samples and entries ------------------------------------------------- */

/* Columns x0 .. x0 + CPT - 1 of input rows y0 .. y0 + NR - 1, as S
 * (squared when SQUARE): zero outside the plane and in rows from `count`
 * on. Straight-line code with every row's loads ahead of any use (rows past
 * the plane read its last row and are zeroed after), so that a thread has
 * all NR rows in flight at once rather than one after the other. */
template <typename IN, typename S, bool SQUARE, int NR>
__device__ __forceinline__ void
load_rows (const Args & a, int y0, int count, int x0, S (&v)[NR][CPT])
{
  const uint8_t *rows[NR];
#pragma unroll
  for (int r = 0; r < NR; r++)
    rows[r] = a.in + (size_t) (y0 + min (r, count - 1)) * a.l.in_pitch;
  /* u8 with x0 + 1 a multiple of 4: the last byte of one word and the
   * first three of the next */
  if (sizeof (IN) == 1 && a.words && x0 >= 3 && x0 + 5 <= a.l.width) {
    uint32_t lo[NR], hi[NR];
#pragma unroll
    for (int r = 0; r < NR; r++) {
      const uint32_t *w = (const uint32_t *) rows[r] + (x0 + 1) / 4;
      lo[r] = __ldg (w - 1);
      hi[r] = __ldg (w);
    }
#pragma unroll
    for (int r = 0; r < NR; r++) {
      const uint32_t run = r < count ? __funnelshift_r (lo[r], hi[r], 24) : 0;
#pragma unroll
      for (int k = 0; k < CPT; k++) {
        S x = (S) ((run >> (8 * k)) & 0xffu);
        v[r][k] = SQUARE ? x * x : x;
      }
    }
    return;
  }
#pragma unroll
  for (int r = 0; r < NR; r++)
#pragma unroll
    for (int k = 0; k < CPT; k++) {
      const int x = x0 + k;
      v[r][k] = x >= 0 && x < a.l.width
          ? (S) __ldg ((const IN *) rows[r] + (size_t) x * a.step) : S (0);
    }
#pragma unroll
  for (int r = 0; r < NR; r++)
#pragma unroll
    for (int k = 0; k < CPT; k++)
      v[r][k] = r >= count ? S (0) : SQUARE ? v[r][k] * v[r][k] : v[r][k];
}

/* The CPT entries from p - SKEW in 16-byte stores: the thread before's
 * last SKEW entries (prev), then this one's first (own). */
template <typename S, int SKEW>
__device__ __forceinline__ void
store_windows (S * p, const S (&own)[CPT], const S (&prev)[CPT])
{
  constexpr int PER = 16 / sizeof (S);
#pragma unroll
  for (int v = 0; v < CPT / PER; v++) {
    S w[PER];
#pragma unroll
    for (int i = 0; i < PER; i++) {
      const int q = v * PER + i - SKEW;         /* entry past p */
      w[i] = q < 0 ? prev[CPT + q] : own[q];
    }
    uint4 u;
    memcpy (&u, w, 16);
    *(uint4 *) (p - SKEW + v * PER) = u;
  }
}

/* Entries e0 .. e0 + CPT - 1 of row y of a table of S, those up to
 * `width`, from values of S or of a narrower type V, in 16-byte stores at
 * any pitch. A row that starts `skew` entries past a 16-byte boundary
 * (rows of w + 1 entries mostly do) is written in windows shifted back by
 * skew: each thread stores the last skew entries of the thread before it
 * with its own first ones, and keeps its own last skew for the thread
 * after it; lane 0 and the last thread of a row store their odd entries
 * alone. Scalar stores of misaligned rows measured 101 against 87 µs for
 * the 4K tables of sums and squares. Every lane of the warp must call it
 * (it shuffles). */
template <typename S, typename V>
__device__ __forceinline__ void
store_run (uint8_t * table, size_t pitch, int y, int e0, int width,
    const V (&s)[CPT])
{
  constexpr int PER = 16 / sizeof (S);  /* entries a 16-byte store */
  S *p = (S *) (table + (size_t) y * pitch) + e0;
  const int lane = threadIdx.x & 31;
  const int skew = (int) (((uintptr_t) p / sizeof (S)) % PER);
  const bool whole = e0 + CPT - 1 <= width;
  const bool next_whole = e0 + 2 * CPT - 1 <= width;
  S own[CPT], prev[CPT];
#pragma unroll
  for (int k = 0; k < CPT; k++) {
    own[k] = (S) s[k];
    prev[k] = __shfl_up_sync (0xffffffffu, own[k], 1);
  }
  if (!whole) {
#pragma unroll
    for (int k = 0; k < CPT; k++)
      if (e0 + k <= width)
        p[k] = own[k];
    return;
  }
  if (lane > 0 || skew == 0) {
    /* the skew as a constant, so that the windows index registers */
    switch (skew) {
      case 0: store_windows<S, 0> (p, own, prev); break;
      case 1: store_windows<S, 1> (p, own, prev); break;
      case 2: store_windows<S, 2 % PER> (p, own, prev); break;
      default: store_windows<S, 3 % PER> (p, own, prev); break;
    }
  } else {
#pragma unroll
    for (int k = 0; k < CPT; k++)
      if (k < CPT - skew)
        p[k] = own[k];
  }
  /* the last skew entries, when no thread after this one takes them */
  if (skew > 0 && (lane == 31 || !next_whole)) {
#pragma unroll
    for (int k = 0; k < CPT; k++)
      if (k >= CPT - skew)
        p[k] = own[k];
  }
}

template <typename S>
__device__ __forceinline__ void
load_entries (const uint8_t * table, size_t pitch, int y, int e0, int width,
    S (&s)[CPT])
{
  const S *p = (const S *) (table + (size_t) y * pitch) + e0;
#pragma unroll
  for (int k = 0; k < CPT; k++)
    s[k] = e0 + k <= width ? p[k] : S (0);
}

/* The sums over the block's threads of v[n], for N rows at once, in
 * total[n] of thread n (n < N); other threads' total[] is undefined. */
template <typename S, int N>
__device__ __forceinline__ void
block_totals (const S (&v)[N], S (&total)[N])
{
  __shared__ S warp_sums[N][32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int n = 0; n < N; n++) {
    S x = v[n];
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
      x += __shfl_xor_sync (0xffffffffu, x, off);
    if (lane == 0)
      warp_sums[n][warp] = x;
  }
  __syncthreads ();
#pragma unroll
  for (int n = 0; n < N; n++)
    if ((int) threadIdx.x == n) {
      S x = 0;
      for (int w = 0; w < (int) (blockDim.x >> 5); w++)
        x += warp_sums[n][w];
      total[n] = x;
    }
}

constexpr int INNER = BAND - 1;         /* rows of a band before its last */

/* ---- step 1: the tiles' sums ---------------------------------------------- */

template <typename IN, typename S, bool SQUARE>
__device__ void
tile_sums (const Args & a, uint8_t * table, size_t pitch)
{
  const int width = a.l.width;
  const int base = blockIdx.x * blockDim.x * CPT;
  const int e0 = base + threadIdx.x * CPT;
  const int y0 = blockIdx.y * BAND;
  const int rows = min (a.l.height, y0 + BAND) - y0;
  using L = typename Local<IN, S>::type;
  L cols[CPT] = { }, across[INNER] = { }, total[INNER];

  let_next_start ();
  if (blockIdx.y == 0)          /* row 0 is zeros */
    store_run<S> (table, pitch, 0, e0, width, cols);
  L v[BAND][CPT];
  load_rows<IN, L, SQUARE, BAND> (a, y0, rows, e0 - 1, v);
#pragma unroll
  for (int r = 0; r < BAND; r++)
#pragma unroll
    for (int k = 0; k < CPT; k++) {
      cols[k] += v[r][k];
      if (r < INNER)
        across[r] += v[r][k];
    }
  store_run<S> (table, pitch, y0 + rows, e0, width, cols);
  block_totals<L, INNER> (across, total);
#pragma unroll
  for (int r = 0; r < INNER; r++)
    if ((int) threadIdx.x == r && r + 1 < rows)
      ((S *) (table + (size_t) (y0 + 1 + r) * pitch))[base] = total[r];
}

template <typename IN, typename SUM, typename SQ, bool BOTH>
__global__ void __launch_bounds__ (TILE_THREADS)
tile_sums_kernel (Args a, Tables t)
{
  uint8_t *table;
  size_t pitch;
  if (t.pick<IN> (a, table, pitch) && BOTH)
    tile_sums<IN, SQ, true> (a, table, pitch);
  else
    tile_sums<IN, SUM, false> (a, table, pitch);
}

/* ---- step 2: the bands' last rows scanned down ---------------------------- */

template <typename SUM, typename SQ, bool BOTH>
__global__ void
band_columns_kernel (Tables t, int width, RowSet rows)
{
  Args none = { };
  uint8_t *table;
  size_t pitch;
  let_next_start ();
  wait_for_previous ();         /* the rows come from the kernel before */
  if (t.pick<uint8_t> (none, table, pitch) && BOTH)
    columns<SQ> (table, pitch, width, rows);
  else
    columns<SUM> (table, pitch, width, rows);
}

/* ---- step 3: the bands' last rows, and the row sums before each segment -- */

template <typename S>
__device__ void
band_ends (int width, int height, int tile_entries, uint8_t * table,
    size_t pitch)
{
  const int y0 = blockIdx.x * BAND, rows = min (height, y0 + BAND) - y0;
  S carry = 0;

  let_next_start ();
  wait_for_previous ();         /* the last rows, scanned down */
  const int step = blockDim.x * CPT;
  S next[CPT];
  load_entries (table, pitch, y0 + rows, threadIdx.x * CPT, width, next);
  for (int base = 0; base <= width; base += step) {
    const int e0 = base + threadIdx.x * CPT;
    S v[CPT];
#pragma unroll
    for (int k = 0; k < CPT; k++)
      v[k] = next[k];
    /* the next stretch's loads in flight during this one's scan */
    if (base + step <= width)
      load_entries (table, pitch, y0 + rows, e0 + step, width, next);
#pragma unroll
    for (int k = 1; k < CPT; k++)
      v[k] += v[k - 1];
    S before[1] = { v[CPT - 1] }, total[1];
    block_exclusive<S, 1> (before, total);
#pragma unroll
    for (int k = 0; k < CPT; k++)
      v[k] += carry + before[0];
    store_run<S> (table, pitch, y0 + rows, e0, width, v);
    carry += total[0];
  }
  /* inner row r, by warp r (and r + warps ...): segment sums in place of
   * their exclusive prefix, lane s taking segment s */
  const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  for (int r = threadIdx.x >> 5; r + 1 < rows; r += warps) {
    S *row = (S *) (table + (size_t) (y0 + 1 + r) * pitch), run = 0;
    for (int first = 0; first <= width; first += 32 * tile_entries) {
      const int e = first + lane * tile_entries;
      const S here = e <= width ? row[e] : S (0);
      const S incl = warp_inclusive (here);
      const S before = run + lane_below (incl);
      if (e <= width)
        row[e] = before;
      run += __shfl_sync (0xffffffffu, incl, 31);
    }
  }
}

template <typename SUM, typename SQ, bool BOTH>
__global__ void __launch_bounds__ (ENDS_THREADS)
band_ends_kernel (int width, int height, int tile_entries, Tables t)
{
  Args none = { };
  uint8_t *table;
  size_t pitch;
  if (t.pick<uint8_t> (none, table, pitch) && BOTH)
    band_ends<SQ> (width, height, tile_entries, table, pitch);
  else
    band_ends<SUM> (width, height, tile_entries, table, pitch);
}

/* ---- step 4: the rows inside each band ---------------------------------- */

/* One segment of one band: blockIdx.x the segment, blockIdx.y the band. */
template <typename IN, typename S, bool SQUARE>
__device__ void
band_rows (const Args & a, uint8_t * table, size_t pitch)
{
  const int width = a.l.width;
  const int base = blockIdx.x * blockDim.x * CPT;
  const int e0 = base + threadIdx.x * CPT;
  const int y0 = blockIdx.y * BAND;
  const int n = min (a.l.height, y0 + BAND) - y0 - 1;   /* rows to write */
  using L = typename Local<IN, S>::type;
  L s[INNER][CPT], before[INNER], total[INNER];
  S carry[INNER];

  /* the samples while band_ends still runs; the table after it. Every
   * block waits, even with nothing to write: this grid must not end before
   * band_ends, or work queued after it could overtake band_ends */
  if (n > 0)
    load_rows<IN, L, SQUARE, INNER> (a, y0, n, e0 - 1, s);
  wait_for_previous ();
  if (n <= 0)
    return;                     /* a one-row band: its row is done */
#pragma unroll
  for (int r = 0; r < INNER; r++) {
    /* what band_ends left: the row's sum before this segment */
    carry[r] = base > 0 && r < n
        ? ((const S *) (table + (size_t) (y0 + 1 + min (r, n - 1))
            * pitch))[base] : S (0);
#pragma unroll
    for (int k = 1; k < CPT; k++)
      s[r][k] += s[r][k - 1];
    before[r] = s[r][CPT - 1];
  }
  block_exclusive<L, INNER> (before, total);
  S run[CPT];
  load_entries (table, pitch, y0, e0, width, run);
#pragma unroll
  for (int r = 0; r < INNER; r++) {
    if (r >= n)
      break;
    const S offset = carry[r] + (S) before[r];
#pragma unroll
    for (int k = 0; k < CPT; k++)
      run[k] += offset + s[r][k];
    store_run<S> (table, pitch, y0 + 1 + r, e0, width, run);
  }
}

template <typename IN, typename SUM, typename SQ, bool BOTH>
__global__ void __launch_bounds__ (TILE_THREADS)
band_rows_kernel (Args a, Tables t)
{
  uint8_t *table;
  size_t pitch;
  if (t.pick<IN> (a, table, pitch) && BOTH)
    band_rows<IN, SQ, true> (a, table, pitch);
  else
    band_rows<IN, SUM, false> (a, table, pitch);
}

/* Threads for a row of `entries` table entries, CPT each, in whole warps,
 * at most `most`. */
static int
threads_for (int entries, int most)
{
  const int warps = ((entries + CPT - 1) / CPT + 31) / 32;
  return warps * 32 < most ? warps * 32 : most;
}

/* BOTH: sums and squares; otherwise sums only, in kernels that hold no
 * code for the squares (whose 64-bit sums take twice the registers, and
 * would halve the blocks an SM holds for the sums too). */
template <typename IN, typename SUM, typename SQ, bool BOTH>
static void
tables_in_bands (const Args & a, const Tables & t, cudaStream_t stream)
{
  const int entries = a.l.width + 1;
  const int bands = (a.l.height + BAND - 1) / BAND;
  const int tile_threads = threads_for (entries, TILE_THREADS);
  const int tile_entries = tile_threads * CPT;
  const unsigned tables = t.channels * (BOTH ? 2 : 1);
  const dim3 tiles ((entries + tile_entries - 1) / tile_entries, bands,
      tables);

  tile_sums_kernel<IN, SUM, SQ, BOTH><<<tiles, tile_threads, 0, stream>>> (a,
      t);
  if (bands > 1)
    launch_after (band_columns_kernel<SUM, SQ, BOTH>,
        dim3 ((a.l.width + COLUMNS - 1) / COLUMNS, 1, tables),
        dim3 (COLUMNS, SEGMENTS), stream, t, a.l.width,
        RowSet { BAND, BAND, bands, a.l.height });
  launch_after (band_ends_kernel<SUM, SQ, BOTH>, dim3 (bands, 1, tables),
      dim3 (threads_for (entries, ENDS_THREADS)), stream, a.l.width,
      a.l.height, tile_entries, t);
  launch_after (band_rows_kernel<IN, SUM, SQ, BOTH>, tiles,
      dim3 (tile_threads),
      stream, a, t);
}

template <typename IN, typename SUM, typename SQ>
static int
run (const cf_integral_layout * l, const void *in, void *sum, void *squares,
    cudaStream_t stream)
{
  const Args a = { (const uint8_t *) in, *l, l->in_step ? l->in_step : 1,
    sizeof (IN) == 1 && (l->in_step <= 1) && l->in_pitch % 4 == 0
        && (uintptr_t) in % 4 == 0
  };
  const Tables t = { (uint8_t *) sum, (uint8_t *) squares, l->sum_pitch,
    l->squares_pitch, l->channel_stride, (unsigned) cf_integral_channels (l)
  };

  if (squares)
    tables_in_bands<IN, SUM, SQ, true> (a, t, stream);
  else
    tables_in_bands<IN, SUM, SQ, false> (a, t, stream);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

int
cf_integral_bands (const cf_integral_layout * l, const void *d_in,
    void *d_sum, void *d_squares, cudaStream_t stream)
{
  /* bands are the grid's second dimension */
  if ((l->height + BAND - 1) / BAND > 65535)
    return CF_ERR_UNSUPPORTED;
  switch (l->type) {
    case CF_INTEGRAL_U8:
      return run<uint8_t, uint32_t, uint64_t> (l, d_in, d_sum,
          d_squares, stream);
    case CF_INTEGRAL_U16:
      return run<uint16_t, uint64_t, uint64_t> (l, d_in, d_sum,
          d_squares, stream);
    default:
      return run<float, double, double> (l, d_in, d_sum, d_squares,
          stream);
  }
}

}                               /* namespace cf_integral */
