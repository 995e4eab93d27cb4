/* CPU twin of the box means and thresholds. */
#include <stdint.h>
#include <string.h>

#include "boxmean.h"
#include "boxmean_common.h"

/* The checks of cf_box_args_check and, without `tables`, those of
 * cf_box_direct_args_check. */
static int
box_args_check (const cf_integral_layout * l, const void *in,
    const void *sum, int tables, const cf_box_params * p, void *out)
{
  int step = p && p->out_step ? p->out_step : 1;
  size_t size = l ? cf_integral_in_size (l->type) : 1;
  int begin, end;

  if (cf_integral_layout_check (l) != CF_OK || !p)
    return CF_ERR_INVALID;
  cf_box_rows (p->row_begin, p->row_end, l->height, &begin, &end);
  if (begin < 0 || begin >= end || end > l->height
      || (tables && (p->table_row < 0
              || p->table_row > (begin > p->radius ? begin - p->radius : 0))))
    return CF_ERR_INVALID;
  if (!out || l->type == CF_INTEGRAL_F32 || p->radius < 1
      || p->radius > (tables ? CF_BOX_MAX_RADIUS : CF_BOX_DIRECT_MAX_RADIUS)
      || (!tables && cf_integral_channels (l) > CF_BOX_DIRECT_MAX_CHANNELS)
      || p->out_step < 0
      || cf_integral_channels (l) > step
      || p->out_pitch < ((size_t) (l->width - 1) * step + 1) * size
      /* the GPU faults on samples or entries off their natural alignment */
      || (uintptr_t) out % size || p->out_pitch % size
      || (tables ? (!sum
              || cf_integral_args_check (l, in ? in : out, sum, NULL) != CF_OK)
          : (!in || (uintptr_t) in % size || l->in_pitch % size))
      || (p->threshold && !in)
      || (p->copy_others && (!in || (l->in_step ? l->in_step : 1) != step
              || p->pixel_start < 0
              || p->pixel_start + cf_integral_channels (l) > step)))
    return CF_ERR_INVALID;
  return CF_OK;
}

int
cf_box_args_check (const cf_integral_layout * l, const void *in,
    const void *sum, const cf_box_params * p, void *out)
{
  return box_args_check (l, in, sum, 1, p, out);
}

int
cf_box_direct_args_check (const cf_integral_layout * l, const void *in,
    const cf_box_params * p, void *out)
{
  return box_args_check (l, in, NULL, 0, p, out);
}

/* Box means or thresholds of one channel. */
static void
one_channel (const cf_integral_layout * l, const void *in, const void *sum,
    const cf_box_params * p, void *out)
{
  int in_step = l->in_step ? l->in_step : 1;
  int out_step = p->out_step ? p->out_step : 1;
  int begin, end;

  cf_box_rows (p->row_begin, p->row_end, l->height, &begin, &end);
  for (int y = begin; y < end; y++)
    for (int x = 0; x < l->width; x++) {
      int x0, y0, x1, y1;
      uint64_t s, count, v;
      cf_box_window (x, y, p->radius, l->width, l->height, &x0, &y0, &x1,
          &y1);
      count = (uint64_t) (x1 - x0) * (uint64_t) (y1 - y0);
      y0 -= p->table_row;
      y1 -= p->table_row;
      s = l->type == CF_INTEGRAL_U8
          ? CF_BOX_WINDOW_SUM (uint32_t, sum, l->sum_pitch, x0, y0, x1, y1)
          : CF_BOX_WINDOW_SUM (uint64_t, sum, l->sum_pitch, x0, y0, x1, y1);
      if (p->threshold) {
        const uint8_t *row = (const uint8_t *) in + (size_t) y * l->in_pitch;
        double px = l->type == CF_INTEGRAL_U8 ? row[(size_t) x * in_step]
            : ((const uint16_t *) row)[(size_t) x * in_step];
        v = cf_box_above (px, s, count, p->offset)
            ? (l->type == CF_INTEGRAL_U8 ? 255 : 65535) : 0;
      } else {
        v = cf_box_round_mean (s, count);
      }
      if (l->type == CF_INTEGRAL_U8)
        ((uint8_t *) out)[(size_t) y * p->out_pitch + (size_t) x * out_step]
            = (uint8_t) v;
      else
        ((uint16_t *) ((uint8_t *) out + (size_t) y * p->out_pitch))
            [(size_t) x * out_step] = (uint16_t) v;
    }
}

/* The samples of each output pixel that are not filtered, from the
 * input's. */
static void
copy_others (const cf_integral_layout * l, const void *in,
    const cf_box_params * p, void *out)
{
  int step = p->out_step, begin, end;
  size_t size = cf_integral_in_size (l->type);

  cf_box_rows (p->row_begin, p->row_end, l->height, &begin, &end);
  for (int y = begin; y < end; y++) {
    const uint8_t *from = (const uint8_t *) in + (size_t) y * l->in_pitch
        - p->pixel_start * size;
    uint8_t *to = (uint8_t *) out + (size_t) y * p->out_pitch
        - p->pixel_start * size;
    for (int x = 0; x < l->width; x++)
      for (int k = 0; k < step; k++)
        if (cf_box_copied (k, step, p->pixel_start, cf_integral_channels (l)))
          memcpy (to + ((size_t) x * step + k) * size,
              from + ((size_t) x * step + k) * size, size);
  }
}

int
cf_box_cpu (const cf_integral_layout * l, const void *in, const void *sum,
    const cf_box_params * p, void *out)
{
  size_t size;

  if (cf_box_args_check (l, in, sum, p, out) != CF_OK)
    return CF_ERR_INVALID;
  size = cf_integral_in_size (l->type);
  for (int c = 0; c < cf_integral_channels (l); c++)
    one_channel (l, in ? (const uint8_t *) in + c * size : NULL,
        (const uint8_t *) sum + c * l->channel_stride, p,
        (uint8_t *) out + c * size);
  if (p->copy_others)
    copy_others (l, in, p, out);
  return CF_OK;
}
