/* The FIR backend on host memory: the CPU twin of fir_cuda.cu, with
 * kissfft's real transforms for float filters and FFTW's (in double) for
 * double ones. */
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>
#include <kiss_fftr.h>

#include "cf_fftw_lock.h"

#include "fir_ops.h"

#define SAMPLE float
#define STEP(name) name##_f32
#include "fir_cpu_steps.h"
#undef SAMPLE
#undef STEP
#define SAMPLE double
#define STEP(name) name##_f64
#include "fir_cpu_steps.h"
#undef SAMPLE
#undef STEP

struct cf_fir_backend
{
  int fft_size;
  int f64;
  size_t es;                    /* bytes per sample */
  kiss_fftr_cfg forward, inverse;       /* float */
  fftw_plan forward64, inverse64;       /* double */
};

/* Plans that run on any arrays (FFTW_UNALIGNED) and leave the inverse's
 * input as it is (FFTW_PRESERVE_INPUT). */
static int
plan_f64 (cf_fir_backend * be)
{
  int n = be->fft_size;
  double *re = fftw_malloc (sizeof (double) * n);
  fftw_complex *cx = fftw_malloc (sizeof (fftw_complex) * (n / 2 + 1));

  if (re && cx) {
    cf_fftw_planner_lock ();
    be->forward64 = fftw_plan_dft_r2c_1d (n, re, cx,
        FFTW_ESTIMATE | FFTW_UNALIGNED);
    be->inverse64 = fftw_plan_dft_c2r_1d (n, cx, re,
        FFTW_ESTIMATE | FFTW_UNALIGNED | FFTW_PRESERVE_INPUT);
    cf_fftw_planner_unlock ();
  }
  fftw_free (re);
  fftw_free (cx);
  return be->forward64 && be->inverse64 ? CF_OK : CF_ERR_NO_MEMORY;
}

static int
plan_f32 (cf_fir_backend * be)
{
  be->forward = kiss_fftr_alloc (be->fft_size, 0, NULL, NULL);
  be->inverse = kiss_fftr_alloc (be->fft_size, 1, NULL, NULL);
  return be->forward && be->inverse ? CF_OK : CF_ERR_NO_MEMORY;
}

static void
cpu_close (cf_fir_backend * be)
{
  kiss_fftr_free (be->forward);
  kiss_fftr_free (be->inverse);
  cf_fftw_planner_lock ();
  if (be->forward64)
    fftw_destroy_plan (be->forward64);
  if (be->inverse64)
    fftw_destroy_plan (be->inverse64);
  cf_fftw_planner_unlock ();
  free (be);
}

static int
cpu_open (cf_fir_backend ** out, cf_stream stream, int fft_size,
    int max_batch, int f64)
{
  cf_fir_backend *be = calloc (1, sizeof (*be));
  int st = CF_OK;

  (void) stream;
  (void) max_batch;
  if (!be)
    return CF_ERR_NO_MEMORY;
  be->fft_size = fft_size;
  be->f64 = f64;
  be->es = f64 ? sizeof (double) : sizeof (float);
  if (fft_size > 0)
    st = f64 ? plan_f64 (be) : plan_f32 (be);
  if (st != CF_OK) {
    cpu_close (be);
    return st;
  }
  *out = be;
  return CF_OK;
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
    const cf_conv1d_mask * mask, int channels, const void *x,
    size_t x_pitch, void *y, size_t y_pitch, int frames)
{
  (void) algorithm;
  return be->f64 ? cf_conv1d_cpu_f64 (mask, channels, x, x_pitch, y, y_pitch,
      frames) : cf_conv1d_cpu (mask, channels, x, x_pitch, y, y_pitch,
      frames);
}

static int
cpu_rfft (cf_fir_backend * be, const void *in, void *out, int batch)
{
  int n = be->fft_size, bins = n / 2 + 1;
  for (int b = 0; b < batch; b++) {
    if (be->f64)
      fftw_execute_dft_r2c (be->forward64, (double *) in + (size_t) b * n,
          (fftw_complex *) out + (size_t) b * bins);
    else
      kiss_fftr (be->forward, (const float *) in + (size_t) b * n,
          (kiss_fft_cpx *) out + (size_t) b * bins);
  }
  return CF_OK;
}

static int
cpu_irfft (cf_fir_backend * be, const void *in, void *out, int batch)
{
  int n = be->fft_size, bins = n / 2 + 1;
  for (int b = 0; b < batch; b++) {
    if (be->f64)
      fftw_execute_dft_c2r (be->inverse64, (fftw_complex *) in
          + (size_t) b * bins, (double *) out + (size_t) b * n);
    else
      kiss_fftri (be->inverse, (const kiss_fft_cpx *) in + (size_t) b * bins,
          (float *) out + (size_t) b * n);
  }
  return CF_OK;
}

static int
cpu_gather (cf_fir_backend * be, const cf_fir_layout * l, const void *stage,
    size_t stage_pitch, void *windows, int q)
{
  size_t n = 2 * l->block, es = be->es;
  for (int c = 0; c < l->channels; c++)
    for (int i = 1; i <= q; i++)
      memcpy ((char *) windows + ((size_t) c * q + i - 1) * n * es,
          (const char *) stage + (c * stage_pitch + (size_t) (i - 1)
              * l->block) * es, es * n);
  return CF_OK;
}

static int
cpu_mac (cf_fir_backend * be, const cf_fir_layout * l, const void *fresh,
    void *ring, const void *spectra, void *out, long long first, int q)
{
  size_t row = 2 * be->es * l->bins;

  for (int c = 0; c < l->channels; c++)
    for (int i = 0; i < q; i++)
      memcpy ((char *) ring + ((size_t) c * l->ring + (first + i) % l->ring)
          * row, (const char *) fresh + ((size_t) c * q + i) * row, row);
  if (be->f64)
    mac_f64 (l, ring, spectra, out, first + 1, q);
  else
    mac_f32 (l, ring, spectra, out, first + 1, q);
  return CF_OK;
}

static int
cpu_add_tails (cf_fir_backend * be, const cf_fir_layout * l, void *y,
    size_t y_pitch, int frames, int start, const void *current,
    const void *times, int q, double scale)
{
  if (be->f64)
    add_tails_f64 (l, y, y_pitch, frames, start, current, times, q, scale);
  else
    add_tails_f32 (l, y, y_pitch, frames, start, current, times, q,
        (float) scale);
  return CF_OK;
}

static int
cpu_keep_tail (cf_fir_backend * be, const cf_fir_layout * l, void *current,
    const void *times, int q, double scale)
{
  if (be->f64)
    keep_tail_f64 (l, current, times, q, scale);
  else
    keep_tail_f32 (l, current, times, q, (float) scale);
  return CF_OK;
}

const cf_fir_ops cf_fir_cpu_ops = {
  cpu_open, cpu_close, cpu_alloc, cpu_release, cpu_zero, cpu_upload,
  cpu_move, cpu_direct, cpu_rfft, cpu_irfft, cpu_gather, cpu_mac,
  cpu_add_tails, cpu_keep_tail,
  NULL,                         /* the steps one by one */
  NULL,                         /* no stream */
  NULL,                         /* spectra by rfft */
};
