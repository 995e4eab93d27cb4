/* Box means and adaptive thresholds read off integral images (integral.h),
 * so that the cost per pixel does not depend on the radius.
 *
 *   box mean   out(x, y) = the mean of the input over the (2r+1) x (2r+1)
 *              window centred on (x, y), clipped to the frame (divided by
 *              the number of pixels inside), rounded to nearest (halves
 *              up)
 *   threshold  out(x, y) = 255 where in(x, y) > window mean - offset (the
 *              exact mean), else 0
 *
 * Integer inputs only (u8, u16: the tables are exact); the threshold writes
 * the type's largest value (255, 65535). Output pixels are `out_step`
 * samples apart, like the input's `in_step`. A layout of several channels
 * (integral.h) filters each from its own table, the output's channel c
 * c samples after `out`. */
#ifndef CF_BOXMEAN_H
#define CF_BOXMEAN_H

#include <stddef.h>
#include "cf_status.h"
#include "gpu.h"
#include "integral.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CF_BOX_MAX_RADIUS 1024

typedef struct
{
  int radius;                   /* 1..CF_BOX_MAX_RADIUS */
  int threshold;                /* 0: box mean; 1: adaptive threshold */
  double offset;                /* threshold only */
  size_t out_pitch;             /* bytes between output rows */
  int out_step;                 /* samples between output pixels (0: 1) */
  /* Output rows written: [row_begin, row_end), others left as they are;
   * row_end 0 says every row. */
  int row_begin, row_end;
  /* The plane row that the table's row 0 stands for: 0 for the table of
   * the whole plane, or the first row of a table made from a part of the
   * plane. A window's sum is a difference of table entries, so a table
   * that starts lower gives the same sums, provided it covers the rows the
   * windows reach: plane rows from table_row <= row_begin - radius (or 0)
   * to row_end + radius (or the last). This lets a plane be filtered in
   * strips, each from a table of its own rows and their halo. */
  int table_row;
  /* Non-zero: each output pixel's other samples (alpha, padding) are
   * copied from the input's, so that the output needs no other pass. A
   * pixel is out_step samples (as many as in_step) and starts
   * `pixel_start` samples before `in` and `out`; the layout's channels
   * from there are filtered, the rest copied. */
  int copy_others;
  int pixel_start;
} cf_box_params;

/* CF_ERR_INVALID for a float input, a radius out of range, output rows
 * too short, an output row range outside the plane or a table row past
 * the first row its windows reach, no threshold input, copies of other
 * samples without an input of the same pixel size, or samples,
 * entries or pitches off their natural alignment
 * (cf_integral_args_check). `in` may be NULL for a box mean. */
int cf_box_args_check (const cf_integral_layout * layout, const void *in,
    const void *sum, const cf_box_params * params, void *out);

/* `layout` describes the whole plane, `sum` the table made from `in`
 * (cf_integral_*), from plane row `table_row` on; `in` is read by the
 * threshold only. */
int cf_box_cpu (const cf_integral_layout * layout, const void *in,
    const void *sum, const cf_box_params * params, void *out);
int cf_box_cuda (const cf_integral_layout * layout, const void *d_in,
    const void *d_sum, const cf_box_params * params, void *d_out,
    cf_stream stream);

/* Box means and thresholds straight from the input, with no table: each
 * tile sums its columns down the window, then those sums along the rows,
 * in one launch (against five for the tables and cf_box_cuda), for radii
 * up to CF_BOX_DIRECT_MAX_RADIUS, where reading the window's halo costs
 * less than building tables. The same outputs as cf_box_cuda, bit for
 * bit; `table_row` is not used. CF_ERR_INVALID as cf_box_args_check
 * (less the table), for no input, a larger radius or more channels. */
#define CF_BOX_DIRECT_MAX_RADIUS 16
#define CF_BOX_DIRECT_MAX_CHANNELS 4

int cf_box_direct_args_check (const cf_integral_layout * layout,
    const void *in, const cf_box_params * params, void *out);
int cf_box_direct_cuda (const cf_integral_layout * layout, const void *d_in,
    const cf_box_params * params, void *d_out, cf_stream stream);

/* For the tests, on the host: over every radius up to
 * CF_BOX_DIRECT_MAX_RADIUS and every sum a window of bytes can have, how
 * many rounded means the pixel-word kernels' division by multiply gets
 * wrong (0 expected); -1 in a build without CUDA, which has no such
 * kernels. */
long cf_box_words_division_errors (void);

#ifdef __cplusplus
}
#endif
#endif
