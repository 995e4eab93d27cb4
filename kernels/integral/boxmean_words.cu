/* Box means and thresholds of small radii on pixels of four 8-bit samples
 * (RGBA, BGRx, ARGB ... with the fourth copied, or all four filtered),
 * straight from the input in one launch: the common case of
 * cf_box_direct_cuda, with each pixel handled as the one word it is.
 *
 * A block takes DX x DY output pixels:
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
 *    is an exact multiply and shift (WordsDivider). Windows clipped by the
 *    plane's edge take the shared rounding helper. The RUN pixels go out
 *    as two 16-byte stores where the rows are aligned for them.
 *
 * The outputs are those of cf_box_cuda and the CPU twin, bit for bit:
 * the same windows, the same rounding. */
#include <cstdint>

#include <cuda_runtime.h>

#include "boxmean_common.h"
#include "boxmean_words.h"

namespace cfw
{

constexpr int DX = 64;          /* output pixels a tile row */
constexpr int DY = 32;          /* output rows a tile */
constexpr int RUN = 8;          /* output pixels a thread */
constexpr int THREADS = DX / RUN * DY;
constexpr int MAX_R = CF_BOX_DIRECT_MAX_RADIUS;
/* the largest radius whose window sums fit 16-bit lanes */
constexpr int PACKED_MAX_R = 7;
static_assert ((2 * PACKED_MAX_R + 1) * (2 * PACKED_MAX_R + 1) * 255 < 65536,
    "packed window sums fit 16 bits");
static_assert ((2 * MAX_R + 1) * 255 < 65536, "column sums fit 16 bits");

/* Column k of a tile row sits at padded (k) in shared memory: a gap every
 * 4 columns, so that the threads of a warp, RUN columns apart, read
 * distinct banks. */
__host__ __device__ constexpr int
padded (int k)
{
  return k + (k >> 2);
}

/* floor(num / d) for a fixed d and num < 2^20, as (num * mul) >> shift:
 * with shift = 20 + ceil(log2 d) and mul = ceil(2^shift / d), the error
 * num * (mul * d - 2^shift) / (d * 2^shift) stays below 1 / d, too little
 * to cross an integer. Rounded means of bytes have num = 2 sum + count <=
 * 511 count < 2^20. */
struct WordsDivider
{
  uint32_t mul;
  int shift;
};

static WordsDivider
words_divider (uint32_t d)
{
  int log = 0;
  while ((1u << log) < d)
    log++;
  WordsDivider w;
  w.shift = 20 + log;
  w.mul = (uint32_t) (((1ull << w.shift) + d - 1) / d);
  return w;
}

struct WordsArgs
{
  const uint8_t *in;            /* the first pixel's word */
  uint8_t *out;
  size_t in_pitch, out_pitch;
  int width, height, radius;
  int row_begin, row_end;
  int threshold;
  double offset;
  WordsDivider div;             /* by 2 (2r + 1)^2 */
  bool vec;                     /* rows aligned for 16-byte accesses */
};

__device__ __forceinline__ uint32_t
even_bytes (uint32_t w)
{
  return w & 0x00FF00FFu;
}

__device__ __forceinline__ uint32_t
odd_bytes (uint32_t w)
{
  return __byte_perm (w, 0u, 0x4341);
}

__device__ __forceinline__ uint32_t
word_at (const uint8_t * column, size_t pitch, int y)
{
  return __ldg ((const uint32_t *) (column + (size_t) y * pitch));
}

/* The window sums of a pixel: packed, two words of 16-bit lanes (sample
 * c in lane c / 2 of word c % 2), or one 32-bit lane a sample. */
template <bool WIDE>
struct Sums;

template <>
struct Sums<false>
{
  uint32_t e = 0, o = 0;
  __device__ void add (uint2 c) { e += c.x; o += c.y; }
  __device__ void slide (uint2 in, uint2 out)
  {
    e += in.x - out.x;
    o += in.y - out.y;
  }
  __device__ uint32_t sample (int c) const
  {
    const uint32_t w = c % 2 ? o : e;
    return c / 2 ? w >> 16 : w & 0xFFFFu;
  }
};

template <>
struct Sums<true>
{
  uint32_t s[4] = { 0, 0, 0, 0 };
  __device__ void add (uint2 c)
  {
    s[0] += c.x & 0xFFFFu;
    s[2] += c.x >> 16;
    s[1] += c.y & 0xFFFFu;
    s[3] += c.y >> 16;
  }
  __device__ void slide (uint2 in, uint2 out)
  {
    s[0] += (in.x & 0xFFFFu) - (out.x & 0xFFFFu);
    s[2] += (in.x >> 16) - (out.x >> 16);
    s[1] += (in.y & 0xFFFFu) - (out.y & 0xFFFFu);
    s[3] += (in.y >> 16) - (out.y >> 16);
  }
  __device__ uint32_t sample (int c) const { return s[c]; }
};

/* The output word of pixel (x, y): its filtered samples from the window
 * sums, sample KEEP (4: none) from the input word `src`. */
template <int KEEP, bool WIDE>
__device__ __forceinline__ uint32_t
output_word (const WordsArgs & a, const Sums<WIDE> & s, uint32_t src, int x,
    int y)
{
  const int r = a.radius;
  const bool inside = x - r >= 0 && x + r < a.width && y - r >= 0
      && y + r < a.height;
  uint32_t count = (2 * r + 1) * (2 * r + 1);
  if (!inside) {
    int wx0, wy0, wx1, wy1;
    cf_box_window (x, y, r, a.width, a.height, &wx0, &wy0, &wx1, &wy1);
    count = (uint32_t) ((wx1 - wx0) * (wy1 - wy0));
  }
  uint32_t v[4];
#pragma unroll
  for (int c = 0; c < 4; c++) {
    const uint32_t sample = (src >> (8 * c)) & 0xFFu;
    if (c == KEEP) {
      v[c] = sample;
      continue;
    }
    const uint32_t sum = s.sample (c);
    if (a.threshold)
      v[c] = cf_box_above ((double) sample, sum, count, a.offset) ? 255u : 0u;
    else if (inside)
      v[c] = (uint32_t) ((uint64_t) (2 * sum + count) * a.div.mul
          >> a.div.shift);
    else
      v[c] = cf_box_round_byte_mean (sum, count);
  }
  return __byte_perm (__byte_perm (v[0], v[1], 0x0040),
      __byte_perm (v[2], v[3], 0x0040), 0x5410);
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
shared_bytes (int r)
{
  return (size_t) (DY + 2 * r) * tile_words (r) * 4
      + (size_t) DY * sum_row (r) * 8;
}

/* Loads 16-byte chunks in flight at once per thread, before any is
 * stored, so that several DRAM round trips overlap. */
constexpr int CHUNK_BATCH = 3;

template <int KEEP, bool WIDE>
__global__ void __launch_bounds__ (THREADS)
box_words_kernel (const WordsArgs a)
{
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
  for (int t0 = threadIdx.x; t0 < chunks; t0 += CHUNK_BATCH * THREADS) {
    uint4 v[CHUNK_BATCH];
#pragma unroll
    for (int b = 0; b < CHUNK_BATCH; b++) {
      const int t = t0 + b * THREADS, j = t / chunks_a_row;
      const int x = x0 - halo + 4 * (t % chunks_a_row), y = y0 - r + j;
      v[b] = make_uint4 (0, 0, 0, 0);
      if (t >= chunks || y < 0 || y >= a.height)
        continue;
      const uint32_t *row = (const uint32_t *) (a.in + (size_t) y
          * a.in_pitch);
      if (a.vec && x >= 0 && x + 4 <= a.width) {
        v[b] = __ldg ((const uint4 *) (row + x));
        continue;
      }
      uint32_t w[4];
#pragma unroll
      for (int i = 0; i < 4; i++)
        w[i] = x + i >= 0 && x + i < a.width ? __ldg (row + x + i) : 0u;
      v[b] = make_uint4 (w[0], w[1], w[2], w[3]);
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
  const int cols = DX + 2 * r;
  const int segs = max (1, THREADS / cols);
  const int seg_rows = (rows + segs - 1) / segs;
  for (int t = threadIdx.x; t < cols * segs; t += THREADS) {
    const int c = t % cols, o0 = t / cols * seg_rows;
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
  const uint2 *sums = colsum + o * srow;
  const uint4 *src4 = (const uint4 *) (tile + (o + r) * tw + halo + i0);
  uint32_t *out_row = (uint32_t *) (a.out + (size_t) y * a.out_pitch);
  uint32_t src[RUN], px[RUN];
#pragma unroll
  for (int h = 0; h < RUN / 4; h++) {
    const uint4 q = src4[h];
    src[4 * h] = q.x;
    src[4 * h + 1] = q.y;
    src[4 * h + 2] = q.z;
    src[4 * h + 3] = q.w;
  }
  Sums<WIDE> s;
  for (int k = 0; k <= 2 * r; k++)
    s.add (sums[padded (i0 + k)]);
#pragma unroll
  for (int i = 0; i < RUN; i++) {
    if (i > 0)
      s.slide (sums[padded (i0 + i + 2 * r)], sums[padded (i0 + i - 1)]);
    px[i] = output_word<KEEP, WIDE> (a, s, src[i], xs + i, y);
  }
  if (a.vec && xs + RUN <= a.width) {
#pragma unroll
    for (int h = 0; h < RUN / 4; h++)
      *((uint4 *) (out_row + xs) + h) = make_uint4 (px[4 * h],
          px[4 * h + 1], px[4 * h + 2], px[4 * h + 3]);
    return;
  }
#pragma unroll
  for (int i = 0; i < RUN; i++)
    if (xs + i < a.width)
      out_row[xs + i] = px[i];
}

template <int KEEP>
static void
launch_keep (const WordsArgs & a, cudaStream_t stream)
{
  dim3 grid ((a.width + DX - 1) / DX, (a.row_end - a.row_begin + DY - 1)
      / DY);
  const size_t shared = shared_bytes (a.radius);
  /* past 48 KB (from radius 13) a kernel must ask for its shared memory */
  if (a.radius <= PACKED_MAX_R) {
    box_words_kernel<KEEP, false><<<grid, THREADS, shared, stream>>> (a);
    return;
  }
  if (shared > 48 * 1024)
    cudaFuncSetAttribute (box_words_kernel<KEEP, true>,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) shared);
  box_words_kernel<KEEP, true><<<grid, THREADS, shared, stream>>> (a);
}

}                               /* namespace cfw */

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
  cfw::WordsArgs a;
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
  a.div = cfw::words_divider (2u * (2 * p.radius + 1) * (2 * p.radius + 1));
  if (keep == 4)
    cfw::launch_keep<4> (a, stream);
  else if (keep == 3)
    cfw::launch_keep<3> (a, stream);
  else
    cfw::launch_keep<0> (a, stream);
  return true;
}
