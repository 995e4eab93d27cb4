/* Wide variant: small masks (up to 5 x 5) on planes whose pixels divide 16
 * bytes (GRAY8, GRAY16, two-channel, RGBA), moved as 16-byte words end to
 * end and with no shared memory.
 *
 * - A thread owns one 16-byte chunk of output pixels (16 GRAY8, 8 GRAY16 or
 *   two-channel, 4 RGBA pixels) over WIDE_ROWS consecutive rows. Each input
 *   row is read once as one 16-byte load, converted once, and added into
 *   the KH output rows it contributes to, which stay in registers (a ring
 *   of accumulators); a finished row leaves as one 16-byte store.
 * - The horizontal halo (at most one chunk each side) comes from the
 *   neighbouring lanes' chunks through warp shuffles; only the first and
 *   last lane of a warp load a second chunk.
 * - Loads run WIDE_AHEAD rows ahead of the arithmetic, so that each warp
 *   keeps several DRAM round trips in flight without a shared-memory tile
 *   and its barrier.
 * - Lanes whose window leaves the plane, and rows that are not 16-byte
 *   aligned, read pixel by pixel through the border mode.
 *
 * Cost per output pixel: (WIDE_ROWS + KH - 1) / WIDE_ROWS loads of its
 * bytes (the vertical halo mostly from L2), one store, (PX + KW - 1) / PX
 * conversions per input row, KW x KH multiply-adds per channel. Registers
 * bound the mask: KH x PX x channels accumulators (x 2 for magnitude). */
#include "conv2d_tile.cuh"

namespace cf {

constexpr int WIDE_ROWS = 8;    /* output rows per thread */
constexpr int WIDE_WARPS = 4;   /* warps per block, one above the other */
constexpr int WIDE_AHEAD = 4;   /* input rows loaded ahead of their use */
constexpr unsigned FULL_WARP = 0xffffffffu;

/* One input row as a lane holds it before conversion: its own chunk, and
 * for the first (last) lane of a warp the chunk left (right) of it. */
struct RawRow
{
  uint4 own, edge;
  int gy;                       /* source row after the border mode; -1: zeros */
};

template <typename T, int C>
__device__ __forceinline__ RawRow
load_raw_row (const Image & im, int border, int x0, int y, int lane, bool halo)
{
  constexpr int PX = CHUNK_PX<T, C>;
  constexpr int P = C * (int) sizeof (T);
  RawRow r = { make_uint4 (0, 0, 0, 0), make_uint4 (0, 0, 0, 0),
    cf_border_index (y, im.height, (cf_border) border) };
  if (r.gy < 0 || !im.chunk_loads)
    return r;
  const uint8_t *row = im.src + (size_t) r.gy * im.src_stride;
  if (x0 + PX <= im.width)
    r.own = __ldg (reinterpret_cast<const uint4 *>(row + (size_t) x0 * P));
  if (halo && lane == 0 && x0 >= PX)
    r.edge = __ldg (reinterpret_cast<const uint4 *>(row + (size_t) (x0 - PX) * P));
  if (halo && lane == 31 && x0 + 2 * PX <= im.width)
    r.edge = __ldg (reinterpret_cast<const uint4 *>(row + (size_t) (x0 + PX) * P));
  return r;
}

__device__ __forceinline__ uint4
shuffle_chunk (uint4 v, int delta)
{
  /* delta > 0: from the lane `delta` below; < 0: from the lane above */
  if (delta > 0)
    return make_uint4 (__shfl_up_sync (FULL_WARP, v.x, delta),
        __shfl_up_sync (FULL_WARP, v.y, delta),
        __shfl_up_sync (FULL_WARP, v.z, delta),
        __shfl_up_sync (FULL_WARP, v.w, delta));
  return make_uint4 (__shfl_down_sync (FULL_WARP, v.x, -delta),
      __shfl_down_sync (FULL_WARP, v.y, -delta),
      __shfl_down_sync (FULL_WARP, v.z, -delta),
      __shfl_down_sync (FULL_WARP, v.w, -delta));
}

/* The pixels x0 - RX .. x0 + PX - 1 + RX of a raw row, as floats. Called by
 * every lane of the warp together (the shuffles). */
template <typename T, int C, int RX>
__device__ __forceinline__ void
window (const Image & im, int border, int x0, int y, int lane,
    const RawRow & r, Vec<C> (&win)[CHUNK_PX<T, C> + 2 * RX])
{
  constexpr int PX = CHUNK_PX<T, C>;
  uint4 left = shuffle_chunk (r.own, 1), right = shuffle_chunk (r.own, -1);
  if (lane == 0)
    left = r.edge;
  if (lane == 31)
    right = r.edge;
  /* every chunk the window touches lies inside the plane and was loaded
   * (a row outside a CONSTANT border is zeros, loaded or not) */
  bool inside = RX == 0 ? x0 + PX <= im.width
      : x0 >= PX && x0 + 2 * PX <= im.width;
  if (im.chunk_loads && inside) {
#pragma unroll
    for (int k = 0; k < PX + 2 * RX; k++)
      win[k] = k < RX ? unpack_chunk<T, C> (left, PX - RX + k, im.rotate)
          : k < RX + PX ? unpack_chunk<T, C> (r.own, k - RX, im.rotate)
          : unpack_chunk<T, C> (right, k - RX - PX, im.rotate);
  } else {
#pragma unroll
    for (int k = 0; k < PX + 2 * RX; k++)
      win[k] = x0 < im.width
          ? load_px_border<T, C> (im, border, x0 - RX + k, y)
          : vzero<Vec<C>> ();
  }
}

template <typename T, int C, int KW, int KH, int NM>
__global__ void __launch_bounds__ (32 * WIDE_WARPS, 1)
conv2d_wide_kernel (Image im, const __grid_constant__ Mask m)
{
  constexpr int PX = CHUNK_PX<T, C>;
  constexpr int NF = FILTERED_LANES<C>;
  constexpr int RX = KW / 2, RY = KH / 2;
  constexpr int IN_ROWS = WIDE_ROWS + KH - 1;
  const int lane_id = threadIdx.x & 31;
  const int x0 = (blockIdx.x * 32 + lane_id) * PX;
  const int y0 = im.row_begin
      + (blockIdx.y * WIDE_WARPS + (threadIdx.x >> 5)) * WIDE_ROWS;

  if (y0 >= im.row_end)         /* the whole warp */
    return;
  float a[KH][PX][NF] = { }, b[KH][PX][NF] = { };
  float kept[RY + 1][PX];       /* 4 channels: the source's kept lane */
  RawRow raw[IN_ROWS];

#pragma unroll
  for (int q = 0; q < WIDE_AHEAD && q < IN_ROWS; q++)
    raw[q] = load_raw_row<T, C> (im, m.border, x0, y0 - RY + q, lane_id,
        RX > 0);
#pragma unroll
  for (int r = 0; r < IN_ROWS; r++) {
    if (r + WIDE_AHEAD < IN_ROWS)
      raw[r + WIDE_AHEAD] = load_raw_row<T, C> (im, m.border, x0,
          y0 - RY + r + WIDE_AHEAD, lane_id, RX > 0);
    Vec<C> win[PX + 2 * RX];
    window<T, C, RX> (im, m.border, x0, y0 - RY + r, lane_id, raw[r], win);
    if (C == 4 && r >= RY && r < RY + WIDE_ROWS) {
#pragma unroll
      for (int k = 0; k < PX; k++)
        kept[(r - RY) % (RY + 1)][k] = lane (win[RX + k], 3);
    }
    /* input row r is mask row j of output row r - j */
#pragma unroll
    for (int j = 0; j < KH; j++) {
      const int o = r - j;
      if (o < 0 || o >= WIDE_ROWS)
        continue;
#pragma unroll
      for (int i = 0; i < KW; i++)
#pragma unroll
        for (int k = 0; k < PX; k++)
#pragma unroll
          for (int l = 0; l < NF; l++) {
            float v = lane (win[k + i], l);
            a[o % KH][k][l] = fmaf (m.taps[0][j * KW + i], v, a[o % KH][k][l]);
            if (NM == 2)
              b[o % KH][k][l] = fmaf (m.taps[1][j * KW + i], v,
                  b[o % KH][k][l]);
          }
    }
    /* output row r - (KH - 1) has all its rows */
    const int o = r - (KH - 1);
    if (o >= 0) {
      if (y0 + o < im.row_end && x0 < im.width)
        store_run<T, C, NM, NF, PX> (im, m, x0, y0 + o, a[o % KH],
            b[o % KH], kept[o % (RY + 1)]);
#pragma unroll
      for (int k = 0; k < PX; k++)
#pragma unroll
        for (int l = 0; l < NF; l++)
          a[o % KH][k][l] = b[o % KH][k][l] = 0.0f;
    }
  }
}

template <typename T, int C, int KW, int KH, int NM>
static int
launch_wide (const Launch & L, const Mask & m)
{
  constexpr int PX = CHUNK_PX<T, C>;
  int rows = L.im.row_end - L.im.row_begin;
  dim3 grid (div_up (L.im.width, 32 * PX),
      div_up (rows, WIDE_ROWS * WIDE_WARPS));
  conv2d_wide_kernel<T, C, KW, KH, NM><<<grid, 32 * WIDE_WARPS, 0,
      L.stream>>> (L.im, m);
  return launch_status ();
}

/* Masks up to 5 x 5, magnitude masks up to 3 x 3 (twice the registers). */
template <typename T, int C, int KW, int NM>
static int
launch_wide_rows (const Launch & L, const Mask & m)
{
  switch (m.kh) {
    case 1: return launch_wide<T, C, KW, 1, NM> (L, m);
    case 3: return launch_wide<T, C, KW, 3, NM> (L, m);
    case 5:
      if constexpr (NM == 1)
        return launch_wide<T, C, KW, 5, NM> (L, m);
      return CF_ERR_UNSUPPORTED;
    default: return CF_ERR_UNSUPPORTED;
  }
}

template <typename T, int C>
struct Wide
{
  static int run (const Launch & L)
  {
    if constexpr (CHUNK_PX<T, C> == 0) {
      return CF_ERR_UNSUPPORTED;        /* RGB: pixels straddle the chunks */
    } else {
      Mask m = make_mask (L.plan);
      int two = L.plan->magnitude;
      switch (m.kw) {
        case 1: return two ? launch_wide_rows<T, C, 1, 2> (L, m)
              : launch_wide_rows<T, C, 1, 1> (L, m);
        case 3: return two ? launch_wide_rows<T, C, 3, 2> (L, m)
              : launch_wide_rows<T, C, 3, 1> (L, m);
        case 5: return two ? CF_ERR_UNSUPPORTED
              : launch_wide_rows<T, C, 5, 1> (L, m);
        default: return CF_ERR_UNSUPPORTED;
      }
    }
  }
};

}  /* namespace cf */

int
cf_conv2d_wide (const cf::Launch & launch, const cf_plane_format * f)
{
  return cf::dispatch_layout<cf::Wide> (f, launch);
}
