/* Tiled variant, halo in shared memory: the block is as large as the input
 * tile (output tile + mask - 1 in each direction). Every thread loads one
 * input pixel, halo included, then the threads of the output tile compute
 * from shared memory only. Global reads per output pixel fall from kw * kh
 * to (TILE + kw - 1)(TILE + kh - 1) / TILE^2, at the price of idle threads
 * (all but the output tile's) during the compute phase. */
#include "conv2d_common.cuh"

namespace cf_conv2d {

constexpr int TILED_IN = 32;    /* input tile edge, = block edge */

template <typename T, int C, int NM>
__global__ void __launch_bounds__ (TILED_IN * TILED_IN)
conv2d_tiled_kernel (Image im, const __grid_constant__ Mask m)
{
  constexpr int NF = FILTERED_LANES<C>;
  __shared__ Vec<C> tile[TILED_IN][TILED_IN];
  int out_w = TILED_IN - m.kw + 1, out_h = TILED_IN - m.kh + 1;
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * out_w + tx;
  int y = im.row_begin + blockIdx.y * out_h + ty;
  float a[NF] = { }, b[NF] = { };

  /* load: one input pixel per thread, halo included */
  tile[ty][tx] = load_px_border<T, C> (im, m.border, x - m.rx, y - m.ry);
  __syncthreads ();

  /* compute: the out_w x out_h threads at the tile's top left */
  if (tx >= out_w || ty >= out_h || x >= im.width || y >= im.row_end)
    return;
  for (int j = 0; j < m.kh; j++) {
    for (int i = 0; i < m.kw; i++) {
      accumulate<C, NM> (a, b, m, j * m.kw + i, tile[ty + j][tx + i]);
    }
  }
  store_result<T, C, NM> (im, m, x, y, a, b, tile[ty + m.ry][tx + m.rx]);
}

template <typename T, int C>
struct Tiled
{
  static int run (const Launch & L)
  {
    Mask m = make_mask (L.plan);
    int out_w = TILED_IN - m.kw + 1, out_h = TILED_IN - m.kh + 1;
    dim3 block (TILED_IN, TILED_IN);
    dim3 grid (div_up (L.im.width, out_w),
        div_up (L.im.row_end - L.im.row_begin, out_h));
    if (L.plan->magnitude)
      conv2d_tiled_kernel<T, C, 2><<<grid, block, 0, L.stream>>> (L.im, m);
    else
      conv2d_tiled_kernel<T, C, 1><<<grid, block, 0, L.stream>>> (L.im, m);
    return launch_status ();
  }
};

int
cf_conv2d_tiled (const Launch & launch, const cf_plane_format * f)
{
  return dispatch_layout<Tiled> (f, launch);
}

}  /* namespace cf_conv2d */
