/* The spectral path's transform size and precision (conv2d_spectral.h),
 * shared by the CPU twin and the CUDA path. */
#include <math.h>

#include "conv2d_spectral.h"

int
cf_conv2d_spectral_good_size (int n)
{
  for (int m = n < 1 ? 1 : n;; m++) {
    int r = m;
    while (r % 2 == 0)
      r /= 2;
    while (r % 3 == 0)
      r /= 3;
    while (r % 5 == 0)
      r /= 5;
    while (r % 7 == 0)
      r /= 7;
    if (r == 1)
      return m;
  }
}

int
cf_conv2d_spectral_size_init (cf_conv2d_spectral_size * size,
    const cf_conv2d_plan * plan, const cf_plane_format * format)
{
  double abs_sum = 0.0, maxval, bound;

  if (!size || !plan || !plan->spectral
      || cf_plane_format_check (format) != CF_OK
      || format->width > CF_CONV2D_SPECTRAL_MAX_SIDE
      || format->height > CF_CONV2D_SPECTRAL_MAX_SIDE)
    return CF_ERR_INVALID;
  size->nx = cf_conv2d_spectral_good_size (format->width + plan->kw - 1);
  size->ny = cf_conv2d_spectral_good_size (format->height + plan->kh - 1);
  size->pitch = 2 * (size->nx / 2 + 1);
  size->channels = 0;
  for (int c = 0; c < format->channels; c++)
    if (c != format->keep_channel)
      size->channel[size->channels++] = c;
  for (int k = 0; k < plan->kw * plan->kh; k++)
    abs_sum += fabs (plan->wide[k]);
  maxval = format->sample == CF_SAMPLE_U16 ? 65535.0 : 255.0;
  bound = maxval * abs_sum * fabs (plan->scale) * ldexp (1.0, -24) * 8.0
      * log2 ((double) size->nx * size->ny);
  size->use_double = bound > 0.05;
  return CF_OK;
}
