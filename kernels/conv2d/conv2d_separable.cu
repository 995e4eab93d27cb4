/* Separable variant for rank-1 masks (box, Gaussian, Sobel x/y, ...):
 * M[j][i] = col[j] * row[i], so the 2D sum is a row pass followed by a
 * column pass, kw + kh multiply-adds per channel instead of kw * kh.
 *
 * Both passes run in one kernel, through shared memory, so the image is read
 * and written once, as in the fast variant:
 *   1. load the input tile with its halo, as float;
 *   2. row pass: each group of 8 threads filters one tile
 *      row into registers, then writes the results back over the same row
 *      (a row is only touched by its own threads, so a warp barrier
 *      suffices);
 *   3. column pass down the row-filtered tile, store.
 * The mask is padded with zeros to K x K, K = max(kw, kh), so one template
 * parameter covers every shape. */
#include "conv2d_tile.cuh"

namespace cf_conv2d {

constexpr int SEP_TW = 64;      /* output columns per tile: 8 runs */
constexpr int SEP_TH = 32;      /* output rows per tile */
constexpr int SEP_THREADS = 256;
constexpr int SEP_RUNS = SEP_TW / RUN;  /* threads per tile row, row pass */
constexpr int SEP_GROUPS = SEP_THREADS / SEP_TW;        /* column pass */
constexpr int SEP_CY = SEP_TH / SEP_GROUPS;     /* rows per thread, column pass */

template <typename T, int C, int K>
__global__ void __launch_bounds__ (SEP_THREADS)
conv2d_separable_kernel (Image im, const __grid_constant__ SepMask m)
{
  constexpr int NF = FILTERED_LANES<C>;
  constexpr int R = K / 2;
  constexpr int COLS = SEP_TW + K - 1, ROWS = SEP_TH + K - 1;
  constexpr int SROW = padded_row (COLS);
  extern __shared__ float4 smem[];
  Vec<C> *tile = reinterpret_cast<Vec<C> *>(smem);
  int x0 = blockIdx.x * SEP_TW;
  int y0 = im.row_begin + blockIdx.y * SEP_TH;
  int tid = threadIdx.x;

  /* 1. load the input tile, halo included */
  fill_tile<T, C, COLS, SROW> (im, m.border, tile, x0 - R, y0 - R, ROWS,
      tid, SEP_THREADS);
  __syncthreads ();

  /* 2. row pass, in place: row r, columns c0 .. c0 + 7 */
  {
    int c0 = (tid % SEP_RUNS) * RUN;
    for (int base = 0; base < ROWS; base += SEP_THREADS / SEP_RUNS) {
      int r = base + tid / SEP_RUNS;
      bool active = r < ROWS;
      Vec<C> out[RUN];
      if (active) {
        const Vec<C> *src = tile + r * SROW + padded (c0);
        float a[RUN][NF] = { };
#pragma unroll
        for (int i = 0; i < K; i++) {
#pragma unroll
          for (int k = 0; k < RUN; k++) {
            Vec<C> v = src[padded (k + i)];
#pragma unroll
            for (int l = 0; l < NF; l++)
              a[k][l] = fmaf (m.row[i], lane (v, l), a[k][l]);
          }
        }
#pragma unroll
        for (int k = 0; k < RUN; k++) {
          /* a kept lane travels with its pixel, from the centre tap */
          out[k] = src[padded (k + R)];
#pragma unroll
          for (int l = 0; l < NF; l++)
            set_lane (out[k], l, a[k][l]);
        }
      }
      __syncwarp ();
      if (active) {
#pragma unroll
        for (int k = 0; k < RUN; k++)
          tile[r * SROW + padded (c0 + k)] = out[k];
      }
    }
  }
  __syncthreads ();

  /* 3. column pass: column c, rows oy .. oy + SEP_CY - 1 */
  int c = tid % SEP_TW;
  int oy = (tid / SEP_TW) * SEP_CY;
  int x = x0 + c;
  if (x >= im.width)
    return;
  float a[SEP_CY][NF] = { };
  const Vec<C> *src = tile + oy * SROW + padded (c);
#pragma unroll
  for (int j = 0; j < K; j++) {
#pragma unroll
    for (int k = 0; k < SEP_CY; k++) {
      Vec<C> v = src[(k + j) * SROW];
#pragma unroll
      for (int l = 0; l < NF; l++)
        a[k][l] = fmaf (m.col[j], lane (v, l), a[k][l]);
    }
  }
#pragma unroll
  for (int k = 0; k < SEP_CY; k++) {
    int y = y0 + oy + k;
    if (y >= im.row_end)
      break;
    uint32_t s[4];
#pragma unroll
    for (int l = 0; l < NF; l++)
      s[l] = finish<T, 1> (a[k][l], 0.0f, m.scale, m.offset);
    if (C == 4)
      s[3] = (uint32_t) lane (src[(k + R) * SROW], 3);
    store_px<T, C> (im, x, y, pack_px<T, C> (s, im.rotate));
  }
}

SepMask
make_sep_mask (const cf_conv2d_plan * p)
{
  SepMask m = { };
  int k = p->kw > p->kh ? p->kw : p->kh;
  m.k = k;
  m.r = k / 2;
  m.border = p->border;
  m.scale = p->scale;
  m.offset = p->offset;
  /* centre the shorter factor in zeros */
  for (int i = 0; i < p->kw; i++)
    m.row[(k - p->kw) / 2 + i] = p->row[i];
  for (int j = 0; j < p->kh; j++)
    m.col[(k - p->kh) / 2 + j] = p->col[j];
  return m;
}

template <typename T, int C, int K>
static int
launch_separable (const Launch & L, const SepMask & m)
{
  constexpr size_t bytes = (size_t) (SEP_TH + K - 1)
      * padded_row (SEP_TW + K - 1) * sizeof (Vec<C>);
  auto kernel = conv2d_separable_kernel<T, C, K>;
  int status = allow_shared ((const void *) kernel, bytes);
  if (status != CF_OK)
    return status;
  dim3 grid (div_up (L.im.width, SEP_TW),
      div_up (L.im.row_end - L.im.row_begin, SEP_TH));
  kernel<<<grid, SEP_THREADS, bytes, L.stream>>> (L.im, m);
  return launch_status ();
}

template <typename T, int C>
struct Separable
{
  static int run (const Launch & L)
  {
    SepMask m = make_sep_mask (L.plan);
    if constexpr (sizeof (T) == 1 && C == 4) {
      const int status = cf_conv2d_separable_mma (L, m);
      return status != CF_ERR_UNSUPPORTED ? status
          : cf_conv2d_separable_words (L, m);
    }
    switch (m.k) {
#define CASE(k) case k: return launch_separable<T, C, k> (L, m);
      CF_ODD_SIZES (CASE)
#undef CASE
      default: return CF_ERR_INVALID;
    }
  }
};

int
cf_conv2d_separable (const Launch & launch, const cf_plane_format * f)
{
  return dispatch_layout<Separable> (f, launch);
}

}  /* namespace cf_conv2d */
