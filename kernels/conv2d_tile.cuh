/* Shared-memory tiles of the fast and separable variants: a padded layout
 * that keeps coarsened threads off each other's banks, the tile loader, and
 * the store of a thread's run of consecutive output pixels. */
#pragma once

#include "conv2d_common.cuh"

namespace cf {

/* Each thread works on 8 consecutive tile columns, so the threads of a warp
 * start 8 cells apart; one pad cell after every 8 makes that stride 9 cells,
 * which puts the threads of a shared-memory access phase on different banks
 * (float4: 8 threads x 16 B; float: 32 threads x 4 B, at most 2-way). */
constexpr int RUN = 8;

/* Position of tile column c in a padded row; also valid as an offset from
 * the start of a run, since runs start at multiples of 8. */
__host__ __device__ constexpr int padded (int c) { return c + (c >> 3); }
/* Cells in a padded row of `cols` columns. */
__host__ __device__ constexpr int padded_row (int cols) { return padded (cols) + 1; }

/* Loads the tile of `rows` rows and COLS columns whose top-left pixel is
 * (gx0, gy0) into shared memory as floats, applying the border mode. */
template <typename T, int C, int COLS, int SROW>
__device__ __forceinline__ void
load_tile (const Image & im, int border, Vec<C> * tile, int gx0, int gy0,
    int rows, int tid, int nthreads)
{
  int total = rows * COLS;
#pragma unroll 4
  for (int idx = tid; idx < total; idx += nthreads) {
    int r = idx / COLS, c = idx - r * COLS;
    tile[r * SROW + padded (c)] = load_px_border<T, C> (im, border, gx0 + c,
        gy0 + r);
  }
}

/* Stores NW words at p with the widest accesses its alignment allows. */
template <int NW>
__device__ __forceinline__ void
store_words (uint8_t * p, const uint32_t (&w)[NW])
{
  uintptr_t a = (uintptr_t) p;
  if (NW % 4 == 0 && (a & 15) == 0) {
#pragma unroll
    for (int k = 0; k < NW / 4; k++)
      reinterpret_cast<uint4 *>(p)[k] = make_uint4 (w[4 * k], w[4 * k + 1],
          w[4 * k + 2], w[4 * k + 3]);
  } else if (NW % 2 == 0 && (a & 7) == 0) {
#pragma unroll
    for (int k = 0; k < NW / 2; k++)
      reinterpret_cast<uint2 *>(p)[k] = make_uint2 (w[2 * k], w[2 * k + 1]);
  } else if ((a & 3) == 0) {
#pragma unroll
    for (int k = 0; k < NW; k++)
      reinterpret_cast<uint32_t *>(p)[k] = w[k];
  } else {
#pragma unroll
    for (int k = 0; k < 4 * NW; k++)
      p[k] = (uint8_t) (w[k / 4] >> (8 * (k % 4)));
  }
}

/* Writes RUN consecutive pixels starting at (x, y) from their lane sums.
 * Kept lanes come from the source pixels, tile cells `c0`.. of padded tile
 * row `center_row`.
 * A run that ends inside the row goes out as packed words, a run cut by the
 * right edge pixel by pixel. */
template <typename T, int C, int NM, int NF>
__device__ __forceinline__ void
store_run (const Image & im, const Mask & m, int x, int y,
    const float (&a)[RUN][NF], const float (&b)[RUN][NF],
    const Vec<C> * center_row, int c0)
{
  constexpr int P = C * sizeof (T);     /* bytes per pixel */
  constexpr int NW = RUN * P / 4;
  uint32_t px[RUN];

#pragma unroll
  for (int k = 0; k < RUN; k++) {
    uint32_t s[4];
#pragma unroll
    for (int l = 0; l < NF; l++)
      s[l] = finish<T, NM> (a[k][l], NM == 2 ? b[k][l] : 0.0f, m.scale,
          m.offset);
    if (C == 4)
      s[3] = (uint32_t) lane (center_row[padded (c0 + k)], 3);
    px[k] = pack_px<T, C> (s, im.rotate);
  }

  if (x + RUN <= im.width) {
    uint32_t w[NW] = { };
#pragma unroll
    for (int k = 0; k < RUN; k++) {
      int bit = (k * P % 4) * 8;
      w[k * P / 4] |= px[k] << bit;
      if (bit + 8 * P > 32)
        w[k * P / 4 + 1] |= px[k] >> (32 - bit);
    }
    store_words<NW> (im.dst + (size_t) y * im.dst_stride + (size_t) x * P, w);
  } else {
#pragma unroll
    for (int k = 0; k < RUN; k++)
      if (x + k < im.width)
        store_px<T, C> (im, x + k, y, px[k]);
  }
}

}  /* namespace cf */
