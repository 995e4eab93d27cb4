/* Mask validation, rank-1 detection and the choice of variant: everything a
 * conv2d launch needs that does not depend on the backend. */
#include <math.h>
#include <string.h>

#include "conv2d.h"

static int
taps_finite (const float *taps, int n)
{
  for (int k = 0; k < n; k++)
    if (!isfinite (taps[k]))
      return 0;
  return 1;
}

/* A mask is separable when it is the outer product col * row. Take the
 * largest tap M[p][q] as pivot: col = column q, row = row p / M[p][q]; the
 * mask is rank 1 exactly when every tap matches col[j] * row[i], up to float
 * rounding relative to the largest tap. */
static int
find_separation (cf_conv2d_plan * plan, const float *m)
{
  int kw = plan->kw, kh = plan->kh, p = 0, q = 0;
  float big = 0.0f;

  for (int j = 0; j < kh; j++)
    for (int i = 0; i < kw; i++)
      if (fabsf (m[j * kw + i]) > big) {
        big = fabsf (m[j * kw + i]);
        p = j;
        q = i;
      }
  if (big == 0.0f)
    return 0;
  for (int j = 0; j < kh; j++)
    plan->col[j] = m[j * kw + q];
  for (int i = 0; i < kw; i++)
    plan->row[i] = m[p * kw + i] / m[p * kw + q];
  for (int j = 0; j < kh; j++)
    for (int i = 0; i < kw; i++)
      if (fabsf (plan->col[j] * plan->row[i] - m[j * kw + i]) > 1e-6f * big)
        return 0;
  return 1;
}

/* Integer taps whose absolute sum times the largest 8-bit sample stays
 * below 2^15: every sum of products of 8-bit samples fits a signed 16-bit
 * half of an integer, and float arithmetic on them is exact too, so both
 * give the same results. */
static int
small_integer_taps (const float *taps, int n)
{
  double abs_sum = 0;

  for (int k = 0; k < n; k++) {
    if (taps[k] != rintf (taps[k]))
      return 0;
    abs_sum += fabsf (taps[k]);
  }
  return abs_sum * 255 < 32768;
}

/* Every tap of the factor equal: a box side. */
static int
equal_taps (const float *taps, int n)
{
  for (int k = 1; k < n; k++)
    if (taps[k] != taps[0])
      return 0;
  return taps[0] != 0.0f;
}

/* A mask given as taps, or as factors, in one form: factors of any
 * length up to CF_CONV2D_MAX_FACTOR (a mask of one row or one column
 * given as taps is its own factor), or taps up to CF_CONV2D_MAX_SIZE a
 * side. */
static int
take_factors (cf_conv2d_plan * plan, const cf_conv2d_mask * mask)
{
  static const float one = 1.0f;
  const float *row = mask->row, *col = mask->col;
  int kw = mask->width, kh = mask->height;

  if (mask->taps && !mask->taps2 && (kw == 1 || kh == 1)
      && (kw > CF_CONV2D_MAX_SIZE || kh > CF_CONV2D_MAX_SIZE)) {
    row = kh == 1 ? mask->taps : &one;
    col = kh == 1 ? &one : mask->taps;
  } else if (mask->taps) {
    return 0;
  }
  plan->kw = kw;
  plan->kh = kh;
  memcpy (plan->row, row, kw * sizeof (float));
  memcpy (plan->col, col, kh * sizeof (float));
  plan->separable = 1;
  plan->long_mask = kw > CF_CONV2D_MAX_SIZE || kh > CF_CONV2D_MAX_SIZE;
  plan->box = equal_taps (row, kw) && equal_taps (col, kh);
  if (!plan->long_mask)
    for (int j = 0; j < kh; j++)
      for (int i = 0; i < kw; i++)
        plan->taps[0][j * kw + i] = col[j] * row[i];
  return 1;
}

/* Taps with a side above CF_CONV2D_MAX_SIZE: the long path by their
 * factors where they are separable, the spectral path else. */
static void
take_large_taps (cf_conv2d_plan * plan, const cf_conv2d_mask * mask)
{
  if (find_separation (plan, mask->taps)) {
    plan->separable = 1;
    plan->long_mask = 1;
    plan->box = equal_taps (plan->row, plan->kw)
        && equal_taps (plan->col, plan->kh);
    plan->box_weight = (double) plan->row[0] * plan->col[0] / mask->divisor;
    return;
  }
  plan->spectral = 1;
  memcpy (plan->wide, mask->taps,
      (size_t) plan->kw * plan->kh * sizeof (float));
}

static int
sizes_ok (const cf_conv2d_mask * mask)
{
  int factor_sized = (!mask->taps && mask->row && mask->col)
      || (mask->taps && !mask->taps2
      && (mask->width == 1 || mask->height == 1));
  int limit = factor_sized ? CF_CONV2D_MAX_FACTOR : mask->taps2
      ? CF_CONV2D_MAX_SIZE : CF_CONV2D_MAX_GENERAL;

  if (!mask->taps && (!mask->row || !mask->col || mask->taps2))
    return 0;
  return mask->width >= 1 && mask->width <= limit && (mask->width & 1)
      && mask->height >= 1 && mask->height <= limit && (mask->height & 1);
}

int
cf_conv2d_plan_init (cf_conv2d_plan * plan, const cf_conv2d_mask * mask)
{
  int n;

  if (!plan || !mask || !sizes_ok (mask))
    return CF_ERR_INVALID;
  if (mask->taps) {
    n = mask->width * mask->height;
    if (!taps_finite (mask->taps, n)
        || (mask->taps2 && !taps_finite (mask->taps2, n)))
      return CF_ERR_INVALID;
  } else if (!taps_finite (mask->row, mask->width)
      || !taps_finite (mask->col, mask->height)) {
    return CF_ERR_INVALID;
  }
  /* the plan keeps the scale and the offset as floats: both must be
   * finite there, not only in double */
  if (!isfinite (mask->divisor) || mask->divisor == 0.0
      || !isfinite ((float) mask->offset)
      || !isfinite ((float) (1.0 / mask->divisor)))
    return CF_ERR_INVALID;
  if ((int) mask->border < CF_BORDER_CLAMP
      || (int) mask->border > CF_BORDER_CONSTANT)
    return CF_ERR_INVALID;

  memset (plan, 0, sizeof (*plan));
  plan->scale = (float) (1.0 / mask->divisor);
  plan->offset = (float) mask->offset;
  plan->border = mask->border;
  if (take_factors (plan, mask)) {
    n = plan->kw * plan->kh;
    plan->box_weight = (double) plan->row[0] * plan->col[0] / mask->divisor;
    plan->small_integer = !plan->long_mask
        && small_integer_taps (plan->taps[0], n);
    return CF_OK;
  }
  n = mask->width * mask->height;
  plan->kw = mask->width;
  plan->kh = mask->height;
  if (plan->kw > CF_CONV2D_MAX_SIZE || plan->kh > CF_CONV2D_MAX_SIZE) {
    take_large_taps (plan, mask);
    return CF_OK;
  }
  plan->magnitude = mask->taps2 != NULL;
  memcpy (plan->taps[0], mask->taps, n * sizeof (float));
  if (mask->taps2)
    memcpy (plan->taps[1], mask->taps2, n * sizeof (float));
  plan->separable = !plan->magnitude && find_separation (plan, plan->taps[0]);
  plan->small_integer = !plan->magnitude && small_integer_taps (plan->taps[0],
      n);
  return CF_OK;
}

int
cf_plane_format_check (const cf_plane_format * f)
{
  if (!f || f->width < 1 || f->height < 1)
    return CF_ERR_INVALID;
  if (f->sample != CF_SAMPLE_U8 && f->sample != CF_SAMPLE_U16)
    return CF_ERR_INVALID;
  if (f->sample == CF_SAMPLE_U8 && (f->channels < 1 || f->channels > 4))
    return CF_ERR_INVALID;
  /* 16-bit planes are single-channel (GRAY16): the only 16-bit layout the
   * kernels are instantiated for. */
  if (f->sample == CF_SAMPLE_U16 && f->channels != 1)
    return CF_ERR_UNSUPPORTED;
  if (f->channels == 4 ? (f->keep_channel != 0 && f->keep_channel != 3)
      : f->keep_channel != -1)
    return CF_ERR_INVALID;
  return CF_OK;
}

size_t
cf_plane_format_pixel_bytes (const cf_plane_format * f)
{
  return (size_t) f->channels * (f->sample == CF_SAMPLE_U16 ? 2 : 1);
}

/* Separable wins once the mask has enough taps for the saved multiplies to
 * pay for its second pass through shared memory (see docs/cudaconv2d.md for
 * the measured crossover), except where fast keeps the tile as the plane's
 * own bytes up to 5 x 5 and is faster: one-byte planes (byte tiles), and
 * 8-bit four-channel pixels with small integer taps (word tiles summing
 * integers; 4K RGBA8 5x5: 39.8 us against separable's 38.3, 1080p 15.3
 * against 16.6). A float rank-1 5 x 5 mask on four-channel pixels runs
 * separable: 38.3 us at 4K against the word tiles' 51.0. The wide variant
 * is not chosen: measured slower than fast at every mask it runs
 * (docs/performance-log.md, "Fewer instructions and fuller SMs for the byte
 * and word tiles" and "The wide variant: 16-byte words end to end,
 * measured slower"). */
#define SEPARABLE_MIN_TAPS 25
#define RAW_TILES_MAX_SIZE 5

cf_conv2d_algorithm
cf_conv2d_choose (const cf_conv2d_plan * plan, const cf_plane_format * f)
{
  int raw_tiles = f->sample == CF_SAMPLE_U8
      && (f->channels == 1 || (f->channels == 4 && plan->small_integer))
      && plan->kw <= RAW_TILES_MAX_SIZE && plan->kh <= RAW_TILES_MAX_SIZE;
  if (plan->separable && plan->kw * plan->kh >= SEPARABLE_MIN_TAPS
      && !raw_tiles)
    return CF_CONV2D_SEPARABLE;
  return CF_CONV2D_FAST;
}

const char *
cf_conv2d_algorithm_name (cf_conv2d_algorithm a)
{
  static const char *const names[] = {
    "auto", "basic", "tiled", "cached", "fast", "separable", "wide"
  };
  if ((unsigned) a >= CF_CONV2D_N_ALGORITHMS)
    return "invalid";
  return names[a];
}
