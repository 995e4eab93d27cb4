/* The fast variant on four-byte pixels (RGBA, BGRx, ARGB, xBGR ... of 8-bit
 * samples) with masks of up to 5 x 5: tiles of the pixels' own words.
 *
 * - The tile stays 32-bit pixels in shared memory: 16-byte loads go
 *   straight in, unconverted (a quarter of a float tile's room, so more
 *   blocks share an SM), and a thread reads the window of a row as one
 *   16-byte word and the few pixels either side.
 * - A thread owns 4 output pixels (16 bytes) over ROWS rows (2). It takes
 *   the input rows one after the other, converts each window's three
 *   filtered channels once and adds them into every output row they reach,
 *   in registers (the loops are unrolled, so the sums never move); a row's 4
 *   pixels go out as one 16-byte store.
 * - The kept channel (alpha or padding) is copied from the source word; the
 *   results are rounded by one conversion each and packed with the kept
 *   byte: float sums by a saturating pack and a byte permute
 *   (rounded_pixel()), integer ones by three byte permutes.
 *
 * Cost per output pixel: (TH + KH - 1) / TH loads of the
 * input, 3 (4 + KW - 1)(ROWS + KH - 1) / (4 ROWS) conversions,
 * 3 KW KH multiply-adds, 4 bytes stored. */
#include "conv2d_tile.cuh"

namespace cf_conv2d {

constexpr int WORDS_PX = 4;             /* output pixels per thread: 16 bytes */
/* Pixels kept each side of the tile's columns: a 16-byte chunk, so that the
 * chunks stay aligned in the plane and in shared memory. */
constexpr int WORDS_HALO = 4;

/* A tile's shape: BX x BY threads, each WORDS_PX pixels over ROWS rows.
 * 4 rows a thread (fewer conversions a pixel) measured slower: their 80
 * registers leave 3 blocks an SM where 2 rows leave 5. */
template <int BX_, int BY_, int ROWS_>
struct WordsTile
{
  static constexpr int BX = BX_, BY = BY_, ROWS = ROWS_;
  static constexpr int THREADS = BX_ * BY_;
  static constexpr int TW = BX_ * WORDS_PX;
  static constexpr int TH = BY_ * ROWS_;
  static constexpr int CHUNKS = (TW + 2 * WORDS_HALO) / 4;
  static constexpr int SROW = 4 * CHUNKS;       /* words a shared row */
};

/* A thread's window of a tile row: its 4 pixels' words at `row` (one
 * 16-byte load, returned) and RX words either side, into w. */
template <int RX>
__device__ __forceinline__ uint4
window_words (const uint32_t * row, uint32_t (&w)[WORDS_PX + 2 * RX])
{
  const uint4 own = *reinterpret_cast<const uint4 *>(row);
  w[RX] = own.x;
  w[RX + 1] = own.y;
  w[RX + 2] = own.z;
  w[RX + 3] = own.w;
#pragma unroll
  for (int k = 0; k < RX; k++) {
    w[k] = row[k - RX];
    w[RX + WORDS_PX + k] = row[WORDS_PX + k];
  }
  return own;
}

/* Byte CH of four pixel words, as one word of that channel's samples: of
 * pixels a, b, c, d in that order. */
template <int CH>
__device__ __forceinline__ uint32_t
channel_word (uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
  /* bytes CH of a and b, then of c and d, in the low halves */
  constexpr uint32_t PAIR = CH | (CH + 4) << 4;
  return __byte_perm (__byte_perm (a, b, PAIR), __byte_perm (c, d, PAIR),
      0x5410);
}

/* The thread's window row w (WIN pixels) as channel words: ch[c][q] holds
 * channel FIRST + c of pixels 4q .. 4q + 3; pixels past the window repeat
 * its last one, and a word wholly past it repeats the word before (only
 * taps of 0 reach there). The word of
 * channel c that starts at pixel p is then ch[c][p / 4], shifted by p % 4
 * bytes from the next. */
template <int FIRST, int WIN, int Q>
__device__ __forceinline__ void
channel_words (const uint32_t (&w)[WIN], uint32_t (&ch)[3][Q])
{
#pragma unroll
  for (int q = 0; q < Q; q++) {
    if (4 * q >= WIN) {
#pragma unroll
      for (int c = 0; c < 3; c++)
        ch[c][q] = ch[c][q - 1];
      continue;
    }
    const uint32_t a = w[min (4 * q, WIN - 1)], b = w[min (4 * q + 1, WIN - 1)];
    const uint32_t c = w[min (4 * q + 2, WIN - 1)];
    const uint32_t d = w[min (4 * q + 3, WIN - 1)];
    ch[0][q] = channel_word<FIRST> (a, b, c, d);
    ch[1][q] = channel_word<FIRST + 1> (a, b, c, d);
    ch[2][q] = channel_word<FIRST + 2> (a, b, c, d);
  }
}

/* The word tiles, summing in float (M = FloatMask) or, for masks of small
 * integer taps (cf_conv2d_plan::small_integer), in integers. With taps
 * that fit a signed byte and rows of 3 or 5 taps (M = DotMask), each
 * window row is turned into words of one channel's samples (7 byte
 * permutes for 4 pixels' 3 channels) and a channel sums a mask row with
 * one or two dot products of four bytes: 5x5 masks ran 12% faster at 4K
 * than on pairs, 3x3 4%. Otherwise (M = IntMask) each window word is
 * split once into its two words of halves, bytes 0 and 2, bytes 1 and 3
 * (2 byte permutes, where float windows convert three channels in 6
 * instructions), and each tap costs two integer multiply-adds for the
 * pixel's channels (three float ones). The integer sums are exactly the
 * float ones (integers below 2^22 are exact in float), and so are the
 * results. ROTATE: the kept channel is the first
 * byte (ARGB, xRGB ...), not the last; a template parameter so that every
 * byte selector is an immediate. */
/* Float masks of up to 3 rows: registers capped for 12 blocks an SM
 * (40), which they fit with no spill; left alone, with the column fill
 * (fill_raw_tile), they took 48 (10 blocks) and ran 7% slower (34.2-34.3
 * against 31.8 us at 4K 3x3, one call). The dot products and 5-row float
 * masks would spill; 0 leaves them to the compiler. */
template <typename M, int KH>
constexpr int words_min_blocks = std::is_same_v<M, FloatMask> && KH <= 3 ? 12 : 0;

template <int KW, int KH, bool ROTATE, typename S, typename M>
__global__ void __launch_bounds__ (S::THREADS, (words_min_blocks<M, KH>))
conv2d_fast_words_kernel (Image im, const __grid_constant__ M m)
{
  constexpr int ROWS = S::ROWS;
  constexpr bool DOT = std::is_same_v<M, DotMask>;
  constexpr bool INT = is_int_mask<M> && !DOT;
  constexpr int RX = KW / 2, RY = KH / 2;
  constexpr int IN_ROWS = S::TH + KH - 1;
  constexpr int THREADS = S::THREADS;
  constexpr int WIN = WORDS_PX + 2 * RX;
  /* sums a pixel: its three filtered channels, or two words of halves */
  constexpr int LANES = INT ? 2 : 3;
  /* dot products: packed taps a mask row, channel words a row */
  constexpr int GROUPS = (KW + 3) / 4;
  constexpr int Q = GROUPS + 1;
  using Sum = typename MaskSum<M>::type;
  __shared__ alignas (16) uint32_t tile[IN_ROWS][S::SROW];
  const int x0 = blockIdx.x * S::TW;
  const int y0 = im.row_begin + blockIdx.y * S::TH;
  const int tid = threadIdx.y * S::BX + threadIdx.x;

  /* 1. the tile: pixels x0 - 4 .. x0 + TW + 3, rows y0 - RY .. */
  /* the column fill (fill_raw_tile) for float masks and the 5-row dot
   * products (4K 5x5: 40.1 -> 38.5 us); the 3-row dot products ran 1.5%
   * slower with it (48 registers against 40), and the pairs of halves
   * also took 48 */
  constexpr bool COLUMN_FILL = std::is_same_v<M, FloatMask> || (DOT && KH > 3);
  fill_raw_tile<4, IN_ROWS, S::CHUNKS, THREADS, COLUMN_FILL> (im,
      m.border, x0 - WORDS_HALO, y0 - RY, tid,
      reinterpret_cast<uint8_t *>(tile));
  __syncthreads ();

  /* 2. ROWS rows of 4 pixels */
  const int ox = x0 + threadIdx.x * WORDS_PX;
  const int oy = y0 + threadIdx.y * ROWS;
  if (ox >= im.width || oy >= im.row_end)
    return;
  /* the filtered channels are bytes 0-2, or 1-3 when the kept one leads */
  constexpr int FIRST = ROTATE ? 1 : 0;
  Sum acc[ROWS][WORDS_PX][LANES];
#pragma unroll
  for (int o = 0; o < ROWS; o++)
#pragma unroll
    for (int k = 0; k < WORDS_PX; k++)
#pragma unroll
      for (int c = 0; c < LANES; c++)
        acc[o][k][c] = sum_start (m);
  uint4 kept[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS + KH - 1; r++) {
    uint32_t w[WIN];
    const uint4 own = window_words<RX> (&tile[threadIdx.y * ROWS + r]
        [WORDS_HALO + threadIdx.x * WORDS_PX], w);
    if (r >= RY && r - RY < ROWS)
      kept[r - RY] = own;
    if constexpr (DOT) {
      uint32_t ch[3][Q];
      channel_words<FIRST> (w, ch);
      for_rows_reached<KH, ROWS> (r, [&](int j, int o) {
#pragma unroll
        for (int g = 0; g < GROUPS; g++)
#pragma unroll
          for (int k = 0; k < WORDS_PX; k++)
#pragma unroll
            for (int c = 0; c < 3; c++) {
              const int p = k + 4 * g, q = p / 4, b = p % 4;
              const uint32_t win = b == 0 ? ch[c][q]
                  : __funnelshift_r (ch[c][q], ch[c][q + 1], 8 * b);
              acc[o][k][c] = dot4 (win, m.taps[j][g], acc[o][k][c]);
            }
      });
    } else {
      Sum win[WIN][LANES];
#pragma unroll
      for (int p = 0; p < WIN; p++) {
        if constexpr (INT) {
          win[p][0] = even_bytes (w[p]);
          win[p][1] = odd_bytes (w[p]);
        } else {
          /* each sample one byte permute, as a subnormal (the mask
           * carries the power of two) */
#pragma unroll
          for (int c = 0; c < 3; c++)
            win[p][c] = subnormal_byte (w[p], FIRST + c);
        }
      }
      for_rows_reached<KH, ROWS> (r, [&](int j, int o) {
#pragma unroll
        for (int i = 0; i < KW; i++)
#pragma unroll
          for (int k = 0; k < WORDS_PX; k++)
#pragma unroll
            for (int c = 0; c < LANES; c++)
              acc[o][k][c] = mad (tap (m, j * KW + i), win[k + i][c],
                  acc[o][k][c]);
      });
    }
  }

  /* 3. each row's 16 bytes: the rounded results' low bytes and the kept
   * byte, in memory order */
#pragma unroll
  for (int o = 0; o < ROWS; o++) {
    const int y = oy + o;
    if (y >= im.row_end)
      break;
    const uint32_t src[WORDS_PX] = { kept[o].x, kept[o].y, kept[o].z,
      kept[o].w };
    uint32_t px[WORDS_PX];
#pragma unroll
    for (int k = 0; k < WORDS_PX; k++) {
      float v[3];
      if constexpr (DOT) {
#pragma unroll
        for (int c = 0; c < 3; c++)
          v[c] = int_to_float (acc[o][k][c]);
      } else if constexpr (INT) {
        /* each channel's sum out of its half, in lane order: bytes 0 1 2,
         * or 1 2 3 when the kept byte leads */
        const int ev = acc[o][k][0], od = acc[o][k][1];
        v[0] = int_to_float (ROTATE ? low_half (od) : low_half (ev));
        v[1] = int_to_float (ROTATE ? high_half (ev) : low_half (od));
        v[2] = int_to_float (ROTATE ? high_half (od) : high_half (ev));
      } else {
#pragma unroll
        for (int c = 0; c < 3; c++)
          v[c] = acc[o][k][c];
      }
      if constexpr (INT || DOT) {
        /* three byte permutes: the saturating pack took these kernels from
         * 40 to 48 registers (3x3 dot products 29.5 -> 30.2 us at 4K) */
        uint32_t b[3];
#pragma unroll
        for (int c = 0; c < 3; c++)
          b[c] = rounded_byte (finished (m, v[c]));
        px[k] = pack_kept<ROTATE> (b[0], b[1], b[2], src[k]);
      } else {
        px[k] = rounded_pixel<ROTATE> (finished (m, v[0]),
            finished (m, v[1]), finished (m, v[2]), src[k]);
      }
    }
    store_pixel_words (im, ox, y, px);
  }
}

template <int KW, int KH, typename S, typename M>
static int
launch_shape (const Launch & L, const M & m)
{
  dim3 grid (div_up (L.im.width, S::TW),
      div_up (L.im.row_end - L.im.row_begin, S::TH));
  if (L.im.rotate)
    conv2d_fast_words_kernel<KW, KH, true, S><<<grid, dim3 (S::BX, S::BY),
        0, L.stream>>> (L.im, m);
  else
    conv2d_fast_words_kernel<KW, KH, false, S><<<grid, dim3 (S::BX, S::BY),
        0, L.stream>>> (L.im, m);
  return launch_status ();
}

/* 64 x 16 output tiles of 128 threads: of six shapes (128 or 64 columns,
 * 128 or 256 threads, 1 or 2 rows a thread) the fastest at 1080p and 4K,
 * 4-5% ahead of the 128 x 16 tiles of 256 threads (docs/performance-log.md,
 * "Fewer instructions and fuller SMs for the byte and word tiles"). */
using WordsShape = WordsTile<16, 8, 2>;

template <int KW, int KH, typename M>
static int
launch_words (const Launch & L, const M & m)
{
  return launch_shape<KW, KH, WordsShape> (L, m);
}

template <int KW, int KH>
struct LaunchWords
{
  static int run (const Launch & L, const Mask & m)
  {
    if constexpr (KW > 1)
      if (L.plan->small_integer && byte_taps (m))
        return launch_words<KW, KH> (L, dot_mask (m));
    if (L.plan->small_integer)
      return launch_words<KW, KH> (L, int_mask (m));
    return launch_words<KW, KH> (L, folded_mask (m));
  }
};

int
cf_conv2d_fast_words (const Launch & launch, const Mask & m)
{
  return small_mask<LaunchWords> (launch, m);
}

}  /* namespace cf_conv2d */
