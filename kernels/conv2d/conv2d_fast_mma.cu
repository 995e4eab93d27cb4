/* The fast variant on four-byte pixels (RGBA, BGRx, ARGB, ... of 8-bit
 * samples) and one-byte planes (GRAY8, a YUV plane) with one general mask
 * 7 (one-byte planes: 9) to 25 taps wide: the sums as matrix products on
 * the tensor cores.
 *
 * A mask row j applied along a run of 8 output pixels is a product: the
 * 8 + KW - 1 input samples of the run (a row of A) times a band matrix B_j
 * whose column n holds the row's taps shifted down by n. Sixteen runs of
 * one channel stacked (16 consecutive output rows) make A a 16 x 16 (or
 * 16 x 32) tile of the input, and the run's sums are C += A x B_j over
 * the mask's rows: `mma.m16n8k16` with half inputs and float sums.
 *
 * - Samples of 0..255 are exact in half. Taps are not: each is split into
 *   a half `hi` and a half `lo` = tap - hi, and both products are summed
 *   (two MMAs a step), which keeps the taps to about 22 bits; the taps are
 *   first scaled by a power of two (exact) so that the largest sits near
 *   2^10 and the small ones stay out of half's subnormals.
 * - The block converts its tile once into planes of halves in shared
 *   memory (one per filtered channel: three, or the one plane), rows
 *   starting RX pixels left of the tile so that every A tile starts on a
 *   16-byte boundary, as `ldmatrix` needs; their row pitch keeps the 8 rows
 *   of an `ldmatrix` on different banks. The band matrices' fragments are built once per
 *   block, per lane, in shared memory.
 * - A warp owns 16 rows x 32 columns of output (4 runs of 8) in its
 *   channels: 12 accumulator tiles (4 on a one-byte plane). Per mask row and 16 columns of input
 *   it loads each A tile once (`ldmatrix.x4`) and runs it against both
 *   halves of the taps.
 *
 * Cost per output sample: 2 KW-column steps ceil((KW + 7) / 16) x KH
 * x 2 MMAs of 2048 products each for 128 outputs, against KW KH float
 * multiply-adds on the float tiles. */
#include "conv2d_tile.cuh"

#include <cmath>
#include <cuda_fp16.h>

namespace cf_conv2d {

constexpr int MMA_TW = 64;              /* output columns a block */
constexpr int MMA_TH = 64;              /* output rows a block */
constexpr int MMA_THREADS = 256;        /* 8 warps: 2 across x 4 down */
constexpr int MMA_MAX_SIZE = 25;        /* 8 + 25 - 1 inputs fit 2 steps */
/* Four-byte pixels, mask widths from here: since the fill keeps its loads
 * in flight, 7x7 is faster here than on the float tiles (4K 87.6-88.3 ->
 * 72.0-72.6 us, 1080p 28.5-28.8 -> 25.5-25.7) */
constexpr int MMA_MIN_SIZE = 7;
/* One-byte planes convert and load a third of the tile for the same
 * fragments: masks from 15x15 on at any size (4K 15x15 130.4 -> 97.4 us),
 * and from 9x9 on launches of 4 Mpx and more (4K 9x9 58.8-59.2 ->
 * 50.4-50.8 us; 1080p 20.2-20.5 on the float tiles against 20.4-20.8; 4K
 * 7x7 45.5-45.7 on the float tiles against 46.6-47.1) */
constexpr int MMA_MIN_SIZE_ONE_BYTE = 15;
constexpr int MMA_MIN_SIZE_ONE_BYTE_LARGE_LAUNCH = 9;
constexpr long MMA_LARGE_LAUNCH_PIXELS = 4l << 20;
/* A mask row's halves in shared memory: 16 zeros, the taps, zeros. */
constexpr int MMA_PADW = 64;

/* Halves in a shared row of input: the block's 64 columns less the last
 * run's 8, plus the 16 or 32 inputs of a run's steps. 72 or 88 halves
 * (144 or 176 bytes) put the 8 rows of an ldmatrix on 8 different 16-byte
 * bank groups. */
template <int STEPS>
constexpr int MMA_SROW = MMA_TW - 8 + 16 * STEPS;

/* The mask for the tensor-core tiles: the float taps (scale folded in),
 * the power of two they are scaled by for halves and its inverse, and the
 * offset. */
struct MmaMask
{
  int kw, kh, rx, ry;
  int border;
  float unscale, offset, prescale;
  float taps[MMA_MAX_SIZE * MMA_MAX_SIZE];
};

/* Channel byte CH of two pixel words as two halves (exact: 1024 + b in
 * half's bits, less 1024). */
template <int CH>
__device__ __forceinline__ uint32_t
channel_halves (uint32_t w0, uint32_t w1)
{
  const uint32_t pair = __byte_perm (w0, w1, CH | (CH + 4) << 4);
  const uint32_t biased = __byte_perm (pair, 0x64646464u, 0x4140);
  const __half2 h = __hsub2 (*reinterpret_cast<const __half2 *>(&biased),
      __half2half2 (__ushort_as_half (0x6400)));
  return *reinterpret_cast<const uint32_t *>(&h);
}

/* Tap i of row j (scaled), or 0 outside the mask, as the half `hi` or the
 * remainder `lo`. */
__device__ __forceinline__ uint32_t
tap_half (const MmaMask & m, int j, int i, int part)
{
  float t = i >= 0 && i < m.kw ? m.taps[j * m.kw + i] * m.prescale : 0.0f;
  const uint32_t halves = split_tap (t);
  return part ? halves >> 16 : halves & 0xffffu;
}

/* BLOCKS: blocks an SM the registers are sized for (3: 80 registers a
 * thread, 2: up to 128). */
template <int C, int STEPS, bool ROTATE, int BLOCKS>
__global__ void __launch_bounds__ (MMA_THREADS, BLOCKS)
conv2d_fast_mma_kernel (Image im, const __grid_constant__ MmaMask m)
{
#if __CUDA_ARCH__ >= 800
  constexpr int NC = C == 4 ? 3 : 1;    /* filtered channels: planes */
  constexpr int SROW = MMA_SROW<STEPS>;
  constexpr int FIRST = ROTATE ? 1 : 0;
  constexpr int RUNS = 4;               /* runs of 8 columns a warp */
  constexpr int PAD = 16;               /* zeros before a row's halves */
  extern __shared__ __align__ (16) uint8_t mma_smem[];
  const int in_rows = MMA_TH + m.kh - 1;
  __half *planes = reinterpret_cast<__half *>(mma_smem);
  uint2 *bands = reinterpret_cast<uint2 *>(planes + NC * in_rows * SROW);
  uint16_t *pads = reinterpret_cast<uint16_t *>(bands
      + m.kh * STEPS * 2 * 32);
  const int x0 = blockIdx.x * MMA_TW, y0 = im.row_begin + blockIdx.y * MMA_TH;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  /* 1. the band matrices' fragments: per mask row, step and part (hi,
   * lo), each lane's two registers: taps k - n for k = 16 step + 2 (lane &
   * 3) + {0, 1} (+ 8 in the second register), n = lane >> 2. First each
   * row's halves, PAD zeros before, so that a fragment reads
   * them with no test. */
  for (int e = tid; e < m.kh * 2 * MMA_PADW; e += MMA_THREADS) {
    const int i = e % MMA_PADW - PAD, part = (e / MMA_PADW) & 1;
    const int j = e / (2 * MMA_PADW);
    pads[e] = tap_half (m, j, i, part);
  }
  __syncthreads ();
  for (int e = tid; e < m.kh * STEPS * 2 * 32; e += MMA_THREADS) {
    const int l = e & 31, part = (e >> 5) & 1, step = (e >> 6) % STEPS;
    const int j = (e >> 6) / STEPS;
    const uint16_t *row = pads + (2 * j + part) * MMA_PADW + PAD
        + 16 * step + 2 * (l & 3) - (l >> 2);
    uint2 b;
    b.x = row[0] | (uint32_t) row[1] << 16;
    b.y = row[8] | (uint32_t) row[9] << 16;
    bands[e] = b;
  }

  /* 2. the tile as halves: pixels x0 - RX .., rows y0 - RY .., two pixels
   * a thread at a time, the loads of FILL_BATCH pairs in flight before
   * any is converted (one pair at a time, each waited for in turn, the
   * fill took a large share of the kernel) */
  constexpr int FILL_BATCH = 8;
  const int gx0 = x0 - m.rx, gy0 = y0 - m.ry, pairs = in_rows * (SROW / 2);
  const bool inside = (C == 1 || im.word_loads) && gx0 >= 0 && gy0 >= 0
      && gx0 + SROW <= im.width && gy0 + in_rows <= im.height;
  for (int e0 = tid; e0 < pairs; e0 += FILL_BATCH * MMA_THREADS) {
    uint32_t w[FILL_BATCH][2];
#pragma unroll
    for (int k = 0; k < FILL_BATCH; k++) {
      const int e = e0 + k * MMA_THREADS;
      if (e >= pairs)
        break;
      const int r = e / (SROW / 2), c = 2 * (e - r * (SROW / 2));
      if (inside) {
        const uint8_t *row = im.src + (size_t) (gy0 + r) * im.src_stride;
        w[k][0] = C == 4 ? load_word (row, gx0 + c, true)
            : __ldg (row + gx0 + c);
        w[k][1] = C == 4 ? load_word (row, gx0 + c + 1, true)
            : __ldg (row + gx0 + c + 1);
      } else {
        const int gy = cf_border_index (gy0 + r, im.height,
            (cf_border) m.border);
        const int a = cf_border_index (gx0 + c, im.width,
            (cf_border) m.border);
        const int b = cf_border_index (gx0 + c + 1, im.width,
            (cf_border) m.border);
        const uint8_t *row = gy >= 0 ? im.src + (size_t) gy * im.src_stride
            : nullptr;
        w[k][0] = !row || a < 0 ? 0u : C == 4
            ? load_word (row, a, im.word_loads) : __ldg (row + a);
        w[k][1] = !row || b < 0 ? 0u : C == 4
            ? load_word (row, b, im.word_loads) : __ldg (row + b);
      }
    }
#pragma unroll
    for (int k = 0; k < FILL_BATCH; k++) {
      const int e = e0 + k * MMA_THREADS;
      if (e >= pairs)
        break;
      /* pair e is word e of a plane: rows of SROW halves, no gaps */
      uint32_t *dst = reinterpret_cast<uint32_t *>(planes) + e;
      dst[0] = channel_halves<FIRST> (w[k][0], w[k][1]);
      if constexpr (NC == 3) {
        dst[in_rows * SROW / 2] = channel_halves<FIRST + 1> (w[k][0],
            w[k][1]);
        dst[in_rows * SROW] = channel_halves<FIRST + 2> (w[k][0], w[k][1]);
      }
    }
  }
  __syncthreads ();

  /* 3. the warp's 16 x 32 outputs: C += A x B over mask rows and steps */
  const int wr = (warp >> 1) * 16, wc = (warp & 1) * 32;
  if (x0 + wc >= im.width || y0 + wr >= im.row_end)
    return;
  float acc[RUNS][NC][4] = { };
  /* this lane's row of the ldmatrix: rows 0-7 and 8-15 of A, columns 0-7
   * (lanes 0-15) or 8-15 (lanes 16-31) */
  const int arow = wr + (lane & 15), acol = wc + 8 * (lane >> 4);
  for (int j = 0; j < m.kh; j++) {
#pragma unroll
    for (int step = 0; step < STEPS; step++) {
      const uint2 hi = bands[((j * STEPS + step) * 2) * 32 + lane];
      const uint2 lo = bands[((j * STEPS + step) * 2 + 1) * 32 + lane];
      const __half *a_row = planes + (arow + j) * SROW + acol + 16 * step;
#pragma unroll
      for (int run = 0; run < RUNS; run++)
#pragma unroll
        for (int c = 0; c < NC; c++) {
          uint32_t a[4];
          ldmatrix_x4 (a, a_row + c * in_rows * SROW + 8 * run);
          mma_16816 (acc[run][c], a, hi.x, hi.y);
          mma_16816 (acc[run][c], a, lo.x, lo.y);
        }
    }
  }

  /* 4. each lane holds, per run, pixels (g, 2t), (g, 2t + 1), (g + 8, 2t),
   * (g + 8, 2t + 1) of the run's 16 x 8 tile in its channels */
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int run = 0; run < RUNS; run++)
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int y = y0 + wr + g + 8 * h;
      const int x = x0 + wc + 8 * run + 2 * t;
      if (y >= im.row_end || x >= im.width)
        continue;
      if constexpr (C == 1) {
        uint8_t *dst = im.dst + (size_t) y * im.dst_stride + x;
#pragma unroll
        for (int p = 0; p < 2; p++)
          if (x + p < im.width)
            dst[p] = (uint8_t) rounded_byte (fmaf (acc[run][0][2 * h + p],
                    m.unscale, m.offset));
      } else {
        const uint8_t *src = im.src + (size_t) y * im.src_stride;
        uint32_t px[2];
#pragma unroll
        for (int p = 0; p < 2; p++) {
          float v[3];
#pragma unroll
          for (int c = 0; c < 3; c++)
            v[c] = fmaf (acc[run][c][2 * h + p], m.unscale, m.offset);
          const uint32_t kept = x + p < im.width
              ? load_word (src, x + p, im.word_loads) : 0u;
          px[p] = rounded_pixel<ROTATE> (v[0], v[1], v[2], kept);
        }
        store_pixel_words (im, x, y, px);
      }
    }
#endif
}

/* The tensor-core mask: the plan's taps with the scale folded in, and the
 * power of two that brings the largest near 2^10 in half. */
static MmaMask
mma_mask (const Mask & m)
{
  MmaMask d = { m.kw, m.kh, m.rx, m.ry, m.border, 1.0f, m.offset, 1.0f, { } };
  float big = 0.0f;
  for (int t = 0; t < m.kw * m.kh; t++) {
    d.taps[t] = m.taps[0][t] * m.scale;
    big = fmaxf (big, fabsf (d.taps[t]));
  }
  int e = 0;
  if (big > 0.0f)
    frexpf (big, &e);           /* big = f 2^e, 0.5 <= f < 1 */
  d.prescale = ldexpf (1.0f, 10 - e);
  d.unscale = ldexpf (1.0f, e - 10);
  return d;
}

template <int C, int STEPS>
static int
launch_mma (const Launch & L, const MmaMask & m)
{
  constexpr int NC = C == 4 ? 3 : 1;
  const size_t bytes = (size_t) NC * (MMA_TH + m.kh - 1) * MMA_SROW<STEPS>
      * sizeof (__half) + (size_t) m.kh * STEPS * 2 * 32 * sizeof (uint2)
      + (size_t) m.kh * 2 * MMA_PADW * sizeof (uint16_t);
  const int rows = L.im.row_end - L.im.row_begin;
  /* 3 blocks an SM (more warps to cover the MMAs' latency) measured
   * faster on 4 Mpx and more with masks up to 15 rows (4K 15x15 156.5
   * against 167.5 us), 2 (room for all the sums in registers) below 4 Mpx
   * (1080p 15x15 50.4 against 53.4) and for taller masks (4K 25x25 226.0
   * against 270.7) */
  const bool three = (long) L.im.width * rows >= (4l << 20) && m.kh <= 15;
  auto kernel = C == 4 && L.im.rotate
      ? (three ? conv2d_fast_mma_kernel<C, STEPS, true, 3>
          : conv2d_fast_mma_kernel<C, STEPS, true, 2>)
      : (three ? conv2d_fast_mma_kernel<C, STEPS, false, 3>
          : conv2d_fast_mma_kernel<C, STEPS, false, 2>);
  int status = allow_shared ((const void *) kernel, bytes);
  if (status != CF_OK)
    return status;
  dim3 grid (div_up (L.im.width, MMA_TW), div_up (rows, MMA_TH));
  kernel<<<grid, MMA_THREADS, bytes, L.stream>>> (L.im, m);
  return launch_status ();
}

int
cf_conv2d_fast_mma (const Launch & launch, const Mask & m,
    int channels)
{
  int device = 0, major = 0;
  const long pixels = (long) launch.im.width
      * (launch.im.row_end - launch.im.row_begin);
  const int one_byte_min = pixels >= MMA_LARGE_LAUNCH_PIXELS
      ? MMA_MIN_SIZE_ONE_BYTE_LARGE_LAUNCH : MMA_MIN_SIZE_ONE_BYTE;
  if (launch.plan->magnitude || m.kw > MMA_MAX_SIZE
      || m.kh > MMA_MAX_SIZE || m.kw < MMA_MIN_SIZE
      || (channels == 1 && (m.kw < one_byte_min || m.kh < one_byte_min)))
    return CF_ERR_UNSUPPORTED;
  /* half MMAs of this shape need compute capability 8.0 */
  if (cudaGetDevice (&device) != cudaSuccess
      || cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
          device) != cudaSuccess || major < 8)
    return CF_ERR_UNSUPPORTED;
  const MmaMask mm = mma_mask (m);
  if (channels == 1)
    return m.kw + 7 <= 16 ? launch_mma<1, 1> (launch, mm)
        : launch_mma<1, 2> (launch, mm);
  return m.kw + 7 <= 16 ? launch_mma<4, 1> (launch, mm)
      : launch_mma<4, 2> (launch, mm);
}

}  /* namespace cf_conv2d */
