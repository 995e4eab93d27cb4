/* Fast variant: the tiled algorithm tuned for throughput.
 *
 * - The mask is a __grid_constant__ kernel parameter (constant memory); its
 *   width is a template parameter, so each tap of a mask row is an
 *   immediate constant-bank operand of the multiply-add.
 * - Thread coarsening: each thread computes a run of 8 consecutive pixels of
 *   a row, holding a register sliding window: one mask row costs 8 + KW - 1
 *   shared loads for 8 * KW multiply-adds per channel.
 * - Tiles of 128 x 16 pixels: 16 rows rather than 32 halve the shared
 *   memory of a block, so two to three times more blocks share an SM and hide
 *   each other's memory latency (measured 20-25% faster for masks up to 15
 *   wide, despite the larger halo).
 * - The tile is converted to float once, when loaded; 4-channel pixels load
 *   as one 32-bit word, and runs are stored as 16-byte vectors.
 * - Shared rows are padded (conv2d_tile.cuh) so the coarsened threads do not
 *   conflict on banks.
 *
 * Cost: (128 + KW - 1)(16 + KH - 1) pixel loads per 128 x 16 tile (the halo
 * overhead), one store per pixel, KW * KH multiply-adds per channel. */
#include "conv2d_tile.cuh"

namespace cf_conv2d {

constexpr int FAST_BX = 16, FAST_BY = 16;       /* 256 threads */
constexpr int FAST_TW = FAST_BX * RUN;  /* 128 output columns per tile */
constexpr int FAST_TH = FAST_BY;        /* 16 output rows, one per thread row */
/* Blocks an SM should hold at once: registers are capped at 64 a thread so
 * that registers do not limit residency below what shared memory allows
 * (4 tiles of masks up to 9 rows, measured 73 registers uncapped). */
constexpr int FAST_MIN_BLOCKS = 4;

template <typename T, int C, int KW, int NM>
__global__ void __launch_bounds__ (FAST_BX * FAST_BY, FAST_MIN_BLOCKS)
conv2d_fast_kernel (Image im, const __grid_constant__ Mask m)
{
  constexpr int NF = FILTERED_LANES<C>;
  constexpr int COLS = FAST_TW + KW - 1;
  constexpr int SROW = padded_row (COLS);
  extern __shared__ float4 smem[];
  Vec<C> *tile = reinterpret_cast<Vec<C> *>(smem);
  int x0 = blockIdx.x * FAST_TW;
  int y0 = im.row_begin + blockIdx.y * FAST_TH;
  int tid = threadIdx.y * FAST_BX + threadIdx.x;

  /* load the input tile, halo included */
  fill_tile<T, C, COLS, SROW> (im, m.border, tile, x0 - m.rx, y0 - m.ry,
      FAST_TH + m.kh - 1, tid, FAST_BX * FAST_BY);
  __syncthreads ();

  /* compute and store: a run of RUN pixels of row ty */
  int c0 = threadIdx.x * RUN;
  int oy = threadIdx.y;
  int x = x0 + c0, y = y0 + oy;
  if (x >= im.width || y >= im.row_end)
    return;
  float a[RUN][NF] = { }, b[RUN][NF] = { };
  const Vec<C> *run = tile + oy * SROW + padded (c0);
  for (int j = 0; j < m.kh; j++) {
    const Vec<C> *srow = run + j * SROW;
    const float *wa = &m.taps[0][j * KW];
    const float *wb = &m.taps[1][j * KW];
#pragma unroll
    for (int i = 0; i < KW; i++) {
#pragma unroll
      for (int k = 0; k < RUN; k++) {
        Vec<C> v = srow[padded (k + i)];
#pragma unroll
        for (int l = 0; l < NF; l++) {
          a[k][l] = fmaf (wa[i], lane (v, l), a[k][l]);
          if (NM == 2)
            b[k][l] = fmaf (wb[i], lane (v, l), b[k][l]);
        }
      }
    }
  }
  const Vec<C> *center_row = tile + (oy + m.ry) * SROW;
  float kept[RUN];
#pragma unroll
  for (int k = 0; k < RUN; k++)
    kept[k] = C == 4 ? lane (center_row[padded (c0 + m.rx + k)], 3) : 0.0f;
  store_run<T, C, NM, NF, RUN> (im, m, x, y, a, b, kept);
}

template <typename T, int C, int KW, int NM>
static int
launch_fast (const Launch & L, const Mask & m)
{
  constexpr int SROW = padded_row (FAST_TW + KW - 1);
  auto kernel = conv2d_fast_kernel<T, C, KW, NM>;
  int rows = L.im.row_end - L.im.row_begin;
  size_t bytes = (size_t) (FAST_TH + m.kh - 1) * SROW * sizeof (Vec<C>);
  int status = allow_shared ((const void *) kernel, bytes);
  if (status != CF_OK)
    return status;
  dim3 grid (div_up (L.im.width, FAST_TW), div_up (rows, FAST_TH));
  kernel<<<grid, dim3 (FAST_BX, FAST_BY), bytes, L.stream>>> (L.im, m);
  return launch_status ();
}

template <typename T, int C>
struct Fast
{
  static int run (const Launch & L)
  {
    Mask m = make_mask (L.plan);
    int two = L.plan->magnitude;
    if constexpr (sizeof (T) == 1 && (C == 1 || C == 4)) {
      /* 8-bit masks of 5 rows and more on aligned rows: sums on the
       * tensor cores from the plane's bytes (conv2d_fast_raw_mma.cu) */
      int status = cf_conv2d_fast_raw_mma (L, m, C);
      if (status != CF_ERR_UNSUPPORTED)
        return status;
    }
    if constexpr (sizeof (T) == 1 && C == 1) {
      /* one-byte planes, small masks: byte tiles
       * (conv2d_fast_bytes.cu) */
      int status = cf_conv2d_fast_bytes (L, m);
      if (status == CF_ERR_UNSUPPORTED)
        /* larger masks: sums on the tensor cores
         * (conv2d_fast_mma.cu) */
        status = cf_conv2d_fast_mma (L, m, 1);
      if (status != CF_ERR_UNSUPPORTED)
        return status;
    }
    if constexpr (sizeof (T) == 1 && C == 4) {
      /* four-byte pixels, small masks: tiles of words
       * (conv2d_fast_words.cu) */
      int status = cf_conv2d_fast_words (L, m);
      if (status == CF_ERR_UNSUPPORTED)
        /* larger masks: sums on the tensor cores
         * (conv2d_fast_mma.cu) */
        status = cf_conv2d_fast_mma (L, m, 4);
      if (status != CF_ERR_UNSUPPORTED)
        return status;
    }
    switch (L.plan->kw) {
#define CASE(k) case k: return two ? launch_fast<T, C, k, 2> (L, m) \
                                   : launch_fast<T, C, k, 1> (L, m);
      CF_ODD_SIZES (CASE)
#undef CASE
      default: return CF_ERR_INVALID;
    }
  }
};

int
cf_conv2d_fast (const Launch & launch, const cf_plane_format * f)
{
  return dispatch_layout<Fast> (f, launch);
}

}  /* namespace cf_conv2d */
