/* Loudness (kernels/loudness).
 *
 *   test_loudness cpu     the CPU twin:
 *   test_loudness cuda    the CUDA twin against the CPU twin: random
 *                         programme in random buffer sizes (1 to 20000
 *                         frames), 1 to 8 channels, float and double, at
 *                         8, 44.1, 48 and 96 kHz: every value after every
 *                         buffer within 1e-6 LU, peaks within 1e-9;
 *                         77 without a GPU
 *
 * - the K-weighting at 48 kHz against the coefficients BS.1770-4 lists;
 * - EBU Tech 3341's cases 1 to 5 (stereo 1 kHz sines, steady and in
 *   sequences that the gates must cut) and Tech 3342's cases 1 to 4 (the
 *   loudness range of level steps), generated here, within their
 *   tolerances (0.1 LU; 1 LU for the range);
 * - true peaks of a quarter-rate sine whose samples miss its crests by
 *   3 dB (within Tech 3341's +0.2 / -0.4 dB);
 * - libebur128 (when the build found it) on random programme material:
 *   momentary and short-term loudness at every 100 ms step, integrated
 *   loudness, its relative gate, the range, sample and true peaks, stereo
 *   at 48 kHz and 5.1 at 44.1 kHz (LFE unweighted, surround +1.5 dB).
 */
#include <math.h>
#include <string.h>

#include "loudness.h"
#include "test_gpu.h"
#include "test_util.h"
#ifdef HAVE_EBUR128
#include <ebur128.h>
#endif

#define PI 3.14159265358979323846

/* Planar samples of `channels` channels, `frames` long. */
typedef struct
{
  int channels, frames;
  float *x;
} Signal;

static Signal
signal_new (int channels, int frames)
{
  Signal s = { channels, frames, calloc ((size_t) channels * frames,
        sizeof (float))
  };
  return s;
}

/* A 1 kHz sine at `dbfs` (peak) on every channel, from frame `at` for
 * `frames` frames. */
static void
put_sine (Signal * s, int rate, int at, int frames, double dbfs)
{
  double a = pow (10.0, dbfs / 20.0);

  for (int c = 0; c < s->channels; c++)
    for (int i = at; i < at + frames && i < s->frames; i++)
      s->x[(size_t) c * s->frames + i] = (float) (a * sin (2.0 * PI * 1000.0
              * i / rate));
}

/* A sequence of (dbfs, seconds) pieces of the 1 kHz sine. */
static Signal
sine_sequence (int rate, const double *pieces, int n)
{
  int total = 0, at = 0;
  Signal s;

  for (int k = 0; k < n; k++)
    total += (int) lround (pieces[2 * k + 1] * rate);
  s = signal_new (2, total);
  for (int k = 0; k < n; k++) {
    int frames = (int) lround (pieces[2 * k + 1] * rate);
    put_sine (&s, rate, at, frames, pieces[2 * k]);
    at += frames;
  }
  return s;
}

static cf_loudness_values
measure (const Signal * s, int rate, const double *weights)
{
  cf_loudness_config cfg = { rate, s->channels, weights };
  cf_loudness *l = NULL;
  cf_loudness_values v = { 0 };

  if (!test_check (cf_loudness_new (&l, &cfg) == CF_OK, "cf_loudness_new"))
    return v;
  /* in buffers of 1024 frames, as a stream comes */
  for (int at = 0; at < s->frames; at += 1024) {
    int n = s->frames - at < 1024 ? s->frames - at : 1024;
    test_check (cf_loudness_add_cpu (l, s->x + at, s->frames, n, 0) == CF_OK,
        "cf_loudness_add_cpu");
  }
  cf_loudness_get (l, &v);
  cf_loudness_free (l);
  return v;
}

static void
test_coefficients (void)
{
  /* BS.1770-4, table 1 and table 2 (48 kHz) */
  const double shelf_ref[5] = { 1.53512485958697, -2.69169618940638,
    1.19839281085285, -1.69065929318241, 0.73248077421585
  };
  const double highpass_ref[5] = { 1.0, -2.0, 1.0, -1.99004745483398,
    0.99007225036621
  };
  double shelf[5], highpass[5];

  cf_loudness_k_weighting (48000, shelf, highpass);
  for (int k = 0; k < 5; k++) {
    test_check (fabs (shelf[k] - shelf_ref[k]) < 1e-9, "shelf coefficient "
        "%d: %.14f, BS.1770 %.14f", k, shelf[k], shelf_ref[k]);
    test_check (fabs (highpass[k] - highpass_ref[k]) < 1e-9, "high-pass "
        "coefficient %d: %.14f, BS.1770 %.14f", k, highpass[k],
        highpass_ref[k]);
  }
}

static void
test_tech3341 (void)
{
  const int rate = 48000;
  static const double case3[] = { -36, 10, -23, 60, -36, 10 };
  static const double case4[] = { -72, 10, -36, 10, -23, 60, -36, 10, -72,
    10
  };
  static const double case5[] = { -26, 20, -20, 20.1, -26, 20 };
  struct
  {
    const char *name;
    const double *pieces;
    int n;
    double momentary, shortterm;        /* NAN: not a steady case */
  } cases[] = {
    {"3341 case 1", (const double[]) {-23, 20}, 1, -23, -23},
    {"3341 case 2", (const double[]) {-33, 20}, 1, -33, -33},
    {"3341 case 3", case3, 3, NAN, NAN},
    {"3341 case 4", case4, 5, NAN, NAN},
    {"3341 case 5", case5, 3, NAN, NAN},
  };

  for (unsigned k = 0; k < sizeof (cases) / sizeof (cases[0]); k++) {
    Signal s = sine_sequence (rate, cases[k].pieces, cases[k].n);
    cf_loudness_values v = measure (&s, rate, NULL);
    double want = isnan (cases[k].momentary) ? -23.0 : cases[k].momentary;

    printf ("%s: integrated %.2f LUFS (want %.1f +- 0.1), momentary %.2f, "
        "short-term %.2f\n", cases[k].name, v.global, want, v.momentary,
        v.shortterm);
    test_check (fabs (v.global - want) <= 0.1, "%s: integrated %.3f LUFS, "
        "want %.1f", cases[k].name, v.global, want);
    if (!isnan (cases[k].momentary)) {
      test_check (fabs (v.momentary - want) <= 0.1, "%s: momentary %.3f",
          cases[k].name, v.momentary);
      test_check (fabs (v.shortterm - want) <= 0.1, "%s: short-term %.3f",
          cases[k].name, v.shortterm);
    }
    free (s.x);
  }
}

static void
test_tech3342 (void)
{
  const int rate = 48000;
  struct
  {
    const char *name;
    double pieces[10];
    int n;
    double range;
  } cases[] = {
    {"3342 case 1", {-20, 20, -30, 20}, 2, 10},
    {"3342 case 2", {-20, 20, -15, 20}, 2, 5},
    {"3342 case 3", {-40, 20, -20, 20}, 2, 20},
    {"3342 case 4", {-50, 20, -35, 20, -20, 20, -35, 20, -50, 20}, 5, 15},
  };

  for (unsigned k = 0; k < sizeof (cases) / sizeof (cases[0]); k++) {
    Signal s = sine_sequence (rate, cases[k].pieces, cases[k].n);
    cf_loudness_values v = measure (&s, rate, NULL);

    printf ("%s: loudness range %.2f LU (want %.0f +- 1)\n", cases[k].name,
        v.range, cases[k].range);
    test_check (fabs (v.range - cases[k].range) <= 1.0, "%s: range %.3f LU, "
        "want %.0f", cases[k].name, v.range, cases[k].range);
    free (s.x);
  }
}

/* sin(pi n / 2 + pi / 4): every sample is +-0.707 of the crest */
static void
test_true_peak (void)
{
  const int rates[] = { 44100, 48000, 96000, 192000 };

  for (unsigned r = 0; r < sizeof (rates) / sizeof (rates[0]); r++) {
    Signal s = signal_new (1, rates[r]);
    cf_loudness_config cfg = { rates[r], 1, NULL };
    cf_loudness *l = NULL;
    double crest = 0.5, tp, sp;

    for (int i = 0; i < s.frames; i++)
      s.x[i] = (float) (crest * sin (PI * i / 2.0 + PI / 4.0));
    cf_loudness_new (&l, &cfg);
    cf_loudness_add_cpu (l, s.x, s.frames, s.frames, 0);
    tp = 20.0 * log10 (cf_loudness_true_peak (l, 0) / crest);
    sp = 20.0 * log10 (cf_loudness_sample_peak (l, 0) / crest);
    printf ("true peak, quarter-rate sine at %d Hz: %+.3f dB of the crest "
        "(samples %+.3f dB)\n", rates[r], tp, sp);
    /* at 192 kHz and above the samples are the measure */
    if (rates[r] < 192000)
      test_check (tp <= 0.2 && tp >= -0.4, "%d Hz: true peak %+.3f dB of "
          "the crest", rates[r], tp);
    test_check (fabs (sp + 3.0103) < 1e-3, "%d Hz: sample peak %+.4f dB",
        rates[r], sp);
    cf_loudness_free (l);
    free (s.x);
  }
}

#ifdef HAVE_EBUR128
/* Noise through a one-pole low-pass, in pieces of random length and level,
 * some below the gates. */
static Signal
programme (int channels, int rate, double seconds)
{
  Signal s = signal_new (channels, (int) (seconds * rate));
  double state[8] = { 0 };

  for (int at = 0; at < s.frames;) {
    int n = (int) (rate * (0.2 + 4.0 * test_rand_range (0.0, 1.0)));
    double level = pow (10.0, test_rand_range (-80.0, -5.0) / 20.0);
    for (int i = at; i < at + n && i < s.frames; i++)
      for (int c = 0; c < channels; c++) {
        double white = 2.0 * test_rand_range (0.0, 1.0) - 1.0;
        state[c] = 0.7 * state[c] + 0.3 * white;
        s.x[(size_t) c * s.frames + i] = (float) (level * state[c] * 2.0);
      }
    at += n;
  }
  return s;
}

static void
compare_with_libebur128 (int channels, int rate, const double *weights,
    const int *positions, const char *name)
{
  Signal s = programme (channels, rate, 90.0);
  cf_loudness_config cfg = { rate, channels, weights };
  int mode = EBUR128_MODE_M | EBUR128_MODE_S | EBUR128_MODE_I
      | EBUR128_MODE_LRA | EBUR128_MODE_SAMPLE_PEAK | EBUR128_MODE_TRUE_PEAK;
  ebur128_state *ref = ebur128_init ((unsigned) channels, (unsigned) rate,
      mode);
  cf_loudness *l = NULL;
  int step = (rate + 5) / 10, worst_at = 0;
  float *frame = malloc (sizeof (float) * channels * step);
  double worst = 0.0, tp_worst = 0.0;
  cf_loudness_values v;
  double want;

  for (int c = 0; c < channels; c++)
    ebur128_set_channel (ref, (unsigned) c, positions[c]);
  cf_loudness_new (&l, &cfg);
  for (int at = 0; at + step <= s.frames; at += step) {
    double m, st;
    for (int i = 0; i < step; i++)
      for (int c = 0; c < channels; c++)
        frame[i * channels + c] = s.x[(size_t) c * s.frames + at + i];
    ebur128_add_frames_float (ref, frame, (size_t) step);
    cf_loudness_add_cpu (l, s.x + at, s.frames, step, 0);
    cf_loudness_get (l, &v);
    ebur128_loudness_momentary (ref, &m);
    ebur128_loudness_shortterm (ref, &st);
    if (isfinite (m) || isfinite (v.momentary)) {
      double d = fabs (v.momentary - m);
      if (!(d <= worst)) {
        worst = d;
        worst_at = at;
      }
    }
    if (isfinite (st) || isfinite (v.shortterm)) {
      double d = fabs (v.shortterm - st);
      if (!(d <= worst)) {
        worst = d;
        worst_at = at;
      }
    }
  }
  test_check (worst < 1e-6, "%s: momentary or short-term %.3g LU from "
      "libebur128 at frame %d", name, worst, worst_at);
  cf_loudness_get (l, &v);
  ebur128_loudness_global (ref, &want);
  test_check (fabs (v.global - want) < 1e-6, "%s: integrated %.6f LUFS, "
      "libebur128 %.6f", name, v.global, want);
  printf ("%s, 90 s: integrated %.3f LUFS (libebur128 %.3f)", name, v.global,
      want);
  ebur128_relative_threshold (ref, &want);
  test_check (fabs (v.relative_threshold - want) < 1e-6, "%s: relative gate "
      "%.6f LUFS, libebur128 %.6f", name, v.relative_threshold, want);
  ebur128_loudness_range (ref, &want);
  test_check (fabs (v.range - want) < 0.05, "%s: range %.4f LU, libebur128 "
      "%.4f", name, v.range, want);
  printf (", range %.2f LU (%.2f)", v.range, want);
  for (int c = 0; c < channels; c++) {
    double sp, tp, ours = cf_loudness_true_peak (l, c);
    ebur128_sample_peak (ref, (unsigned) c, &sp);
    ebur128_true_peak (ref, (unsigned) c, &tp);
    test_check (fabs (cf_loudness_sample_peak (l, c) - sp) < 1e-7,
        "%s: channel %d sample peak %.8f, libebur128 %.8f", name, c,
        cf_loudness_sample_peak (l, c), sp);
    tp_worst = fmax (tp_worst, fabs (20.0 * log10 (ours / tp)));
    test_check (ours >= cf_loudness_sample_peak (l, c), "%s: channel %d true "
        "peak below its sample peak", name, c);
  }
  test_check (tp_worst < 0.2, "%s: true peaks up to %.3f dB from "
      "libebur128's", name, tp_worst);
  printf (", true peaks within %.3f dB, M and S within %.2g LU\n", tp_worst,
      worst);
  cf_loudness_free (l);
  ebur128_destroy (&ref);
  free (frame);
  free (s.x);
}
#endif

/* The same stream through both twins, buffer by buffer; `queue` > 1:
 * the GPU twin queues the buffers, collected after 1 in `queue` of them
 * at random (and at the end), and the twins are compared there. The GPU
 * twin reads planes of floats or doubles (f64), or with `raw` (S16 or
 * S32) interleaved integers as a stream carries them, and the CPU twin
 * their values. */
static void
compare_twins (cf_stream stream, int channels, int rate, int f64, int queue,
    int raw)
{
  cf_loudness_config cfg = { rate, channels, NULL };
  cf_loudness *cpu = NULL, *gpu = NULL;
  int frames = rate * 12, worst_buffer = -1, buffers = 0;
  size_t es = f64 ? sizeof (double) : sizeof (float);
  float *x32 = malloc (sizeof (float) * channels * frames);
  double *x64 = malloc (sizeof (double) * channels * frames), worst = 0.0;
  void *dev = NULL;
  double level = 0.1;
  /* planes of the whole stream, a buffer's frames from its start */
  cf_audio_layout layout = { f64 ? CF_AUDIO_F64 : CF_AUDIO_F32, channels, 0,
    (size_t) frames
  };
  size_t step = es, bytes = es * channels * frames;
  void *samples = NULL;

  for (int i = 0; i < frames; i++) {
    if (i % (rate / 2) == 0)
      level = pow (10.0, test_rand_range (-80.0, -3.0) / 20.0);
    for (int c = 0; c < channels; c++) {
      double v = level * test_rand_range (-1.0, 1.0);
      x64[(size_t) c * frames + i] = v;
      x32[(size_t) c * frames + i] = (float) v;
    }
  }
  samples = f64 ? (void *) x64 : (void *) x32;
  if (raw) {
    /* the integers, and their values for the CPU twin */
    layout.format = (cf_audio_format) raw;
    layout.interleaved = 1;
    step = cf_audio_sample_bytes (layout.format) * channels;
    bytes = step * frames;
    samples = malloc (bytes);
    cf_audio_from_planar_cpu (&layout, x64, frames, frames, samples, 1);
    cf_audio_to_planar_cpu (&layout, samples, frames, x64, frames, 1);
    f64 = 1;
    es = sizeof (double);
  }
  cf_loudness_new (&cpu, &cfg);
  cf_loudness_new (&gpu, &cfg);
  test_check (cf_gpu_malloc (&dev, bytes) == CF_OK, "device memory");
  cf_gpu_copy_2d (dev, bytes, samples, bytes, bytes, 1,
      CF_COPY_HOST_TO_DEVICE, stream);
  for (int at = 0; at < frames; buffers++) {
    int n = test_rand_int (4) == 0 ? 1 + test_rand_int (20000)
        : 1 + test_rand_int (2048);
    cf_loudness_values a, b;
    const char *src = f64 ? (const char *) x64 : (const char *) x32;
    if (n > frames - at)
      n = frames - at;
    cf_loudness_add_cpu (cpu, src + es * at, frames, n, f64);
    if (queue > 1) {
      if (!test_check (cf_loudness_queue_cuda (gpu, &layout, (const char *)
                  dev + step * at, n, stream) == CF_OK,
              "cf_loudness_queue_cuda"))
        break;
      at += n;
      if (at < frames && test_rand_int (queue) != 0)
        continue;
      if (!test_check (cf_loudness_collect_cuda (gpu) == CF_OK,
              "cf_loudness_collect_cuda"))
        break;
    } else {
      if (!test_check (cf_loudness_add_cuda (gpu, &layout, (const char *) dev
                  + step * at, n, stream) == CF_OK, "cf_loudness_add_cuda"))
        break;
      at += n;
    }
    cf_loudness_get (cpu, &a);
    cf_loudness_get (gpu, &b);
    {
      const double got[5] = { b.momentary, b.shortterm, b.global,
        b.relative_threshold, b.range
      }, want[5] = { a.momentary, a.shortterm, a.global,
        a.relative_threshold, a.range
      };
      for (int v = 0; v < 5; v++) {
        double d = isinf (got[v]) && isinf (want[v]) ? 0.0
            : fabs (got[v] - want[v]);
        if (!(d <= worst)) {
          worst = d;
          worst_buffer = buffers;
        }
      }
    }
    for (int c = 0; c < channels; c++) {
      test_check (fabs (cf_loudness_sample_peak (gpu, c)
              - cf_loudness_sample_peak (cpu, c)) < 1e-9, "%d ch %d Hz: "
          "sample peak", channels, rate);
      test_check (fabs (cf_loudness_true_peak (gpu, c)
              - cf_loudness_true_peak (cpu, c)) < 1e-9, "%d ch %d Hz: "
          "true peak %.12f, CPU %.12f", channels, rate,
          cf_loudness_true_peak (gpu, c), cf_loudness_true_peak (cpu, c));
    }
  }
  test_check (worst < 1e-6, "%d ch, %d Hz, %s: the twins differ by %.3g LU "
      "(first at buffer %d)", channels, rate, f64 ? "double" : "float",
      worst, worst_buffer);
  printf ("cuda: %d ch, %d Hz, %s, %d buffers%s: the twins within %.2g "
      "LU\n", channels, rate, raw ? (raw == CF_AUDIO_S16 ? "S16 interleaved"
          : "S32 interleaved") : f64 ? "double" : "float", buffers, queue > 1
      ? " queued" : "", worst);
  if (raw)
    free (samples);
  cf_gpu_free (dev);
  cf_loudness_free (cpu);
  cf_loudness_free (gpu);
  free (x32);
  free (x64);
}

static int
run_cuda (void)
{
  const int rates[] = { 8000, 44100, 48000, 96000 };
  cf_stream stream = NULL;
  int status = test_gpu_start ("loudness-cuda", &stream);

  if (status >= 0)
    return status;
  for (unsigned r = 0; r < sizeof (rates) / sizeof (rates[0]); r++)
    for (int f64 = 0; f64 < 2; f64++)
      for (int queue = 1; queue <= 40; queue += 39)
        compare_twins (stream, 1 + test_rand_int (8), rates[r], f64, queue,
            0);
  /* raw integers, as an element's buffers carry them */
  for (unsigned r = 0; r < sizeof (rates) / sizeof (rates[0]); r++)
    compare_twins (stream, 1 + test_rand_int (8), rates[r], 0, 40,
        r % 2 ? CF_AUDIO_S32 : CF_AUDIO_S16);
  cf_gpu_stream_destroy (stream);
  return test_finish ("loudness-cuda");
}

int
main (int argc, char **argv)
{
  test_seed_from_env ("loudness");
  if (argc > 1 && strcmp (argv[1], "cuda") == 0)
    return run_cuda ();
  test_coefficients ();
  test_tech3341 ();
  test_tech3342 ();
  test_true_peak ();
#ifdef HAVE_EBUR128
  {
    const int stereo[] = { EBUR128_LEFT, EBUR128_RIGHT };
    const int surround[] = { EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER,
      EBUR128_UNUSED, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND
    };
    const double surround_weights[] = { 1, 1, 1, 0, 1.41, 1.41 };
    compare_with_libebur128 (2, 48000, NULL, stereo, "stereo 48 kHz");
    compare_with_libebur128 (6, 44100, surround_weights, surround,
        "5.1 44.1 kHz");
  }
#else
  printf ("SKIP the comparison with libebur128: not found by the build\n");
#endif
  return test_finish ("loudness-cpu");
}
