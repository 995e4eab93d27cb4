/* Basic variant: one thread per output pixel, every tap read straight from
 * global memory (kw * kh loads per pixel, served by the L1/L2 caches). The
 * baseline the tiled variants are measured against. */
#include "conv2d_common.cuh"

namespace cf_conv2d {

constexpr int BASIC_BX = 32, BASIC_BY = 8;

template <typename T, int C, int NM>
__global__ void __launch_bounds__ (BASIC_BX * BASIC_BY)
conv2d_basic_kernel (Image im, const __grid_constant__ Mask m)
{
  constexpr int NF = FILTERED_LANES<C>;
  int x = blockIdx.x * BASIC_BX + threadIdx.x;
  int y = im.row_begin + blockIdx.y * BASIC_BY + threadIdx.y;
  float a[NF] = { }, b[NF] = { };

  if (x >= im.width || y >= im.row_end)
    return;
  for (int j = 0; j < m.kh; j++) {
    for (int i = 0; i < m.kw; i++) {
      Vec<C> v = load_px_border<T, C> (im, m.border, x + i - m.rx,
          y + j - m.ry);
      accumulate<C, NM> (a, b, m, j * m.kw + i, v);
    }
  }
  store_result<T, C, NM> (im, m, x, y, a, b, load_px<T, C> (im, x, y));
}

template <typename T, int C>
struct Basic
{
  static int run (const Launch & L)
  {
    Mask m = make_mask (L.plan);
    dim3 block (BASIC_BX, BASIC_BY);
    dim3 grid (div_up (L.im.width, BASIC_BX),
        div_up (L.im.row_end - L.im.row_begin, BASIC_BY));
    if (L.plan->magnitude)
      conv2d_basic_kernel<T, C, 2><<<grid, block, 0, L.stream>>> (L.im, m);
    else
      conv2d_basic_kernel<T, C, 1><<<grid, block, 0, L.stream>>> (L.im, m);
    return launch_status ();
  }
};

int
cf_conv2d_basic (const Launch & launch, const cf_plane_format * f)
{
  return dispatch_layout<Basic> (f, launch);
}

}  /* namespace cf_conv2d */
