/* CPU twin of the direct 1D convolution: for each tap, one multiply-add
 * over the whole run of outputs (a contiguous, vectorised loop), so the cost
 * is taps x frames per channel with no per-sample branches. */
#include <math.h>
#include <string.h>

#include "conv1d.h"

int
cf_conv1d_mask_check (const cf_conv1d_mask * m, int channels)
{
  if (!m || (!m->h && !m->h64) || m->taps < 1 || channels < 1
      || (m->masks != 1 && m->masks != channels))
    return CF_ERR_INVALID;
  for (int k = 0; k < m->taps * m->masks; k++)
    if ((m->h && !isfinite (m->h[k])) || (m->h64 && !isfinite (m->h64[k])))
      return CF_ERR_INVALID;
  return CF_OK;
}

const char *
cf_conv1d_algorithm_name (cf_conv1d_algorithm a)
{
  static const char *const names[] = {
    "auto", "basic", "tiled", "cached", "fast"
  };
  if ((unsigned) a >= CF_CONV1D_N_ALGORITHMS)
    return "invalid";
  return names[a];
}

int
cf_conv1d_cpu (const cf_conv1d_mask * m, int channels, const float *x,
    size_t x_pitch, float *y, size_t y_pitch, int frames)
{
  int status = cf_conv1d_mask_check (m, channels);

  if (status != CF_OK)
    return status;
  if (!m->h || !x || !y || frames < 0)
    return CF_ERR_INVALID;
  for (int c = 0; c < channels; c++) {
    const float *h = m->h + (m->masks == 1 ? 0 : c) * m->taps;
    /* xc[n] is the current frame of output n: history comes before it */
    const float *xc = x + c * x_pitch + m->taps - 1;
    float *restrict yc = y + c * y_pitch;

    memset (yc, 0, sizeof (float) * frames);
    for (int k = 0; k < m->taps; k++) {
      const float *restrict in = xc - k;
      float w = h[k];
      for (int n = 0; n < frames; n++)
        yc[n] += w * in[n];
    }
  }
  return CF_OK;
}

int
cf_conv1d_cpu_f64 (const cf_conv1d_mask * m, int channels, const double *x,
    size_t x_pitch, double *y, size_t y_pitch, int frames)
{
  int status = cf_conv1d_mask_check (m, channels);

  if (status != CF_OK)
    return status;
  if (!m->h64 || !x || !y || frames < 0)
    return CF_ERR_INVALID;
  for (int c = 0; c < channels; c++) {
    const double *h = m->h64 + (m->masks == 1 ? 0 : c) * m->taps;
    const double *xc = x + c * x_pitch + m->taps - 1;
    double *restrict yc = y + c * y_pitch;

    memset (yc, 0, sizeof (double) * frames);
    for (int k = 0; k < m->taps; k++) {
      const double *restrict in = xc - k;
      double w = h[k];
      for (int n = 0; n < frames; n++)
        yc[n] += w * in[n];
    }
  }
  return CF_OK;
}
