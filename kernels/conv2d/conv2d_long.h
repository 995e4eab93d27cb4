/* Separable masks with a factor longer than CF_CONV2D_MAX_SIZE (up to
 * CF_CONV2D_MAX_FACTOR taps): Gaussians of large sigma, long boxes, long
 * rows or columns. They run in passes through work planes, at a cost per
 * pixel that grows little or not at all with the factors' length:
 *
 * - Boxes (every tap of each factor equal) sum integers: a row pass of
 *   window sums from prefix sums, a column pass of running sums, both
 *   exact; the output is the sum times the taps and the scale, rounded.
 * - Other masks: a row pass filters every source row by the row factor at
 *   every step_x-th column (and the last), a column pass filters those at
 *   every step_y-th row (and the last), and the output interpolates
 *   bilinearly between them. A step above 1 is taken only where the
 *   interpolation's error is bounded under 1/5 of a level a direction:
 *   for a sequence whose second differences stay within D, a straight
 *   line between samples s apart is off by at most s^2 D / 8, and the
 *   second differences of the filtered plane stay within the largest
 *   sample times the sum of the row factor's absolute second differences
 *   (its cut-off ends included) times the column factor's absolute sum
 *   (and the same across). A Gaussian of sigma 100 (601 taps) takes steps
 *   of 4 on 8-bit planes: its row pass costs a quarter, its column pass a
 *   16th.
 *
 * Sums are float (box sums integers); the output is saturate(round(sum /
 * divisor + offset)) as in conv2d.h, within 1 level of the exact
 * convolution. */
#ifndef CF_CONV2D_LONG_H
#define CF_CONV2D_LONG_H

#include "conv2d.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the row and column passes are computed. */
typedef struct
{
  int step_x, step_y;           /* 1: every column (row) */
  int nx, ny;                   /* columns and rows computed; the last is
                                 * the plane's last */
} cf_conv2d_long_grid;

/* The steps an interpolation error under 1/5 level a direction allows for `plan` on
 * planes of `format`, capped at CF_CONV2D_LONG_MAX_STEP; 1 for boxes. */
#define CF_CONV2D_LONG_MAX_STEP 16
void cf_conv2d_long_grid_init (cf_conv2d_long_grid * grid,
    const cf_conv2d_plan * plan, const cf_plane_format * format);

/* Position of computed column k (row k) of `n` over a side of `size`. */
static inline int
cf_conv2d_long_position (int k, int step, int size)
{
  int at = k * step;
  return at < size - 1 ? at : size - 1;
}

/* Bytes of device work planes cf_conv2d_long_cuda needs. */
size_t cf_conv2d_long_work_bytes (const cf_conv2d_plan * plan,
    const cf_plane_format * format);

/* Planes of at most this many rows: the CUDA kernels take a row a grid
 * row (the CPU twin follows, so that both backends accept the same). */
#define CF_CONV2D_LONG_MAX_HEIGHT 65535

/* The whole plane (long masks filter planes whole). CF_ERR_INVALID for a
 * plan that is not long_mask, bad pointers or strides, or a plane taller
 * than CF_CONV2D_LONG_MAX_HEIGHT. */
int cf_conv2d_long_cpu (const cf_conv2d_plan * plan,
    const cf_plane_format * format, const void *src, size_t src_stride,
    void *dst, size_t dst_stride);

/* The CPU twin in three stages, for callers that spread each over threads:
 * every stage's rows split among them, a stage finished before the next
 * begins, all on one work area of cf_conv2d_long_cpu_work_bytes(). */
typedef enum
{
  CF_CONV2D_LONG_ROWS,          /* source rows through the row factor */
  CF_CONV2D_LONG_COLUMNS,       /* computed rows through the column factor
                                 * (boxes: the output rows) */
  CF_CONV2D_LONG_OUTPUT,        /* output rows, interpolated (boxes: none) */
} cf_conv2d_long_stage;

size_t cf_conv2d_long_cpu_work_bytes (const cf_conv2d_plan * plan,
    const cf_plane_format * format);
/* How many rows `stage` has: [0, that) is split among the threads. */
int cf_conv2d_long_cpu_rows (const cf_conv2d_plan * plan,
    const cf_plane_format * format, cf_conv2d_long_stage stage);
/* Rows [begin, end) of `stage`. CF_ERR_INVALID as cf_conv2d_long_cpu, for
 * no work area, or rows outside the stage's. */
int cf_conv2d_long_cpu_stage (const cf_conv2d_plan * plan,
    const cf_plane_format * format, const void *src, size_t src_stride,
    void *dst, size_t dst_stride, void *work, cf_conv2d_long_stage stage,
    int begin, int end);
int cf_conv2d_long_cuda (const cf_conv2d_plan * plan,
    const cf_plane_format * format, const void *d_src, size_t src_stride,
    void *d_dst, size_t dst_stride, void *d_work, cf_stream stream);

#ifdef __cplusplus
}
#endif
#endif
