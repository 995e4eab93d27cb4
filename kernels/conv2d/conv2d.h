/* 2D convolution of image planes: one API, a CPU twin and CUDA variants.
 *
 * The mask is applied as written, not flipped (like OpenCV's filter2D):
 *
 *   out(x, y) = sum_{j,i} M[j][i] * in(x + i - rx, y + j - ry)
 *
 * with rx = (width - 1) / 2 and ry = (height - 1) / 2, arithmetic in float,
 * and the value written is saturate(round(out / divisor + offset)) in the
 * sample type's range. With a second mask (Sobel magnitude) `out` is
 * sqrt(a^2 + b^2) of the two masks' sums. Samples outside the plane come
 * from the border mode (border.h).
 *
 * A plane holds 1 to 4 interleaved channels of 8- or 16-bit samples; every
 * channel is filtered except `keep_channel` (alpha or padding of 4-channel
 * formats), which is copied unchanged.
 */
#ifndef CF_CONV2D_H
#define CF_CONV2D_H

#include <stddef.h>
#include "border.h"
#include "cf_status.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CF_CONV2D_MAX_SIZE 31
#define CF_CONV2D_MAX_TAPS (CF_CONV2D_MAX_SIZE * CF_CONV2D_MAX_SIZE)
/* Separable masks given by their factors (a row and a column of taps) may
 * be longer: up to this many taps each (conv2d_long.h runs them). */
#define CF_CONV2D_MAX_FACTOR 1023
/* Other masks of one set of taps may be larger than CF_CONV2D_MAX_SIZE up
 * to this a side: separable ones go to the long path by their factors,
 * the rest through the frequency domain (conv2d_spectral.h). */
#define CF_CONV2D_MAX_GENERAL 255
#define CF_CONV2D_MAX_GENERAL_TAPS (CF_CONV2D_MAX_GENERAL * CF_CONV2D_MAX_GENERAL)

typedef enum
{
  CF_SAMPLE_U8,
  CF_SAMPLE_U16,                /* native endian (little endian on x86/ARM) */
} cf_sample;

/* Layout of one image plane. */
typedef struct
{
  int width, height;            /* pixels, >= 1 */
  int channels;                 /* interleaved samples per pixel, 1..4 */
  cf_sample sample;
  int keep_channel;             /* 4 channels only: 0 or 3, copied unchanged; else -1 */
} cf_plane_format;

/* A mask as the user gives it: its taps, or the two factors of a
 * separable mask, M[j][i] = col[j] * row[i]. */
typedef struct
{
  int width, height;            /* odd, 1..CF_CONV2D_MAX_SIZE with `taps`
                                 * (..CF_CONV2D_MAX_GENERAL without
                                 * `taps2`), 1..CF_CONV2D_MAX_FACTOR with
                                 * factors */
  const float *taps;            /* `height` rows of `width` taps, or NULL */
  const float *taps2;           /* NULL, or a second mask of the same size:
                                 * the output is the magnitude of both */
  double divisor;               /* non-zero */
  double offset;
  cf_border border;
  const float *row, *col;       /* with taps NULL: `width` and `height` taps */
} cf_conv2d_mask;

/* A validated mask, ready for any variant: built once when the mask changes,
 * then used for every frame. Plain data, no device resources. */
typedef struct
{
  int kw, kh;
  int magnitude;                /* two masks, output sqrt(a^2 + b^2) */
  int separable;                /* one mask of rank 1: taps[j][i] = col[j] * row[i] */
  int small_integer;            /* one mask of integer taps whose absolute
                                 * sum times 255 fits 15 bits: sums of 8-bit
                                 * samples are exact in 16-bit halves of a
                                 * 32-bit integer, two channels at once */
  int long_mask;                /* a side above CF_CONV2D_MAX_SIZE: only the
                                 * factors are kept, and conv2d_long.h runs
                                 * it */
  int box;                      /* separable with equal taps in each factor:
                                 * the long path sums integers, exactly */
  double box_weight;            /* a box's taps over the divisor, in double */
  int spectral;                 /* a side above CF_CONV2D_MAX_SIZE and not
                                 * separable: `wide` holds the taps, and
                                 * conv2d_spectral.h runs it */
  float taps[2][CF_CONV2D_MAX_TAPS];
  float row[CF_CONV2D_MAX_FACTOR], col[CF_CONV2D_MAX_FACTOR];
  float scale;                  /* 1 / divisor */
  float offset;
  cf_border border;
  float wide[CF_CONV2D_MAX_GENERAL_TAPS];       /* spectral: kh rows of kw */
} cf_conv2d_plan;

typedef enum
{
  CF_CONV2D_AUTO,               /* the fastest variant for the mask */
  CF_CONV2D_BASIC,              /* one thread per pixel, reads global memory */
  CF_CONV2D_TILED,              /* input tile with halo in shared memory */
  CF_CONV2D_CACHED,             /* output tile in shared memory, halo from cache */
  CF_CONV2D_FAST,               /* tiled, coarsened, register sliding window */
  CF_CONV2D_SEPARABLE,          /* rank-1 masks: row pass then column pass */
  CF_CONV2D_WIDE,               /* masks 3x3 to 5x5: 16-byte words, registers */
  CF_CONV2D_N_ALGORITHMS
} cf_conv2d_algorithm;

/* Validates `mask` (odd sizes in range, finite taps, a non-zero divisor
 * whose reciprocal and an offset that are finite as floats, known border)
 * and fills `plan`. Returns CF_ERR_INVALID on the first violation. */
int cf_conv2d_plan_init (cf_conv2d_plan * plan, const cf_conv2d_mask * mask);

/* Checks a plane layout; CF_ERR_INVALID when it is not one we filter. */
int cf_plane_format_check (const cf_plane_format * format);

/* Bytes per pixel of a plane layout. */
size_t cf_plane_format_pixel_bytes (const cf_plane_format * format);

/* The variant CF_CONV2D_AUTO runs for this plan on planes of this layout. */
cf_conv2d_algorithm cf_conv2d_choose (const cf_conv2d_plan * plan,
    const cf_plane_format * format);
const char *cf_conv2d_algorithm_name (cf_conv2d_algorithm algorithm);

/* CPU twin: filters output rows [row_begin, row_end) of the plane. `src` and
 * `dst` must not overlap; strides are in bytes. */
int cf_conv2d_cpu (const cf_conv2d_plan * plan, const cf_plane_format * format,
    const void *src, size_t src_stride, void *dst, size_t dst_stride,
    int row_begin, int row_end);

/* CUDA: the same on device memory, asynchronously on `stream`. Rows outside
 * [row_begin, row_end) of `dst` are not touched, but the whole source plane
 * must be valid (the halo reads it). CF_ERR_UNSUPPORTED when the variant
 * cannot run this plan (SEPARABLE on a mask of rank > 1, WIDE on a mask
 * side other than 3 or 5, a magnitude mask other than 3x3 or an RGB
 * plane). */
int cf_conv2d_cuda (cf_conv2d_algorithm algorithm,
    const cf_conv2d_plan * plan, const cf_plane_format * format,
    const void *d_src, size_t src_stride, void *d_dst, size_t dst_stride,
    int row_begin, int row_end, cf_stream stream);

#ifdef __cplusplus
}
#endif
#endif
