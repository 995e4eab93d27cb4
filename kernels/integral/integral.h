/* Integral images (summed-area tables) of one plane, and of its squares:
 * one API, a CPU twin and CUDA kernels.
 *
 * The table has (width + 1) x (height + 1) entries: row 0 and column 0 are
 * zero and entry (x, y) holds the sum of the input over [0, x) x [0, y), so
 * the sum over any rectangle [x0, x1) x [y0, y1) is
 * T(x1, y1) - T(x0, y1) - T(x1, y0) + T(x0, y0), in O(1).
 *
 *   input    sums     squares
 *   u8       u32      u64      (a 4K frame sums to at most 2.1e9 < 2^32)
 *   u16      u64      u64
 *   f32      f64      f64
 *
 * CUDA: in bands of 8 rows (integral_bands.cu). Tiles of one band by 512
 * columns sum their columns and rows; the bands' last rows are scanned
 * down and along, which makes them final; then each tile writes its inner
 * rows from the final row above it. Every entry is written once, and the
 * input is read twice. The tables of every channel, and the squares
 * beside the sums, are built by the same four launches. Planes of up to
 * 524280 rows (CF_ERR_UNSUPPORTED beyond).
 */
#ifndef CF_INTEGRAL_H
#define CF_INTEGRAL_H

#include <stddef.h>
#include "cf_status.h"
#include "gpu.h"
#include "scan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CF_INTEGRAL_U8,
  CF_INTEGRAL_U16,
  CF_INTEGRAL_F32,
  CF_INTEGRAL_N_TYPES
} cf_integral_type;

typedef struct
{
  cf_integral_type type;
  int width, height;            /* >= 1 */
  size_t in_pitch;              /* bytes between input rows */
  size_t sum_pitch;             /* bytes between table rows */
  size_t squares_pitch;         /* bytes between rows of the squares table */
  int in_step;                  /* samples from pixel to pixel: 1 (0 says
                                 * the same) for a plane, 4 for one channel
                                 * of RGBA, with `in` at that channel */
  /* Channels of interleaved pixels made into tables at once (0 or 1: one;
   * at most in_step): channel c's samples start c samples after `in`, and
   * its tables (sums, squares) channel_stride x c bytes after the first
   * channel's, so that the tables of R, G and B take the launches of
   * one. */
  int channels;
  size_t channel_stride;
} cf_integral_layout;

const char *cf_integral_type_name (cf_integral_type type);
size_t cf_integral_in_size (cf_integral_type type);
size_t cf_integral_sum_size (cf_integral_type type);     /* 4 or 8 bytes */
size_t cf_integral_squares_size (cf_integral_type type); /* 8 bytes */
int cf_integral_layout_check (const cf_integral_layout * layout);
int cf_integral_channels (const cf_integral_layout * layout);   /* 0 says 1 */
/* The layout, and input, sums and squares (NULL: none) at addresses and
 * pitches that are multiples of their entries' sizes (the GPU needs it),
 * and each channel's tables apart from the next's; CF_ERR_INVALID
 * otherwise. Every entry point below checks it. */
int cf_integral_args_check (const cf_integral_layout * layout,
    const void *in, const void *sum, const void *squares);

/* `squares` may be NULL: no table of squares. */
int cf_integral_cpu (const cf_integral_layout * layout, const void *in,
    void *sum, void *squares);

/* The same on device memory, asynchronously on `stream`. */
int cf_integral_cuda (const cf_integral_layout * layout, const void *d_in,
    void *d_sum, void *d_squares, cf_stream stream);

/* The same with the rows scanned by a kernels/scan/scan.h variant, for
 * comparing them on real planes: each table is first filled with the
 * samples (or their squares) widened to its type, the plane scanned as one
 * array of width x height, each row's start taken off (exact: integer sums
 * wrap modulo 2^bits and the differences come out right), then the columns
 * as above. Integer input only (u8, u16) of one channel: CF_ERR_INVALID
 * for f32 or several channels.
 * `workspace`: cf_integral_scan_workspace_size bytes of device memory. */
size_t cf_integral_scan_workspace_size (const cf_integral_layout * layout,
    cf_scan_algorithm algorithm);
int cf_integral_cuda_with_scan (const cf_integral_layout * layout,
    cf_scan_algorithm algorithm, const void *d_in, void *d_sum,
    void *d_squares, void *workspace, cf_stream stream);

#ifdef __cplusplus
}
#endif
#endif
