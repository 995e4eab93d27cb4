/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each output sample is a Kaiser-windowed sinc interpolation of the input
 * at the output sample's exact time, so no resampler delay has to be
 * measured and no fractional-sample shift is left. The window spans
 * HALF_WIDTH zero crossings either side; the kernel is tabulated finely and
 * interpolated linearly (error below 1e-7 of a tap).
 */
#include "gstcudaresponse.h"

#include <math.h>

#define HALF_WIDTH 32           /* zero crossings each side */
#define TABLE_STEPS 4096        /* table points per zero crossing */
#define KAISER_BETA 9.0         /* side lobes near -90 dB */

static gdouble
bessel_i0 (gdouble x)
{
  gdouble sum = 1.0, term = 1.0;

  for (gint k = 1; k < 200 && term > 1e-16 * sum; k++) {
    term *= (x / (2.0 * k)) * (x / (2.0 * k));
    sum += term;
  }
  return sum;
}

/* kernel[i]: the windowed sinc at i / TABLE_STEPS zero crossings, one
 * point past the end for the interpolation. */
static const gfloat *
kernel_table (void)
{
  static gfloat *table;

  if (g_once_init_enter (&table)) {
    gint n = HALF_WIDTH * TABLE_STEPS + 2;
    gfloat *t = g_new0 (gfloat, n);
    gdouble norm = bessel_i0 (KAISER_BETA);

    for (gint i = 0; i <= HALF_WIDTH * TABLE_STEPS; i++) {
      gdouble u = (gdouble) i / TABLE_STEPS, r = u / HALF_WIDTH;
      gdouble sinc = i == 0 ? 1.0 : sin (G_PI * u) / (G_PI * u);
      t[i] = (gfloat) (sinc * bessel_i0 (KAISER_BETA * sqrt (1.0 - r * r))
          / norm);
    }
    g_once_init_leave (&table, t);
  }
  return table;
}

static inline gdouble
kernel_at (const gfloat * table, gdouble u)
{
  gdouble pos = fabs (u) * TABLE_STEPS;
  gint i = (gint) pos;
  gdouble frac = pos - i;

  if (i >= HALF_WIDTH * TABLE_STEPS)
    return 0.0;
  return table[i] + frac * (table[i + 1] - table[i]);
}

gint
gst_cuda_response_resampled_frames (gint in_frames, gint in_rate,
    gint out_rate)
{
  return (gint) MAX (1, (gint64) in_frames * out_rate / in_rate);
}

void
gst_cuda_response_resample (const gdouble * in, gint in_frames, gint in_rate,
    gdouble * out, gint out_frames, gint out_rate)
{
  const gfloat *table = kernel_table ();
  /* the pass band ends at the lower of the two Nyquist frequencies */
  gdouble fc = MIN (1.0, (gdouble) out_rate / in_rate);
  gdouble reach = HALF_WIDTH / fc, scale = (gdouble) in_rate / out_rate;

  for (gint n = 0; n < out_frames; n++) {
    gdouble p = (gdouble) n * in_rate / out_rate, sum = 0.0;
    gint first = MAX (0, (gint) ceil (p - reach));
    gint last = MIN (in_frames - 1, (gint) floor (p + reach));

    for (gint k = first; k <= last; k++)
      sum += in[k] * kernel_at (table, fc * (p - k));
    out[n] = sum * fc * scale;
  }
}
