/* The CPU twin of the spectral path (conv2d_spectral.h): FFTW's 2D real
 * transforms in double, in place, a channel at a time. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "cf_fftw_lock.h"
#include "conv2d_spectral.h"

struct cf_conv2d_spectral_cpu
{
  cf_conv2d_spectral_size size;
  cf_plane_format format;
  int kw, kh;
  cf_border border;
  float offset;
  int *source_x;                /* column read for padded column x, or -1 */
  double *planes[4];            /* a filtered channel's transform each */
  fftw_complex *spectrum;       /* the mask's, scaled */
  fftw_plan forward, inverse;
};

static size_t
bins (const cf_conv2d_spectral_size * z)
{
  return (size_t) z->ny * (z->nx / 2 + 1);
}

/* The mask at (-i, -j) modulo the sizes, scaled by 1 / divisor and the
 * inverse transform's 1 / (nx ny), transformed into `spectrum`. */
static void
mask_spectrum (cf_conv2d_spectral_cpu * s, const cf_conv2d_plan * plan)
{
  const cf_conv2d_spectral_size *z = &s->size;
  double *re = s->planes[0];
  double gain = (double) plan->scale / ((double) z->nx * z->ny);

  memset (re, 0, sizeof (double) * z->pitch * z->ny);
  for (int j = 0; j < plan->kh; j++)
    for (int i = 0; i < plan->kw; i++)
      re[(size_t) ((z->ny - j) % z->ny) * z->pitch + (z->nx - i) % z->nx] =
          plan->wide[j * plan->kw + i] * gain;
  fftw_execute_dft_r2c (s->forward, re, (fftw_complex *) re);
  memcpy (s->spectrum, re, sizeof (fftw_complex) * bins (z));
}

int
cf_conv2d_spectral_cpu_new (cf_conv2d_spectral_cpu ** out,
    const cf_conv2d_plan * plan, const cf_plane_format * format)
{
  cf_conv2d_spectral_cpu *s;
  cf_conv2d_spectral_size z;
  int reach_x;

  if (!out)
    return CF_ERR_INVALID;
  *out = NULL;
  if (cf_conv2d_spectral_size_init (&z, plan, format) != CF_OK)
    return CF_ERR_INVALID;
  s = calloc (1, sizeof (*s));
  if (!s)
    return CF_ERR_NO_MEMORY;
  s->size = z;
  s->format = *format;
  s->kw = plan->kw;
  s->kh = plan->kh;
  s->border = plan->border;
  s->offset = plan->offset;
  reach_x = format->width + plan->kw - 1;
  s->source_x = malloc (sizeof (int) * reach_x);
  s->spectrum = fftw_malloc (sizeof (fftw_complex) * bins (&z));
  for (int k = 0; k < z.channels; k++) {
    s->planes[k] = fftw_malloc (sizeof (double) * z.pitch * z.ny);
    if (!s->planes[k])
      s->source_x = (free (s->source_x), NULL);
  }
  if (!s->source_x || !s->spectrum) {
    cf_conv2d_spectral_cpu_free (s);
    return CF_ERR_NO_MEMORY;
  }
  for (int x = 0; x < reach_x; x++)
    s->source_x[x] = cf_border_index (x - plan->kw / 2, format->width,
        plan->border);
  /* every channel's plane is aligned as the first: the plans run on any */
  cf_fftw_planner_lock ();
  s->forward = fftw_plan_dft_r2c_2d (z.ny, z.nx, s->planes[0],
      (fftw_complex *) s->planes[0], FFTW_ESTIMATE);
  s->inverse = fftw_plan_dft_c2r_2d (z.ny, z.nx,
      (fftw_complex *) s->planes[0], s->planes[0], FFTW_ESTIMATE);
  cf_fftw_planner_unlock ();
  if (!s->forward || !s->inverse) {
    cf_conv2d_spectral_cpu_free (s);
    return CF_ERR_FFT;
  }
  mask_spectrum (s, plan);
  *out = s;
  return CF_OK;
}

int
cf_conv2d_spectral_cpu_channels (const cf_conv2d_spectral_cpu * s)
{
  return s ? s->size.channels : 0;
}

static double
load (const cf_conv2d_spectral_cpu * s, const uint8_t * src, size_t stride,
    int x, int y, int c)
{
  const uint8_t *row = src + (size_t) y * stride;
  size_t at = (size_t) x * s->format.channels + c;
  uint16_t v;

  if (s->format.sample == CF_SAMPLE_U8)
    return row[at];
  memcpy (&v, row + 2 * at, sizeof (v));
  return v;
}

static void
store (const cf_conv2d_spectral_cpu * s, uint8_t * dst, size_t stride, int x,
    int y, int c, double v)
{
  uint8_t *row = dst + (size_t) y * stride;
  size_t at = (size_t) x * s->format.channels + c;
  double top = s->format.sample == CF_SAMPLE_U16 ? 65535.0 : 255.0;
  uint16_t w;

  v = rint (v < 0.0 ? 0.0 : (v > top ? top : v));
  if (s->format.sample == CF_SAMPLE_U8) {
    row[at] = (uint8_t) v;
    return;
  }
  w = (uint16_t) v;
  memcpy (row + 2 * at, &w, sizeof (w));
}

/* Channel c laid out for the transform: the source with the mask's reach
 * either side, borders applied, zeros beyond. */
static void
lay_out (const cf_conv2d_spectral_cpu * s, cf_border border,
    const uint8_t * src, size_t stride, int c, double *re)
{
  const cf_conv2d_spectral_size *z = &s->size;
  int w = s->format.width, h = s->format.height;
  int reach_x = w + s->kw - 1, reach_y = h + s->kh - 1;

  for (int y = 0; y < z->ny; y++) {
    double *row = re + (size_t) y * z->pitch;
    int sy = y < reach_y ? cf_border_index (y - s->kh / 2, h, border) : -1;
    for (int x = 0; x < z->nx; x++) {
      int sx = x < reach_x ? s->source_x[x] : -1;
      row[x] = sy < 0 || sx < 0 ? 0.0 : load (s, src, stride, sx, sy, c);
    }
  }
}

int
cf_conv2d_spectral_cpu_channel (cf_conv2d_spectral_cpu * s, const void *src,
    size_t src_stride, void *dst, size_t dst_stride, int k)
{
  const cf_conv2d_spectral_size *z;
  size_t pixel_bytes, n;
  fftw_complex *cx;
  double *re;
  int c;

  if (!s || !src || !dst || k < 0 || k >= s->size.channels)
    return CF_ERR_INVALID;
  pixel_bytes = cf_plane_format_pixel_bytes (&s->format);
  if (src_stride < s->format.width * pixel_bytes
      || dst_stride < s->format.width * pixel_bytes)
    return CF_ERR_INVALID;
  z = &s->size;
  c = z->channel[k];
  re = s->planes[k];
  cx = (fftw_complex *) re;
  lay_out (s, s->border, src, src_stride, c, re);
  fftw_execute_dft_r2c (s->forward, re, cx);
  n = bins (z);
  for (size_t b = 0; b < n; b++) {
    double a = cx[b][0], d = cx[b][1];
    double e = s->spectrum[b][0], f = s->spectrum[b][1];
    cx[b][0] = a * e - d * f;
    cx[b][1] = a * f + d * e;
  }
  fftw_execute_dft_c2r (s->inverse, cx, re);
  for (int y = 0; y < s->format.height; y++)
    for (int x = 0; x < s->format.width; x++)
      store (s, dst, dst_stride, x, y, c, re[(size_t) y * z->pitch + x]
          + s->offset);
  if (k == 0 && s->format.keep_channel >= 0)
    for (int y = 0; y < s->format.height; y++)
      for (int x = 0; x < s->format.width; x++)
        store (s, dst, dst_stride, x, y, s->format.keep_channel,
            load (s, src, src_stride, x, y, s->format.keep_channel));
  return CF_OK;
}

void
cf_conv2d_spectral_cpu_free (cf_conv2d_spectral_cpu * s)
{
  if (!s)
    return;
  cf_fftw_planner_lock ();
  if (s->forward)
    fftw_destroy_plan (s->forward);
  if (s->inverse)
    fftw_destroy_plan (s->inverse);
  cf_fftw_planner_unlock ();
  for (int k = 0; k < 4; k++)
    fftw_free (s->planes[k]);
  fftw_free (s->spectrum);
  free (s->source_x);
  free (s);
}
