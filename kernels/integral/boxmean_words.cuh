/* What the kernels of boxmean_words.cu and boxmean_small.cu share: their
 * arguments, the exact rounded means, pixel words split into
 * 16-bit lanes, and the output word of a pixel. Internal to the kernels
 * library; CUDA C++ only. */
#ifndef CF_BOXMEAN_WORDS_CUH
#define CF_BOXMEAN_WORDS_CUH

#include <cstdint>

#include <cuda_runtime.h>

#include "boxmean.h"
#include "boxmean_common.h"

namespace cf_boxmean
{

/* the largest radius whose window sums, and their means' numerators,
 * fit 16-bit lanes */
constexpr int PACKED_MAX_R = 7;
static_assert ((2 * PACKED_MAX_R + 1) * (2 * PACKED_MAX_R + 1) * 256 < 65536,
    "packed window sums and numerators fit 16 bits");

/* Rounded means of windows inside the plane, of c = (2r + 1)^2 samples,
 * as one high multiply each.
 * - c is odd, so with h = (c - 1) / 2 the rounded mean
 *   floor((2 sum + c) / 2c) is floor((sum + h) / c): 2 sum + c is
 *   2 (sum + h) + 1, and the 1 cannot carry the quotient past the next
 *   multiple of c.
 * - floor(n / c) is the high word of n m, with m = ceil(2^32 / c) = (2^32
 *   + e) / c and 0 <= e < c: n m / 2^32 exceeds n / c by n e / (c 2^32),
 *   less than the 1 / c that separates n / c from the next integer while
 *   n e < 2^32. Here n < 256 c and c <= 33^2, so n e < 2^29.
 * - The mean comes out in the low byte with zeros above, ready to pack;
 *   sum + h (below 256 c) still fits a 16-bit lane up to radius 7, so one
 *   add gives two lanes their numerators.
 * cf_box_words_division_errors() checks every sum of every radius on the
 * host. */
struct WordsMean
{
  uint32_t mul;                 /* ceil(2^32 / c) */
  uint32_t half;                /* h = (c - 1) / 2 */
};

static inline WordsMean
words_mean (uint32_t count)
{
  WordsMean m;
  m.mul = (uint32_t) (((1ull << 32) + count - 1) / count);
  m.half = (count - 1) / 2;
  return m;
}

/* The high 32 bits of a 32 x 32-bit product, on either side, so that
 * the host can check the means (cf_box_words_division_errors). */
__host__ __device__ __forceinline__ uint32_t
high_product (uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
  return __umulhi (a, b);
#else
  return (uint32_t) ((uint64_t) a * b >> 32);
#endif
}

/* floor(n / c) for the numerator n = sum + h of a mean */
__host__ __device__ __forceinline__ uint32_t
window_mean (uint32_t n, const WordsMean & m)
{
  return high_product (n, m.mul);
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
  WordsMean mean;               /* of (2r + 1)^2 samples */
  /* quotient() multipliers: by a tile row's 16-byte chunks, by the
   * columns of sums */
  uint32_t by_chunks, by_cols;
  /* step 1 splits the rows of a tile into `segs` segments of `seg_rows` */
  int segs, seg_rows;
  bool vec;                     /* rows aligned for 16-byte accesses */
};

/* ceil(2^32 / d): quotient (t, it) is then t / d for every t < 2^32 / d,
 * one high multiply where a division by a number known only at run time
 * takes about twenty instructions. */
static inline uint32_t
quotient_multiplier (uint32_t d)
{
  return (uint32_t) (((1ull << 32) + d - 1) / d);
}

__device__ __forceinline__ int
quotient (int t, uint32_t multiplier)
{
  return (int) __umulhi ((uint32_t) t, multiplier);
}

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

/* Pixels x .. x + 3 of plane row y, in a 16-byte chunk of the tile: one
 * 16-byte load where the rows allow, zeros outside the plane (which add
 * nothing to the clipped windows). */
__device__ __forceinline__ uint4
tile_chunk (const WordsArgs & a, int x, int y)
{
  if (y < 0 || y >= a.height)
    return make_uint4 (0, 0, 0, 0);
  const uint32_t *row = (const uint32_t *) (a.in + (size_t) y * a.in_pitch);
  if (a.vec && x >= 0 && x + 4 <= a.width)
    return __ldg ((const uint4 *) (row + x));
  uint32_t w[4];
#pragma unroll
  for (int i = 0; i < 4; i++)
    w[i] = x + i >= 0 && x + i < a.width ? __ldg (row + x + i) : 0u;
  return make_uint4 (w[0], w[1], w[2], w[3]);
}

/* The first byte of a tile of `rows` rows of `chunks` 16-byte chunks
 * from pixel (x0, y0) when it lies wholly inside the plane and its rows
 * are aligned (most tiles): its chunks are then plain offsets from there,
 * with none of tile_chunk()'s tests, which cost about a fifth of a radius
 * 1 thread's instructions. Null for the others. */
__device__ __forceinline__ const uint8_t *
inside_tile (const WordsArgs & a, int x0, int y0, int chunks, int rows)
{
  return a.vec && x0 >= 0 && y0 >= 0 && x0 + 4 * chunks <= a.width
      && y0 + rows <= a.height
      ? a.in + (size_t) y0 * a.in_pitch + (size_t) x0 * 4 : nullptr;
}

/* Chunk c of row j of such a tile */
__device__ __forceinline__ uint4
inside_chunk (const WordsArgs & a, const uint8_t * first, int j, int c)
{
  return __ldg (reinterpret_cast<const uint4 *>(first + (size_t) j
          * a.in_pitch) + c);
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
  /* every lane plus h: two lanes an add */
  __device__ Sums plus (uint32_t h) const
  {
    Sums n;
    n.e = e + (h | h << 16);
    n.o = o + (h | h << 16);
    return n;
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
  __device__ Sums plus (uint32_t h) const
  {
    Sums n;
#pragma unroll
    for (int c = 0; c < 4; c++)
      n.s[c] = s[c] + h;
    return n;
  }
};

/* A pixel word from four samples, each in the low byte of its v[c], but
 * sample KEEP (4: none) straight from the source word: two byte permutes
 * gather samples 0-1 and 2-3, with the kept one's byte selected in place,
 * a third joins them. */
template <int KEEP>
__device__ __forceinline__ uint32_t
packed_word (const uint32_t (&v)[4], uint32_t src)
{
  constexpr uint32_t LOW = (KEEP == 1 ? 5u : 4u) << 4;
  constexpr uint32_t HIGH = (KEEP == 3 ? 7u : 4u) << 4 | (KEEP == 2 ? 2u : 0u);
  return __byte_perm (__byte_perm (KEEP == 0 ? src : v[0],
          KEEP == 1 ? src : v[1], LOW), __byte_perm (KEEP == 2 ? src : v[2],
          KEEP == 3 ? src : v[3], HIGH), 0x5410);
}

/* The output word of pixel (x, y): its filtered samples from the window
 * sums, sample KEEP (4: none) from the input word `src`. INSIDE: the
 * window is known to lie inside the plane. */
template <int KEEP, bool WIDE, bool THRESHOLD, bool INSIDE>
__device__ __forceinline__ uint32_t
output_word (const WordsArgs & a, const Sums<WIDE> & s, uint32_t src, int x,
    int y)
{
  const int r = a.radius;
  const bool inside = INSIDE || (x - r >= 0 && x + r < a.width && y - r >= 0
      && y + r < a.height);
  uint32_t v[4];
  if (!THRESHOLD && inside) {
    const Sums<WIDE> n = s.plus (a.mean.half);
#pragma unroll
    for (int c = 0; c < 4; c++)
      v[c] = c == KEEP ? 0u : window_mean (n.sample (c), a.mean);
    return packed_word<KEEP> (v, src);
  }
  uint32_t count = (2 * r + 1) * (2 * r + 1);
  if (!inside) {
    int wx0, wy0, wx1, wy1;
    cf_box_window (x, y, r, a.width, a.height, &wx0, &wy0, &wx1, &wy1);
    count = (uint32_t) ((wx1 - wx0) * (wy1 - wy0));
  }
#pragma unroll
  for (int c = 0; c < 4; c++) {
    const uint32_t sum = s.sample (c);
    if (c == KEEP)
      v[c] = 0u;
    else if (THRESHOLD)
      v[c] = cf_box_above ((double) ((src >> (8 * c)) & 0xFFu), sum, count,
          a.offset) ? 255u : 0u;
    else
      v[c] = cf_box_round_byte_mean (sum, count);
  }
  return packed_word<KEEP> (v, src);
}

/* Pixels x .. x + 3 of an output row: one 16-byte store where the rows
 * are aligned for it, else a word each, inside the plane */
__device__ __forceinline__ void
store_words (const WordsArgs & a, uint32_t * out_row, int x,
    const uint32_t (&px)[4])
{
  if (a.vec && x + 4 <= a.width) {
    *(uint4 *) (out_row + x) = make_uint4 (px[0], px[1], px[2], px[3]);
    return;
  }
#pragma unroll
  for (int i = 0; i < 4; i++)
    if (x + i < a.width)
      out_row[x + i] = px[i];
}

/* Launches the kernel of radius 1 (boxmean_small.cu), keeping sample
 * `keep` (4: none) */
void launch_small (const WordsArgs & a, int keep, cudaStream_t stream);

}                               /* namespace cf_boxmean */

#endif
