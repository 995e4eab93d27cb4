/* Box means and thresholds of small radii on pixels of four 8-bit samples
 * (RGBA, BGRx, ARGB ... with the fourth copied, or all four filtered),
 * straight from the input in one launch: the common case of
 * cf_box_direct_cuda, with each pixel handled as the one word it is.
 * Radius 1 goes to boxmean_small.cu, which sums its windows directly.
 *
 * A block takes DX x DY output pixels (DY_LARGE, or DY_SMALL for small
 * launches):
 *
 * 0. The tile and its halo go into shared memory as they are, in 16-byte
 *    chunks (whole chunks either side, so that they stay aligned), several
 *    loads in flight a thread. Reading each pixel word straight from
 *    global memory in step 1 kept too few loads in flight: a 4K frame
 *    took 64 us at radius 1, against 26 for a copy of it.
 * 1. Column sums. A thread takes a column of the tile or its halo and a
 *    segment of its rows, and slides a window of 2r + 1 rows down it, a
 *    pixel word added below and one taken off above for each next row.
 *    Each word is split into its even and odd bytes (two words of 16-bit
 *    lanes: bytes 0 and 2, bytes 1 and 3), so a window row costs two
 *    adds for all four samples. 33 x 255 fits a lane.
 * 2. Row sums and output. A thread takes RUN output pixels of a row and
 *    slides a window of 2r + 1 column sums along them. Up to radius 7 the
 *    window sums still fit 16-bit lanes ((2r + 1)^2 x 255 < 2^16); from
 *    radius 8 each column sum is split into four 32-bit lanes first.
 *    Lane arithmetic wraps through the neighbouring lane in the middle of
 *    a sum (a difference borrows, a sum carries), but every result lane
 *    is a true sum in range, and the word is exact modulo 2^32, so the
 *    lanes come out right.
 * 3. A window inside the plane has (2r + 1)^2 pixels: its rounded mean
 *    is one exact high multiply (WordsMean). Windows clipped by the
 *    plane's edge take the shared rounding helper. The RUN pixels go out
 *    as two 16-byte stores where the rows are aligned for them.
 *
 * The outputs are those of cf_box_cuda and the CPU twin, bit for bit:
 * the same windows, the same rounding. */
#include <algorithm>
#include <cstdint>

#include <cuda_runtime.h>

#include "boxmean_common.h"
#include "boxmean_words.cuh"
#include "boxmean_words.h"

namespace cf_boxmean
{

/* Tiles of 64 x 32, 8 pixels a thread: against 64 x 16 with 4 a thread
 * and 64 x 64 with 16, the fastest at radius 8 on a 4K frame (52.7
 * against 65.2 and 58.4 us) and level at radius 1. Launches of fewer
 * than SMALL_LAUNCH pixels (the strips of a 1080p frame) take tiles of
 * 64 x 16, twice as many blocks: 270 tiles of 64 x 32 left half of an
 * H100's room for blocks empty. On a 1080p strip of 270 rows the short
 * tiles took radius 8 from 9.4-9.6 to 8.9-9.0 us and radius 7 from
 * 8.8-9.1 to 8.5, and were level from radius 12. */
constexpr int DX = 64;          /* output pixels a tile row */
constexpr int DY_LARGE = 32, DY_SMALL = 16;     /* output rows a tile */
constexpr long SMALL_LAUNCH = 1l << 20;
constexpr int RUN = 8;          /* output pixels a thread */
/* registers capped for 5 blocks of 256 threads an SM (48 a thread), where
 * shared memory allows (up to radius 9); the thresholds' double arithmetic
 * would spill there, and keeps 4 */
constexpr int BLOCKS_AN_SM = 5;
constexpr int MAX_R = CF_BOX_DIRECT_MAX_RADIUS;
static_assert ((2 * MAX_R + 1) * 255 < 65536, "column sums fit 16 bits");

/* Column k of a tile row sits at padded (k) in shared memory: a gap every
 * 4 columns, so that the threads of a warp, RUN columns apart, read
 * distinct banks. */
__host__ __device__ constexpr int
padded (int k)
{
  return k + (k >> 2);
}

/* Step 2 for the RUN pixels of a thread from xs on, row y: `sums` is the
 * row's column sums from the first pixel's window on, `src4` its input
 * words. */
template <int KEEP, bool WIDE, bool THRESHOLD, bool INSIDE>
__device__ __forceinline__ void
filter_run (const WordsArgs & a, const uint2 * sums, const uint4 * src4,
    uint32_t * out_row, int xs, int y)
{
  const int r = a.radius;
  Sums<WIDE> s;
  for (int k = 0; k <= 2 * r; k++)
    s.add (sums[padded (k)]);
  /* 4 pixels at a time, one 16-byte store each where the rows allow */
#pragma unroll
  for (int h = 0; h < RUN / 4; h++) {
    const uint4 q = src4[h];
    const uint32_t src[4] = { q.x, q.y, q.z, q.w };
    uint32_t px[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
      const int k = 4 * h + i;
      if (k > 0)
        s.slide (sums[padded (k + 2 * r)], sums[padded (k - 1)]);
      px[i] = output_word<KEEP, WIDE, THRESHOLD, INSIDE> (a, s, src[i],
          xs + k, y);
    }
    store_words (a, out_row, xs + 4 * h, px);
  }
}

/* Shared memory of a tile at radius r: its input words, DY + 2r rows of
 * tile_words (r), then its column sums, DY rows of sum_row (r). */
__host__ __device__ constexpr int
halo_words (int r)
{
  return (r + 3) / 4 * 4;       /* whole 16-byte chunks either side */
}

__host__ __device__ constexpr int
tile_words (int r)
{
  return DX + 2 * halo_words (r);
}

__host__ __device__ constexpr int
sum_row (int r)
{
  /* odd, so that the 4 rows a warp reads in step 2 fall on other banks */
  return padded (DX + 2 * r) | 1;
}

static size_t
shared_bytes (int r, int dy)
{
  return (size_t) (dy + 2 * r) * tile_words (r) * 4
      + (size_t) dy * sum_row (r) * 8;
}

/* Loads 16-byte chunks in flight at once per thread, before any is
 * stored, so that several DRAM round trips overlap. */
constexpr int CHUNK_BATCH = 3;

template <int KEEP, bool WIDE, bool THRESHOLD, int DY>
__global__ void __launch_bounds__ (DX / RUN * DY,
    (THRESHOLD ? 4 : BLOCKS_AN_SM) * DY_LARGE / DY)
box_words_kernel (const WordsArgs a)
{
  constexpr int THREADS = DX / RUN * DY;
  extern __shared__ uint4 smem[];
  const int r = a.radius, halo = halo_words (r), tw = tile_words (r);
  const int srow = sum_row (r);
  uint32_t *tile = (uint32_t *) smem;   /* [DY + 2r][tw] */
  uint2 *colsum = (uint2 *) (tile + (DY + 2 * r) * tw); /* [DY][srow] */
  const int x0 = blockIdx.x * DX, y0 = a.row_begin + blockIdx.y * DY;
  const int rows = min (DY, a.row_end - y0);

  /* 0. the tile: plane rows y0 - r .. y0 + rows - 1 + r, columns x0 - halo
   * .. x0 + DX + halo - 1; zeros outside the plane, which add nothing */
  const int in_rows = rows + 2 * r, chunks_a_row = tw / 4;
  const int chunks = in_rows * chunks_a_row;
  const uint8_t *first = inside_tile (a, x0 - halo, y0 - r, chunks_a_row,
      in_rows);
  for (int t0 = threadIdx.x; t0 < chunks; t0 += CHUNK_BATCH * THREADS) {
    uint4 v[CHUNK_BATCH];
#pragma unroll
    for (int b = 0; b < CHUNK_BATCH; b++) {
      const int t = t0 + b * THREADS, j = quotient (t, a.by_chunks);
      const int c = t - j * chunks_a_row;
      v[b] = t >= chunks ? make_uint4 (0, 0, 0, 0)
          : first ? inside_chunk (a, first, j, c)
          : tile_chunk (a, x0 - halo + 4 * c, y0 - r + j);
    }
#pragma unroll
    for (int b = 0; b < CHUNK_BATCH; b++)
      if (t0 + b * THREADS < chunks)
        smem[t0 + b * THREADS] = v[b];
  }
  __syncthreads ();

  /* 1. column sums: sum column c is plane column x0 - r + c, tile column
   * halo - r + c; its output row o sums tile rows o .. o + 2r. The rows
   * split into as many segments as the threads cover in one round. */
  const int cols = DX + 2 * r, segs = a.segs;
  const int seg_rows = rows == DY ? a.seg_rows : (rows + segs - 1) / segs;
  for (int t = threadIdx.x; t < cols * segs; t += THREADS) {
    const int g = quotient (t, a.by_cols), c = t - g * cols;
    const int o0 = g * seg_rows;
    const int o1 = min (rows, o0 + seg_rows);
    const uint32_t *column = tile + halo - r + c;
    uint2 *to = colsum + padded (c);
    uint32_t e = 0, od = 0;
    if (o0 >= o1)
      continue;
    for (int j = o0; j <= o0 + 2 * r; j++) {
      const uint32_t w = column[j * tw];
      e += even_bytes (w);
      od += odd_bytes (w);
    }
    to[o0 * srow] = make_uint2 (e, od);
#pragma unroll 4
    for (int o = o0 + 1; o < o1; o++) {
      const uint32_t in = column[(o + 2 * r) * tw];
      const uint32_t out = column[(o - 1) * tw];
      e += even_bytes (in) - even_bytes (out);
      od += odd_bytes (in) - odd_bytes (out);
      to[o * srow] = make_uint2 (e, od);
    }
  }
  __syncthreads ();

  /* 2. RUN pixels of a row: output i sums sum columns i .. i + 2r */
  const int o = threadIdx.x / (DX / RUN), i0 = threadIdx.x % (DX / RUN) * RUN;
  const int y = y0 + o, xs = x0 + i0;
  if (o >= rows || xs >= a.width)
    return;
  const uint2 *sums = colsum + o * srow + padded (i0);
  const uint4 *src4 = (const uint4 *) (tile + (o + r) * tw + halo + i0);
  uint32_t *out_row = (uint32_t *) (a.out + (size_t) y * a.out_pitch);
  if (xs - r >= 0 && xs + RUN - 1 + r < a.width && y - r >= 0
      && y + r < a.height)
    filter_run<KEEP, WIDE, THRESHOLD, true> (a, sums, src4, out_row, xs, y);
  else
    filter_run<KEEP, WIDE, THRESHOLD, false> (a, sums, src4, out_row, xs, y);
}

template <int KEEP, bool WIDE, bool THRESHOLD, int DY>
static void
launch_tiles (const WordsArgs & args, cudaStream_t stream)
{
  constexpr int THREADS = DX / RUN * DY;
  WordsArgs a = args;
  a.segs = std::max (1, THREADS / (DX + 2 * a.radius));
  a.seg_rows = (DY + a.segs - 1) / a.segs;
  dim3 grid ((a.width + DX - 1) / DX, (a.row_end - a.row_begin + DY - 1)
      / DY);
  const size_t shared = shared_bytes (a.radius, DY);
  /* past 48 KB (from radius 13) a kernel must ask for its shared memory */
  if (shared > 48 * 1024)
    cudaFuncSetAttribute (box_words_kernel<KEEP, WIDE, THRESHOLD, DY>,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) shared);
  box_words_kernel<KEEP, WIDE, THRESHOLD, DY><<<grid, THREADS, shared,
      stream>>> (a);
}

template <int KEEP, bool WIDE, bool THRESHOLD>
static void
launch_kernel (const WordsArgs & a, cudaStream_t stream)
{
  if ((long) a.width * (a.row_end - a.row_begin) < SMALL_LAUNCH)
    launch_tiles<KEEP, WIDE, THRESHOLD, DY_SMALL> (a, stream);
  else
    launch_tiles<KEEP, WIDE, THRESHOLD, DY_LARGE> (a, stream);
}

template <int KEEP>
static void
launch_keep (const WordsArgs & a, cudaStream_t stream)
{
  const bool wide = a.radius > PACKED_MAX_R;
  if (a.threshold) {
    if (wide)
      launch_kernel<KEEP, true, true> (a, stream);
    else
      launch_kernel<KEEP, false, true> (a, stream);
  } else if (wide) {
    launch_kernel<KEEP, true, false> (a, stream);
  } else {
    launch_kernel<KEEP, false, false> (a, stream);
  }
}

bool
cf_box_words_cuda (const cf_integral_layout & l, const uint8_t * in,
    const cf_box_params & p, uint8_t * out, cudaStream_t stream)
{
  const int channels = cf_integral_channels (&l);
  const int step = p.out_step ? p.out_step : 1;
  /* the sample kept from the input: the one after three filtered, the one
   * before them, or none */
  int keep;
  if (l.type != CF_INTEGRAL_U8 || l.in_step != 4 || step != 4
      || p.radius > CF_BOX_DIRECT_MAX_RADIUS)
    return false;
  if (channels == 4 && p.pixel_start == 0)
    keep = 4;
  else if (channels == 3 && p.copy_others && p.pixel_start == 0)
    keep = 3;
  else if (channels == 3 && p.copy_others && p.pixel_start == 1)
    keep = 0;
  else
    return false;
  WordsArgs a;
  a.in = in - p.pixel_start;
  a.out = out - p.pixel_start;
  a.in_pitch = l.in_pitch;
  a.out_pitch = p.out_pitch;
  if (((uintptr_t) a.in | (uintptr_t) a.out | a.in_pitch | a.out_pitch) % 4)
    return false;
  a.vec = ((uintptr_t) a.in | (uintptr_t) a.out | a.in_pitch | a.out_pitch)
      % 16 == 0;
  a.width = l.width;
  a.height = l.height;
  a.radius = p.radius;
  a.row_begin = p.row_begin;
  a.row_end = p.row_end;
  a.threshold = p.threshold;
  a.offset = p.offset;
  a.mean = words_mean ((2 * p.radius + 1) * (2 * p.radius + 1));
  a.by_chunks = quotient_multiplier (tile_words (p.radius) / 4);
  a.by_cols = quotient_multiplier (DX + 2 * p.radius);
  if (p.radius == 1)
    launch_small (a, keep, stream);
  else if (keep == 4)
    launch_keep<4> (a, stream);
  else if (keep == 3)
    launch_keep<3> (a, stream);
  else
    launch_keep<0> (a, stream);
  return true;
}

}                               /* namespace cf_boxmean */

extern "C" long
cf_box_words_division_errors (void)
{
  long errors = 0;
  for (uint32_t r = 1; r <= CF_BOX_DIRECT_MAX_RADIUS; r++) {
    const uint32_t count = (2 * r + 1) * (2 * r + 1);
    const cf_boxmean::WordsMean m = cf_boxmean::words_mean (count);
    for (uint32_t sum = 0; sum <= 255 * count; sum++) {
      const uint32_t got = cf_boxmean::window_mean (sum + m.half, m);
      errors += got != (uint32_t) cf_box_round_mean (sum, count);
    }
  }
  return errors;
}
