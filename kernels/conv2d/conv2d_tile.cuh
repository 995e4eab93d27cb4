/* Shared-memory tiles of the fast and separable variants: a padded layout
 * that keeps coarsened threads off each other's banks, the tile loader, and
 * the store of a thread's run of consecutive output pixels. */
#pragma once

#include "conv2d_common.cuh"

#include <cuda_fp16.h>
#include <type_traits>

namespace cf_conv2d {

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

/* Pixels in a 16-byte chunk, or 0 when a pixel does not divide 16 bytes
 * (RGB). */
template <typename T, int C>
constexpr int CHUNK_PX = 16 % (C * (int) sizeof (T)) == 0
    ? 16 / (C * (int) sizeof (T)) : 0;

/* Pixel k of a 16-byte chunk held as four little-endian words. */
template <typename T, int C>
__device__ __forceinline__ Vec<C>
unpack_chunk (const uint4 & v, int k, int rotate)
{
  uint32_t w[4] = { v.x, v.y, v.z, v.w };
  if constexpr (sizeof (T) == 2) {
    return bits_to_float (w[k / 2] >> (16 * (k % 2)), CF_SEL_HALF);
  } else if constexpr (C == 1) {
    return bits_to_float (w[k / 4], CF_SEL_BYTE (k % 4));
  } else if constexpr (C == 2) {
    int b = 2 * (k % 2);
    return make_float2 (bits_to_float (w[k / 2], CF_SEL_BYTE (b)),
        bits_to_float (w[k / 2], CF_SEL_BYTE (b + 1)));
  } else {
    uint32_t p = w[k];
    if (rotate)
      p = __byte_perm (p, 0, 0x0321);
    return make_float4 (bits_to_float (p, CF_SEL_BYTE (0)),
        bits_to_float (p, CF_SEL_BYTE (1)),
        bits_to_float (p, CF_SEL_BYTE (2)),
        bits_to_float (p, CF_SEL_BYTE (3)));
  }
}

/* load_tile() with 16-byte loads: a thread fetches a whole aligned chunk
 * of pixels, so each load moves 4 to 16 times more bytes. Each thread issues
 * CHUNK_BATCH loads before it converts any, so that several DRAM round trips
 * overlap instead of following one another. Needs 16-byte aligned rows
 * (Image::chunk_loads); chunks cut by the plane's edge fall back to pixel
 * loads with the border mode. */
constexpr int CHUNK_BATCH = 2;

template <typename T, int C, int COLS, int SROW>
__device__ __forceinline__ void
load_tile_chunks (const Image & im, int border, Vec<C> * tile, int gx0,
    int gy0, int rows, int tid, int nthreads)
{
  constexpr int PX = CHUNK_PX<T, C>;
  constexpr int P = C * sizeof (T);
  /* first chunk: gx0 rounded down to a multiple of PX */
  int ax = gx0 >= 0 ? gx0 - gx0 % PX : -((PX - 1 - gx0) / PX) * PX;
  int chunks = (gx0 - ax + COLS + PX - 1) / PX;
  int total = rows * chunks;

  for (int first = tid; first < total; first += nthreads * CHUNK_BATCH) {
    uint4 v[CHUNK_BATCH];
    int xs[CHUNK_BATCH], rs[CHUNK_BATCH];
    bool whole[CHUNK_BATCH];

    /* issue the loads */
#pragma unroll
    for (int b = 0; b < CHUNK_BATCH; b++) {
      int idx = first + b * nthreads;
      int r = idx / chunks;
      int x = ax + (idx - r * chunks) * PX;
      int gy = cf_border_index (gy0 + r, im.height, (cf_border) border);
      rs[b] = r;
      xs[b] = x;
      whole[b] = idx < total && gy >= 0 && x >= 0 && x + PX <= im.width;
      if (whole[b])
        v[b] = __ldg (reinterpret_cast<const uint4 *>(im.src
                + (size_t) gy * im.src_stride + (size_t) x * P));
    }
    /* convert and store them */
#pragma unroll
    for (int b = 0; b < CHUNK_BATCH; b++) {
      if (first + b * nthreads >= total)
        break;
#pragma unroll
      for (int k = 0; k < PX; k++) {
        int c = xs[b] + k - gx0;
        if (c < 0 || c >= COLS)
          continue;
        tile[rs[b] * SROW + padded (c)] = whole[b]
            ? unpack_chunk<T, C> (v[b], k, im.rotate)
            : load_px_border<T, C> (im, border, xs[b] + k, gy0 + rs[b]);
      }
    }
  }
}

/* The input tile of `rows` rows and COLS columns at (gx0, gy0), through
 * 16-byte chunks where the layout and alignment allow. */
template <typename T, int C, int COLS, int SROW>
__device__ __forceinline__ void
fill_tile (const Image & im, int border, Vec<C> * tile, int gx0, int gy0,
    int rows, int tid, int nthreads)
{
  if constexpr (CHUNK_PX<T, C> > 0) {
    if (im.chunk_loads) {
      load_tile_chunks<T, C, COLS, SROW> (im, border, tile, gx0, gy0, rows,
          tid, nthreads);
      return;
    }
  }
  load_tile<T, C, COLS, SROW> (im, border, tile, gx0, gy0, rows, tid,
      nthreads);
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

/* Writes N consecutive pixels starting at (x, y) from their lane sums;
 * `kept` holds the kept lane of each (4 channels: the source pixel's).
 * A run that ends inside the row goes out as packed words, a run cut by the
 * right edge pixel by pixel. */
template <typename T, int C, int NM, int NF, int N>
__device__ __forceinline__ void
store_run (const Image & im, const Mask & m, int x, int y,
    const float (&a)[N][NF], const float (&b)[N][NF], const float (&kept)[N])
{
  constexpr int P = C * sizeof (T);     /* bytes per pixel */
  constexpr int NW = N * P / 4;
  uint32_t px[N];

#pragma unroll
  for (int k = 0; k < N; k++) {
    uint32_t s[4];
#pragma unroll
    for (int l = 0; l < NF; l++)
      s[l] = finish<T, NM> (a[k][l], NM == 2 ? b[k][l] : 0.0f, m.scale,
          m.offset);
    if (C == 4)
      s[3] = (uint32_t) kept[k];
    px[k] = pack_px<T, C> (s, im.rotate);
  }

  if (x + N <= im.width) {
    uint32_t w[NW] = { };
#pragma unroll
    for (int k = 0; k < N; k++) {
      int bit = (k * P % 4) * 8;
      w[k * P / 4] |= px[k] << bit;
      if (bit + 8 * P > 32)
        w[k * P / 4 + 1] |= px[k] >> (32 - bit);
    }
    store_words<NW> (im.dst + (size_t) y * im.dst_stride + (size_t) x * P, w);
  } else {
#pragma unroll
    for (int k = 0; k < N; k++)
      if (x + k < im.width)
        store_px<T, C> (im, x + k, y, px[k]);
  }
}

/* ---- tiles of the plane's own bytes (byte and word tiles) ---------------- */

/* Pixel x of a row of four-byte pixels as its little-endian word. */
__device__ __forceinline__ uint32_t
load_word (const uint8_t * row, int x, bool word_loads)
{
  const uint8_t *p = row + 4 * (size_t) x;
  if (word_loads)
    return __ldg (reinterpret_cast<const uint32_t *>(p));
  return __ldg (p) | (uint32_t) __ldg (p + 1) << 8
      | (uint32_t) __ldg (p + 2) << 16 | (uint32_t) __ldg (p + 3) << 24;
}

/* The 16 / P pixels of P bytes (1 or 4) of a 16-byte chunk from pixel gx of
 * `row` (NULL: a row outside a CONSTANT border), pixel by pixel through the
 * border mode: chunks that the plane's edge cuts, or rows that are not
 * 16-byte aligned. Out of line, as only edge blocks come here on aligned
 * planes; takes values rather than the Image, which would otherwise be
 * copied to the stack of every thread to have an address. */
template <int P>
__device__ __noinline__ uint4
edge_chunk (const uint8_t * row, int width, bool word_loads, int border,
    int gx)
{
  uint32_t w[4] = { 0, 0, 0, 0 };
  for (int p = 0; p < 16 / P; p++) {
    int bx = cf_border_index (gx + p, width, (cf_border) border);
    if (bx < 0 || !row)
      continue;
    if (P == 1)
      w[p / 4] |= (uint32_t) __ldg (row + bx) << (8 * (p % 4));
    else
      w[p] = load_word (row, bx, word_loads);
  }
  return make_uint4 (w[0], w[1], w[2], w[3]);
}

/* ROWS rows from row y0 of CHUNKS 16-byte chunks from pixel x0 (a multiple
 * of 16 / P) into `tile`, rows of 16 CHUNKS bytes, unconverted; every load
 * of a thread is issued before any is stored. The caller waits at a
 * barrier before reading it.
 *
 * Most tiles lie wholly inside the plane: one test for the block, then a
 * load is an offset from the tile's first byte. Only tiles that reach an
 * edge (or rows that are not 16-byte aligned) map each row and chunk
 * through the border mode: the full path costs about 50 instructions a
 * load, which in the byte and word tiles was a fifth of a thread's work.
 * COLUMNS: inside the plane, a thread takes one column of chunks and
 * steps down it, rather than dividing each chunk's index by the row's
 * chunks (about 70 instructions a warp in the 3x3 word tiles): 4K RGBA
 * 3x3 float masks 32.9-33.0 -> 31.5-32.0 us, 5x5 dot products 39.7-39.9
 * -> 38.2-38.6, one-byte planes level (one call). */
template <int P, int ROWS, int CHUNKS, int THREADS, bool COLUMNS = true>
__device__ __forceinline__ void
fill_raw_tile (const Image & im, int border, int x0, int y0, int tid,
    uint8_t * tile)
{
  constexpr int PX = 16 / P;
  constexpr int LOADS = (ROWS * CHUNKS + THREADS - 1) / THREADS;
  uint4 v[LOADS];
  const bool inside = im.chunk_loads && x0 >= 0 && y0 >= 0
      && x0 + CHUNKS * PX <= im.width && y0 + ROWS <= im.height;

  if (COLUMNS && inside) {
    /* a thread keeps one chunk column, c, and steps down the rows
     * PASS_ROWS at a time: one division, then a 64-bit add a load */
    constexpr int PASS_ROWS = THREADS / CHUNKS;
    constexpr int PASSES = (ROWS + PASS_ROWS - 1) / PASS_ROWS;
    static_assert (PASS_ROWS > 0, "a pass covers a row");
    const int r0 = tid / CHUNKS, c = tid - r0 * CHUNKS;
    if (r0 >= PASS_ROWS)
      return;
    const uint8_t *at = im.src + (size_t) (y0 + r0) * im.src_stride
        + (size_t) x0 * P + 16 * c;
    const size_t step = (size_t) PASS_ROWS * im.src_stride;
    uint4 w[PASSES];
#pragma unroll
    for (int k = 0; k < PASSES; k++)
      if (r0 + k * PASS_ROWS < ROWS)
        w[k] = __ldg (reinterpret_cast<const uint4 *>(at + k * step));
#pragma unroll
    for (int k = 0; k < PASSES; k++)
      if (r0 + k * PASS_ROWS < ROWS)
        reinterpret_cast<uint4 *>(tile)[tid + k * PASS_ROWS * CHUNKS] = w[k];
    return;
  }
  if (inside) {
    const uint8_t *first = im.src + (size_t) y0 * im.src_stride
        + (size_t) x0 * P;
#pragma unroll
    for (int k = 0; k < LOADS; k++) {
      const int idx = tid + k * THREADS, r = idx / CHUNKS;
      if (idx >= ROWS * CHUNKS)
        break;
      v[k] = __ldg (reinterpret_cast<const uint4 *>(first
              + (size_t) r * im.src_stride) + (idx - r * CHUNKS));
    }
  } else {
#pragma unroll
    for (int k = 0; k < LOADS; k++) {
      const int idx = tid + k * THREADS, r = idx / CHUNKS;
      const int gx = x0 + PX * (idx - r * CHUNKS);
      const int gy = cf_border_index (y0 + r, im.height, (cf_border) border);
      if (idx >= ROWS * CHUNKS)
        break;
      const uint8_t *row = gy >= 0 ? im.src + (size_t) gy * im.src_stride
          : nullptr;
      if (im.chunk_loads && row && gx >= 0 && gx + PX <= im.width)
        v[k] = __ldg (reinterpret_cast<const uint4 *>(row + P * (size_t) gx));
      else
        v[k] = edge_chunk<P> (row, im.width, im.word_loads, border, gx);
    }
  }
#pragma unroll
  for (int k = 0; k < LOADS; k++) {
    const int idx = tid + k * THREADS;
    if (idx >= ROWS * CHUNKS)
      break;
    reinterpret_cast<uint4 *>(tile)[idx] = v[k];
  }
}

/* A four-byte pixel from the low bytes b0 b1 b2 of its three rounded
 * results (lane order) and the kept byte of its source word `src`, in
 * memory order: the kept byte last, or first when ROTATE. */
template <bool ROTATE>
__device__ __forceinline__ uint32_t
pack_kept (uint32_t b0, uint32_t b1, uint32_t b2, uint32_t src)
{
  constexpr uint32_t KEPT_SEL = ROTATE ? 0x40u : 0x70u;
  constexpr uint32_t ORDER = ROTATE ? 0x4105u : 0x5410u;
  const uint32_t lo = __byte_perm (b0, b1, 0x0040);
  const uint32_t hi = __byte_perm (b2, src, KEPT_SEL);
  return __byte_perm (lo, hi, ORDER);
}

/* (c << 16) | (a << 8) | b, a and b saturated to bytes first: one
 * instruction. */
__device__ __forceinline__ uint32_t
packed_bytes (int a, int b, uint32_t c)
{
  uint32_t d;
  asm ("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;"
      : "=r" (d) : "r" (a), "r" (b), "r" (c));
  return d;
}

/* A four-byte pixel from the values v0 v1 v2 of its three filtered
 * channels (lane order), each rounded and saturated to a byte, and the
 * kept byte of its source word `src`, in memory order, as pack_kept():
 * two values go in as 32-bit integers rounded to nearest even (values
 * past their range at its bounds, NaN 0) and one as a rounded byte, so that
 * a saturating pack and one byte permute place all four bytes where
 * pack_kept() takes three. It needs all three values at once, so it suits
 * kernels that have them together (the float word tiles: 4K 3x3 28.1 ->
 * 27.3 us of kernel time), not ones that round channel after channel. */
template <bool ROTATE>
__device__ __forceinline__ uint32_t
rounded_pixel (float v0, float v1, float v2, uint32_t src)
{
  if constexpr (ROTATE) {
    /* bytes: v1 v2 v0 0, then src's byte 0 ahead */
    const uint32_t x = packed_bytes (__float2int_rn (v2),
        __float2int_rn (v1), rounded_byte (v0));
    return __byte_perm (x, src, 0x1024);
  } else {
    /* bytes: v0 v1 v2 0, then src's byte 3 in the last */
    const uint32_t x = packed_bytes (__float2int_rn (v1),
        __float2int_rn (v0), rounded_byte (v2));
    return __byte_perm (x, src, 0x7210);
  }
}

/* N four-byte pixels from (x, y): as wide stores when the run ends inside
 * the row, pixel by pixel when the right edge cuts it. */
template <int N>
__device__ __forceinline__ void
store_pixel_words (const Image & im, int x, int y, const uint32_t (&px)[N])
{
  if (x + N <= im.width) {
    store_words<N> (im.dst + (size_t) y * im.dst_stride + 4 * (size_t) x,
        px);
  } else {
#pragma unroll
    for (int k = 0; k < N; k++)
      if (x + k < im.width)
        store_px<uint8_t, 4> (im, x + k, y, px[k]);
  }
}

/* ---- small integer masks (the byte and word tiles) ------------------------ */

/* A mask of small integer taps (cf_conv2d_plan::small_integer) for the
 * integer byte and word tiles. */
struct IntMask
{
  int border;
  float scale, offset;
  int taps[25];
};

/* A float mask of up to 5 x 5 for the byte and word tiles: 120 bytes of
 * launch parameters where Mask has 7.7 KB. The tiles take their samples
 * as subnormals (subnormal_byte()), so the taps and the offset carry a
 * power of two that `unscale` undoes (folded_mask()). */
struct FloatMask
{
  int border;
  float offset;
  float unscale;
  float taps[25];
};

/* The integer taps of a mask of up to 5 x 5 whose plan says they are
 * small_integer. */
inline IntMask
int_mask (const Mask & m)
{
  IntMask im = { m.border, m.scale, m.offset, { } };
  for (int t = 0; t < m.kw * m.kh && t < 25; t++)
    im.taps[t] = (int) m.taps[0][t];
  return im;
}

/* What the byte and word tiles sum in, and a tap of either mask. */
template <typename M> constexpr bool is_int_mask = false;
template <> constexpr bool is_int_mask<IntMask> = true;
template <typename M> struct MaskSum { typedef float type; };
template <> struct MaskSum<IntMask> { typedef int type; };
__device__ __forceinline__ float
tap (const FloatMask & m, int t)
{
  return m.taps[t];
}

__device__ __forceinline__ int
tap (const IntMask & m, int t)
{
  return m.taps[t];
}

/* Float masks reach the byte and word tiles with their scale folded into
 * the taps (folded_mask()), and their sums start from the offset. The
 * samples are subnormals b 2^-SUBNORMAL_EXP (subnormal_byte()), so the
 * taps and the offset are multiplied by 2^E (subnormal_tap_exp()), and one
 * multiply by `unscale` gives the value to round. Integer sums start from
 * 0 and are scaled and offset at the end, as floats. */
inline FloatMask
folded_mask (const Mask & m)
{
  const int n = m.kw * m.kh < 25 ? m.kw * m.kh : 25;
  const int E = subnormal_tap_exp (largest_scaled (m.taps[0], n, m.scale));
  FloatMask f = { m.border,
    scaled_float (m.offset, E - SUBNORMAL_EXP),
    (float) std::ldexp (1.0, SUBNORMAL_EXP - E), { } };
  for (int t = 0; t < n; t++)
    f.taps[t] = scaled_float ((double) m.taps[0][t] * m.scale, E);
  return f;
}

__device__ __forceinline__ float sum_start (const FloatMask & m)
{
  return m.offset;
}
__device__ __forceinline__ int sum_start (const IntMask &) { return 0; }

/* A float sum's value, scaled and offset: the value to round. */
__device__ __forceinline__ float
finished (const FloatMask & m, float v)
{
  return v * m.unscale;
}

__device__ __forceinline__ float
finished (const IntMask & m, float v)
{
  return fmaf (v, m.scale, m.offset);
}

__device__ __forceinline__ float
mad (float a, float b, float c)
{
  return fmaf (a, b, c);
}

__device__ __forceinline__ int
mad (int a, int b, int c)
{
  return a * b + c;
}

/* Two 8-bit samples in the 16-bit halves of a word, multiplied by an
 * integer tap as one integer, give both products at once; the plan bounds
 * every sum of them below 2^15 in magnitude, so a half's sum never reaches
 * the other half but through the sign the lower one lends, which
 * low_half and high_half take back. even_bytes and odd_bytes split a word
 * of four samples into such pairs: bytes 0 and 2, bytes 1 and 3. */
__device__ __forceinline__ int even_bytes (uint32_t w)
{
  return (int) __byte_perm (w, 0, 0x4240);
}

__device__ __forceinline__ int odd_bytes (uint32_t w)
{
  return (int) __byte_perm (w, 0, 0x4341);
}

/* A tap for the tensor cores: half hi in the low 16 bits, half lo = tap -
 * hi in the high 16, so that products with both keep about 22 bits */
__host__ __device__ inline uint32_t
split_tap (float tap)
{
  const __half hi = __float2half_rn (tap);
  const __half lo = __float2half_rn (tap - __half2float (hi));
  return __half_as_ushort (hi) | (uint32_t) __half_as_ushort (lo) << 16;
}

/* Four 8 x 8 matrices of halves from shared memory, lane l giving the
 * address of row l % 8 of matrix l / 8 (16 bytes, 16-byte aligned): a
 * lane's register i holds row l / 4, halves 2 (l % 4) and 2 (l % 4) + 1 of
 * matrix i, an MMA fragment's layout */
__device__ __forceinline__ void
ldmatrix_x4 (uint32_t (&a)[4], const void *smem)
{
  const uint32_t addr = (uint32_t) __cvta_generic_to_shared (smem);
  asm volatile ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
      "{%0, %1, %2, %3}, [%4];"
      : "=r" (a[0]), "=r" (a[1]), "=r" (a[2]), "=r" (a[3]) : "r" (addr));
}

/* C += A B on the tensor cores: 16 x 16 halves by 16 x 8, float sums (the
 * fragments' layout is PTX's for mma.m16n8k16) */
__device__ __forceinline__ void
mma_16816 (float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
  asm ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f" (c[0]), "+f" (c[1]), "+f" (c[2]), "+f" (c[3])
      : "r" (a[0]), "r" (a[1]), "r" (a[2]), "r" (a[3]), "r" (b0), "r" (b1));
}

/* The sum in the lower half of v, sign-extended by two shifts (CUDA's
 * __byte_perm reads 3 bits of each selector nibble, so it cannot replicate
 * a sign), and the one in the upper half: v = low + high x 2^16 with
 * |low| < 2^15. */
__device__ __forceinline__ int low_half (int v)
{
  return (int) ((uint32_t) v << 16) >> 16;
}

__device__ __forceinline__ int high_half (int v)
{
  return (v + 0x8000) >> 16;
}

/* An integer below 2^22 in magnitude as a float, exactly: placed in the
 * mantissa of 1.5 x 2^23, which is then subtracted (the conversion unit,
 * a quarter of the rate, avoided). */
__device__ __forceinline__ float int_to_float (int v)
{
  return __int_as_float (0x4B400000 + v) - 12582912.0f;
}

/* ---- integer taps of one byte: four products an instruction ------------ */

/* A mask of small integer taps that each fit a signed byte, packed four
 * to a word along its rows: word g of row j holds taps 4g .. 4g + 3 (0
 * past the row's end). A dot product of four unsigned samples of a
 * channel with four signed taps (dp4a) then sums a row of a 3-tap mask in
 * one instruction, of a 5-tap mask in two, where the pair sums spend one
 * multiply-add a tap on two samples. */
struct DotMask
{
  int border;
  float scale, offset;
  int taps[5][2];
};

template <> constexpr bool is_int_mask<DotMask> = true;
template <> struct MaskSum<DotMask> { typedef int type; };
__device__ __forceinline__ int sum_start (const DotMask &) { return 0; }
__device__ __forceinline__ float
finished (const DotMask & m, float v)
{
  return fmaf (v, m.scale, m.offset);
}

/* Whether every tap of a mask of small integer taps fits a signed byte
 * (its absolute sum is at most 128, so only a lone 128 does not), and the
 * packed mask. */
inline bool
byte_taps (const Mask & m)
{
  for (int t = 0; t < m.kw * m.kh; t++)
    if (m.taps[0][t] > 127.0f || m.taps[0][t] < -128.0f)
      return false;
  return true;
}

inline DotMask
dot_mask (const Mask & m)
{
  DotMask d = { m.border, m.scale, m.offset, { } };
  for (int j = 0; j < m.kh; j++)
    for (int i = 0; i < m.kw; i++)
      d.taps[j][i / 4] |= ((int) m.taps[0][j * m.kw + i] & 0xFF) << (8 * (i % 4));
  return d;
}

/* d + the dot product of four unsigned bytes of a with four signed bytes
 * of b. */
__device__ __forceinline__ int
dot4 (uint32_t a, int b, int d)
{
  int r;
  asm ("dp4a.u32.s32 %0, %1, %2, %3;" : "=r" (r) : "r" (a), "r" (b), "r" (d));
  return r;
}

/* Input row r of a thread's window is mask row j of its output row r - j:
 * calls f (j, o) for each of its ROWS output rows o that row r reaches
 * (the byte and word tiles; r is unrolled, so every test folds away). */
template <int KH, int ROWS, typename F>
__device__ __forceinline__ void
for_rows_reached (int r, F f)
{
#pragma unroll
  for (int j = 0; j < KH; j++) {
    const int o = r - j;
    if (o >= 0 && o < ROWS)
      f (j, o);
  }
}

/* Kernels for one mask of up to 5 x 5 (the byte and word tiles): calls
 * Launcher<KW, KH>::run (launch, m) for the mask's sides (odd: 1, 3 or
 * 5), or says CF_ERR_UNSUPPORTED for a larger mask or two masks. */
template <template <int, int> class Launcher, int KW>
int
small_mask_rows (const Launch & launch, const Mask & m)
{
  switch (m.kh) {
    case 1: return Launcher<KW, 1>::run (launch, m);
    case 3: return Launcher<KW, 3>::run (launch, m);
    default: return Launcher<KW, 5>::run (launch, m);
  }
}

template <template <int, int> class Launcher>
int
small_mask (const Launch & launch, const Mask & m)
{
  if (launch.plan->magnitude || m.kw > 5 || m.kh > 5)
    return CF_ERR_UNSUPPORTED;
  switch (m.kw) {
    case 1: return small_mask_rows<Launcher, 1> (launch, m);
    case 3: return small_mask_rows<Launcher, 3> (launch, m);
    default: return small_mask_rows<Launcher, 5> (launch, m);
  }
}

}  /* namespace cf_conv2d */
