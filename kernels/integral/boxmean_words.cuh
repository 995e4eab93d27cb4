/* What the kernels of boxmean_words.cu and boxmean_small.cu share: their
 * arguments, the exact division of rounded means, pixel words split into
 * 16-bit lanes, and the output word of a pixel. Internal to the kernels
 * library; CUDA C++ only. */
#ifndef CF_BOXMEAN_WORDS_CUH
#define CF_BOXMEAN_WORDS_CUH

#include <cstdint>

#include <cuda_runtime.h>

#include "boxmean.h"
#include "boxmean_common.h"

namespace cfw
{

/* the largest radius whose window sums fit 16-bit lanes */
constexpr int PACKED_MAX_R = 7;
static_assert ((2 * PACKED_MAX_R + 1) * (2 * PACKED_MAX_R + 1) * 255 < 65536,
    "packed window sums fit 16 bits");

/* floor(num / d) for a fixed d, as one high multiply and a shift. With
 * num < 2^B, log = ceil(log2 d) and m = ceil(2^(B + log) / d), the error
 * num * (m * d - 2^(B + log)) / (d * 2^(B + log)) stays below 1 / d, too
 * little to cross an integer, so floor(num * m / 2^(B + log)) is exact.
 * Rounded means of bytes have num = 2 sum + count <= 511 count: below
 * 2^17 up to radius 7 (count <= 225), which takes m << 14 (below 2^32)
 * and num as it is; below 2^20 up to radius 16, which takes m and
 * num << 12. */
struct WordsDivider
{
  uint32_t mul;
  int shift;                    /* after the high multiply */
};

static inline WordsDivider
words_divider (uint32_t d, bool wide)
{
  WordsDivider w;
  int log = 0;
  while ((1u << log) < d)
    log++;
  const int bits = wide ? 20 : 17;
  const uint64_t m = ((1ull << (bits + log)) + d - 1) / d;
  w.mul = (uint32_t) (wide ? m : m << 14);
  w.shift = wide ? log : log - 1;
  return w;
}

/* The high 32 bits of a 32 x 32-bit product, on either side, so that
 * the host can check the divisions (cf_box_words_division_errors). */
__host__ __device__ __forceinline__ uint32_t
high_product (uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
  return __umulhi (a, b);
#else
  return (uint32_t) ((uint64_t) a * b >> 32);
#endif
}

template <bool WIDE>
__host__ __device__ __forceinline__ uint32_t
divided (uint32_t num, const WordsDivider & d)
{
  return high_product (WIDE ? num << 12 : num, d.mul) >> d.shift;
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
    if (THRESHOLD)
      v[c] = cf_box_above ((double) sample, sum, count, a.offset) ? 255u : 0u;
    else if (inside)
      v[c] = divided<WIDE> (2 * sum + count, a.div);
    else
      v[c] = cf_box_round_byte_mean (sum, count);
  }
  return __byte_perm (__byte_perm (v[0], v[1], 0x0040),
      __byte_perm (v[2], v[3], 0x0040), 0x5410);
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

}                               /* namespace cfw */

#endif
