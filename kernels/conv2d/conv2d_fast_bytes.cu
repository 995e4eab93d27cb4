/* The fast variant on one-byte planes (GRAY8, a YUV plane) with masks of up
 * to 5 x 5: tiles sized for bytes.
 *
 * - The tile stays bytes in shared memory: 16-byte loads go straight in
 *   (no conversion on the way, a quarter of a float tile's room), and a
 *   thread reads its window of a row as three words.
 * - A thread owns a word of 8 output pixels over ROWS rows. It takes
 *   the input rows one after the other, converts each window once and adds
 *   it into every output row it reaches, all in registers (the loops are
 *   unrolled, so the sums never move); 8 pixels go out as one 8-byte store.
 * - Results are rounded to bytes by one conversion each and packed with
 *   byte permutes.
 *
 * Cost per output pixel: (TH + KH - 1) / TH loads of the input,
 * (8 + KW - 1)(ROWS + KH - 1) / (8 ROWS) conversions, KW x KH
 * multiply-adds, one byte stored. */
#include "conv2d_tile.cuh"

namespace cf_conv2d {

constexpr int BYTES_PX = 8;             /* output pixels per thread: a word */
/* Bytes kept each side of the tile's columns: a 16-byte chunk, so that the
 * chunks stay aligned in the plane and in shared memory. */
constexpr int BYTES_HALO = 16;

/* A tile's shape: BX threads along a row (BX x 8 output columns), TH
 * output rows, ROWS of them a thread. */
template <int BX_, int TH_, int ROWS_>
struct BytesTile
{
  static constexpr int BX = BX_, TH = TH_, ROWS = ROWS_;
  static constexpr int TW = BX_ * BYTES_PX;
  static constexpr int THREADS = BX_ * TH_ / ROWS_;
  static constexpr int CHUNKS = (TW + 2 * BYTES_HALO) / 16;
  static constexpr int SROW = 16 * CHUNKS;
};

/* A thread's window of a tile row: its own 8 bytes at `row`, and the word
 * before and the word after when the mask reaches them (RX > 0). */
template <int RX>
__device__ __forceinline__ void
window_bytes (const uint8_t * row, uint32_t & left, uint2 & own,
    uint32_t & right)
{
  own = *reinterpret_cast<const uint2 *>(row);
  left = RX ? *reinterpret_cast<const uint32_t *>(row - 4) : 0u;
  right = RX ? *reinterpret_cast<const uint32_t *>(row + 8) : 0u;
}

/* Byte c (-4 <= c < 12) of the thread's window row, as a subnormal
 * (subnormal_byte()): its own 8 bytes, the word before and the word
 * after. */
__device__ __forceinline__ float
window_px (uint32_t left, uint2 own, uint32_t right, int c)
{
  return c < 0 ? subnormal_byte (left, 4 + c)
      : c < 4 ? subnormal_byte (own.x, c)
      : c < 8 ? subnormal_byte (own.y, c - 4)
      : subnormal_byte (right, c - 8);
}


/* Four rounded results, saturated to bytes, as one word in that order:
 * two saturating packs. */
__device__ __forceinline__ uint32_t
pack4 (int a, int b, int c, int d)
{
  return packed_bytes (b, a, packed_bytes (d, c, 0u));
}

/* The 8 output pixels from (x, y), from their rounded results: one 8-byte
 * store, or byte by byte where the row ends or the address is not 8-byte
 * aligned. */
__device__ __forceinline__ void
store_bytes (const Image & im, int x, int y, const int (&r)[BYTES_PX])
{
  const uint2 w = make_uint2 (pack4 (r[0], r[1], r[2], r[3]),
      pack4 (r[4], r[5], r[6], r[7]));
  uint8_t *p = im.dst + (size_t) y * im.dst_stride + x;
  if (x + BYTES_PX <= im.width && ((uintptr_t) p & 7) == 0) {
    *reinterpret_cast<uint2 *>(p) = w;
  } else {
#pragma unroll
    for (int k = 0; k < BYTES_PX; k++)
      if (x + k < im.width)
        p[k] = (uint8_t) ((k < 4 ? w.x : w.y) >> (8 * (k % 4)));
  }
}

/* ---- integer taps ------------------------------------------------------- */

/* Bytes m and m + 4 of the thread's window row (-4 <= m < 8) in the two
 * 16-bit halves of a word: the byte permute gathers them, the mask clears
 * the bytes between. */
__device__ __forceinline__ int
window_pair (uint32_t left, uint2 own, uint32_t right, int m)
{
  const uint32_t a = m < 0 ? left : m < 4 ? own.x : own.y;
  const uint32_t b = m < 0 ? own.x : m < 4 ? own.y : right;
  const uint32_t sel = (uint32_t) ((m + 4) % 4) | (uint32_t) (4 + (m + 4) % 4)
      << 8;
  return (int) (__byte_perm (a, b, sel) & 0x00FF00FFu);
}

/* Bytes s .. s + 3 of the thread's window row (-4 <= s < 12) as one word,
 * from its words before (bytes -4..-1), own (0..7) and after (8..11); bytes
 * past 11 repeat the last word, for taps that are 0 there. */
__device__ __forceinline__ uint32_t
window_word (uint32_t left, uint2 own, uint32_t right, int s)
{
  const uint32_t w[5] = { left, own.x, own.y, right, right };
  const int q = (s + 4) / 4, b = (s + 4) % 4;
  return b == 0 ? w[q] : __funnelshift_r (w[q], w[q + 1], 8 * b);
}

/* The byte tiles, summing in float (M = FloatMask) or, for masks of small
 * integer taps (cf_conv2d_plan::small_integer), in integers. With taps
 * that fit a signed byte and rows of 3 or 5 taps (M = DotMask), each
 * output pixel sums its window row by row with one or two dot products of
 * four bytes. Otherwise (M = IntMask) output pixels k and k + 4 of the
 * thread's 8 share a word, one in each 16-bit half, so that a tap costs
 * one integer multiply-add for two pixels where the float sums spend one
 * float multiply-add on each, and the window's pairs of bytes are gathered
 * once a row (where float windows convert each byte). The integer sums are
 * exactly the float ones (integers below 2^22 are exact in float), and so
 * are the results. */
template <int KW, int KH, typename S, typename M>
__global__ void __launch_bounds__ (S::THREADS)
conv2d_fast_bytes_kernel (Image im, const __grid_constant__ M m)
{
  constexpr int TH = S::TH, ROWS = S::ROWS;
  constexpr bool DOT = std::is_same_v<M, DotMask>;
  constexpr bool PAIRS = is_int_mask<M> && !DOT;
  constexpr int RX = KW / 2, RY = KH / 2;
  constexpr int IN_ROWS = TH + KH - 1;
  constexpr int THREADS = S::THREADS;
  /* sums a row: a pixel each, or a pair (k, k + HALF) each */
  constexpr int HALF = BYTES_PX / 2;
  constexpr int SUMS = PAIRS ? HALF : BYTES_PX;
  /* packed taps a mask row, and windows of 4 bytes a row: from byte -RX */
  constexpr int GROUPS = (KW + 3) / 4;
  constexpr int WORDS = BYTES_PX + 4 * (GROUPS - 1);
  using Sum = typename MaskSum<M>::type;
  __shared__ alignas (16) uint8_t tile[IN_ROWS][S::SROW];
  const int x0 = blockIdx.x * S::TW;
  const int y0 = im.row_begin + blockIdx.y * TH;
  const int tid = threadIdx.y * S::BX + threadIdx.x;

  /* 1. the tile: columns x0 - 16 .. x0 + TW + 15, rows y0 - RY .., as bytes */
  fill_raw_tile<1, IN_ROWS, S::CHUNKS, THREADS> (im, m.border,
      x0 - BYTES_HALO, y0 - RY, tid, &tile[0][0]);
  __syncthreads ();

  /* 2. ROWS rows of 8 pixels */
  const int ox = x0 + threadIdx.x * BYTES_PX;
  const int oy = y0 + threadIdx.y * ROWS;
  if (ox >= im.width || oy >= im.row_end)
    return;
  Sum acc[ROWS][SUMS];
#pragma unroll
  for (int o = 0; o < ROWS; o++)
#pragma unroll
    for (int k = 0; k < SUMS; k++)
      acc[o][k] = sum_start (m);
#pragma unroll
  for (int r = 0; r < ROWS + KH - 1; r++) {
    uint2 own;
    uint32_t left, right;
    window_bytes<RX> (&tile[threadIdx.y * ROWS + r][BYTES_HALO + threadIdx.x
            * BYTES_PX], left, own, right);
    if constexpr (DOT) {
      uint32_t win[WORDS];
#pragma unroll
      for (int s = 0; s < WORDS; s++)
        win[s] = window_word (left, own, right, s - RX);
      for_rows_reached<KH, ROWS> (r, [&](int j, int o) {
#pragma unroll
        for (int g = 0; g < GROUPS; g++)
#pragma unroll
          for (int k = 0; k < BYTES_PX; k++)
            acc[o][k] = dot4 (win[k + 4 * g], m.taps[j][g], acc[o][k]);
      });
    } else {
      Sum win[SUMS + 2 * RX];
#pragma unroll
      for (int k = 0; k < SUMS + 2 * RX; k++) {
        if constexpr (PAIRS)
          win[k] = window_pair (left, own, right, k - RX);
        else
          win[k] = window_px (left, own, right, k - RX);
      }
      for_rows_reached<KH, ROWS> (r, [&](int j, int o) {
#pragma unroll
        for (int i = 0; i < KW; i++)
#pragma unroll
          for (int k = 0; k < SUMS; k++)
            acc[o][k] = mad (tap (m, j * KW + i), win[k + i], acc[o][k]);
      });
    }
  }

  /* 3. each row's 8 bytes (integer sums out of their halves first) */
#pragma unroll
  for (int o = 0; o < ROWS; o++) {
    const int y = oy + o;
    if (y >= im.row_end)
      break;
    float v[BYTES_PX];
#pragma unroll
    for (int k = 0; k < SUMS; k++) {
      if constexpr (PAIRS) {
        v[k] = int_to_float (low_half (acc[o][k]));
        v[k + HALF] = int_to_float (high_half (acc[o][k]));
      } else if constexpr (DOT) {
        v[k] = int_to_float (acc[o][k]);
      } else {
        v[k] = acc[o][k];
      }
    }
    int r[BYTES_PX];
#pragma unroll
    for (int k = 0; k < BYTES_PX; k++)
      r[k] = __float2int_rn (finished (m, v[k]));
    store_bytes (im, ox, y, r);
  }
}

template <int KW, int KH, typename S, typename M>
static int
launch_shape (const Launch & L, const M & m)
{
  const int rows = L.im.row_end - L.im.row_begin;
  dim3 grid (div_up (L.im.width, S::TW), div_up (rows, S::TH));
  conv2d_fast_bytes_kernel<KW, KH, S><<<grid, dim3 (S::BX, S::TH / S::ROWS),
      0, L.stream>>> (L.im, m);
  return launch_status ();
}

/* Tiles of 128 columns, one row a thread below 4 Mpx and two rows from
 * there: 16 x 8 and 16 x 16 threads measured fastest of six shapes at 720p,
 * 1080p and 4K (docs/performance-log.md, "Fewer instructions and fuller SMs
 * for the byte and word tiles"). At 1080p the 128-column tiles divide
 * the width and fill the SMs in one round; 256-column ones left half
 * their last column of tiles idle and 2% of the blocks for a second round. */
constexpr long BYTES_TWO_ROWS_FROM = 4l << 20;
using BytesSmall = BytesTile<16, 8, 1>;
using BytesLarge = BytesTile<16, 16, 2>;

template <int KW, int KH, typename M>
static int
launch_bytes (const Launch & L, const M & m)
{
  const int rows = L.im.row_end - L.im.row_begin;
  if ((long) L.im.width * rows >= BYTES_TWO_ROWS_FROM)
    return launch_shape<KW, KH, BytesLarge> (L, m);
  return launch_shape<KW, KH, BytesSmall> (L, m);
}

template <int KW, int KH>
struct LaunchBytes
{
  static int run (const Launch & L, const Mask & m)
  {
    if constexpr (KW > 1)
      if (L.plan->small_integer && byte_taps (m))
        return launch_bytes<KW, KH> (L, dot_mask (m));
    if (L.plan->small_integer)
      return launch_bytes<KW, KH> (L, int_mask (m));
    return launch_bytes<KW, KH> (L, folded_mask (m));
  }
};

int
cf_conv2d_fast_bytes (const Launch & launch, const Mask & m)
{
  return small_mask<LaunchBytes> (launch, m);
}

}  /* namespace cf_conv2d */
