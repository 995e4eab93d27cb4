/* The long path's grid (conv2d_long.h): how far apart its row and column
 * passes may compute for the interpolation between them to stay within
 * 1/5 level a direction, and the work planes that needs. */
#include <math.h>

#include "conv2d_long.h"

/* Sum of the absolute second differences of a factor, zeros around it
 * (its ends count: a factor cut short has large ones there). */
static double
second_differences (const float *taps, int n)
{
  double sum = 0;

  for (int i = -1; i <= n; i++) {
    double before = i - 1 >= 0 && i - 1 < n ? taps[i - 1] : 0.0;
    double at = i >= 0 && i < n ? taps[i] : 0.0;
    double after = i + 1 < n ? taps[i + 1] : 0.0;
    sum += fabs (before - 2 * at + after);
  }
  return sum;
}

static double
absolute_sum (const float *taps, int n)
{
  double sum = 0;

  for (int i = 0; i < n; i++)
    sum += fabs (taps[i]);
  return sum;
}

/* Largest step whose bound step^2 / 8 * curvature stays under 1/5: both
 * directions together under 2/5, so that the value rounded is within 1/2
 * level of the exact one (float sums add far less) and the output within
 * 1 level. */
static int
step_for (double curvature)
{
  int step = 1;

  while (step < CF_CONV2D_LONG_MAX_STEP
      && (step + 1) * (step + 1) / 8.0 * curvature <= 0.2)
    step++;
  return step;
}

static int
count (int size, int step)
{
  return (size - 1 + step - 1) / step + 1;
}

void
cf_conv2d_long_grid_init (cf_conv2d_long_grid * grid,
    const cf_conv2d_plan * plan, const cf_plane_format * format)
{
  double top = format->sample == CF_SAMPLE_U16 ? 65535.0 : 255.0;
  double scale = top * fabs ((double) plan->scale);

  grid->step_x = grid->step_y = 1;
  if (!plan->box) {
    grid->step_x = step_for (scale * second_differences (plan->row, plan->kw)
        * absolute_sum (plan->col, plan->kh));
    grid->step_y = step_for (scale * second_differences (plan->col, plan->kh)
        * absolute_sum (plan->row, plan->kw));
  }
  grid->nx = count (format->width, grid->step_x);
  grid->ny = count (format->height, grid->step_y);
}

size_t
cf_conv2d_long_work_bytes (const cf_conv2d_plan * plan,
    const cf_plane_format * format)
{
  cf_conv2d_long_grid g;
  size_t taps, rows, columns;

  cf_conv2d_long_grid_init (&g, plan, format);
  /* the factors (in 256-byte units), the row pass's plane (floats, or
   * 32-bit sums for boxes), then the column pass's where the output
   * interpolates */
  taps = ((size_t) (plan->kw + plan->kh) * 4 + 255) / 256 * 256;
  rows = (size_t) g.nx * format->channels * format->height * 4;
  columns = g.step_x > 1 || g.step_y > 1
      ? (size_t) g.nx * format->channels * g.ny * 4 : 0;
  return taps + rows + columns;
}
