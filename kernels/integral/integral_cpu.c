/* CPU twin of the integral images: each row's running sum added to the
 * table row above. */
#include <stdint.h>
#include <string.h>

#include "integral.h"

const char *
cf_integral_type_name (cf_integral_type type)
{
  static const char *names[] = { "u8", "u16", "f32" };
  return type < CF_INTEGRAL_N_TYPES ? names[type] : "?";
}

size_t
cf_integral_in_size (cf_integral_type type)
{
  static const size_t sizes[] = { 1, 2, 4 };
  return type < CF_INTEGRAL_N_TYPES ? sizes[type] : 0;
}

size_t
cf_integral_sum_size (cf_integral_type type)
{
  return type == CF_INTEGRAL_U8 ? 4 : 8;
}

size_t
cf_integral_squares_size (cf_integral_type type)
{
  (void) type;
  return 8;
}

/* Channels of a layout: 0 says 1. */
int
cf_integral_channels (const cf_integral_layout * l)
{
  return l->channels > 1 ? l->channels : 1;
}

int
cf_integral_layout_check (const cf_integral_layout * l)
{
  if (!l || l->type >= CF_INTEGRAL_N_TYPES || l->width < 1 || l->height < 1
      || l->in_step < 0 || l->channels < 0
      || cf_integral_channels (l) > (l->in_step ? l->in_step : 1)
      || l->in_pitch < ((size_t) (l->width - 1) * (l->in_step ? l->in_step
              : 1) + 1) * cf_integral_in_size (l->type)
      || l->sum_pitch < ((size_t) l->width + 1) * cf_integral_sum_size
      (l->type))
    return CF_ERR_INVALID;
  return CF_OK;
}

/* Tables and samples sit at addresses and pitches that are multiples of
 * their entry's size: the GPU faults on anything else (and a fault ends
 * the CUDA context), so the CPU twin refuses the same. */
static int
aligned (const void *p, size_t pitch, size_t size)
{
  return (uintptr_t) p % size == 0 && pitch % size == 0;
}

int
cf_integral_args_check (const cf_integral_layout * l, const void *in,
    const void *sum, const void *squares)
{
  int several = l && l->channels > 1;

  if (cf_integral_layout_check (l) != CF_OK || !in || !sum
      || !aligned (in, l->in_pitch, cf_integral_in_size (l->type))
      || !aligned (sum, l->sum_pitch, cf_integral_sum_size (l->type))
      || (squares && (l->squares_pitch < ((size_t) l->width + 1) * 8
              || !aligned (squares, l->squares_pitch, 8)))
      /* each channel's tables start aligned, past the previous ones */
      || (several && (l->channel_stride % 8
              || l->channel_stride < l->sum_pitch * ((size_t) l->height + 1)
              || (squares && l->channel_stride < l->squares_pitch
                  * ((size_t) l->height + 1)))))
    return CF_ERR_INVALID;
  return CF_OK;
}

#define INTEGRAL_ROWS(IN, SUM, SQ) do {                                   \
    for (int y = 0; y < l->height; y++) {                                 \
      const IN *x_in = (const IN *) ((const uint8_t *) in                 \
          + (size_t) y * l->in_pitch);                                    \
      SUM *above = (SUM *) ((uint8_t *) sum + (size_t) y * l->sum_pitch); \
      SUM *row = (SUM *) ((uint8_t *) sum + (size_t) (y + 1)              \
          * l->sum_pitch);                                                \
      SQ *q_above = squares ? (SQ *) ((uint8_t *) squares                 \
          + (size_t) y * l->squares_pitch) : NULL;                        \
      SQ *q_row = squares ? (SQ *) ((uint8_t *) squares                   \
          + (size_t) (y + 1) * l->squares_pitch) : NULL;                  \
      SUM run = 0;                                                        \
      SQ q_run = 0;                                                       \
      row[0] = 0;                                                         \
      if (q_row)                                                          \
        q_row[0] = 0;                                                     \
      for (int x = 0; x < l->width; x++) {                                \
        IN v = x_in[(size_t) x * step];                                   \
        run += (SUM) v;                                                   \
        row[x + 1] = above[x + 1] + run;                                  \
        if (q_row) {                                                      \
          q_run += (SQ) v * (SQ) v;                                       \
          q_row[x + 1] = q_above[x + 1] + q_run;                          \
        }                                                                 \
      }                                                                   \
    }                                                                     \
  } while (0)

/* The tables of one channel. */
static void
one_channel (const cf_integral_layout * l, const void *in, void *sum,
    void *squares)
{
  size_t sum_row, sq_row;
  int step = l->in_step ? l->in_step : 1;

  sum_row = ((size_t) l->width + 1) * cf_integral_sum_size (l->type);
  sq_row = ((size_t) l->width + 1) * 8;
  memset (sum, 0, sum_row);
  if (squares)
    memset (squares, 0, sq_row);
  switch (l->type) {
    case CF_INTEGRAL_U8:
      INTEGRAL_ROWS (uint8_t, uint32_t, uint64_t);
      break;
    case CF_INTEGRAL_U16:
      INTEGRAL_ROWS (uint16_t, uint64_t, uint64_t);
      break;
    default:
      INTEGRAL_ROWS (float, double, double);
      break;
  }
}

int
cf_integral_cpu (const cf_integral_layout * l, const void *in, void *sum,
    void *squares)
{
  if (cf_integral_args_check (l, in, sum, squares) != CF_OK)
    return CF_ERR_INVALID;
  for (int c = 0; c < cf_integral_channels (l); c++) {
    size_t tables = c * l->channel_stride;
    one_channel (l, (const uint8_t *) in + c * cf_integral_in_size (l->type),
        (uint8_t *) sum + tables, squares ? (uint8_t *) squares + tables
        : NULL);
  }
  return CF_OK;
}
