/* The FIR backend on host memory: the CPU twin of fir_cuda.cu, with
 * kissfft's real transforms. */
#include <stdlib.h>
#include <string.h>

#include <kiss_fftr.h>

#include "fir_ops.h"

struct cf_fir_backend
{
  kiss_fftr_cfg forward, inverse;
  int fft_size;
};

static int
cpu_open (cf_fir_backend ** out, cf_stream stream, int fft_size,
    int max_batch)
{
  cf_fir_backend *be = calloc (1, sizeof (*be));

  (void) stream;
  (void) max_batch;
  if (!be)
    return CF_ERR_NO_MEMORY;
  be->fft_size = fft_size;
  if (fft_size > 0) {
    be->forward = kiss_fftr_alloc (fft_size, 0, NULL, NULL);
    be->inverse = kiss_fftr_alloc (fft_size, 1, NULL, NULL);
    if (!be->forward || !be->inverse) {
      kiss_fftr_free (be->forward);
      kiss_fftr_free (be->inverse);
      free (be);
      return CF_ERR_NO_MEMORY;
    }
  }
  *out = be;
  return CF_OK;
}

static void
cpu_close (cf_fir_backend * be)
{
  if (be->fft_size > 0) {
    kiss_fftr_free (be->forward);
    kiss_fftr_free (be->inverse);
  }
  free (be);
}

static int
cpu_alloc (cf_fir_backend * be, void **ptr, size_t bytes)
{
  (void) be;
  *ptr = malloc (bytes ? bytes : 1);
  return *ptr ? CF_OK : CF_ERR_NO_MEMORY;
}

static void
cpu_release (cf_fir_backend * be, void *ptr)
{
  (void) be;
  free (ptr);
}

static int
cpu_zero (cf_fir_backend * be, void *ptr, size_t bytes)
{
  (void) be;
  memset (ptr, 0, bytes);
  return CF_OK;
}

static int
cpu_upload (cf_fir_backend * be, void *dst, const void *src, size_t bytes)
{
  (void) be;
  memcpy (dst, src, bytes);
  return CF_OK;
}

static int
cpu_move (cf_fir_backend * be, void *dst, size_t dst_pitch, const void *src,
    size_t src_pitch, size_t row_bytes, size_t rows)
{
  (void) be;
  for (size_t r = 0; r < rows; r++)
    memmove ((char *) dst + r * dst_pitch, (const char *) src + r * src_pitch,
        row_bytes);
  return CF_OK;
}

static int
cpu_direct (cf_fir_backend * be, cf_conv1d_algorithm algorithm,
    const cf_conv1d_mask * mask, int channels, const float *x,
    size_t x_pitch, float *y, size_t y_pitch, int frames)
{
  (void) be;
  (void) algorithm;
  return cf_conv1d_cpu (mask, channels, x, x_pitch, y, y_pitch, frames);
}

static int
cpu_rfft (cf_fir_backend * be, const float *in, cf_cpx * out, int batch)
{
  int n = be->fft_size, bins = n / 2 + 1;
  for (int b = 0; b < batch; b++)
    kiss_fftr (be->forward, in + (size_t) b * n,
        (kiss_fft_cpx *) out + (size_t) b * bins);
  return CF_OK;
}

static int
cpu_irfft (cf_fir_backend * be, const cf_cpx * in, float *out, int batch)
{
  int n = be->fft_size, bins = n / 2 + 1;
  for (int b = 0; b < batch; b++)
    kiss_fftri (be->inverse, (const kiss_fft_cpx *) in + (size_t) b * bins,
        out + (size_t) b * n);
  return CF_OK;
}

static int
cpu_gather (cf_fir_backend * be, const cf_fir_layout * l, const float *stage,
    size_t stage_pitch, float *windows, int q)
{
  size_t n = 2 * l->block;
  (void) be;
  for (int c = 0; c < l->channels; c++)
    for (int i = 1; i <= q; i++)
      memcpy (windows + ((size_t) c * q + i - 1) * n,
          stage + c * stage_pitch + (size_t) (i - 1) * l->block,
          sizeof (float) * n);
  return CF_OK;
}

static int
cpu_scatter (cf_fir_backend * be, const cf_fir_layout * l,
    const cf_cpx * fresh, cf_cpx * ring, long long first, int q)
{
  (void) be;
  for (int c = 0; c < l->channels; c++)
    for (int i = 0; i < q; i++)
      memcpy (ring + ((size_t) c * l->ring + (first + i) % l->ring) * l->bins,
          fresh + ((size_t) c * q + i) * l->bins, sizeof (cf_cpx) * l->bins);
  return CF_OK;
}

static int
cpu_mac (cf_fir_backend * be, const cf_fir_layout * l, const cf_cpx * ring,
    const cf_cpx * spectra, cf_cpx * out, long long block0, int q)
{
  (void) be;
  for (int c = 0; c < l->channels; c++) {
    const cf_cpx *h = spectra + (size_t) (l->masks == 1 ? 0 : c)
        * l->partitions * l->bins;
    for (int i = 0; i < q; i++) {
      cf_cpx *o = out + ((size_t) c * q + i) * l->bins;
      memset (o, 0, sizeof (cf_cpx) * l->bins);
      for (int p = 1; p < l->partitions; p++) {
        long long k = block0 + i - p;
        if (k < 0)
          break;                /* before the stream: zero */
        const cf_cpx *x = ring + ((size_t) c * l->ring + k % l->ring)
            * l->bins;
        const cf_cpx *hp = h + (size_t) p * l->bins;
        for (int f = 0; f < l->bins; f++) {
          o[f].re += x[f].re * hp[f].re - x[f].im * hp[f].im;
          o[f].im += x[f].re * hp[f].im + x[f].im * hp[f].re;
        }
      }
    }
  }
  return CF_OK;
}

static int
cpu_add_tails (cf_fir_backend * be, const cf_fir_layout * l, float *y,
    size_t y_pitch, int frames, int start, const float *current,
    const float *times, int q, float scale)
{
  int b = l->block;
  (void) be;
  for (int c = 0; c < l->channels; c++)
    for (int f = 0; f < frames; f++) {
      int s = start + f, t = s / b, off = s % b;
      float tail = t == 1 ? current[(size_t) c * b + off]
          : scale * times[((size_t) c * q + t - 2) * 2 * b + b + off];
      y[c * y_pitch + f] += tail;
    }
  return CF_OK;
}

static int
cpu_keep_tail (cf_fir_backend * be, const cf_fir_layout * l, float *current,
    const float *times, int q, float scale)
{
  int b = l->block;
  (void) be;
  for (int c = 0; c < l->channels; c++)
    for (int k = 0; k < b; k++)
      current[(size_t) c * b + k] =
          scale * times[((size_t) c * q + q - 1) * 2 * b + b + k];
  return CF_OK;
}

const cf_fir_ops cf_fir_cpu_ops = {
  cpu_open, cpu_close, cpu_alloc, cpu_release, cpu_zero, cpu_upload,
  cpu_move, cpu_direct, cpu_rfft, cpu_irfft, cpu_gather, cpu_scatter,
  cpu_mac, cpu_add_tails, cpu_keep_tail,
  NULL, NULL, NULL,             /* nothing to gain from recording steps */
};
