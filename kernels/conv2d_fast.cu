/* Fast variant: the tiled algorithm tuned for throughput.
 *
 * - The mask is a __grid_constant__ kernel parameter (constant memory); its
 *   width is a template parameter, so each tap of a mask row is an
 *   immediate constant-bank operand of the multiply-add.
 * - Thread coarsening: each thread computes a run of 8 consecutive pixels of
 *   a row (and `cy` rows), holding a register sliding window: one mask row
 *   costs 8 + KW - 1 shared loads for 8 * KW multiply-adds per channel.
 * - The tile is converted to float once, when loaded; 4-channel pixels load
 *   as one 32-bit word, and runs are stored as 16-byte vectors.
 * - Shared rows are padded (conv2d_tile.cuh) so the coarsened threads do not
 *   conflict on banks.
 *
 * Cost: (TW + KW - 1)(TH + KH - 1) pixel loads per TW x TH tile (the halo
 * overhead), one store per pixel, KW * KH multiply-adds per channel. */
#include "conv2d_tile.cuh"

namespace cf {

constexpr int FAST_BX = 16, FAST_BY = 16;       /* 256 threads */
constexpr int FAST_TW = FAST_BX * RUN;  /* 128 output columns per tile */

template <typename T, int C, int KW, int NM>
__global__ void __launch_bounds__ (FAST_BX * FAST_BY)
conv2d_fast_kernel (Image im, const __grid_constant__ Mask m, int cy)
{
  constexpr int NF = FILTERED_LANES<C>;
  constexpr int COLS = FAST_TW + KW - 1;
  constexpr int SROW = padded_row (COLS);
  extern __shared__ float4 smem[];
  Vec<C> *tile = reinterpret_cast<Vec<C> *>(smem);
  int th = FAST_BY * cy;
  int x0 = blockIdx.x * FAST_TW;
  int y0 = im.row_begin + blockIdx.y * th;
  int tid = threadIdx.y * FAST_BX + threadIdx.x;

  /* load the input tile, halo included */
  fill_tile<T, C, COLS, SROW> (im, m.border, tile, x0 - m.rx, y0 - m.ry,
      th + m.kh - 1, tid, FAST_BX * FAST_BY);
  __syncthreads ();

  /* compute and store: runs of RUN pixels on rows ty, ty + 16, ... */
  int c0 = threadIdx.x * RUN;
  int x = x0 + c0;
  if (x >= im.width)
    return;
  for (int r = 0; r < cy; r++) {
    int oy = threadIdx.y + r * FAST_BY;
    int y = y0 + oy;
    float a[RUN][NF] = { }, b[RUN][NF] = { };
    const Vec<C> *run = tile + oy * SROW + padded (c0);

    if (y >= im.row_end)
      return;
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
    store_run<T, C, NM, NF> (im, m, x, y, a, b,
        tile + (oy + m.ry) * SROW, c0 + m.rx);
  }
}

template <typename T, int C, int KW, int NM>
static int
launch_fast (const Launch & L, const Mask & m)
{
  constexpr int SROW = padded_row (FAST_TW + KW - 1);
  auto kernel = conv2d_fast_kernel<T, C, KW, NM>;
  int rows = L.im.row_end - L.im.row_begin;
  int limit = max_shared_per_block ();
  int cy = 2;                   /* 32 rows per tile when it fits */
  size_t bytes;

  for (;; cy--) {
    bytes = (size_t) (FAST_BY * cy + m.kh - 1) * SROW * sizeof (Vec<C>);
    if (bytes <= (size_t) limit || cy == 1)
      break;
  }
  int status = allow_shared ((const void *) kernel, bytes);
  if (status != CF_OK)
    return status;
  dim3 grid (div_up (L.im.width, FAST_TW), div_up (rows, FAST_BY * cy));
  kernel<<<grid, dim3 (FAST_BX, FAST_BY), bytes, L.stream>>> (L.im, m, cy);
  return launch_status ();
}

template <typename T, int C>
struct Fast
{
  static int run (const Launch & L)
  {
    Mask m = make_mask (L.plan);
    int two = L.plan->magnitude;
    switch (L.plan->kw) {
#define CASE(k) case k: return two ? launch_fast<T, C, k, 2> (L, m) \
                                   : launch_fast<T, C, k, 1> (L, m);
      CF_ODD_SIZES (CASE)
#undef CASE
      default: return CF_ERR_INVALID;
    }
  }
};

}  /* namespace cf */

int
cf_conv2d_fast (const cf::Launch & launch, const cf_plane_format * f)
{
  return cf::dispatch_layout<cf::Fast> (f, launch);
}
