/* Wide variant: small masks (3 or 5 taps a side) on planes whose pixels divide 16
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
 * - Loads run KH rows ahead of the arithmetic, so that each warp keeps
 *   several DRAM round trips in flight without a shared-memory tile and its
 *   barrier.
 * - Lanes whose window leaves the plane, and rows that are not 16-byte
 *   aligned, read pixel by pixel through the border mode.
 *
 * Cost per output pixel: (WIDE_ROWS + KH - 1) / WIDE_ROWS loads of its
 * bytes (the vertical halo mostly from L2), one store, (PX + KW - 1) / PX
 * conversions per input row, KW x KH multiply-adds per channel. Registers
 * bound the mask: KH x PX x channels accumulators (x 2 for magnitude). */
#include "conv2d_tile.cuh"

namespace cf_conv2d {

constexpr int WIDE_ROWS = 4;    /* output rows per thread */
constexpr int WIDE_WARPS = 4;   /* warps per block, one above the other */
/* Blocks an SM should hold: registers capped at 128 for 3x3 masks (16
 * warps an SM), at 168 for larger or two masks, whose rings would spill
 * under 128. */
__host__ __device__ constexpr int
wide_min_blocks (int taps)
{
  return taps > 9 ? 3 : 4;
}
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

/* A pixel through the border mode, out of line: only lanes at the plane's
 * edges (or rows not 16-byte aligned) come here, and inlined in every
 * unrolled row it would crowd the instruction cache. */
template <typename T, int C>
__device__ __noinline__ Vec<C>
edge_px (const Image & im, int border, int x, int y)
{
  return load_px_border<T, C> (im, border, x, y);
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
      win[k] = x0 < im.width ? edge_px<T, C> (im, border, x0 - RX + k, y)
          : vzero<Vec<C>> ();
  }
}

template <typename T, int C, int KW, int KH, int NM>
__global__ void __launch_bounds__ (32 * WIDE_WARPS, wide_min_blocks (KW * KH * NM))
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
  /* Rings indexed by row modulo KH: input rows go in groups of KH, so that
   * in the unrolled body of a group every ring index is a constant and the
   * rings stay in registers, while the loop over groups keeps the code
   * small enough for the instruction cache (a fully unrolled frame of rows
   * spent most of its time waiting on instruction fetches). */
  float a[KH][PX][NF] = { }, b[KH][PX][NF] = { };
  float kept[KH][PX];           /* 4 channels: the source's kept lane */
  RawRow raw[KH];               /* loaded KH rows ahead of their use */

#pragma unroll
  for (int s = 0; s < KH; s++)
    raw[s] = load_raw_row<T, C> (im, m.border, x0, y0 - RY + s, lane_id,
        RX > 0);
#pragma unroll 1
  for (int g = 0; g < IN_ROWS; g += KH) {
#pragma unroll
    for (int s = 0; s < KH; s++) {
      const int r = g + s;      /* input row y0 - RY + r */
      if (r >= IN_ROWS)
        break;
      Vec<C> win[PX + 2 * RX];
      window<T, C, RX> (im, m.border, x0, y0 - RY + r, lane_id, raw[s], win);
      if (r + KH < IN_ROWS)
        raw[s] = load_raw_row<T, C> (im, m.border, x0, y0 - RY + r + KH,
            lane_id, RX > 0);
      if (C == 4) {
#pragma unroll
        for (int k = 0; k < PX; k++)
          kept[s][k] = lane (win[RX + k], 3);
      }
      /* input row r is mask row j of output row r - j */
#pragma unroll
      for (int j = 0; j < KH; j++) {
        const int slot = (s - j + KH) % KH;
        if (r - j < 0 || r - j >= WIDE_ROWS)
          continue;
#pragma unroll
        for (int i = 0; i < KW; i++)
#pragma unroll
          for (int k = 0; k < PX; k++)
#pragma unroll
            for (int l = 0; l < NF; l++) {
              float v = lane (win[k + i], l);
              a[slot][k][l] = fmaf (m.taps[0][j * KW + i], v, a[slot][k][l]);
              if (NM == 2)
                b[slot][k][l] = fmaf (m.taps[1][j * KW + i], v,
                    b[slot][k][l]);
            }
      }
      /* output row r - (KH - 1) has all its rows; its kept lane came with
       * input row r - RY */
      const int o = r - (KH - 1), slot = (s + 1) % KH;
      if (o >= 0) {
        if (y0 + o < im.row_end && x0 < im.width)
          store_run<T, C, NM, NF, PX> (im, m, x0, y0 + o, a[slot], b[slot],
              kept[(s - RY + KH) % KH]);
#pragma unroll
        for (int k = 0; k < PX; k++)
#pragma unroll
          for (int l = 0; l < NF; l++)
            a[slot][k][l] = b[slot][k][l] = 0.0f;
      }
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

/* Masks of 3 or 5 taps a side, magnitude masks 3 x 3 (twice the
 * registers); each shape is a kernel of its own, fully unrolled, so the
 * shapes are few. */
template <typename T, int C, int KW, int NM>
static int
launch_wide_rows (const Launch & L, const Mask & m)
{
  switch (m.kh) {
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
        case 3: return two ? launch_wide_rows<T, C, 3, 2> (L, m)
              : launch_wide_rows<T, C, 3, 1> (L, m);
        case 5: return two ? CF_ERR_UNSUPPORTED
              : launch_wide_rows<T, C, 5, 1> (L, m);
        default: return CF_ERR_UNSUPPORTED;
      }
    }
  }
};

int
cf_conv2d_wide (const Launch & launch, const cf_plane_format * f)
{
  return dispatch_layout<Wide> (f, launch);
}

}  /* namespace cf_conv2d */
