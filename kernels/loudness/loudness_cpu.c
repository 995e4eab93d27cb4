/* Loudness, the CPU twin: see loudness.h. Everything is computed in
 * double, whatever the samples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loudness_private.h"

/* the mean square a loudness of -70 LUFS has */
static double
absolute_gate (void)
{
  return pow (10.0, (-70.0 + 0.691) / 10.0);
}

static double
lufs (double mean_square)
{
  return mean_square > 0.0 ? -0.691 + 10.0 * log10 (mean_square) : -INFINITY;
}

/* The mean square whose loudness is `lufs_value`: gates compared with mean
 * squares, with no logarithm of each block at every message (a message
 * still adds up every block, and sorts the range's windows). */
static double
mean_square_of (double lufs_value)
{
  return pow (10.0, (lufs_value + 0.691) / 10.0);
}

void
cf_loudness_k_weighting (int rate, double shelf[5], double highpass[5])
{
  /* the analogue prototypes of BS.1770's 48 kHz coefficients, so that any
   * rate gets the same response */
  const double f0 = 1681.974450955533, gain_db = 3.999843853973347;
  const double q = 0.7071752369554196;
  const double hf0 = 38.13547087602444, hq = 0.5003270373238773;
  double k = tan (CF_PI * f0 / rate), vh = pow (10.0, gain_db / 20.0);
  double vb = pow (vh, 0.4996667741545416);
  double a0 = 1.0 + k / q + k * k;

  shelf[0] = (vh + vb * k / q + k * k) / a0;
  shelf[1] = 2.0 * (k * k - vh) / a0;
  shelf[2] = (vh - vb * k / q + k * k) / a0;
  shelf[3] = 2.0 * (k * k - 1.0) / a0;
  shelf[4] = (1.0 - k / q + k * k) / a0;
  k = tan (CF_PI * hf0 / rate);
  a0 = 1.0 + k / hq + k * k;
  highpass[0] = 1.0;
  highpass[1] = -2.0;
  highpass[2] = 1.0;
  highpass[3] = 2.0 * (k * k - 1.0) / a0;
  highpass[4] = (1.0 - k / hq + k * k) / a0;
}

/* A Kaiser-windowed sinc that passes every `factor`-th output through
 * unchanged (its phase 0 is the input itself), so that a true peak is
 * never below the sample peak. */
static double
bessel_i0 (double x)
{
  double sum = 1.0, term = 1.0;

  for (int k = 1; k < 40; k++) {
    term *= (x / (2.0 * k)) * (x / (2.0 * k));
    sum += term;
  }
  return sum;
}

static void
design_interpolator (cf_loudness * l)
{
  const double beta = 7.0;
  int factor = l->factor, centre = HALF_SPAN * factor;

  for (int p = 0; p < factor; p++)
    for (int k = 0; k < SPAN; k++) {
      int t = k * factor + p;   /* tap index in the upsampled filter */
      double x = (double) (t - centre) / factor;
      double r = (double) (t - centre) / (centre + 1);
      double sinc = x == 0.0 ? 1.0 : sin (CF_PI * x) / (CF_PI * x);
      /* taps 0 to 2 centre: symmetric about the centre */
      l->interp[p * SPAN + k] = t > 2 * centre ? 0.0 : sinc
          * bessel_i0 (beta * sqrt (1.0 - r * r)) / bessel_i0 (beta);
    }
}

int
cf_loudness_new (cf_loudness ** loudness, const cf_loudness_config * config)
{
  cf_loudness *l;

  *loudness = NULL;
  if (!config || config->rate < 8000 || config->rate > 384000
      || config->channels < 1 || config->channels > CF_LOUDNESS_MAX_CHANNELS)
    return CF_ERR_INVALID;
  l = calloc (1, sizeof (*l));
  if (!l)
    return CF_ERR_NO_MEMORY;
  l->rate = config->rate;
  l->channels = config->channels;
  l->step = (config->rate + 5) / 10;
  for (int c = 0; c < l->channels; c++)
    l->weights[c] = config->weights ? config->weights[c] : 1.0;
  cf_loudness_k_weighting (l->rate, l->shelf, l->highpass);
  l->window = malloc (sizeof (double) * (SPAN - 1 + l->step));
  if (!l->window) {
    free (l);
    return CF_ERR_NO_MEMORY;
  }
  l->factor = l->rate < 96000 ? 4 : l->rate < 192000 ? 2 : 1;
  design_interpolator (l);
  cf_loudness_reset (l);
  *loudness = l;
  return CF_OK;
}

void
cf_loudness_free (cf_loudness * l)
{
  if (!l)
    return;
  cf_loudness_device_free (l->device);
  free (l->window);
  free (l->blocks);
  free (l->windows);
  free (l);
}

void
cf_loudness_reset (cf_loudness * l)
{
  memset (l->state, 0, sizeof (l->state));
  memset (l->energy, 0, sizeof (l->energy));
  memset (l->recent, 0, sizeof (l->recent));
  memset (l->sample_peak, 0, sizeof (l->sample_peak));
  memset (l->true_peak, 0, sizeof (l->true_peak));
  memset (l->history, 0, sizeof (l->history));
  l->step_frames = 0;
  l->steps = 0;
  l->n_blocks = l->n_windows = 0;
  /* the CUDA twin's filter state starts again too */
  cf_loudness_device_free (l->device);
  l->device = NULL;
}

static int
append (double **array, size_t * n, size_t * room, double value)
{
  if (*n == *room) {
    size_t grown = *room ? 2 * *room : 256;
    double *bigger = realloc (*array, grown * sizeof (double));
    if (!bigger)
      return CF_ERR_NO_MEMORY;
    *array = bigger;
    *room = grown;
  }
  (*array)[(*n)++] = value;
  return CF_OK;
}

/* The mean of the last `count` steps' mean squares (silence before the
 * first). */
static double
recent_mean (const cf_loudness * l, int count)
{
  double sum = 0.0;

  for (int k = 0; k < count && k < l->steps; k++)
    sum += l->recent[(l->steps - 1 - k) % WINDOW_STEPS];
  return sum / count;
}

/* A step is complete: its weighted mean square joins the recent ones, and
 * a gating block or a range window may end with it. */
static int
end_step (cf_loudness * l)
{
  double z = 0.0, gate = absolute_gate ();
  int st = CF_OK;

  for (int c = 0; c < l->channels; c++) {
    z += l->weights[c] * l->energy[c] / l->step;
    l->energy[c] = 0.0;
  }
  l->recent[l->steps % WINDOW_STEPS] = z;
  l->steps++;
  l->step_frames = 0;
  if (l->steps >= BLOCK_STEPS) {
    double block = recent_mean (l, BLOCK_STEPS);
    if (block > gate)
      st = append (&l->blocks, &l->n_blocks, &l->room_blocks, block);
  }
  if (st == CF_OK && l->steps >= WINDOW_STEPS
      && (l->steps - WINDOW_STEPS) % WINDOW_HOP == 0) {
    double window = recent_mean (l, WINDOW_STEPS);
    if (window > gate)
      st = append (&l->windows, &l->n_windows, &l->room_windows, window);
  }
  return st;
}

int
cf_loudness_take_energy (cf_loudness * l, const double *energy, int frames)
{
  for (int c = 0; c < l->channels; c++)
    l->energy[c] += energy[c];
  l->step_frames += frames;
  return l->step_frames == l->step ? end_step (l) : CF_OK;
}

static double
biquad (const double *co, double *s, double x)
{
  double y = co[0] * x + s[0];

  s[0] = co[1] * x - co[3] * y + s[1];
  s[1] = co[2] * x - co[4] * y;
  return y;
}

/* Channel c's n new samples, in the window after room for its history:
 * the largest of them and of the oversampled signal between them (the
 * interpolated samples lag HALF_SPAN behind; the samples themselves count
 * at once). */
static void
track_peaks (cf_loudness * l, int c, int n)
{
  double *w = l->window, *h = l->history[c];
  double sample_peak = l->sample_peak[c], true_peak = l->true_peak[c];

  for (int j = 0; j < SPAN - 1; j++)
    w[j] = h[SPAN - 2 - j];
  for (int i = 0; i < n; i++) {
    const double *at = w + SPAN - 1 + i;        /* at[-k]: x[i - k] */
    sample_peak = fmax (sample_peak, fabs (at[0]));
    for (int p = 0; p < l->factor; p++) {
      const double *taps = l->interp + p * SPAN;
      double y = 0.0;
      for (int k = 0; k < SPAN; k++)
        y += taps[k] * at[-k];
      true_peak = fmax (true_peak, fabs (y));
    }
  }
  for (int j = 0; j < SPAN - 1; j++)
    h[j] = w[SPAN - 2 + n - j];
  l->sample_peak[c] = sample_peak;
  l->true_peak[c] = fmax (true_peak, sample_peak);
}

int
cf_loudness_add_cpu (cf_loudness * l, const void *src, size_t pitch,
    int frames, int f64)
{
  double energy[CF_LOUDNESS_MAX_CHANNELS];
  double *x = l ? l->window + SPAN - 1 : NULL;
  int done = 0;

  if (!l || (!src && frames > 0) || frames < 0)
    return CF_ERR_INVALID;
  while (done < frames) {
    int n = frames - done < l->step - l->step_frames ? frames - done
        : l->step - l->step_frames;
    for (int c = 0; c < l->channels; c++) {
      double *s = l->state[c], sum = 0.0;
      /* the samples as doubles, in the window after the history */
      for (int i = 0; i < n; i++) {
        size_t at = (size_t) c * pitch + done + i;
        double v = f64 ? ((const double *) src)[at]
            : ((const float *) src)[at];
        double y = biquad (l->highpass, s + 2, biquad (l->shelf, s, v));
        sum += y * y;
        x[i] = v;
      }
      energy[c] = sum;
      track_peaks (l, c, n);
    }
    done += n;
    {
      int st = cf_loudness_take_energy (l, energy, n);
      if (st != CF_OK)
        return st;
    }
  }
  return CF_OK;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* EBU Tech 3342: the windows above -20 LU below their mean, from the 10th
 * to the 95th percentile. */
static double
loudness_range (const cf_loudness * l)
{
  double sum = 0.0, gate, *kept;
  size_t n = 0;
  double range;

  if (l->n_windows == 0)
    return 0.0;
  for (size_t k = 0; k < l->n_windows; k++)
    sum += l->windows[k];
  gate = mean_square_of (lufs (sum / l->n_windows) - 20.0);
  kept = malloc (l->n_windows * sizeof (double));
  if (!kept)
    return NAN;
  for (size_t k = 0; k < l->n_windows; k++)
    if (l->windows[k] > gate)
      kept[n++] = l->windows[k];
  if (n == 0) {
    free (kept);
    return 0.0;
  }
  /* (loudness grows with the mean square: the percentiles of the mean
   * squares are those of the loudness) */
  qsort (kept, n, sizeof (double), compare_doubles);
  range = lufs (kept[(size_t) ((n - 1) * 0.95 + 0.5)])
      - lufs (kept[(size_t) ((n - 1) * 0.1 + 0.5)]);
  free (kept);
  return range;
}

void
cf_loudness_get (const cf_loudness * l, cf_loudness_values * v)
{
  double sum = 0.0, gated = 0.0;
  size_t n = 0;

  v->momentary = lufs (recent_mean (l, BLOCK_STEPS));
  v->shortterm = lufs (recent_mean (l, WINDOW_STEPS));
  /* with no block above the absolute gate, the gate itself (as
   * libebur128 says) */
  v->global = -INFINITY;
  v->relative_threshold = -70.0;
  if (l->n_blocks > 0) {
    for (size_t k = 0; k < l->n_blocks; k++)
      sum += l->blocks[k];
    double gate;
    v->relative_threshold = lufs (sum / l->n_blocks) - 10.0;
    gate = mean_square_of (v->relative_threshold);
    for (size_t k = 0; k < l->n_blocks; k++)
      if (l->blocks[k] > gate) {
        gated += l->blocks[k];
        n++;
      }
    v->global = n ? lufs (gated / n) : -INFINITY;
  }
  v->range = loudness_range (l);
}

double
cf_loudness_sample_peak (const cf_loudness * l, int channel)
{
  return channel >= 0 && channel < l->channels ? l->sample_peak[channel]
      : 0.0;
}

double
cf_loudness_true_peak (const cf_loudness * l, int channel)
{
  return channel >= 0 && channel < l->channels ? l->true_peak[channel]
      : 0.0;
}
