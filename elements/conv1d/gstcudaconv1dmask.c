/* cudaconv1d masks: kernel string, impulse response files, presets. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/audio/audio.h>
#include <sndfile.h>

#include "gstcudaconv1dmask.h"
#include "gstcudamaskparse.h"
#include "gstcudaresponse.h"

GType
gst_cuda_conv1d_preset_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_CONV1D_PRESET_NONE, "No preset: kernel or location "
          "(identity when both are empty)", "none"},
    {GST_CUDA_CONV1D_PRESET_LOW_PASS, "Low-pass below cutoff", "low-pass"},
    {GST_CUDA_CONV1D_PRESET_HIGH_PASS, "High-pass above cutoff", "high-pass"},
    {GST_CUDA_CONV1D_PRESET_BAND_PASS, "Band-pass: cutoff +- bandwidth / 2",
        "band-pass"},
    {GST_CUDA_CONV1D_PRESET_BAND_STOP, "Band-stop: cutoff +- bandwidth / 2",
        "band-stop"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaConv1dPreset", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_cuda_conv1d_window_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_CONV1D_WINDOW_HAMMING, "Hamming", "hamming"},
    {GST_CUDA_CONV1D_WINDOW_HANN, "Hann", "hann"},
    {GST_CUDA_CONV1D_WINDOW_BLACKMAN, "Blackman", "blackman"},
    {GST_CUDA_CONV1D_WINDOW_RECTANGULAR, "Rectangular (none)", "rectangular"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaConv1dWindow", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* ---- impulse response files ------------------------------------------------ */

gboolean
gst_cuda_impulse_load (const gchar * location, GstCudaImpulse * ir,
    gchar ** error)
{
  SF_INFO info = { 0 };
  SNDFILE *file;
  gdouble *interleaved;
  sf_count_t got;

  memset (ir, 0, sizeof (*ir));
  *error = NULL;
  file = sf_open (location, SFM_READ, &info);
  if (!file) {
    *error = g_strdup_printf ("cannot read the impulse response \"%s\": %s",
        location, sf_strerror (NULL));
    return FALSE;
  }
  if (info.frames <= 0 || info.channels <= 0 || info.samplerate <= 0) {
    *error = g_strdup_printf ("the impulse response \"%s\" is empty",
        location);
    sf_close (file);
    return FALSE;
  }
  if (info.frames > GST_CUDA_CONV1D_MAX_TAPS) {
    *error = g_strdup_printf ("the impulse response \"%s\" has %"
        G_GINT64_FORMAT " frames; at most %d are taken (the GPU keeps the "
        "spectrum of all of it, and each buffer costs time in proportion)",
        location, (gint64) info.frames, GST_CUDA_CONV1D_MAX_TAPS);
    sf_close (file);
    return FALSE;
  }
  if (info.frames * info.channels > GST_CUDA_CONV1D_MAX_TOTAL_TAPS) {
    *error = g_strdup_printf ("the impulse response \"%s\" has %d channels "
        "of %" G_GINT64_FORMAT " frames: more than the %d taps all masks "
        "together may have", location, info.channels, (gint64) info.frames,
        GST_CUDA_CONV1D_MAX_TOTAL_TAPS);
    sf_close (file);
    return FALSE;
  }
  interleaved = g_new (gdouble, (gsize) info.frames * info.channels);
  got = sf_readf_double (file, interleaved, info.frames);
  sf_close (file);
  if (got != info.frames) {
    *error = g_strdup_printf ("the impulse response \"%s\" is truncated or "
        "corrupt: read %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " frames",
        location, (gint64) got, (gint64) info.frames);
    g_free (interleaved);
    return FALSE;
  }
  ir->channels = info.channels;
  ir->rate = info.samplerate;
  ir->frames = (gint) info.frames;
  /* shared, never written again: copies are references (cheap under the
   * object lock) */
  ir->data = g_atomic_rc_box_alloc (sizeof (gdouble) * ir->frames
      * ir->channels);
  for (gint c = 0; c < ir->channels; c++)
    for (gint n = 0; n < ir->frames; n++) {
      gdouble v = interleaved[(gsize) n * ir->channels + c];
      if (!isfinite (v)) {
        *error = g_strdup_printf ("the impulse response \"%s\" holds a "
            "sample that is not a finite number (frame %d, channel %d)",
            location, n, c + 1);
        g_free (interleaved);
        gst_cuda_impulse_clear (ir);
        return FALSE;
      }
      ir->data[(gsize) c * ir->frames + n] = v;
    }
  g_free (interleaved);
  return TRUE;
}

void
gst_cuda_impulse_clear (GstCudaImpulse * ir)
{
  if (ir->data)
    g_atomic_rc_box_release (ir->data);
  memset (ir, 0, sizeof (*ir));
}

void
gst_cuda_impulse_copy (GstCudaImpulse * dst, const GstCudaImpulse * src)
{
  *dst = *src;
  dst->data = src->data ? g_atomic_rc_box_acquire (src->data) : NULL;
}

/* The response at another rate, every channel. */
static void
resample (const GstCudaImpulse * ir, gint rate, GstCudaImpulse * out)
{
  out->channels = ir->channels;
  out->rate = rate;
  out->frames = gst_cuda_response_resampled_frames (ir->frames, ir->rate,
      rate);
  out->data = g_atomic_rc_box_alloc (sizeof (gdouble) * out->frames
      * out->channels);
  for (gint c = 0; c < ir->channels; c++)
    gst_cuda_response_resample (ir->data + (gsize) c * ir->frames,
        ir->frames, ir->rate, out->data + (gsize) c * out->frames,
        out->frames, rate);
}

/* ---- presets ------------------------------------------------------------------ */

static gdouble
window_at (GstCudaConv1dWindow w, gint i, gint n)
{
  gdouble a = n > 1 ? 2.0 * G_PI * i / (n - 1) : 0.0;
  switch (w) {
    case GST_CUDA_CONV1D_WINDOW_HANN:
      return 0.5 - 0.5 * cos (a);
    case GST_CUDA_CONV1D_WINDOW_BLACKMAN:
      return 0.42 - 0.5 * cos (a) + 0.08 * cos (2.0 * a);
    case GST_CUDA_CONV1D_WINDOW_RECTANGULAR:
      return 1.0;
    default:
      return 0.54 - 0.46 * cos (a);
  }
}

/* Windowed-sinc low-pass at fc (cycles per sample), unit gain at DC. */
static void
low_pass (gdouble * h, gint n, gdouble fc, GstCudaConv1dWindow w)
{
  gdouble mid = (n - 1) / 2.0, sum = 0.0;
  for (gint i = 0; i < n; i++) {
    gdouble x = i - mid;
    h[i] = (x == 0.0 ? 2.0 * fc : sin (2.0 * G_PI * fc * x) / (G_PI * x))
        * window_at (w, i, n);
    sum += h[i];
  }
  for (gint i = 0; i < n; i++)
    h[i] /= sum;
}

/* |H| of h at f (cycles per sample). */
static gdouble
gain_at (const gdouble * h, gint n, gdouble f)
{
  gdouble re = 0.0, im = 0.0;
  for (gint i = 0; i < n; i++) {
    re += h[i] * cos (2.0 * G_PI * f * i);
    im -= h[i] * sin (2.0 * G_PI * f * i);
  }
  return sqrt (re * re + im * im);
}

static gboolean
design_preset (const GstCudaConv1dSettings * s, gint rate, gdouble * h,
    gchar ** error)
{
  gint n = s->taps, mid = (n - 1) / 2;
  gdouble nyquist = rate / 2.0, lo = s->cutoff - s->bandwidth / 2.0,
      hi = s->cutoff + s->bandwidth / 2.0;
  gboolean band = s->preset == GST_CUDA_CONV1D_PRESET_BAND_PASS
      || s->preset == GST_CUDA_CONV1D_PRESET_BAND_STOP;

  if (n < 1 || n % 2 == 0) {
    *error = g_strdup_printf ("taps=%d: a preset needs an odd number of "
        "taps, so that it has a centre", n);
    return FALSE;
  }
  if (s->cutoff <= 0.0 || s->cutoff >= nyquist) {
    *error = g_strdup_printf ("cutoff=%g Hz: it must lie between 0 and half "
        "the sample rate (%g Hz)", s->cutoff, nyquist);
    return FALSE;
  }
  if (band && (lo <= 0.0 || hi >= nyquist)) {
    *error = g_strdup_printf ("the band %g to %g Hz (cutoff +- bandwidth / 2) "
        "must lie between 0 and half the sample rate (%g Hz)", lo, hi,
        nyquist);
    return FALSE;
  }
  if (!band) {
    low_pass (h, n, s->cutoff / rate, s->window);
    if (s->preset == GST_CUDA_CONV1D_PRESET_HIGH_PASS) {
      /* spectral inversion: identity minus low-pass */
      for (gint i = 0; i < n; i++)
        h[i] = -h[i];
      h[mid] += 1.0;
    }
    return TRUE;
  }
  {
    gdouble *upper = g_new (gdouble, n), g;
    low_pass (h, n, lo / rate, s->window);
    low_pass (upper, n, hi / rate, s->window);
    for (gint i = 0; i < n; i++)
      h[i] = upper[i] - h[i];
    /* unit gain at the centre of the band */
    g = gain_at (h, n, s->cutoff / rate);
    for (gint i = 0; i < n; i++)
      h[i] /= g;
    if (s->preset == GST_CUDA_CONV1D_PRESET_BAND_STOP) {
      for (gint i = 0; i < n; i++)
        h[i] = -h[i];
      h[mid] += 1.0;
    }
    g_free (upper);
  }
  return TRUE;
}

/* ---- building ------------------------------------------------------------------- */

static gboolean
from_kernel (const gchar * text, GstCudaConv1dTaps * t, gchar ** error)
{
  gdouble *values;
  gint rows, cols;
  gchar *why = NULL;

  if (!gst_cuda_parse_matrix (text, &values, &rows, &cols, &why)) {
    *error = g_strdup_printf ("kernel \"%s\": %s", text, why);
    g_free (why);
    return FALSE;
  }
  if (cols > GST_CUDA_CONV1D_MAX_TAPS) {
    *error = g_strdup_printf ("kernel has %d taps, more than %d", cols,
        GST_CUDA_CONV1D_MAX_TAPS);
    g_free (values);
    return FALSE;
  }
  t->taps = cols;
  t->masks = rows;
  t->h = values;
  return TRUE;
}

static gboolean
from_impulse (const GstCudaImpulse * ir, gint rate, GstCudaConv1dTaps * t,
    gboolean shape_only, gchar ** error, gchar ** note)
{
  GstCudaImpulse resampled = { 0 };
  const GstCudaImpulse *use = ir;

  if (ir->rate != rate) {
    /* the limits hold after resampling too: a response at a low rate
     * grows by rate / ir->rate */
    gint64 frames = ((gint64) ir->frames * rate + ir->rate - 1) / ir->rate;
    if (frames > GST_CUDA_CONV1D_MAX_TAPS) {
      *error = g_strdup_printf ("the impulse response has %d frames at %d "
          "Hz, %" G_GINT64_FORMAT " at the stream's %d Hz: more than the %d "
          "taps a mask may have", ir->frames, ir->rate, frames, rate,
          GST_CUDA_CONV1D_MAX_TAPS);
      return FALSE;
    }
    if (frames * ir->channels > GST_CUDA_CONV1D_MAX_TOTAL_TAPS) {
      *error = g_strdup_printf ("the impulse response has %d channels of %d "
          "frames at %d Hz, %" G_GINT64_FORMAT " at the stream's %d Hz: more "
          "than the %d taps all masks together may have", ir->channels,
          ir->frames, ir->rate, frames, rate,
          GST_CUDA_CONV1D_MAX_TOTAL_TAPS);
      return FALSE;
    }
    if (shape_only) {
      t->taps = gst_cuda_response_resampled_frames (ir->frames, ir->rate,
          rate);
      t->masks = ir->channels;
      return TRUE;
    }
    resample (ir, rate, &resampled);
    use = &resampled;
    if (note)
      *note = g_strdup_printf ("resampled the impulse response from %d Hz "
          "to %d Hz (%d to %d frames)", ir->rate, rate, ir->frames,
          resampled.frames);
  }
  t->taps = use->frames;
  t->masks = use->channels;
  if (shape_only)
    return TRUE;
  t->h = g_memdup2 (use->data, sizeof (gdouble) * use->frames * use->channels);
  gst_cuda_impulse_clear (&resampled);
  return TRUE;
}

/* Unit gain at DC for designed masks, unit energy for responses from
 * files; a mask whose taps sum to 0 (a high-pass) is left as it is. */
static void
normalize (GstCudaConv1dTaps * t, gboolean energy)
{
  for (gint m = 0; m < t->masks; m++) {
    gdouble *h = t->h + (gsize) m * t->taps;
    gdouble sum = 0.0, size = 0.0;
    for (gint k = 0; k < t->taps; k++) {
      sum += energy ? h[k] * h[k] : h[k];
      size += fabs (h[k]);
    }
    /* decimal taps cancel only to the rounding of their binary values
     * ("0.1 0.2 -0.3" sums to 5.6e-17), and a float stream filters with
     * taps rounded to 2^-24 of their size: a sum that small is zero as
     * written */
    if (fabs (sum) <= 1e-6 * size || sum == 0.0)
      continue;
    sum = energy ? sqrt (sum) : sum;
    for (gint k = 0; k < t->taps; k++)
      h[k] = h[k] / sum;
  }
}

/* The masks, or with `shape_only` their counts and routes alone (no taps
 * copied, nothing resampled): what a check needs. */
static gboolean
build (const GstCudaConv1dSettings * s, gint rate, gint in_channels,
    gint out_channels, gboolean shape_only, GstCudaConv1dTaps * t,
    gchar ** error, gchar ** note)
{
  gboolean ok = TRUE, energy = FALSE;

  memset (t, 0, sizeof (*t));
  *error = NULL;
  if (note)
    *note = NULL;
  if (gst_cuda_mask_text_is_set (s->kernel)) {
    ok = from_kernel (s->kernel, t, error);
  } else if (s->impulse.frames > 0) {
    ok = from_impulse (&s->impulse, rate, t, shape_only, error, note);
    energy = TRUE;
  } else if (s->preset != GST_CUDA_CONV1D_PRESET_NONE) {
    t->h = g_new (gdouble, MAX (1, s->taps));
    ok = design_preset (s, rate, t->h, error);
    t->taps = s->taps;
    t->masks = 1;
  } else {
    t->taps = t->masks = 1;
    t->h = g_new (gdouble, 1);
    t->h[0] = 1.0;
  }
  if (ok)
    ok = gst_cuda_conv1d_routes_choose (&t->routing, s->matrix, in_channels,
        out_channels, t->masks, error);
  if (ok && s->normalize && t->h)
    normalize (t, energy);
  if (!ok)
    gst_cuda_conv1d_taps_clear (t);     /* a preset refused after its taps */
  return ok;
}

gboolean
gst_cuda_conv1d_build (const GstCudaConv1dSettings * s, gint rate,
    gint in_channels, gint out_channels, GstCudaConv1dTaps * t,
    gchar ** error, gchar ** note)
{
  return build (s, rate, in_channels, out_channels, FALSE, t, error, note);
}

gboolean
gst_cuda_conv1d_check (const GstCudaConv1dSettings * s, gint rate,
    gint in_channels, gint out_channels, gint * taps, gchar ** error)
{
  GstCudaConv1dTaps t;
  gboolean ok = build (s, rate, in_channels, out_channels, TRUE, &t, error,
      NULL);

  *taps = t.taps;
  gst_cuda_conv1d_taps_clear (&t);
  return ok;
}

void
gst_cuda_conv1d_taps_clear (GstCudaConv1dTaps * t)
{
  g_free (t->h);
  g_free (t->name);
  memset (t, 0, sizeof (*t));
}
