/* The fast variant on four-byte pixels (RGBA, BGRx, ARGB, ... of 8-bit
 * samples) with masks of up to 5 x 5, and on one-byte planes with masks of
 * up to 9 x 9: the sums on the tensor cores, their inputs taken straight
 * from the tile of the plane's own bytes.
 *
 * The float word and byte tiles spend most of their instructions turning
 * bytes into floats and on one multiply-add a tap and sample; here a
 * 16 x 8 x 16 half MMA does 2048 products in one instruction, and the
 * bytes need no conversion:
 *
 * - A sample byte b in the low byte of a half, the rest zero, is the half
 *   b 2^-24 (a subnormal, exact; the tensor cores take subnormals as they
 *   are). So a 32-bit word of the tile cut to its bytes 0 and 2, or with
 *   bytes 1 and 3 moved down to them (one byte permute either way), is
 *   two halves ready for an MMA, and the 2^24 goes into the final scale.
 * - The MMA's k dimension may list its 16 inputs in any order, provided the
 *   band matrix B lists its rows in the same one. A lane's A registers
 *   hold what its 32- or 64-bit shared loads give: for four-byte pixels,
 *   bytes 0 and 2 (or 1 and 3) of a pixel, for one-byte planes pixels 0
 *   and 2 (or 1 and 3) of a word. B holds a mask row's taps where input k
 *   and output n meet, zero where they do not (or, for four-byte pixels,
 *   where k and n are different bytes of the pair).
 * - Four-byte pixels: 8 input pixels (32 bytes) a run; B's 8 columns are 4
 *   output pixels x 2 bytes; the two MMAs of a run (bytes 0 and 2, bytes 1
 *   and 3) give every byte of its 4 pixels, the kept one's sum unused.
 *   One-byte planes: 16 input pixels a run, 8 outputs.
 * - Taps are not exact in half: each is split into a half `hi` and a half
 *   `lo` = tap - hi, both products summed (about 22 bits of each tap),
 *   after scaling them by a power of two that brings the largest near
 *   2^10; the host splits them once. Sums are float.
 * - Blocks stay and walk the tiles, the next two tiles' 16-byte copies
 *   (cp.async) in flight while the current one is summed. Tiles at the
 *   plane's edges copy what lies inside the plane the same way and the
 *   rest pixel by pixel through the border mode.
 * - A warp owns 16 rows x 4 runs; its results go through a small staging
 *   area of shared memory and leave as 16-byte stores.
 *
 * Cost per mask row and run of a warp: two shared loads a lane, 8 (one-byte
 * planes: 4) byte permutes, 4 (2) MMAs, whatever the mask's width; against
 * a multiply-add a tap, sample and channel and the conversions on the
 * float tiles. The fixed part (the copies, the rounding and packing, the
 * stores) is about the float tiles', so these tiles win from 5 mask rows
 * on (docs/performance-log.md, "Sums on the tensor cores from the plane's
 * own bytes"). */
#include "conv2d_async_tile.cuh"

#include <algorithm>
#include <cmath>
#include <cuda_fp16.h>

namespace cf_conv2d {

/* The geometry for pixels of P bytes. */
template <int P>
struct RawMma
{
  static constexpr int PIXEL = P;       /* bytes a pixel */
  /* output pixels of a run (8 columns of an MMA's result) */
  static constexpr int RUN_PX = P == 4 ? 4 : 8;
  /* input pixels a run reads (16 halves), from LEFT before its first
   * output: masks up to 2 MAX_RX + 1 = 5 (9) wide fit */
  static constexpr int WIN = P == 4 ? 8 : 16;
  static constexpr int LEFT = P == 4 ? 2 : 4;
  static constexpr int MAX_RX = WIN - RUN_PX - LEFT;
  /* runs a warp, side by side: 16 rows x 16 pixels, 32 sums a lane, or
   * 16 x 32 pixels, 16 sums. One-byte planes with 8 runs (256-pixel
   * tiles) measured slower: 4K 9x9 29.1-29.7 against 25.3-25.9 us. */
  static constexpr int RUNS = 4;
  static constexpr int WARPS_X = 4, WARPS_Y = 2;
  static constexpr int THREADS = 32 * WARPS_X * WARPS_Y;
  static constexpr int TW = WARPS_X * RUNS * RUN_PX;    /* 64 or 128 */
  static constexpr int TH = 16 * WARPS_Y;       /* 32 */
  static constexpr int HALO = 16 / P;   /* one 16-byte chunk either side */
  /* 16-byte chunks a tile row: 18 for four-byte pixels, whose 72-word
   * pitch puts the 8 rows of a fragment's 64-bit loads on different banks;
   * one-byte planes take one more (11, a 44-word pitch) for their 32-bit
   * loads */
  static constexpr int CHUNKS = (TW + 2 * HALO) * P / 16 + (P == 1);
  static constexpr int PITCH = 16 * CHUNKS;     /* bytes a tile row */
};

/* Offsets -TAB_CENTRE .. TAB_CENTRE - 1 from a mask row's first tap: a
 * lane's B registers read taps at such offsets, zero outside the mask. */
constexpr int TAB_CENTRE = 16;
constexpr int RAW_MMA_MAX_KH = 9;

/* The mask: per row, taps at offsets from the row's first one, each as its
 * half `hi` (low 16 bits) and the half `lo` = tap - hi (high 16 bits),
 * after the scale is folded in and a power of two brings the largest near
 * 2^10; `unscale` undoes that power and the samples' 2^-24. */
struct RawMmaMask
{
  int rx, border;
  float unscale, offset;
  uint32_t taps[RAW_MMA_MAX_KH][2 * TAB_CENTRE];
};

/* A word of the tile split by even_bytes () / odd_bytes () (conv2d_tile.cuh:
 * bytes 0 and 2, or 1 and 3, in the low bytes of its halves) is two halves
 * b 2^-24 */
__device__ __forceinline__ uint32_t
even_halves (uint32_t w)
{
  return (uint32_t) even_bytes (w);
}

__device__ __forceinline__ uint32_t
odd_halves (uint32_t w)
{
  return (uint32_t) odd_bytes (w);
}

/* the samples' scale as halves: 2^-24. Bytes made normal halves instead
 * (1024 + b, less 1024 with one HSUB2 a register) measured slower: 4K
 * RGBA8 5x5 57.8 against 51.8 us */
constexpr int SAMPLE_SHIFT = 24;

/* A lane's B registers for one mask row: b0 = (B[2t][g], B[2t + 1][g]), b1
 * = (B[2t + 8][g], B[2t + 9][g]), hi then lo, for g = lane / 4, t = lane %
 * 4. Row k of B is the input its A column holds:
 * - four-byte pixels: a lane's a0 / a2 hold pixel 2t / 2t + 1 of the
 *   window, its bytes 0 and 2 (or 1 and 3) as k even and odd; column n is
 *   output pixel n / 2, byte pair member n % 2. So b0 holds the tap from
 *   pixel 2t to output g / 2 in its half g % 2, zero in the other; b1 the
 *   one from pixel 2t + 1.
 * - one-byte planes: a0 / a2 hold bytes 0 and 2 / 1 and 3 of word t (pixels
 *   4t, 4t + 2 / 4t + 1, 4t + 3); column n is output n. */
template <int P>
__device__ __forceinline__ uint4
band_registers (const uint32_t (&row)[2 * TAB_CENTRE], int rx, int lane)
{
  using G = RawMma<P>;
  const int g = lane >> 2, t = lane & 3;
  if constexpr (P == 4) {
    /* the tap for input pixel p and output q sits at p - LEFT - q + rx */
    const int at = TAB_CENTRE + 2 * t - G::LEFT - (g >> 1) + rx;
    const uint32_t a = row[at], b = row[at + 1];
    const uint32_t sel_hi = g & 1 ? 0x1044u : 0x4410u;
    const uint32_t sel_lo = g & 1 ? 0x3244u : 0x4432u;
    return make_uint4 (__byte_perm (a, 0u, sel_hi), __byte_perm (b, 0u,
            sel_hi), __byte_perm (a, 0u, sel_lo), __byte_perm (b, 0u,
            sel_lo));
  } else {
    const int at = TAB_CENTRE + 4 * t - G::LEFT - g + rx;
    const uint32_t p0 = row[at], p1 = row[at + 1], p2 = row[at + 2];
    const uint32_t p3 = row[at + 3];
    return make_uint4 (__byte_perm (p0, p2, 0x5410), __byte_perm (p1, p3,
            0x5410), __byte_perm (p0, p2, 0x7632), __byte_perm (p1, p3,
            0x7632));
  }
}

/* Bytes a row of a warp's staged outputs: its 64 bytes and 16 more, which
 * put the 8 rows a store instruction writes on different banks */
constexpr int STAGE_PITCH = 80;

/* The warp's outputs from its sums, through its staging area `stage` (16
 * rows of 64 bytes) so that they leave as 16-byte stores. Lane (g, t)
 * holds, per run, D[g][2t], D[g][2t + 1], D[g + 8][2t], D[g + 8][2t + 1]:
 * four-byte pixels, pixel t of the run in rows g and g + 8 (bytes 0 and 2,
 * then 1 and 3, the kept byte taken from the tile); one-byte planes, pixels
 * 2t and 2t + 1. */
template <int P, int RY, bool ROTATE, int RUNS, int SUMS>
__device__ __forceinline__ void
store_raw_mma (const Image & im, const RawMmaMask & m, const uint8_t * buf,
    uint8_t * stage, int x0, int y0, int wr, int wc, int lane,
    const float (&acc)[RUNS][SUMS][4])
{
  using G = RawMma<P>;
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int h = 0; h < 2; h++) {
    const int sy = g + 8 * h;
#pragma unroll
    for (int r = 0; r < RUNS; r++) {
      if constexpr (P == 4) {
        const int tx = wc + r * G::RUN_PX + t;
        const float *e = &acc[r][0][2 * h], *o = &acc[r][1][2 * h];
        const uint32_t src = *reinterpret_cast<const uint32_t *>(buf
            + (wr + sy + RY) * G::PITCH + 4 * (G::HALO + tx));
        /* the filtered channels in lane order: bytes 0 1 2 or 1 2 3 */
        const float c0 = ROTATE ? o[0] : e[0], c1 = ROTATE ? e[1] : o[0];
        const float c2 = ROTATE ? o[1] : e[1];
        *reinterpret_cast<uint32_t *>(stage + sy * STAGE_PITCH
            + 4 * (r * G::RUN_PX + t)) = rounded_pixel<ROTATE> (
            fmaf (c0, m.unscale, m.offset), fmaf (c1, m.unscale, m.offset),
            fmaf (c2, m.unscale, m.offset), src);
      } else {
        const uint32_t b0 = rounded_byte (fmaf (acc[r][0][2 * h], m.unscale,
                m.offset));
        const uint32_t b1 = rounded_byte (fmaf (acc[r][0][2 * h + 1],
                m.unscale, m.offset));
        *reinterpret_cast<uint16_t *>(stage + sy * STAGE_PITCH
            + r * G::RUN_PX + 2 * t) = (uint16_t) __byte_perm (b0, b1, 0x0040);
      }
    }
  }
  __syncwarp ();
  /* 16 rows of ROW_CHUNKS 16-byte chunks */
  constexpr int ROW_CHUNKS = RUNS * G::RUN_PX * P / 16;
  const int xb = (x0 + wc) * P;       /* the warp's first byte in a row */
  const int row_bytes = im.width * P;
#pragma unroll
  for (int k = 0; k < ROW_CHUNKS / 2; k++) {
    const int c = lane + 32 * k, sy = c / ROW_CHUNKS;
    const int cb = 16 * (c % ROW_CHUNKS);
    const int y = y0 + wr + sy;
    if (y >= im.row_end)
      continue;
    const uint8_t *from = stage + sy * STAGE_PITCH + cb;
    uint8_t *to = im.dst + (size_t) y * im.dst_stride + xb + cb;
    if (xb + cb + 16 <= row_bytes)
      *reinterpret_cast<uint4 *>(to) = *reinterpret_cast<const uint4 *>(from);
    else
      for (int i = 0; i < 16 && xb + cb + i < row_bytes; i++)
        to[i] = from[i];
  }
  __syncwarp ();
}

/* Blocks an SM the registers are capped for: four-byte pixels 3 (85
 * registers; capped for 4, they spilled and ran 4-5% slower at 4K 3x3 and
 * 5x5), one-byte planes 4 (64), 3 for 9 rows. */
template <int P, int KH>
constexpr int raw_mma_min_blocks = P == 4 || KH >= 9 ? 3 : 4;

/* Blocks stay and walk the tiles (blockIdx.x, + gridDim.x, ...), the
 * copies of the next two tiles in flight while the current one is summed:
 * three tile buffers, one barrier a tile. */
template <int P, int KH, bool ROTATE>
__global__ void __launch_bounds__ (RawMma<P>::THREADS, (raw_mma_min_blocks<P, KH>))
conv2d_fast_raw_mma_kernel (Image im, const __grid_constant__ RawMmaMask m,
    int tiles_x, int tiles_y)
{
#if __CUDA_ARCH__ >= 800
  using G = RawMma<P>;
  constexpr int RY = KH / 2;
  constexpr int IN_ROWS = G::TH + KH - 1;
  constexpr int SUMS = P == 4 ? 2 : 1;  /* bytes 0 and 2, bytes 1 and 3 */
  __shared__ alignas (16) uint8_t tiles_buf[3][IN_ROWS * G::PITCH];
  __shared__ alignas (16) uint8_t stages[G::THREADS / 32][16 * STAGE_PITCH];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wx = warp % G::WARPS_X, wy = warp / G::WARPS_X;
  const int wr = 16 * wy, wc = wx * G::RUNS * G::RUN_PX;
  const int g = lane >> 2, t = lane & 3;

  const TileWalk walk (tiles_x);
  /* the copies of the first two tiles in flight, then (while they come)
   * every lane's B registers, a mask row a warp, read back a row at a time
   * (held in registers across tiles, they took up to 36 of them) */
  int tx, ty;
  walk.first (tx, ty);
  int ftx = tx, fty = ty;       /* the next tile to copy */
#pragma unroll
  for (int b = 0; b < 2; b++)
    copy_next_tile<G, IN_ROWS> (im, m.border, RY, walk, ftx, fty, tiles_y,
        tid, tiles_buf[b]);
  __shared__ uint4 bands[KH][32];
  for (int j = warp; j < KH; j += G::THREADS / 32)
    bands[j][lane] = band_registers<P> (m.taps[j], m.rx, lane);

  /* three buffers: tile k's copy is waited for while k + 1's stays in
   * flight; after the barrier every warp is done with k - 1's buffer,
   * which takes k + 2's copy */
  for (int k = 0; ty < tiles_y; k++) {
    const int x0 = tx * G::TW, y0 = im.row_begin + ty * G::TH;
    walk.next (tx, ty);
    wait_copies<1> ();
    __syncthreads ();
    copy_next_tile<G, IN_ROWS> (im, m.border, RY, walk, ftx, fty, tiles_y,
        tid, tiles_buf[(k + 2) % 3]);
    const uint8_t *buf = tiles_buf[k % 3];

    if (x0 + wc < im.width && y0 + wr < im.row_end) {
      float acc[G::RUNS][SUMS][4] = { };
      /* the lane's loads: row g (and g + 8) of the A tile, its 8 bytes
       * (pixels 2t, 2t + 1) or 4 bytes (pixels 4t .. 4t + 3) of the
       * window */
      const uint8_t *base = buf + (wr + g) * G::PITCH
          + (G::HALO + wc - G::LEFT) * P + (P == 4 ? 8 : 4) * t;
#pragma unroll
      for (int j = 0; j < KH; j++) {
        const uint4 b = bands[j][lane];
#pragma unroll
        for (int r = 0; r < G::RUNS; r++) {
          const uint8_t *at = base + j * G::PITCH + r * G::RUN_PX * P;
          if constexpr (P == 4) {
            const uint2 u = *reinterpret_cast<const uint2 *>(at);
            const uint2 v = *reinterpret_cast<const uint2 *>(at
                + 8 * G::PITCH);
            const uint32_t ev[4] = { even_halves (u.x), even_halves (v.x),
              even_halves (u.y), even_halves (v.y) };
            const uint32_t od[4] = { odd_halves (u.x), odd_halves (v.x),
              odd_halves (u.y), odd_halves (v.y) };
            mma_16816 (acc[r][0], ev, b.x, b.y);
            mma_16816 (acc[r][0], ev, b.z, b.w);
            mma_16816 (acc[r][1], od, b.x, b.y);
            mma_16816 (acc[r][1], od, b.z, b.w);
          } else {
            const uint32_t u = *reinterpret_cast<const uint32_t *>(at);
            const uint32_t v = *reinterpret_cast<const uint32_t *>(at
                + 8 * G::PITCH);
            const uint32_t a[4] = { even_halves (u), even_halves (v),
              odd_halves (u), odd_halves (v) };
            mma_16816 (acc[r][0], a, b.x, b.y);
            mma_16816 (acc[r][0], a, b.z, b.w);
          }
        }
      }
      store_raw_mma<P, RY, ROTATE> (im, m, buf, stages[warp], x0, y0, wr, wc,
          lane, acc);
    }
  }
#endif
}

/* The plan's taps, scale folded in, times the power of two that brings the
 * largest near 2^10 in half, split into halves hi and lo. */
static RawMmaMask
raw_mma_mask (const Mask & m)
{
  RawMmaMask d = { m.rx, m.border, 1.0f, m.offset, { } };
  float big = 0.0f;
  for (int t = 0; t < m.kw * m.kh; t++)
    big = fmaxf (big, fabsf (m.taps[0][t] * m.scale));
  int e = 0;
  if (big > 0.0f)
    frexpf (big, &e);           /* big = f 2^e, 0.5 <= f < 1 */
  for (int j = 0; j < m.kh; j++)
    for (int i = 0; i < m.kw; i++) {
      d.taps[j][TAB_CENTRE + i] = split_tap (ldexpf (m.taps[0][j * m.kw + i]
              * m.scale, 10 - e));
    }
  /* undoes the taps' 2^(10 - e) and the samples' 2^-24 */
  d.unscale = ldexpf (1.0f, e - 10 + SAMPLE_SHIFT);
  return d;
}

template <int P, int KH>
static int
launch_raw_mma (const Launch & L, const RawMmaMask & m)
{
  using G = RawMma<P>;
  auto kernel = P == 4 && L.im.rotate ? conv2d_fast_raw_mma_kernel<P, KH,
      true> : conv2d_fast_raw_mma_kernel<P, KH, false>;
  const int rows = L.im.row_end - L.im.row_begin;
  const int tiles_x = div_up (L.im.width, G::TW);
  const int tiles_y = div_up (rows, G::TH);
  static int per_sm = 0;
  const int blocks = resident_blocks ((const void *) kernel, G::THREADS, 0,
      tiles_x * tiles_y, per_sm);
  if (blocks < 1)
    return launch_status ();
  kernel<<<blocks, G::THREADS, 0, L.stream>>> (L.im, m, tiles_x, tiles_y);
  return launch_status ();
}

template <int P>
static int
raw_mma_rows (const Launch & L, const RawMmaMask & m, int kh)
{
  switch (kh) {
    case 1: return launch_raw_mma<P, 1> (L, m);
    case 3: return launch_raw_mma<P, 3> (L, m);
    case 5: return launch_raw_mma<P, 5> (L, m);
    case 7: return P == 1 ? launch_raw_mma<1, 7> (L, m) : CF_ERR_UNSUPPORTED;
    case 9: return P == 1 ? launch_raw_mma<1, 9> (L, m) : CF_ERR_UNSUPPORTED;
    default: return CF_ERR_UNSUPPORTED;
  }
}

bool
cf_conv2d_raw_mma_takes (const Launch & launch, int kw, int kh,
    int channels)
{
  const int p = channels == 4 ? 4 : 1;
  const int max_size = 2 * (p == 4 ? RawMma<4>::MAX_RX
      : RawMma<1>::MAX_RX) + 1;
  /* 16-byte rows in and out */
  const bool aligned = launch.im.chunk_loads
      && (((uintptr_t) launch.im.dst | launch.im.dst_stride) & 15) == 0;
  const int rows = std::max (kw, kh);
  const long pixels = (long) launch.im.width
      * (launch.im.row_end - launch.im.row_begin);
  /* where these tiles beat the word and byte tiles: four-byte pixels from
   * 5 mask rows (4K 5x5 45.7 against 48.1 us, 3x3 36.9 against 30.9),
   * one-byte planes from 7 rows or columns, from 5 on launches of 4 Mpx
   * and more (4K 5x5 20.1 against 21.1, 1080p 11.1 against 9.7) */
  const bool faster = p == 4 ? kh >= 5
      : rows >= 7 || (rows >= 5 && pixels >= (4l << 20));
  /* masks of small integer taps up to 5 x 5 keep the integer tiles: 4K
   * RGBA8 5x5 36.5 against 45.9 us here, GRAY8 17.0 against 20.1 */
  const bool integer_tiles = launch.plan->small_integer && kw <= 5
      && kh <= 5;
  if (launch.plan->magnitude || !aligned || !faster || integer_tiles
      || kw > max_size || kh > max_size || kw % 2 == 0 || kh % 2 == 0)
    return false;
  int device = 0, major = 0;
  /* half MMAs of this shape need compute capability 8.0 */
  return cudaGetDevice (&device) == cudaSuccess
      && cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
          device) == cudaSuccess && major >= 8;
}

int
cf_conv2d_fast_raw_mma (const Launch & launch, const Mask & m,
    int channels)
{
  if (!cf_conv2d_raw_mma_takes (launch, m.kw, m.kh, channels))
    return CF_ERR_UNSUPPORTED;
  const RawMmaMask rm = raw_mma_mask (m);
  return channels == 4 ? raw_mma_rows<4> (launch, rm, m.kh)
      : raw_mma_rows<1> (launch, rm, m.kh);
}

}  /* namespace cf_conv2d */
