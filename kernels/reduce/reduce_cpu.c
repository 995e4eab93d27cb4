/* CPU twin of the reductions: one pass, per channel, in double. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "reduce.h"

size_t
cf_reduce_type_size (cf_reduce_type type)
{
  static const size_t sizes[] = { 1, 2, 2, 4, 4, 8 };
  return type < CF_REDUCE_N_TYPES ? sizes[type] : 0;
}

const char *
cf_reduce_algorithm_name (cf_reduce_algorithm algorithm)
{
  static const char *names[] = { "auto", "tree" };
  return algorithm < CF_REDUCE_N_ALGORITHMS ? names[algorithm] : "?";
}

const char *
cf_reduce_type_name (cf_reduce_type type)
{
  static const char *names[] = { "u8", "u16", "s16", "s32", "f32", "f64" };
  return type < CF_REDUCE_N_TYPES ? names[type] : "?";
}

static double
sample_at (cf_reduce_type type, const uint8_t * p)
{
  switch (type) {
    case CF_REDUCE_U8:
      return *p;
    case CF_REDUCE_U16:
      return *(const uint16_t *) p;
    case CF_REDUCE_S16:
      return *(const int16_t *) p;
    case CF_REDUCE_S32:
      return *(const int32_t *) p;
    case CF_REDUCE_F32:
      return *(const float *) p;
    default:
      return *(const double *) p;
  }
}

int
cf_reduce_layout_check (const cf_reduce_layout * l)
{
  size_t size = l ? cf_reduce_type_size (l->type) : 0;
  if (!l || size == 0 || l->width < 1 || l->rows < 1 || l->channels < 1
      || l->channels > 65535
      || (l->rows > 1 && l->pitch < (size_t) l->width * l->channels * size))
    return CF_ERR_INVALID;
  return CF_OK;
}

/* Sums are taken over runs of RUN items, then the runs' sums added: the
 * rounding error stays near (RUN + items / RUN) roundings, not items. */
#define RUN 4096

int
cf_reduce_cpu (const cf_reduce_layout * l, const void *data, cf_stats * out)
{
  size_t size, done = 0;
  double *run_sum, *run_squares;

  if (cf_reduce_layout_check (l) != CF_OK || !data || !out)
    return CF_ERR_INVALID;
  size = cf_reduce_type_size (l->type);
  run_sum = calloc (2 * (size_t) l->channels, sizeof (double));
  if (!run_sum)
    return CF_ERR_NO_MEMORY;
  run_squares = run_sum + l->channels;
  for (int c = 0; c < l->channels; c++) {
    out[c].sum = out[c].sum_squares = 0.0;
    out[c].min = INFINITY;
    out[c].max = -INFINITY;
  }
  for (int y = 0; y < l->rows; y++) {
    const uint8_t *row = (const uint8_t *) data + (size_t) y * l->pitch;
    for (int x = 0; x < l->width; x++) {
      for (int c = 0; c < l->channels; c++) {
        double v = sample_at (l->type,
            row + ((size_t) x * l->channels + c) * size);
        run_sum[c] += v;
        run_squares[c] += v * v;
        out[c].min = v < out[c].min ? v : out[c].min;
        out[c].max = v > out[c].max ? v : out[c].max;
      }
      if (++done % RUN == 0 || done == (size_t) l->width * l->rows)
        for (int c = 0; c < l->channels; c++) {
          out[c].sum += run_sum[c];
          out[c].sum_squares += run_squares[c];
          run_sum[c] = run_squares[c] = 0.0;
        }
    }
  }
  free (run_sum);
  return CF_OK;
}
