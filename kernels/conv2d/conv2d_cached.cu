/* Cached variant: the block is the output tile. Each thread loads its own
 * pixel into shared memory; taps that fall inside the tile read shared
 * memory, the halo is read from global memory, where the L1/L2 caches hold
 * it because neighbouring blocks load the same pixels as their interior.
 * No idle threads, a simpler load phase, a branch per tap. */
#include "conv2d_common.cuh"

namespace cf_conv2d {

constexpr int CACHED_BX = 32, CACHED_BY = 16;

template <typename T, int C, int NM>
__global__ void __launch_bounds__ (CACHED_BX * CACHED_BY)
conv2d_cached_kernel (Image im, const __grid_constant__ Mask m)
{
  constexpr int NF = FILTERED_LANES<C>;
  __shared__ Vec<C> tile[CACHED_BY][CACHED_BX];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x0 = blockIdx.x * CACHED_BX, y0 = im.row_begin + blockIdx.y * CACHED_BY;
  int x = x0 + tx, y = y0 + ty;
  /* tile cells that hold a real pixel */
  int valid_w = min (CACHED_BX, im.width - x0);
  int valid_h = min (CACHED_BY, im.height - y0);
  float a[NF] = { }, b[NF] = { };

  if (tx < valid_w && ty < valid_h)
    tile[ty][tx] = load_px<T, C> (im, x, y);
  __syncthreads ();

  if (x >= im.width || y >= im.row_end)
    return;
  for (int j = 0; j < m.kh; j++) {
    int sy = ty + j - m.ry;
    for (int i = 0; i < m.kw; i++) {
      int sx = tx + i - m.rx;
      Vec<C> v;
      if ((unsigned) sx < (unsigned) valid_w && (unsigned) sy < (unsigned) valid_h)
        v = tile[sy][sx];
      else
        v = load_px_border<T, C> (im, m.border, x0 + sx, y0 + sy);
      accumulate<C, NM> (a, b, m, j * m.kw + i, v);
    }
  }
  store_result<T, C, NM> (im, m, x, y, a, b, tile[ty][tx]);
}

template <typename T, int C>
struct Cached
{
  static int run (const Launch & L)
  {
    Mask m = make_mask (L.plan);
    dim3 block (CACHED_BX, CACHED_BY);
    dim3 grid (div_up (L.im.width, CACHED_BX),
        div_up (L.im.row_end - L.im.row_begin, CACHED_BY));
    if (L.plan->magnitude)
      conv2d_cached_kernel<T, C, 2><<<grid, block, 0, L.stream>>> (L.im, m);
    else
      conv2d_cached_kernel<T, C, 1><<<grid, block, 0, L.stream>>> (L.im, m);
    return launch_status ();
  }
};

int
cf_conv2d_cached (const Launch & launch, const cf_plane_format * f)
{
  return dispatch_layout<Cached> (f, launch);
}

}  /* namespace cf_conv2d */
