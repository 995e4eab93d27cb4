/* The separable variant on four-byte pixels of 8-bit samples (RGBA, BGRx,
 * ARGB, xBGR ...): the column pass straight from the plane, the row pass
 * through shared memory.
 *
 * 1. Column pass. A thread takes one column of the tile, halo columns
 *    included, and walks down its SW_TH + K - 1 input rows one word at a
 *    time: each word's three filtered bytes are converted once and added
 *    into every output row they reach, in registers. The column's SW_TH
 *    sums per channel go to shared memory as floats, a plane per channel.
 * 2. Row pass. A warp takes a tile row, each thread 8 output pixels: it
 *    reads its window of 8 + K - 1 column sums per channel as 16-byte
 *    loads, rounds its results to bytes, packs them with the kept byte of
 *    the source pixel and stores 32 bytes.
 *
 * Against the float tile of the generic separable kernel (16 bytes a
 * pixel, written twice and read by both passes), shared memory holds and
 * serves 12 bytes a pixel once, and each input word is converted once per
 * tile, one byte permute a sample (a subnormal, subnormal_byte()). Per
 * output pixel: 3 K multiply-adds per pass, 3 (SW_TH + K - 1) / SW_TH
 * conversions, 3 shared stores and 3 (8 + K + 2) / 32 16-byte shared
 * loads. The mask's scale is folded into the column taps and its offset
 * starts the row sums.
 *
 * Measured on an H100 at 4K, 15 x 15: 58.5 us, against 93 for the float
 * tile; issue-bound (the multiply-adds are 720 of a thread's ~970
 * instructions), so tiles of 8 rows at 48 registers, 5 blocks an SM, beat
 * 16 rows (fewer conversions, 62.5 us at 80 registers). */
#include "conv2d_tile.cuh"

namespace cf_conv2d {

constexpr int SW_THREADS = 256;
constexpr int SW_PX = 8;                /* row pass: output pixels a thread */
constexpr int SW_LANES = 32 * SW_PX;    /* pixels a warp's row pass covers */
/* Output columns of a tile: the tile's columns and its halo, rounded up to
 * 16, are at most one a thread, so that no warp takes a second column in
 * the column pass while the others wait for it at the barrier. */
__host__ __device__ constexpr int
separable_words_tw (int k)
{
  return SW_THREADS - (k / 2 * 2 + 15) / 16 * 16;
}
constexpr int SW_TH = 8;                /* output rows */
/* Shared columns kept either side of the tile's: the largest radius (15),
 * rounded up so that each row's windows start on 16-byte cells. */
constexpr int SW_HALO = 16;
constexpr int SW_SROW = SW_LANES + 2 * SW_HALO; /* floats a shared row */
constexpr size_t SW_SHARED = 3 * SW_TH * SW_SROW * sizeof (float);

/* Shared position of float s of a row. The row pass's threads read 32 bytes
 * apart, which would put two threads of each 16-byte access phase on the
 * same banks; swapping the 16-byte cells in pairs in every other group of
 * 8 cells spreads the phase over all 32 banks. */
__device__ __forceinline__ int
swizzled (int s)
{
  return s ^ (((s >> 5) & 1) << 2);
}

/* The source row y of the plane extended by the border mode, or NULL
 * (a CONSTANT border's zeros). Out of line: only blocks at the top and
 * bottom of the plane come here. */
__device__ __noinline__ const uint8_t *
border_row (const uint8_t * src, size_t stride, int height, int border, int y)
{
  int by = cf_border_index (y, height, (cf_border) border);
  return by < 0 ? nullptr : src + (size_t) by * stride;
}

/* Blocks an SM should hold: 5 (48 registers) measured faster than 4 (64)
 * or 3 (80) at 15 taps; from 21 taps the row pass's window needs more. */
__host__ __device__ constexpr int
separable_words_blocks (int k)
{
  return k <= 19 ? 5 : 4;
}

template <int K, bool ROTATE>
__global__ void __launch_bounds__ (SW_THREADS, separable_words_blocks (K))
conv2d_separable_words_kernel (Image im, const __grid_constant__ SepMask m)
{
  constexpr int R = K / 2, IN_ROWS = SW_TH + K - 1;
  constexpr int FIRST = ROTATE ? 1 : 0;   /* first filtered byte */
  constexpr int TW = separable_words_tw (K);
  extern __shared__ float4 smem[];
  float *sums = reinterpret_cast<float *>(smem);  /* [3][SW_TH][SW_SROW] */
  const int x0 = blockIdx.x * TW;
  const int y0 = im.row_begin + blockIdx.y * SW_TH;
  const bool inner_rows = y0 - R >= 0 && y0 + SW_TH + R <= im.height;

  /* 1. column pass over tile columns c: plane column x0 - R + c */
  for (int c = threadIdx.x; c < TW + 2 * R; c += SW_THREADS) {
    const int bx = cf_border_index (x0 - R + c, im.width,
        (cf_border) m.border);
    /* every load is issued before the first sum waits for one */
    uint32_t w[IN_ROWS];
    if (inner_rows && im.word_loads && bx >= 0) {
      const uint8_t *p = im.src + (size_t) (y0 - R) * im.src_stride
          + 4 * (size_t) bx;
#pragma unroll
      for (int r = 0; r < IN_ROWS; r++)
        w[r] = __ldg (reinterpret_cast<const uint32_t *>(p
                + (size_t) r * im.src_stride));
    } else {
#pragma unroll
      for (int r = 0; r < IN_ROWS; r++) {
        const uint8_t *row = border_row (im.src, im.src_stride, im.height,
            m.border, y0 - R + r);
        w[r] = row && bx >= 0 ? load_word (row, bx, im.word_loads) : 0u;
      }
    }
    float acc[SW_TH][3] = { };
#pragma unroll
    for (int r = 0; r < IN_ROWS; r++) {
      float v[3];
#pragma unroll
      for (int ch = 0; ch < 3; ch++)
        v[ch] = subnormal_byte (w[r], FIRST + ch);
      /* input row r is tap j of output row r - j */
#pragma unroll
      for (int j = 0; j < K; j++) {
        const int o = r - j;
        if (o < 0 || o >= SW_TH)
          continue;
#pragma unroll
        for (int ch = 0; ch < 3; ch++)
          acc[o][ch] = fmaf (m.col[j], v[ch], acc[o][ch]);
      }
    }
    const int s = swizzled (c - R + SW_HALO);
#pragma unroll
    for (int o = 0; o < SW_TH; o++)
#pragma unroll
      for (int ch = 0; ch < 3; ch++)
        sums[(ch * SW_TH + o) * SW_SROW + s] = acc[o][ch];
  }
  __syncthreads ();

  /* 2. row pass: warp w takes rows w, w + 8 ...; lane l pixels 8 l .. */
  constexpr int SKEW = SW_HALO - R;     /* shared float of tap 0, pixel 0 */
  constexpr int LEAD = SKEW % 4;        /* ... within its 16-byte cell */
  constexpr int CELLS = (LEAD + SW_PX + K - 1 + 3) / 4;
  const int lane = threadIdx.x % 32;
  const int ox = x0 + lane * SW_PX;
  if (lane * SW_PX >= TW || ox >= im.width)
    return;
  for (int o = threadIdx.x / 32; o < SW_TH; o += SW_THREADS / 32) {
    const int y = y0 + o;
    if (y >= im.row_end)
      break;
    /* rounded bytes, so that the first two channels' can be paired
     * before the third's come (rounded_pixel() holds all three as values:
     * 40-104 bytes of spills) */
    uint32_t b[3][SW_PX];
#pragma unroll
    for (int ch = 0; ch < 3; ch++) {
      const float *srow = sums + (ch * SW_TH + o) * SW_SROW;
      float win[4 * CELLS];
#pragma unroll
      for (int q = 0; q < CELLS; q++) {
        const float4 f = *reinterpret_cast<const float4 *>(srow
            + swizzled (lane * SW_PX + SKEW - LEAD + 4 * q));
        win[4 * q] = f.x;
        win[4 * q + 1] = f.y;
        win[4 * q + 2] = f.z;
        win[4 * q + 3] = f.w;
      }
      float acc[SW_PX];
#pragma unroll
      for (int k = 0; k < SW_PX; k++)
        acc[k] = m.offset;
#pragma unroll
      for (int i = 0; i < K; i++)
#pragma unroll
        for (int k = 0; k < SW_PX; k++)
          acc[k] = fmaf (m.row[i], win[LEAD + k + i], acc[k]);
#pragma unroll
      for (int k = 0; k < SW_PX; k++)
        b[ch][k] = rounded_byte (acc[k]);
    }
    /* the kept bytes: the source pixels, again (from L2) */
    const uint8_t *srow = im.src + (size_t) y * im.src_stride;
    uint32_t src[SW_PX];
    if (im.chunk_loads && ox + SW_PX <= im.width) {
      const uint4 *p = reinterpret_cast<const uint4 *>(srow + 4 * (size_t) ox);
      const uint4 u = __ldg (p), v = __ldg (p + 1);
      src[0] = u.x; src[1] = u.y; src[2] = u.z; src[3] = u.w;
      src[4] = v.x; src[5] = v.y; src[6] = v.z; src[7] = v.w;
    } else {
#pragma unroll
      for (int k = 0; k < SW_PX; k++)
        src[k] = ox + k < im.width ? load_word (srow, ox + k, im.word_loads)
            : 0u;
    }
    uint32_t px[SW_PX];
#pragma unroll
    for (int k = 0; k < SW_PX; k++)
      px[k] = pack_kept<ROTATE> (b[0][k], b[1][k], b[2][k], src[k]);
    store_pixel_words (im, ox, y, px);
  }
}

template <int K>
static int
launch_separable_words (const Launch & L, const SepMask & m)
{
  auto kernel = L.im.rotate ? conv2d_separable_words_kernel<K, true>
      : conv2d_separable_words_kernel<K, false>;
  int status = allow_shared ((const void *) kernel, SW_SHARED);
  if (status != CF_OK)
    return status;
  dim3 grid (div_up (L.im.width, separable_words_tw (K)),
      div_up (L.im.row_end - L.im.row_begin, SW_TH));
  kernel<<<grid, SW_THREADS, SW_SHARED, L.stream>>> (L.im, m);
  return launch_status ();
}

int
cf_conv2d_separable_words (const Launch & launch, const SepMask & mask)
{
  /* the scale rides on the column taps, the offset starts the row sums;
   * the column pass takes its samples as subnormals (subnormal_byte()), so
   * the column taps carry 2^E and the row taps undo it */
  SepMask m = mask;
  const int E = subnormal_tap_exp (largest_scaled (m.col, m.k,
          m.scale));
  for (int j = 0; j < m.k; j++) {
    m.col[j] = scaled_float ((double) m.col[j] * m.scale, E);
    m.row[j] = scaled_float (m.row[j], SUBNORMAL_EXP - E);
  }
  switch (m.k) {
#define CASE(k) case k: return launch_separable_words<k> (launch, m);
    CF_ODD_SIZES (CASE)
#undef CASE
    default: return CF_ERR_INVALID;
  }
}

}  /* namespace cf_conv2d */
