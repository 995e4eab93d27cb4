/* Device-side pieces every conv2d variant shares: launch arguments, pixel
 * loads and stores for each plane layout, rounding, and the dispatch from a
 * run-time plane layout to a kernel instantiated for it. */
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cuda_runtime.h>

#include "conv2d.h"

namespace cf_conv2d {

/* Where a launch reads and writes. */
struct Image
{
  const uint8_t *src;
  uint8_t *dst;
  size_t src_stride, dst_stride;        /* bytes */
  int width, height;            /* the whole plane: halos read all of it */
  int row_begin, row_end;       /* output rows this launch writes */
  int rotate;                   /* 4 channels with channel 0 kept: lanes are
                                 * rotated so that the kept one is lane 3 */
  int word_loads;               /* 4-channel pixels are 4-byte aligned */
  int chunk_loads;              /* source rows are 16-byte aligned */
};

/* The mask as a kernel parameter. Kernel parameters live in constant memory
 * (bank 0): taps are read through the constant cache and broadcast to the
 * warp like a __constant__ array, and since each launch carries its own copy,
 * two elements filtering on two streams at once can never overwrite each
 * other's mask, which a module-wide __constant__ array would allow. Passed
 * as __grid_constant__ so that indexing it never copies it to local memory. */
struct Mask
{
  int kw, kh, rx, ry;
  int border;
  float scale, offset;
  float taps[2][CF_CONV2D_MAX_TAPS];
};

/* A rank-1 mask as its factors, M[j][i] = col[j] * row[i], both centred in
 * zeros to the larger side k (the separable variants). */
struct SepMask
{
  int k, r;                     /* padded size and radius */
  int border;
  float scale, offset;
  float row[CF_CONV2D_MAX_SIZE], col[CF_CONV2D_MAX_SIZE];
};

/* Host-side bundle a variant's launcher receives. */
struct Launch
{
  Image im;
  const cf_conv2d_plan *plan;
  cudaStream_t stream;
};

/* ---- per-layout vector types ------------------------------------------ */

/* Float lanes holding one pixel: 1 or 2 lanes, else 4 (RGB pads lane 3). */
template <int C> struct VecOf { typedef float4 type; };
template <> struct VecOf<1> { typedef float type; };
template <> struct VecOf<2> { typedef float2 type; };
template <int C> using Vec = typename VecOf<C>::type;

/* Lanes that are filtered: 4-channel layouts keep their last lane. */
template <int C> constexpr int FILTERED_LANES = C == 4 ? 3 : C;

__device__ __forceinline__ float lane (float v, int) { return v; }
__device__ __forceinline__ float lane (float2 v, int l) { return l ? v.y : v.x; }
__device__ __forceinline__ float
lane (float4 v, int l)
{
  return l == 0 ? v.x : l == 1 ? v.y : l == 2 ? v.z : v.w;
}

/* Sets lane l (a constant after unrolling) without taking an address, which
 * would move the vector to local memory. */
__device__ __forceinline__ void set_lane (float & v, int, float x) { v = x; }
__device__ __forceinline__ void
set_lane (float2 & v, int l, float x)
{
  if (l) v.y = x; else v.x = x;
}
__device__ __forceinline__ void
set_lane (float4 & v, int l, float x)
{
  if (l == 0) v.x = x; else if (l == 1) v.y = x; else if (l == 2) v.z = x; else v.w = x;
}

template <typename V> __device__ __forceinline__ V vzero ();
template <> __device__ __forceinline__ float vzero<float> () { return 0.0f; }
template <> __device__ __forceinline__ float2 vzero<float2> () { return make_float2 (0.0f, 0.0f); }
template <> __device__ __forceinline__ float4 vzero<float4> () { return make_float4 (0.0f, 0.0f, 0.0f, 0.0f); }

/* ---- conversions -------------------------------------------------------- */

/* Byte or half-word `sel` of w as a float, exactly: the integer is placed in
 * the mantissa of 2^23 (one PRMT) and 2^23 subtracted, avoiding the
 * quarter-rate integer-to-float conversion unit. sel is a __byte_perm
 * selector whose upper nibbles pick zero bytes and the 0x4B exponent byte. */
__device__ __forceinline__ float
bits_to_float (uint32_t w, uint32_t sel)
{
  return __uint_as_float (__byte_perm (w, 0x4B000000u, sel)) - 8388608.0f;
}

#define CF_SEL_BYTE(i) (0x7540u | (i))
#define CF_SEL_HALF 0x7510u

/* Byte i of w as the float b 2^-SUBNORMAL_EXP, exactly: the byte moved to
 * bits 16-23 of a word that is zero elsewhere, a subnormal. One instruction
 * where bits_to_float() takes two; the caller's taps carry the power of two
 * (FloatMask). Float multiply-adds take subnormals at full rate as long as
 * they are not flushed to zero (no -ftz, no --use_fast_math). */
constexpr int SUBNORMAL_EXP = 133;

__device__ __forceinline__ float
subnormal_byte (uint32_t w, int i)
{
  return __uint_as_float (__byte_perm (w, 0, 0x4044u | (uint32_t) i << 8));
}

/* The power of two E by which taps multiplying subnormal_byte() samples are
 * scaled: it takes the largest tap's magnitude near 2^100, so that products
 * and sums stay normal floats, each exactly 2^(E - SUBNORMAL_EXP) times the
 * unscaled one. E lies in [6, 249], so that 2^(SUBNORMAL_EXP - E), which
 * undoes it, is a normal float too; only taps past 2^94, whose results
 * saturate anyway, land above 2^100. */
inline int
subnormal_tap_exp (double largest)
{
  int e = 0;
  if (largest > 0.0 && std::isfinite (largest))
    std::frexp (largest, &e);
  return std::min (249, std::max (6, 100 - e));
}

/* The largest magnitude of taps[0 .. n) times scale, for
 * subnormal_tap_exp(). */
inline double
largest_scaled (const float * taps, int n, double scale)
{
  double largest = 0.0;
  for (int t = 0; t < n; t++)
    largest = std::fmax (largest, std::fabs (taps[t] * scale));
  return largest;
}

/* v 2^e as a float (a tap or an offset scaled by subnormal_tap_exp()'s
 * power), held at the largest finite float: taps past 2^122 scaled by 2^6
 * would overflow, and infinity times a zero sample would make a NaN where
 * the sum should keep its offset. */
inline float
scaled_float (double v, int e)
{
  const double s = std::ldexp (v, e);
  return (float) std::min ((double) FLT_MAX, std::max (-(double) FLT_MAX, s));
}

/* Saturate to [0, maxval] and round to nearest even: adding 2^23 leaves the
 * rounded integer in the low mantissa bits, under the exponent's. Matches
 * the CPU twin's lrintf(clamp(v)). Kernels that only take the low byte may
 * keep the bits as they are. */
__device__ __forceinline__ uint32_t
saturated_bits (float v, float maxval)
{
  v = fminf (fmaxf (v, 0.0f), maxval);
  return __float_as_uint (v + 8388608.0f);
}

/* Saturated to [0, 255] and rounded to nearest even, as one conversion
 * (cvt.rni.sat.u8): the same low byte as saturated_bits (), in one issue
 * slot where that takes three. Callers take the low byte only. */
__device__ __forceinline__ uint32_t
rounded_byte (float v)
{
  uint32_t r;
  asm ("cvt.rni.sat.u8.f32 %0, %1;" : "=r" (r) : "f" (v));
  return r;
}

__device__ __forceinline__ uint32_t
saturate_round (float v, float maxval)
{
  return saturated_bits (v, maxval) - 0x4B000000u;
}

template <typename T> constexpr float MAX_SAMPLE = sizeof (T) == 2 ? 65535.0f : 255.0f;

/* ---- pixel loads ---------------------------------------------------------- */

template <typename T, int C>
__device__ __forceinline__ Vec<C>
load_px (const Image & im, int x, int y)
{
  const uint8_t *row = im.src + (size_t) y * im.src_stride;
  if constexpr (sizeof (T) == 2) {
    static_assert (C == 1, "16-bit planes are single-channel");
    uint32_t w = __ldg (reinterpret_cast<const uint16_t *>(row) + x);
    return bits_to_float (w, CF_SEL_HALF);
  } else if constexpr (C == 1) {
    return bits_to_float (__ldg (row + x), CF_SEL_BYTE (0));
  } else if constexpr (C == 2) {
    const uint8_t *p = row + 2 * x;
    uint32_t w = __ldg (p) | (uint32_t) __ldg (p + 1) << 8;
    return make_float2 (bits_to_float (w, CF_SEL_BYTE (0)),
        bits_to_float (w, CF_SEL_BYTE (1)));
  } else if constexpr (C == 3) {
    const uint8_t *p = row + 3 * x;
    uint32_t w = __ldg (p) | (uint32_t) __ldg (p + 1) << 8
        | (uint32_t) __ldg (p + 2) << 16;
    return make_float4 (bits_to_float (w, CF_SEL_BYTE (0)),
        bits_to_float (w, CF_SEL_BYTE (1)),
        bits_to_float (w, CF_SEL_BYTE (2)), 0.0f);
  } else {
    uint32_t w;
    if (im.word_loads) {
      w = __ldg (reinterpret_cast<const uint32_t *>(row) + x);
    } else {
      const uint8_t *p = row + 4 * x;
      w = __ldg (p) | (uint32_t) __ldg (p + 1) << 8
          | (uint32_t) __ldg (p + 2) << 16 | (uint32_t) __ldg (p + 3) << 24;
    }
    if (im.rotate)
      w = __byte_perm (w, 0, 0x0321);   /* lanes: ch1 ch2 ch3 ch0 */
    return make_float4 (bits_to_float (w, CF_SEL_BYTE (0)),
        bits_to_float (w, CF_SEL_BYTE (1)),
        bits_to_float (w, CF_SEL_BYTE (2)),
        bits_to_float (w, CF_SEL_BYTE (3)));
  }
}

/* Pixel (x, y) of the plane extended by the border mode: zero where a
 * CONSTANT border reads outside. */
template <typename T, int C>
__device__ __forceinline__ Vec<C>
load_px_border (const Image & im, int border, int x, int y)
{
  int bx = cf_border_index (x, im.width, (cf_border) border);
  int by = cf_border_index (y, im.height, (cf_border) border);
  if (bx < 0 || by < 0)
    return vzero<Vec<C>> ();
  return load_px<T, C> (im, bx, by);
}

/* ---- sums ------------------------------------------------------------------------ */

/* Adds tap `t` of the mask (of both masks for NM == 2) times pixel v to the
 * filtered lane sums a (and b). */
template <int C, int NM>
__device__ __forceinline__ void
accumulate (float *a, float *b, const Mask & m, int t, Vec<C> v)
{
  float w = m.taps[0][t];
#pragma unroll
  for (int l = 0; l < FILTERED_LANES<C>; l++)
    a[l] = fmaf (w, lane (v, l), a[l]);
  if (NM == 2) {
    float w2 = m.taps[1][t];
#pragma unroll
    for (int l = 0; l < FILTERED_LANES<C>; l++)
      b[l] = fmaf (w2, lane (v, l), b[l]);
  }
}

/* ---- results and stores ------------------------------------------------------ */

/* Final sample value of filtered lane sums: a (and b for magnitude masks). */
template <typename T, int NM>
__device__ __forceinline__ uint32_t
finish (float a, float b, float scale, float offset)
{
  float v = NM == 2 ? sqrtf (a * a + b * b) : a;
  return saturate_round (fmaf (v, scale, offset), MAX_SAMPLE<T>);
}

/* Packs one pixel's integer samples (lane order) into the pixel's bytes in
 * channel order, as a little-endian word (pixels are at most 4 bytes). */
template <typename T, int C>
__device__ __forceinline__ uint32_t
pack_px (const uint32_t s[4], int rotate)
{
  if constexpr (sizeof (T) == 2) {
    return s[0];
  } else {
    uint32_t w = s[0];
    if (C > 1) w |= s[1] << 8;
    if (C > 2) w |= s[2] << 16;
    if (C > 3) w |= s[3] << 24;
    if (C == 4 && rotate)
      w = __byte_perm (w, 0, 0x2103);   /* back to ch0 ch1 ch2 ch3 */
    return w;
  }
}

template <typename T, int C>
__device__ __forceinline__ void
store_px (const Image & im, int x, int y, uint32_t w)
{
  uint8_t *p = im.dst + (size_t) y * im.dst_stride + x * C * sizeof (T);
  if constexpr (sizeof (T) == 2) {
    *reinterpret_cast<uint16_t *>(p) = (uint16_t) w;
  } else if constexpr (C == 4) {
    if (im.word_loads) {
      *reinterpret_cast<uint32_t *>(p) = w;
      return;
    }
#pragma unroll
    for (int c = 0; c < 4; c++)
      p[c] = (uint8_t) (w >> (8 * c));
  } else {
#pragma unroll
    for (int c = 0; c < C; c++)
      p[c] = (uint8_t) (w >> (8 * c));
  }
}

/* Writes a pixel from its lane sums: filtered lanes from a (and b), the kept
 * lane (4 channels) from `center`, the unfiltered source pixel. */
template <typename T, int C, int NM>
__device__ __forceinline__ void
store_result (const Image & im, const Mask & m, int x, int y,
    const float *a, const float *b, Vec<C> center)
{
  uint32_t s[4];
#pragma unroll
  for (int l = 0; l < FILTERED_LANES<C>; l++)
    s[l] = finish<T, NM> (a[l], NM == 2 ? b[l] : 0.0f, m.scale, m.offset);
  if (C == 4)
    s[3] = (uint32_t) lane (center, 3);
  store_px<T, C> (im, x, y, pack_px<T, C> (s, im.rotate));
}

/* ---- launch helpers ------------------------------------------------------------ */

Mask make_mask (const cf_conv2d_plan * plan);
SepMask make_sep_mask (const cf_conv2d_plan * plan);

/* Largest dynamic shared memory a block may use on the current device. */
int max_shared_per_block ();

/* Prepares a kernel for `bytes` of dynamic shared memory, once per device:
 * the largest shared-memory carve-out, and the limit raised past 48 KB when
 * needed. Returns a CUDA error or CF_ERR_UNSUPPORTED when the device cannot
 * give that much. */
int allow_shared (const void *kernel, size_t bytes);

inline unsigned
div_up (int a, int b)
{
  return (unsigned) ((a + b - 1) / b);
}

/* Calls Variant<T, C>::run (launch) for the plane layout of `f`. */
template <template <typename, int> class Variant>
int
dispatch_layout (const cf_plane_format * f, const Launch & launch)
{
  if (f->sample == CF_SAMPLE_U16)
    return Variant<uint16_t, 1>::run (launch);
  switch (f->channels) {
    case 1: return Variant<uint8_t, 1>::run (launch);
    case 2: return Variant<uint8_t, 2>::run (launch);
    case 3: return Variant<uint8_t, 3>::run (launch);
    default: return Variant<uint8_t, 4>::run (launch);
  }
}

/* X(k) for every mask size a template is instantiated for. */
#define CF_ODD_SIZES(X) X(1) X(3) X(5) X(7) X(9) X(11) X(13) X(15) \
  X(17) X(19) X(21) X(23) X(25) X(27) X(29) X(31)

/* The launch status: the launch's own error if any. */
inline int
launch_status ()
{
  return (int) cudaGetLastError ();
}

/* Per-variant entry points, called by cf_conv2d_cuda() once it has checked
 * the arguments. */
int cf_conv2d_basic (const Launch & launch, const cf_plane_format * f);
int cf_conv2d_tiled (const Launch & launch, const cf_plane_format * f);
int cf_conv2d_cached (const Launch & launch, const cf_plane_format * f);
int cf_conv2d_fast (const Launch & launch, const cf_plane_format * f);
int cf_conv2d_separable (const Launch & launch, const cf_plane_format * f);
int cf_conv2d_wide (const Launch & launch, const cf_plane_format * f);
/* The fast variant's kernel for one-byte planes, masks up to 5 x 5 (one
 * mask) (conv2d_fast_bytes.cu);
 * CF_ERR_UNSUPPORTED otherwise. */
int cf_conv2d_fast_bytes (const Launch & launch, const Mask & m);
/* The fast variant's kernel for four-byte pixels of 8-bit samples, masks up
 * to 5 x 5 (one mask) (conv2d_fast_words.cu); CF_ERR_UNSUPPORTED
 * otherwise. */
int cf_conv2d_fast_words (const Launch & launch, const Mask & m);
/* The fast variant's kernel for one-byte planes or four-byte pixels
 * (`channels` 1 or 4) of 8-bit samples, one mask 9 to 25 taps wide, up to
 * 25 high, on compute capability 8.0 and up: sums on the tensor cores
 * (conv2d_fast_mma.cu); CF_ERR_UNSUPPORTED otherwise. */
int cf_conv2d_fast_mma (const Launch & launch, const Mask & m,
    int channels);
/* The fast variant's kernel for one-byte planes (masks up to 9 x 9) or
 * four-byte pixels (up to 5 x 5) of 8-bit samples, one mask of odd sides
 * and of the sizes where it is the fastest, 16-byte aligned rows, on
 * compute capability 8.0 and up: sums on the tensor cores straight from
 * the plane's bytes (conv2d_fast_raw_mma.cu); CF_ERR_UNSUPPORTED
 * otherwise. */
int cf_conv2d_fast_raw_mma (const Launch & launch, const Mask & m,
    int channels);
/* Whether cf_conv2d_fast_raw_mma () takes a mask of kw x kh on this launch
 * of one-byte planes or four-byte pixels (`channels` 1 or 4). */
bool cf_conv2d_raw_mma_takes (const Launch & launch, int kw, int kh,
    int channels);
/* The separable variant's kernel for four-byte pixels of 8-bit samples
 * (conv2d_separable_words.cu). */
int cf_conv2d_separable_words (const Launch & launch,
    const SepMask & m);
/* The separable variant's kernel for four-byte pixels of 8-bit samples with
 * factors of 11 to 17 taps, 16-byte aligned source rows and 8-byte aligned
 * destination rows, on compute capability 8.0 and up: both passes on the
 * tensor cores, the column pass straight from the plane's bytes
 * (conv2d_separable_mma.cu); CF_ERR_UNSUPPORTED otherwise. */
int cf_conv2d_separable_mma (const Launch & launch,
    const SepMask & m);
bool cf_conv2d_separable_mma_takes (const Launch & launch, int k);

}  /* namespace cf_conv2d */
