/* The separable variant on four-byte pixels of 8-bit samples (RGBA, BGRx,
 * ARGB, ...) with factors of 11 to 17 taps: both passes on the tensor
 * cores, the column pass straight from a tile of the plane's own bytes.
 *
 * The word kernel (conv2d_separable_words.cu) spends 6 K multiply-adds a
 * pixel, issue-bound; here they are half MMAs, whose cost hardly grows
 * with the factors' length:
 *
 * - Column pass: D = A B with A the band of column taps (16 output rows x
 *   16 input rows, tap j where input row k and output row m are j apart)
 *   and B the tile's samples of one channel (16 input rows x 8 pixels);
 *   16 output rows take two such steps (32 input rows), for factors of up
 *   to 17. A sample byte b in the low byte of a half, the rest zero, is
 *   the half b 2^-24, exact (a subnormal, which the tensor cores take as
 *   it is), so a lane's B register is one channel's bytes of two rows: the
 *   pixel words masked to bytes 0 and 2 (or 1 and 3) and interleaved by a
 *   byte permute give two channels' registers, the third takes a permute
 *   and a mask.
 * - Taps are not exact in half: each is split into a half hi and a half
 *   lo = tap - hi (about 22 bits), after a power of two brings the
 *   largest near 2^14. The column sums, float, are split the same way
 *   and stored as halves hi and lo.
 * - Row pass: D = A B with A the column sums (16 rows x 16 columns, by
 *   ldmatrix) and B the band of row taps (16 columns x 8 output pixels),
 *   hi x hi + hi x lo + lo x hi; the powers of two and the samples' 2^-24
 *   are undone with the offset in one multiply-add.
 * - A block of 8 warps takes 32 x 64 output pixels and stays resident,
 *   walking tiles; the next tile's 16-byte copies (cp.async) land while it
 *   works on the current one. The column pass writes 80 columns of sums
 *   (the tile's and 8 either side); after a barrier each warp takes 16
 *   rows x 16 pixels, the kept byte from the tile, and stores 8 bytes a
 *   lane and row.
 *
 * Against the word kernel at 4K, 15 x 15: 48 against 58 us; the cost is
 * flat in the factors' length (47 us at 3 x 3), so it runs from 11 taps
 * (docs/performance-log.md, "Both separable passes on the tensor cores,
 * from the plane's bytes"). */
#include "conv2d_async_tile.cuh"

#include <cmath>
#include <cuda_fp16.h>

namespace cf_conv2d {

struct SepMmaTile
{
  static constexpr int PIXEL = 4;               /* bytes a pixel */
  static constexpr int THREADS = 256, WARPS = THREADS / 32;
  static constexpr int TW = 64, TH = 32;        /* output pixels, rows */
  static constexpr int HALO = 8;        /* columns either side: radius 8 */
  static constexpr int COLS = TW + 2 * HALO;    /* 80 columns of sums */
  static constexpr int CHUNKS = COLS * PIXEL / 16;      /* copied a row */
  /* 84 words a tile row: rows two apart are 8 banks apart, so that the
   * column pass's loads (8 pixels of 4 rows two apart) meet 32 banks */
  static constexpr int PITCH = (COLS + 4) * PIXEL;
  /* rows a tile buffer holds: two steps of 16 input rows from each block
   * of 16 output rows; those past the mask's reach are zeros */
  static constexpr int BUF_ROWS = TH + 16;
  /* halves a row of column sums: 176 bytes put the 8 rows of an ldmatrix
   * (and of a warp's stores) on 8 different 16-byte bank groups */
  static constexpr int SUM_PITCH = COLS + 8;
  static constexpr int SUM_PLANE = 3 * TH * SUM_PITCH;  /* hi, then lo */
  static constexpr size_t BANDS = 4 * 32 * sizeof (uint4)
      + 8 * 32 * sizeof (uint2);
  static constexpr size_t SHARED = 2 * BUF_ROWS * PITCH
      + 2 * SUM_PLANE * sizeof (__half) + BANDS;
};

constexpr int SEP_MMA_MAX_K = 2 * SepMmaTile::HALO + 1;
/* the column pass's share of 8-column groups among the warps assumes 10
 * groups a block of 16 rows and 8 warps */
static_assert (SepMmaTile::COLS == 80 && SepMmaTile::TH == 32
    && SepMmaTile::WARPS == 8, "column pass units");
/* taps at index j + BAND_CENTRE, j from -24 to 39: zeros outside the
 * factor, where a band's registers look past it */
constexpr int BAND_CENTRE = 24;
constexpr int BAND_TAB = 64;

/* The mask: each factor's taps (the scale folded into the column's) times
 * the power of two that brings its largest near 2^14, as half hi in the
 * low 16 bits and half lo = tap - hi in the high 16; `unscale` undoes both
 * powers and the samples' 2^-24. */
struct SepMmaMask
{
  int border;
  float unscale, offset;
  uint32_t col[BAND_TAB], row[BAND_TAB];
};

/* Halves hi (h = 0) or lo (1) of taps j and j + 1 of a band table, as one
 * register */
__device__ __forceinline__ uint32_t
band_pair (const uint32_t (&tab)[BAND_TAB], int j, int h)
{
  return __byte_perm (tab[BAND_CENTRE + j], tab[BAND_CENTRE + j + 1],
      h ? 0x7632u : 0x5410u);
}

/* A lane's A registers for step s (input rows 16 s ..) of the column
 * band, halves hi (h = 0) or lo (1): a0 = (A[g][2t], A[g][2t + 1]), a1 =
 * rows g + 8, a2 = columns 2t + 8, a3 = both; A[m][k] is the tap j = 16 s
 * + k - m. */
__device__ __forceinline__ uint4
column_band (const uint32_t (&col)[BAND_TAB], int s, int h, int lane)
{
  const int g = lane >> 2, t = lane & 3;
  const int j = 16 * s + 2 * t - g;
  return make_uint4 (band_pair (col, j, h), band_pair (col, j - 8, h),
      band_pair (col, j + 8, h), band_pair (col, j, h));
}

/* A lane's B registers for step s of the row band of output pixels 8 odd
 * .. 8 odd + 7 of a 16-pixel block, halves hi or lo: b0 = (B[2t][g],
 * B[2t + 1][g]), b1 = rows 2t + 8, 2t + 9. Input column k of the step is
 * sums column 16 s + k from the block's (its first output's less HALO),
 * so B[k][n] is row tap 16 s + k - HALO - 8 odd - n + R. */
__device__ __forceinline__ uint2
row_band (const uint32_t (&row)[BAND_TAB], int r, int odd, int s, int h,
    int lane)
{
  const int g = lane >> 2, t = lane & 3;
  const int i = 16 * s + 2 * t - SepMmaTile::HALO - 8 * odd - g + r;
  return make_uint2 (band_pair (row, i, h), band_pair (row, i + 8, h));
}

/* B registers of the three filtered channels (bytes FIRST, FIRST + 1,
 * FIRST + 2 of a pixel) from the pixel's words in two rows, wa in the low
 * half of each, wb in the high: the byte in the low byte of its half. */
template <int FIRST>
__device__ __forceinline__ void
channel_pairs (uint32_t wa, uint32_t wb, uint32_t (&out)[3])
{
  /* bytes FIRST and FIRST + 2 moved to bytes 0 and 2, zeros between */
  const uint32_t ea = FIRST ? odd_bytes (wa) : even_bytes (wa);
  const uint32_t eb = FIRST ? odd_bytes (wb) : even_bytes (wb);
  out[0] = __byte_perm (ea, eb, 0x5410);
  out[2] = __byte_perm (ea, eb, 0x7632);
  constexpr uint32_t L = FIRST + 1, LONE = L | L << 4 | (L + 4) << 8
      | (L + 4) << 12;
  out[1] = __byte_perm (wa, wb, LONE) & 0x00ff00ffu;
}

/* C += A B, the halves hi then lo of A */
__device__ __forceinline__ void
mma_split (float (&c)[4], const uint4 & hi, const uint4 & lo, uint32_t b0,
    uint32_t b1)
{
  const uint32_t ah[4] = { hi.x, hi.y, hi.z, hi.w };
  const uint32_t al[4] = { lo.x, lo.y, lo.z, lo.w };
  mma_16816 (c, ah, b0, b1);
  mma_16816 (c, al, b0, b1);
}

/* Two float sums as halves hi (returned) and lo = sum - hi (in lo), each
 * pair in one register */
__device__ __forceinline__ uint32_t
split_halves (float a, float b, uint32_t & lo)
{
  const __half2 hi = __floats2half2_rn (a, b);
  const float2 back = __half22float2 (hi);
  const __half2 rest = __floats2half2_rn (a - back.x, b - back.y);
  lo = *reinterpret_cast<const uint32_t *>(&rest);
  return *reinterpret_cast<const uint32_t *>(&hi);
}

template <int K, bool ROTATE>
__global__ void __launch_bounds__ (SepMmaTile::THREADS, 3)
conv2d_separable_mma_kernel (Image im, const __grid_constant__ SepMmaMask m,
    int tiles_x, int tiles_y)
{
#if __CUDA_ARCH__ >= 800
  using G = SepMmaTile;
  constexpr int R = K / 2, IN_ROWS = G::TH + K - 1;
  constexpr int FIRST = ROTATE ? 1 : 0;
  extern __shared__ uint4 shared_mem[];
  uint8_t *bufs = reinterpret_cast<uint8_t *>(shared_mem);
  __half *sums = reinterpret_cast<__half *>(bufs + 2 * G::BUF_ROWS
      * G::PITCH);
  uint4 *col_bands = reinterpret_cast<uint4 *>(sums + 2 * G::SUM_PLANE);
  uint2 *row_bands = reinterpret_cast<uint2 *>(col_bands + 4 * 32);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;

  const TileWalk walk (tiles_x);
  int tx, ty;
  walk.first (tx, ty);
  int ftx = tx, fty = ty;       /* the next tile to copy */
  copy_next_tile<G, IN_ROWS> (im, m.border, R, walk, ftx, fty, tiles_y, tid,
      bufs);

  /* while the first copy lands: the rows past the mask's reach, zeros
   * (copies never write them), and the band registers, built a band a
   * warp and read back by all */
  for (int i = tid; i < (G::BUF_ROWS - IN_ROWS) * G::PITCH / 16;
      i += G::THREADS)
    for (int b = 0; b < 2; b++)
      reinterpret_cast<uint4 *>(bufs + b * G::BUF_ROWS * G::PITCH
          + IN_ROWS * G::PITCH)[i] = make_uint4 (0, 0, 0, 0);
  if (warp < 4)
    col_bands[tid] = column_band (m.col, warp >> 1, warp & 1, lane);
  row_bands[tid] = row_band (m.row, R, warp >> 2, (warp >> 1) & 1, warp & 1,
      lane);
  __syncthreads ();
  const uint4 col_hi[2] = { col_bands[lane], col_bands[64 + lane] };
  const uint4 col_lo[2] = { col_bands[32 + lane], col_bands[96 + lane] };

  for (int k = 0; ty < tiles_y; k++) {
    const int x0 = tx * G::TW, y0 = im.row_begin + ty * G::TH;
    walk.next (tx, ty);
    /* this tile's copy is in; every warp is done with the tile before,
     * whose buffer takes the next copy */
    wait_copies<0> ();
    __syncthreads ();
    copy_next_tile<G, IN_ROWS> (im, m.border, R, walk, ftx, fty, tiles_y,
        tid, bufs + ((k + 1) & 1) * G::BUF_ROWS * G::PITCH);
    const uint8_t *buf = bufs + (k & 1) * G::BUF_ROWS * G::PITCH;

    /* 1. column pass: warp w takes output rows 16 (w & 1) .. and sums
     * columns 8 (w >> 1) + 32 i .., i = 0, 1 (and 2 for warps 0 to 3: 20
     * units of 16 x 8); lane (g, t) loads pixel g of input rows 2t, 2t +
     * 1, 2t + 8, 2t + 9 of each step */
    const int mb = warp & 1, col0 = 8 * (warp >> 1);
    const uint8_t *at0 = buf + (16 * mb + 2 * t) * G::PITCH + 4 * (col0 + g);
    __half *sum0 = sums + (16 * mb + g) * G::SUM_PITCH + col0 + 2 * t;
#pragma unroll
    for (int i = 0; i < 3; i++) {
      if (i == 2 && warp >= 4)
        break;
      const uint8_t *at = at0 + 4 * 32 * i;
      float acc[3][4] = { };
#pragma unroll
      for (int s = 0; s < 2; s++) {
        const uint8_t *r = at + 16 * s * G::PITCH;
        const uint32_t w0 = *reinterpret_cast<const uint32_t *>(r);
        const uint32_t w1 = *reinterpret_cast<const uint32_t *>(r
            + G::PITCH);
        const uint32_t w2 = *reinterpret_cast<const uint32_t *>(r
            + 8 * G::PITCH);
        const uint32_t w3 = *reinterpret_cast<const uint32_t *>(r
            + 9 * G::PITCH);
        uint32_t b0[3], b1[3];
        channel_pairs<FIRST> (w0, w1, b0);
        channel_pairs<FIRST> (w2, w3, b1);
#pragma unroll
        for (int c = 0; c < 3; c++)
          mma_split (acc[c], col_hi[s], col_lo[s], b0[c], b1[c]);
      }
      /* D[g][2t], D[g][2t + 1]; rows g + 8: as halves hi and lo, in the
       * row pass's A layout */
#pragma unroll
      for (int c = 0; c < 3; c++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
          __half *at_sum = sum0 + (c * G::TH + 8 * h) * G::SUM_PITCH
              + 32 * i;
          uint32_t lo;
          const uint32_t hi = split_halves (acc[c][2 * h], acc[c][2 * h + 1],
              lo);
          *reinterpret_cast<uint32_t *>(at_sum) = hi;
          *reinterpret_cast<uint32_t *>(at_sum + G::SUM_PLANE) = lo;
        }
    }
    __syncthreads ();

    /* 2. row pass: warp w takes output rows 16 (w & 1) .., pixels 16 (w
     * >> 1) .. as two blocks of 8 (odd 0, 1); per channel D = A B with A
     * the column sums (16 rows x 16 columns a step, from ldmatrix) and B
     * the row band, hi x hi + hi x lo + lo x hi */
    const int rb = 16 * (warp & 1), px = 16 * (warp >> 1);
    const __half *a_row = sums + (rb + (lane & 7) + 8 * ((lane >> 3) & 1))
        * G::SUM_PITCH + px + 8 * (lane >> 4);
    uint32_t lanes[2][4];       /* rounded channels, lane order */
#pragma unroll
    for (int c = 0; c < 3; c++) {
      float acc[2][4] = { };
#pragma unroll
      for (int s = 0; s < 2; s++) {
        uint32_t a_hi[4], a_lo[4];
        ldmatrix_x4 (a_hi, a_row + c * G::TH * G::SUM_PITCH + 16 * s);
        ldmatrix_x4 (a_lo, a_row + c * G::TH * G::SUM_PITCH + 16 * s
            + G::SUM_PLANE);
#pragma unroll
        for (int odd = 0; odd < 2; odd++) {
          const uint2 bh = row_bands[(4 * odd + 2 * s) * 32 + lane];
          const uint2 bl = row_bands[(4 * odd + 2 * s + 1) * 32 + lane];
          mma_16816 (acc[odd], a_hi, bh.x, bh.y);
          mma_16816 (acc[odd], a_hi, bl.x, bl.y);
          mma_16816 (acc[odd], a_lo, bh.x, bh.y);
        }
      }
#pragma unroll
      for (int odd = 0; odd < 2; odd++)
#pragma unroll
        for (int i = 0; i < 4; i++) {
          const uint32_t b = rounded_byte (fmaf (acc[odd][i], m.unscale,
                  m.offset));
          lanes[odd][i] = c ? lanes[odd][i] | b << 8 * c : b;
        }
    }
    /* lane (g, t): rows g and g + 8, pixels 2t and 2t + 1 of each block
     * (8-byte aligned: the destination's rows are); the kept bytes from
     * the tile's row of the output row */
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int o = rb + g + 8 * h, y = y0 + o;
      if (y >= im.row_end)
        continue;
      uint32_t *to = reinterpret_cast<uint32_t *>(im.dst + (size_t) y
          * im.dst_stride) + x0 + px + 2 * t;
      const uint8_t *from = buf + (o + R) * G::PITCH + 4 * (G::HALO + px
          + 2 * t);
#pragma unroll
      for (int odd = 0; odd < 2; odd++) {
        const int x = x0 + px + 8 * odd + 2 * t;
        const uint2 src = *reinterpret_cast<const uint2 *>(from + 32 * odd);
        const uint32_t sel = ROTATE ? 0x2104u : 0x7210u;
        const uint2 out = make_uint2 (__byte_perm (lanes[odd][2 * h], src.x,
                sel), __byte_perm (lanes[odd][2 * h + 1], src.y, sel));
        if (x + 1 < im.width)
          *reinterpret_cast<uint2 *>(to + 8 * odd) = out;
        else if (x < im.width)
          to[8 * odd] = out.x;
      }
    }
  }
#endif
}

/* One factor's taps times the power of two 2^p that brings the largest
 * near 2^14 in half, split into halves hi and lo at index BAND_CENTRE ..;
 * returns p */
static int
band_table (const float *taps, int k, float scale, uint32_t (&tab)[BAND_TAB])
{
  float big = 0.0f;
  for (int j = 0; j < k; j++)
    big = fmaxf (big, fabsf (taps[j] * scale));
  int e = 0;
  if (big > 0.0f)
    frexpf (big, &e);           /* big = f 2^e, 0.5 <= f < 1 */
  for (int j = 0; j < k; j++) {
    tab[BAND_CENTRE + j] = split_tap (ldexpf (taps[j] * scale, 14 - e));
  }
  return 14 - e;
}

/* The factors as the kernel takes them: the scale on the column taps */
static SepMmaMask
sep_mma_mask (const SepMask & s)
{
  SepMmaMask d = { s.border, 1.0f, s.offset, { }, { } };
  const int pc = band_table (s.col, s.k, s.scale, d.col);
  const int pr = band_table (s.row, s.k, 1.0f, d.row);
  d.unscale = ldexpf (1.0f, 24 - pc - pr);
  return d;
}

template <int K>
static int
launch_separable_mma (const Launch & L, const SepMmaMask & m)
{
  using G = SepMmaTile;
  auto kernel = L.im.rotate ? conv2d_separable_mma_kernel<K, true>
      : conv2d_separable_mma_kernel<K, false>;
  int status = allow_shared ((const void *) kernel, G::SHARED);
  if (status != CF_OK)
    return status;
  const int rows = L.im.row_end - L.im.row_begin;
  const int tiles_x = div_up (L.im.width, G::TW);
  const int tiles_y = div_up (rows, G::TH);
  static int per_sm = 0;
  const int blocks = resident_blocks ((const void *) kernel, G::THREADS,
      G::SHARED, tiles_x * tiles_y, per_sm);
  if (blocks < 1)
    return launch_status ();
  kernel<<<blocks, G::THREADS, G::SHARED, L.stream>>> (L.im, m, tiles_x,
      tiles_y);
  return launch_status ();
}

bool
cf_conv2d_separable_mma_takes (const Launch & launch, int k)
{
  int device = 0, major = 0;
  /* 16-byte copies of the source rows, 8-byte stores; half MMAs of this
   * shape need compute capability 8.0 */
  const bool aligned = launch.im.chunk_loads
      && (((uintptr_t) launch.im.dst | launch.im.dst_stride) & 7) == 0;
  /* flat in the factors' length where the word kernel grows: from 11
   * taps it is the faster (4K 9 x 9 46.9 against 45.8 us, 15 x 15 48.2
   * against 58.5) */
  return aligned && k >= 11 && k <= SEP_MMA_MAX_K
      && cudaGetDevice (&device) == cudaSuccess
      && cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
          device) == cudaSuccess && major >= 8;
}

int
cf_conv2d_separable_mma (const Launch & launch, const SepMask & mask)
{
  if (!cf_conv2d_separable_mma_takes (launch, mask.k))
    return CF_ERR_UNSUPPORTED;
  const SepMmaMask m = sep_mma_mask (mask);
  switch (mask.k) {
#define CASE(k) case k: return launch_separable_mma<k> (launch, m);
    CASE (11) CASE (13) CASE (15) CASE (17)
#undef CASE
    default: return CF_ERR_UNSUPPORTED;
  }
}

}  /* namespace cf_conv2d */
