/* Kernel tests of the 1D convolution and of the streaming FIR filters
 * built on it (fir.h: direct and partitioned-FFT paths): the CPU twins
 * ("cpu") or every CUDA variant ("cuda") against a double-precision
 * reference written here, on random signals and masks, 1 to 8 channels,
 * shared and per-channel masks, 1 tap to 30000, streamed in chunks of random
 * sizes (streaming must equal one convolution of the whole signal), outputs
 * poisoned first. The streaming filters also in double precision, on
 * signals and masks that float cannot hold, within double rounding of the
 * exact convolution (and 1e-9 of each channel's peak).
 *
 *   test_conv1d cpu|cuda
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audio_sample.h"
#include "conv1d.h"
#include "fir.h"
#include "gpu.h"
#include "test_gpu.h"
#include "test_util.h"
#ifdef HAVE_CUDA
#include "cufft_library.h"
#else
#define cf_cufft() NULL
#define cf_cufft_library() "cuFFT"
#endif

typedef struct
{
  int channels, frames, taps, masks;
  float *x;                     /* channels x frames, the whole signal */
  float *h;                     /* masks x taps */
  double *ref, *slack;          /* channels x frames */
  double *peak;                 /* per channel, of the reference */
  /* the same in double (for double filters; NULL when not made) */
  double *x64, *h64, *ref64, *slack64, *peak64;
  char desc[128];
} signal_case;

/* y[n] = sum_k h[k] x[n - k], zero before the start; and the float
 * rounding it may carry: 2^-24 per term on the sum of magnitudes. */
static void
reference (signal_case * s)
{
  for (int c = 0; c < s->channels; c++) {
    const float *h = s->h + (s->masks == 1 ? 0 : c) * s->taps;
    const float *x = s->x + (size_t) c * s->frames;
    s->peak[c] = 0;
    for (int n = 0; n < s->frames; n++) {
      double sum = 0, mag = 0;
      for (int k = 0; k < s->taps && k <= n; k++) {
        sum += (double) h[k] * x[n - k];
        mag += fabs ((double) h[k] * x[n - k]);
      }
      s->ref[(size_t) c * s->frames + n] = sum;
      s->slack[(size_t) c * s->frames + n] = 6e-8 * (s->taps + 16) * mag
          + 1e-30;
      s->peak[c] = fmax (s->peak[c], fabs (sum));
    }
  }
}

/* The double reference: rounding of 2^-53 per term on the sum of
 * magnitudes, and each channel's peak. */
static void
reference64 (signal_case * s)
{
  for (int c = 0; c < s->channels; c++) {
    const double *h = s->h64 + (s->masks == 1 ? 0 : c) * s->taps;
    const double *x = s->x64 + (size_t) c * s->frames;
    s->peak64[c] = 0;
    for (int n = 0; n < s->frames; n++) {
      double sum = 0, mag = 0;
      for (int k = 0; k < s->taps && k <= n; k++) {
        sum += h[k] * x[n - k];
        mag += fabs (h[k] * x[n - k]);
      }
      s->ref64[(size_t) c * s->frames + n] = sum;
      s->slack64[(size_t) c * s->frames + n] = 1.2e-16 * (s->taps + 16) * mag
          + 1e-300;
      s->peak64[c] = fmax (s->peak64[c], fabs (sum));
    }
  }
}

static void
case_init64 (signal_case * s)
{
  size_t n = (size_t) s->channels * s->frames;
  s->x64 = malloc (sizeof (double) * n);
  s->h64 = malloc (sizeof (double) * s->masks * s->taps);
  s->ref64 = malloc (sizeof (double) * n);
  s->slack64 = malloc (sizeof (double) * n);
  s->peak64 = malloc (sizeof (double) * s->channels);
  for (size_t k = 0; k < n; k++)
    s->x64[k] = test_rand_range (-1.0, 1.0);
  for (int k = 0; k < s->masks * s->taps; k++)
    s->h64[k] = test_rand_range (-1.0, 1.0) / sqrt (s->taps);
  reference64 (s);
}

static void
case_init (signal_case * s, int channels, int frames, int taps, int masks)
{
  s->channels = channels;
  s->frames = frames;
  s->taps = taps;
  s->masks = masks;
  s->x64 = s->h64 = s->ref64 = s->slack64 = s->peak64 = NULL;
  s->x = malloc (sizeof (float) * channels * frames);
  s->h = malloc (sizeof (float) * masks * taps);
  s->ref = malloc (sizeof (double) * channels * frames);
  s->slack = malloc (sizeof (double) * channels * frames);
  s->peak = malloc (sizeof (double) * channels);
  for (int k = 0; k < channels * frames; k++)
    s->x[k] = (float) test_rand_range (-1.0, 1.0);
  for (int k = 0; k < masks * taps; k++)
    s->h[k] = (float) test_rand_range (-1.0, 1.0) / sqrt (taps);
  snprintf (s->desc, sizeof (s->desc), "%d ch x %d frames, %d taps, %s",
      channels, frames, taps, masks == 1 ? "shared mask" : "mask per channel");
  reference (s);
}

static void
case_free (signal_case * s)
{
  free (s->x);
  free (s->h);
  free (s->ref);
  free (s->slack);
  free (s->peak);
  free (s->x64);
  free (s->h64);
  free (s->ref64);
  free (s->slack64);
  free (s->peak64);
}

/* Sample i of a float or double array. */
static double
sample_get (const void *p, int f64, size_t i)
{
  return f64 ? ((const double *) p)[i] : ((const float *) p)[i];
}

static void
sample_put (void *p, int f64, size_t i, double v)
{
  if (f64)
    ((double *) p)[i] = v;
  else
    ((float *) p)[i] = (float) v;
}

/* ---- backends: filter one chunk given history + chunk, planar ---------- */

typedef struct
{
  int cuda;
  cf_conv1d_algorithm algorithm;
  cf_stream stream;
  float *d_x, *d_y;
  size_t d_floats;
} backend;

static int
run_chunk (backend * be, const cf_conv1d_mask * m, int channels,
    const float *x, size_t x_pitch, float *y, size_t y_pitch, int frames)
{
  size_t xs = channels * x_pitch, ys = channels * y_pitch;
  int st;

  if (!be->cuda)
    return cf_conv1d_cpu (m, channels, x, x_pitch, y, y_pitch, frames);
  if (be->d_floats < xs + ys) {
    cf_gpu_free (be->d_x);
    if ((st = cf_gpu_malloc ((void **) &be->d_x, sizeof (float) * (xs + ys)))
        != CF_OK)
      return st;
    be->d_floats = xs + ys;
  }
  be->d_y = be->d_x + xs;
  st = cf_gpu_copy_2d (be->d_x, xs * 4, x, xs * 4, xs * 4, 1,
      CF_COPY_HOST_TO_DEVICE, be->stream);
  if (st == CF_OK)              /* poison */
    st = cf_gpu_copy_2d (be->d_y, ys * 4, y, ys * 4, ys * 4, 1,
        CF_COPY_HOST_TO_DEVICE, be->stream);
  if (st == CF_OK)
    st = cf_conv1d_cuda (be->algorithm, m, channels, be->d_x, x_pitch,
        be->d_y, y_pitch, frames, be->stream);
  if (st == CF_OK)
    st = cf_gpu_copy_2d (y, ys * 4, be->d_y, ys * 4, ys * 4, 1,
        CF_COPY_DEVICE_TO_HOST, be->stream);
  if (st == CF_OK)
    st = cf_gpu_stream_sync (be->stream);
  return st;
}

/* Streams the whole signal through in chunks of random sizes (or one chunk
 * when max_chunk >= frames) and compares every output with the reference. */
static void
stream_case (backend * be, const signal_case * s, int max_chunk)
{
  int hist = s->taps - 1, pos = 0, bad = 0, st = CF_OK;
  size_t x_pitch = hist + max_chunk, y_pitch = max_chunk + 3;
  float *x = calloc (s->channels * x_pitch, sizeof (float));
  float *y = malloc (sizeof (float) * s->channels * y_pitch);
  cf_conv1d_mask m = { s->taps, s->masks, s->h, NULL };
  char first[160] = "";

  while (pos < s->frames && st == CF_OK) {
    int n = 1 + test_rand_int (max_chunk);
    if (n > s->frames - pos)
      n = s->frames - pos;
    for (int c = 0; c < s->channels; c++)
      memcpy (x + c * x_pitch + hist, s->x + (size_t) c * s->frames + pos,
          sizeof (float) * n);
    for (size_t k = 0; k < s->channels * y_pitch; k++)
      y[k] = NAN;
    st = run_chunk (be, &m, s->channels, x, x_pitch, y, y_pitch, n);
    for (int c = 0; c < s->channels && st == CF_OK; c++) {
      for (int i = 0; i < n; i++) {
        size_t r = (size_t) c * s->frames + pos + i;
        double got = y[c * y_pitch + i];
        if (!(fabs (got - s->ref[r]) <= s->slack[r]) && !bad++)
          snprintf (first, sizeof (first), "channel %d frame %d: got %.9g, "
              "expected %.9g", c, pos + i, got, s->ref[r]);
      }
      /* untouched beyond the chunk */
      for (size_t i = n; i < y_pitch; i++)
        if (!isnan (y[c * y_pitch + i]) && !bad++)
          snprintf (first, sizeof (first), "channel %d: wrote past the "
              "chunk", c);
      /* history for the next chunk: the last taps - 1 frames */
      memmove (x + c * x_pitch, x + c * x_pitch + n, sizeof (float) * hist);
    }
    pos += n;
  }
  test_check (st == CF_OK, "%s: %s failed: %s", s->desc,
      cf_conv1d_algorithm_name (be->algorithm), cf_status_name (st));
  test_check (!bad, "%s, %s, chunks up to %d: %d wrong, first %s", s->desc,
      be->cuda ? cf_conv1d_algorithm_name (be->algorithm) : "cpu",
      max_chunk, bad, first);
  free (x);
  free (y);
}

/* The same stream through a streaming filter (cf_fir): it keeps the history
 * itself, so each call gets only the new frames (every third call written
 * in place, at cf_fir_input). Then a reset, and the
 * first frames again, which must come out as the stream's first. */
/* `steady`: most chunks exactly one FFT block (one kernel on CUDA, which
 * leaves the tail kept for other calls to be rebuilt when one comes), every
 * fifth one random. `f64`: a double filter on the double signal. */
static void
stream_fir (backend * be, const signal_case * s, cf_fir_path path, int block,
    int max_chunk, int steady, int f64)
{
  cf_fir_config cfg = { s->channels, {s->taps, s->masks, f64 ? NULL : s->h,
          f64 ? s->h64 : NULL}, path, CF_CONV1D_AUTO, block, max_chunk,
    be->cuda, be->stream, f64
  };
  size_t es = f64 ? sizeof (double) : sizeof (float);
  size_t pitch = max_chunk, bytes = es * s->channels * pitch;
  const double *ref = f64 ? s->ref64 : s->ref;
  const double *slack = f64 ? s->slack64 : s->slack;
  const double *peak = f64 ? s->peak64 : s->peak;
  /* an FFT's rounding spreads over its whole block, so near-silent outputs
   * get a floor relative to the peak: the precision the element promises
   * floats (1e-6 of the peak), and for doubles one far below anything
   * float rounding would reach */
  const double floor = path == CF_FIR_FFT ? (f64 ? 1e-12 : 1e-6) : 0;
  char *x = malloc (bytes), *y = malloc (bytes);
  void *d_x = NULL, *d_y = NULL, *slot = NULL;
  int pos = 0, bad = 0, st, pass = 0, calls = 0, chunks = 0, in_place;
  size_t slot_pitch = 0;
  double worst = 0;             /* largest error relative to the peak */
  char first[160] = "", what[120];
  cf_fir *fir = NULL;

  snprintf (what, sizeof (what), "%s %s %s fir, block %d, chunks %s %d",
      be->cuda ? "cuda" : "cpu", f64 ? "double" : "float",
      path == CF_FIR_FFT ? "fft" : "direct", block, steady
      ? "of a block, or random up to" : "up to", max_chunk);
  st = cf_fir_new (&fir, &cfg);
  if (!test_check (st == CF_OK, "%s: %s: cf_fir_new failed: %s", s->desc,
          what, cf_status_name (st)))
    goto done;
  if (be->cuda && ((st = cf_gpu_malloc (&d_x, bytes)) != CF_OK
          || (st = cf_gpu_malloc (&d_y, bytes)) != CF_OK))
    goto failed;
  while (pos < s->frames) {
    int n = 1 + test_rand_int (max_chunk);
    if (steady && calls++ % 5 != 4 && cf_fir_block (fir) <= max_chunk)
      n = cf_fir_block (fir);
    if (n > s->frames - pos)
      n = s->frames - pos;
    for (int c = 0; c < s->channels; c++)
      for (int i = 0; i < n; i++)
        sample_put (x, f64, c * pitch + i, f64
            ? s->x64[(size_t) c * s->frames + pos + i]
            : s->x[(size_t) c * s->frames + pos + i]);
    for (size_t k = 0; k < s->channels * pitch; k++)
      sample_put (y, f64, k, NAN);
    /* every third call writes its frames where the filter reads them */
    in_place = ++chunks % 3 == 0;
    if (in_place && (st = cf_fir_input (fir, n, &slot, &slot_pitch)) != CF_OK)
      goto failed;
    if (be->cuda) {
      st = in_place ? cf_gpu_copy_2d (slot, slot_pitch * es, x, pitch * es,
          es * n, s->channels, CF_COPY_HOST_TO_DEVICE,
          be->stream) : cf_gpu_copy_2d (d_x, bytes, x, bytes, bytes, 1,
          CF_COPY_HOST_TO_DEVICE, be->stream);
      if (st == CF_OK)
        st = cf_gpu_copy_2d (d_y, bytes, y, bytes, bytes, 1,
            CF_COPY_HOST_TO_DEVICE, be->stream);
      if (st == CF_OK)
        st = in_place ? cf_fir_process (fir, slot, slot_pitch, d_y, pitch, n)
            : cf_fir_process (fir, d_x, pitch, d_y, pitch, n);
      if (st == CF_OK)
        st = cf_gpu_copy_2d (y, bytes, d_y, bytes, bytes, 1,
            CF_COPY_DEVICE_TO_HOST, be->stream);
      if (st == CF_OK)
        st = cf_gpu_stream_sync (be->stream);
    } else if (in_place) {
      for (int c = 0; c < s->channels; c++)
        memcpy ((char *) slot + c * slot_pitch * es, x + c * pitch * es,
            es * n);
      st = cf_fir_process (fir, slot, slot_pitch, y, pitch, n);
    } else {
      st = cf_fir_process (fir, x, pitch, y, pitch, n);
    }
    if (st != CF_OK)
      goto failed;
    for (int c = 0; c < s->channels; c++) {
      for (int i = 0; i < n; i++) {
        size_t r = (size_t) c * s->frames + pos + i;
        double got = sample_get (y, f64, c * pitch + i);
        if (!(fabs (got - ref[r]) <= slack[r] + floor * peak[c]) && !bad++)
          snprintf (first, sizeof (first), "pass %d channel %d frame %d: "
              "got %.17g, expected %.17g", pass, c, pos + i, got, ref[r]);
        worst = fmax (worst, fabs (got - ref[r]) / peak[c]);
      }
      for (size_t i = n; i < pitch; i++)
        if (!isnan (sample_get (y, f64, c * pitch + i)) && !bad++)
          snprintf (first, sizeof (first), "channel %d: wrote past the "
              "chunk", c);
    }
    pos += n;
    /* after the whole stream: the recent input it holds, then start again
     * from a reset for a while */
    if (pos == s->frames && pass == 0) {
      int want = n < 100 ? n : 100, got;
      void *recent = be->cuda ? d_y : (void *) y;
      got = cf_fir_recent (fir, recent, pitch, want);
      if (got < 0) {
        st = got;
        goto failed;
      }
      if (be->cuda && (st = cf_gpu_copy_2d (y, bytes, d_y, bytes, bytes, 1,
                  CF_COPY_DEVICE_TO_HOST, be->stream)) == CF_OK)
        st = cf_gpu_stream_sync (be->stream);
      if (st != CF_OK)
        goto failed;
      /* all asked, or all held: taps - 1 direct, one block FFT */
      test_check (got == want || (path == CF_FIR_DIRECT && got == s->taps - 1)
          || (path == CF_FIR_FFT && got == cf_fir_block (fir)),
          "%s: %s: recent gave %d of %d frames", s->desc, what, got, want);
      for (int c = 0; c < s->channels; c++)
        for (int i = 0; i < got; i++) {
          size_t r = (size_t) c * s->frames + s->frames - got + i;
          if (sample_get (y, f64, c * pitch + i) != (f64 ? s->x64[r]
                  : s->x[r]) && !bad++)
            snprintf (first, sizeof (first), "recent frame %d of channel "
                "%d differs from the input", i, c);
        }
      /* a whole block (which sums ahead part of the next one's delay line)
       * just before the reset: none of it may reach the new stream */
      if (steady && cf_fir_block (fir) <= max_chunk) {
        int b = cf_fir_block (fir);
        if (be->cuda && (st = cf_gpu_copy_2d (d_x, bytes, x, bytes, bytes, 1,
                    CF_COPY_HOST_TO_DEVICE, be->stream)) != CF_OK)
          goto failed;
        st = be->cuda ? cf_fir_process (fir, d_x, pitch, d_y, pitch, b)
            : cf_fir_process (fir, x, pitch, y, pitch, b);
        if (st != CF_OK)
          goto failed;
      }
      if ((st = cf_fir_reset (fir)) != CF_OK)
        goto failed;
      pass = 1;
      pos = 0;
    }
    if (pass == 1 && pos >= s->frames / 3)
      break;
  }
  test_check (!bad, "%s: %s: %d wrong, first %s", s->desc, what, bad, first);
  if (f64) {
    test_check (worst <= 1e-9, "%s: %s: %.3g of the peak off the exact "
        "convolution (at most 1e-9)", s->desc, what, worst);
    printf ("%s: %s: largest error %.3g of the peak\n", s->desc, what,
        worst);
  }
  goto done;
failed:
  test_check (0, "%s: %s failed: %s", s->desc, what, cf_status_name (st));
done:
  if (fir)
    cf_fir_free (fir);
  if (be->cuda) {
    cf_gpu_free (d_x);
    cf_gpu_free (d_y);
  }
  free (x);
  free (y);
}

/* The interleaved chunk `raw_in` (n frames) converted here, through `fir`
 * planar on the GPU (planes of `pitch` in x, d_x, d_y of `bytes`),
 * converted back here into `raw_out`. */
typedef struct
{
  backend *be;
  cf_audio_format format;
  int channels, f64;
  char *x;
  void *d_x, *d_y;
  size_t bytes;
} planar_run;

static int
run_planar (const planar_run * p, cf_fir * fir, const void *raw_in,
    void *raw_out, size_t pitch, int n)
{
  int st;

  for (int i = 0; i < n; i++)
    for (int c = 0; c < p->channels; c++)
      sample_put (p->x, p->f64, c * pitch + i, cf_sample_get (p->format,
              raw_in, (size_t) i * p->channels + c));
  st = cf_gpu_copy_2d (p->d_x, p->bytes, p->x, p->bytes, p->bytes, 1,
      CF_COPY_HOST_TO_DEVICE, p->be->stream);
  if (st == CF_OK)
    st = cf_fir_process (fir, p->d_x, pitch, p->d_y, pitch, n);
  if (st == CF_OK)
    st = cf_gpu_copy_2d (p->x, p->bytes, p->d_y, p->bytes, p->bytes, 1,
        CF_COPY_DEVICE_TO_HOST, p->be->stream);
  if (st == CF_OK)
    st = cf_gpu_stream_sync (p->be->stream);
  for (int i = 0; i < n && st == CF_OK; i++)
    for (int c = 0; c < p->channels; c++)
      cf_sample_put (p->format, raw_out, (size_t) i * p->channels + c,
          sample_get (p->x, p->f64, c * pitch + i));
  return st;
}

/* A CUDA filter fed interleaved samples in page-locked memory
 * (cf_fir_process_interleaved: whole blocks converted inside its one
 * launch; other calls refused, then converted on the host and run
 * planar), against a twin filter that gets every chunk converted on the
 * host and run planar: the same kernels on the same numbers, so the
 * samples must come out the same, bit for bit. Every fourth chunk has a
 * random length. */
static void
stream_interleaved (backend * be, const signal_case * s, int block, int f64,
    cf_audio_format format)
{
  cf_fir_config cfg = { s->channels, {s->taps, s->masks, f64 ? NULL : s->h,
          f64 ? s->h64 : NULL}, CF_FIR_FFT, CF_CONV1D_AUTO, block,
    2 * block, 1, be->stream, f64
  };
  cf_audio_layout layout = { format, s->channels, 1, 0 };
  size_t es = f64 ? sizeof (double) : sizeof (float);
  size_t raw_bytes = cf_audio_sample_bytes (format) * s->channels * 2 * block;
  size_t plane_bytes = es * s->channels * 2 * block;
  void *raw_in = NULL, *raw_out = NULL, *d_x = NULL, *d_y = NULL;
  char *expect = malloc (raw_bytes), *x = malloc (plane_bytes);
  cf_fir *fused = NULL, *twin = NULL;
  int pos = 0, calls = 0, whole = 0, bad = 0, st;
  char what[120];
  planar_run planar = { be, format, s->channels, f64, NULL, NULL, NULL,
    plane_bytes
  };

  snprintf (what, sizeof (what), "%s interleaved %s, block %d", f64
      ? "double" : "float", format == CF_AUDIO_S16 ? "S16" : format
      == CF_AUDIO_S32 ? "S32" : f64 ? "F64" : "F32", block);
  if ((st = cf_fir_new (&fused, &cfg)) != CF_OK
      || (st = cf_fir_new (&twin, &cfg)) != CF_OK
      || (st = cf_gpu_host_alloc (&raw_in, raw_bytes)) != CF_OK
      || (st = cf_gpu_host_alloc (&raw_out, raw_bytes)) != CF_OK
      || (st = cf_gpu_malloc (&d_x, plane_bytes)) != CF_OK
      || (st = cf_gpu_malloc (&d_y, plane_bytes)) != CF_OK)
    goto failed;
  planar.x = x;
  planar.d_x = d_x;
  planar.d_y = d_y;
  while (pos < s->frames) {
    int n = calls++ % 4 == 3 ? 1 + test_rand_int (2 * block) : block;
    size_t pitch = n;
    if (n > s->frames - pos)
      n = s->frames - pos;
    for (int i = 0; i < n; i++)
      for (int c = 0; c < s->channels; c++) {
        size_t r = (size_t) c * s->frames + pos + i;
        cf_sample_put (format, raw_in, (size_t) i * s->channels + c, f64
            ? s->x64[r] : s->x[r]);
      }
    memset (raw_out, 0xa5, raw_bytes);
    if ((st = run_planar (&planar, twin, raw_in, expect, pitch, n)) != CF_OK)
      goto failed;
    /* the filter under test: whole blocks in one launch, the rest refused
     * and then run as the twin was */
    st = cf_fir_process_interleaved (fused, &layout,
        cf_gpu_host_device_pointer (raw_in),
        cf_gpu_host_device_pointer (raw_out), n);
    if (st == CF_OK) {
      whole++;
      st = cf_gpu_stream_sync (be->stream);
    } else if (st == CF_ERR_UNSUPPORTED) {
      test_check (n != block || pos % block != 0, "%s: %s: a whole block "
          "refused at frame %d", s->desc, what, pos);
      st = run_planar (&planar, fused, raw_in, raw_out, pitch, n);
    }
    if (st != CF_OK)
      goto failed;
    if (memcmp (raw_out, expect, cf_audio_sample_bytes (format)
            * s->channels * n) && !bad++)
      test_check (0, "%s: %s: frames %d..%d differ from the planar twin",
          s->desc, what, pos, pos + n - 1);
    pos += n;
  }
  test_check (whole > 0, "%s: %s: no whole block taken", s->desc, what);
  test_check (!bad, "%s: %s: %d chunks differ", s->desc, what, bad);
  goto done;
failed:
  test_check (0, "%s: %s failed: %s", s->desc, what, cf_status_name (st));
done:
  cf_fir_free (fused);
  cf_fir_free (twin);
  cf_gpu_host_free (raw_in);
  cf_gpu_host_free (raw_out);
  cf_gpu_free (d_x);
  cf_gpu_free (d_y);
  free (expect);
  free (x);
}

/* What cf_fir_process_interleaved refuses: bad arguments; and, for the
 * steps one by one to take over, a CPU filter, a chunk that is not one
 * whole block, more channels than a cluster takes. Nothing is touched. */
static void
check_interleaved_limits (backend * be)
{
  enum { CH = 9, BLOCK = 32 };
  static float h[100], raw[CH * BLOCK];
  cf_audio_layout layout = { CF_AUDIO_F32, CH, 1, 0 };
  cf_fir_config cfg = { CH, {100, 1, h, NULL}, CF_FIR_FFT, CF_CONV1D_AUTO,
    BLOCK, BLOCK, be->cuda, be->stream, 0
  };
  cf_fir *fir = NULL;
  int st;

  h[0] = 1;
  if ((st = cf_fir_new (&fir, &cfg)) != CF_OK) {
    test_check (0, "interleaved limits: cf_fir_new failed: %s",
        cf_status_name (st));
    return;
  }
  test_check (cf_fir_process_interleaved (fir, NULL, raw, raw, BLOCK)
      == CF_ERR_INVALID, "interleaved: no layout accepted");
  layout.channels = CH - 1;
  test_check (cf_fir_process_interleaved (fir, &layout, raw, raw, BLOCK)
      == CF_ERR_INVALID, "interleaved: a layout of other channels accepted");
  layout.channels = CH;
  test_check (cf_fir_process_interleaved (fir, &layout, raw, raw, BLOCK - 1)
      == CF_ERR_UNSUPPORTED, "interleaved: a part of a block taken whole");
  test_check (cf_fir_process_interleaved (fir, &layout, raw, raw, BLOCK)
      == CF_ERR_UNSUPPORTED, "interleaved: %s", be->cuda
      ? "9 channels taken in one cluster" : "taken by a CPU filter");
  cf_fir_free (fir);
}

/* Two filters alive at once, the second of a smaller FFT block (a
 * response prepared while another plays): the first still takes its whole
 * blocks, whose launch needs more shared memory than the second's, in one
 * launch. A delay of a few frames (one tap, in a mask of thousands) gives
 * an output known exactly. */
static void
check_filters_side_by_side (backend * be)
{
  enum { CH = 2, BIG = 4096, SMALL = 64, TAPS = 9000, DELAY = 5 };
  static float h[TAPS], x[CH * BIG], y[CH * BIG];
  cf_fir_config big = { CH, {TAPS, 1, h, NULL}, CF_FIR_FFT, CF_CONV1D_AUTO,
    BIG, BIG, be->cuda, be->stream, 0
  };
  cf_fir_config small = big;
  cf_fir *a = NULL, *b = NULL;
  void *d_x = NULL, *d_y = NULL;
  int st, bad = 0;

  h[DELAY] = 1;
  small.block = SMALL;
  for (int k = 0; k < CH * BIG; k++) {
    x[k] = (float) test_rand_range (-1, 1);
    y[k] = NAN;
  }
  st = cf_fir_new (&a, &big);
  if (st == CF_OK)
    st = cf_fir_new (&b, &small);
  if (st == CF_OK && be->cuda && ((st = cf_gpu_malloc (&d_x, sizeof (x)))
          != CF_OK || (st = cf_gpu_malloc (&d_y, sizeof (y))) != CF_OK))
    d_y = NULL;
  if (st == CF_OK && be->cuda) {
    st = cf_gpu_copy_2d (d_x, sizeof (x), x, sizeof (x), sizeof (x), 1,
        CF_COPY_HOST_TO_DEVICE, be->stream);
    if (st == CF_OK)
      st = cf_fir_process (a, d_x, BIG, d_y, BIG, BIG);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (y, sizeof (y), d_y, sizeof (y), sizeof (y), 1,
          CF_COPY_DEVICE_TO_HOST, be->stream);
    if (st == CF_OK)
      st = cf_gpu_stream_sync (be->stream);
  } else if (st == CF_OK) {
    st = cf_fir_process (a, x, BIG, y, BIG, BIG);
  }
  for (int c = 0; c < CH && st == CF_OK; c++)
    for (int n = 0; n < BIG; n++) {
      double want = n < DELAY ? 0 : x[c * BIG + n - DELAY];
      bad += !(fabs (y[c * BIG + n] - want) <= 1e-5);
    }
  test_check (st == CF_OK && bad == 0, "side by side: a filter of block %d "
      "after one of %d made beside it: %s, %d of %d samples off", BIG, SMALL,
      cf_status_name (st), bad, CH * BIG);
  if (d_x)
    cf_gpu_free (d_x);
  if (d_y)
    cf_gpu_free (d_y);
  cf_fir_free (b);
  cf_fir_free (a);
}

static void
check_errors (backend * be)
{
  float h[4] = { 1, 2, 3, NAN }, x[16] = { 0 }, y[16];
  cf_conv1d_mask m = { 3, 1, h, NULL };
  cf_conv1d_mask bad_masks = { 3, 2, h, NULL };
  cf_conv1d_mask nan_mask = { 4, 1, h, NULL };
  cf_conv1d_mask none = { 0, 1, h, NULL };

  test_check (run_chunk (be, &bad_masks, 3, x, 8, y, 8, 2) == CF_ERR_INVALID,
      "2 masks for 3 channels accepted");
  test_check (run_chunk (be, &nan_mask, 1, x, 8, y, 8, 2) == CF_ERR_INVALID,
      "NaN tap accepted");
  test_check (run_chunk (be, &none, 1, x, 8, y, 8, 2) == CF_ERR_INVALID,
      "mask of no taps accepted");
  test_check (run_chunk (be, &m, 1, x, 8, y, 8, 0) == CF_OK,
      "zero frames is not a no-op");
  if (be->cuda) {
    float *big = calloc (CF_CONV1D_MAX_DIRECT_TAPS + 1, sizeof (float));
    cf_conv1d_mask long_mask = { CF_CONV1D_MAX_DIRECT_TAPS + 1, 1, big, NULL };
    test_check (cf_conv1d_cuda (CF_CONV1D_FAST, &long_mask, 1, be->d_x
            ? be->d_x : (float *) 16, 1, (float *) 16, 1, 1, be->stream)
        == CF_ERR_UNSUPPORTED, "a mask over the direct limit accepted");
    free (big);
  }
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "cpu";
  backend be = { strcmp (mode, "cuda") == 0, CF_CONV1D_AUTO, NULL, NULL,
    NULL, 0
  };
  /* channels, frames, taps, per-channel masks, largest chunk */
  static const int cases[][5] = {
    {1, 1000, 1, 0, 64}, {2, 5000, 3, 1, 1}, {1, 20000, 64, 0, 4096},
    {8, 4800, 64, 1, 1024}, {3, 9000, 257, 0, 777}, {8, 4096, 1024, 0, 1024},
    {5, 3000, 1023, 1, 65536}, {1, 70000, 31, 0, 65536},
    {2, 2500, 2047, 0, 300}, {1, 1500, 4000, 0, 1500},
    {2, 2049, 4000, 1, 2049}, {1, 2100, CF_CONV1D_MAX_DIRECT_TAPS, 0, 700},
    /* the edges of the kernel parameter's capacity classes (masks x taps
     * of 256 and 2048, and one past) */
    {1, 3000, 256, 0, 512}, {2, 3000, 128, 1, 999}, {2, 3000, 1024, 1, 600},
    {1, 3000, 2049, 0, 900},
  };
  static const cf_conv1d_algorithm variants[] = { CF_CONV1D_AUTO,
    CF_CONV1D_BASIC, CF_CONV1D_TILED, CF_CONV1D_CACHED, CF_CONV1D_FAST
  };
  char name[32];
  int fft;

  snprintf (name, sizeof (name), "conv1d-%s", mode);
  if (be.cuda) {
    int status = test_gpu_start (name, &be.stream);
    if (status >= 0)
      return status;
  }
  test_seed_from_env (name);
  check_errors (&be);
  /* the GPU's FFT path needs the toolkit's cuFFT, loaded at run time */
  fft = !be.cuda || cf_cufft () != NULL;
  if (!fft)
    printf ("%s not found: the FFT path's cases are not run\n",
        cf_cufft_library ());
  if (fft) {
    check_interleaved_limits (&be);
    check_filters_side_by_side (&be);
  }

  for (size_t k = 0; k < sizeof (cases) / sizeof (cases[0]); k++) {
    signal_case s;
    int ch = cases[k][0];
    case_init (&s, ch, cases[k][1], cases[k][2], cases[k][3] ? ch : 1);
    if (be.cuda) {
      for (size_t v = 0; v < sizeof (variants) / sizeof (variants[0]); v++) {
        be.algorithm = variants[v];
        stream_case (&be, &s, cases[k][4]);
      }
    } else {
      stream_case (&be, &s, cases[k][4]);
      stream_case (&be, &s, s.frames);  /* one call: the whole signal */
    }
    case_free (&s);
  }
  /* streaming filters: channels, frames, taps, per-channel masks, largest
   * chunk, FFT partition (0: picked) */
  static const int firs[][6] = {
    {1, 3000, 1, 0, 100, 64}, {2, 9000, 300, 1, 1024, 64},
    {1, 20000, 4097, 0, 1024, 1024}, {8, 4000, 1500, 1, 512, 0},
    {2, 12000, 16384, 0, 4800, 0}, {1, 9000, 30000, 0, 9000, 4096},
    {3, 5000, 700, 0, 3, 128}, {1, 6000, 2048, 0, 6000, 16},
    {8, 12000, 5000, 1, 2048, 256}, {2, 20000, 9000, 0, 2048, 2048},
    {1, 5000, 40, 0, 512, 32},
    /* per-channel heads beyond what one direct launch holds (masks x B
     * over CF_CONV1D_MAX_DIRECT_TAPS): run a few channels at a time */
    {8, 9000, 5000, 1, 2048, 2048}, {5, 9000, 9000, 1, 3000, 4096},
  };
  for (size_t k = 0; k < sizeof (firs) / sizeof (firs[0]); k++) {
    signal_case s;
    int ch = firs[k][0];
    case_init (&s, ch, firs[k][1], firs[k][2], firs[k][3] ? ch : 1);
    case_init64 (&s);
    /* interleaved whole blocks, where the block is set and the mask
     * spans several */
    for (int f64 = 0; fft && be.cuda && firs[k][5] && s.taps > firs[k][5]
        && f64 <= 1; f64++) {
      stream_interleaved (&be, &s, firs[k][5], f64, f64 ? CF_AUDIO_F64
          : CF_AUDIO_F32);
      stream_interleaved (&be, &s, firs[k][5], f64, f64 ? CF_AUDIO_S32
          : CF_AUDIO_S16);
    }
    for (int f64 = 0; f64 <= 1; f64++) {
      if (fft) {
        stream_fir (&be, &s, CF_FIR_FFT, firs[k][5], firs[k][4], 0, f64);
        stream_fir (&be, &s, CF_FIR_FFT, firs[k][5], firs[k][4], 1, f64);
      }
      if (!be.cuda || (size_t) s.taps * s.masks <= CF_CONV1D_MAX_DIRECT_TAPS)
        stream_fir (&be, &s, CF_FIR_DIRECT, 0, firs[k][4], 0, f64);
    }
    case_free (&s);
  }

  if (be.cuda) {
    cf_gpu_free (be.d_x);
    cf_gpu_stream_destroy (be.stream);
  }
  return test_finish (name);
}
