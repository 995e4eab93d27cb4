/*
 * Audio sample conversion (kernels/audio/audio_convert.h): every format,
 * interleaved and planar, odd frame counts and channel counts, against a
 * reference written from the header's rules (integers divided by 2^15 or
 * 2^31; back with rounding to nearest even and saturation), plus the
 * dry/wet mix. `cuda` runs the CUDA kernels and requires them to equal the
 * CPU twin bit for bit.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audio_convert.h"
#include "test_gpu.h"
#include "test_util.h"

static const char *format_names[] = { "F32", "F64", "S16", "S32" };

static size_t
index_of (const cf_audio_layout * l, int c, int n)
{
  return l->interleaved ? (size_t) n * l->channels + c
      : (size_t) c * l->plane_pitch + n;
}

static double
reference_get (cf_audio_format f, const void *base, size_t i)
{
  switch (f) {
    case CF_AUDIO_F32:
      return ((const float *) base)[i];
    case CF_AUDIO_F64:
      return ((const double *) base)[i];
    case CF_AUDIO_S16:
      return ((const int16_t *) base)[i] / 32768.0;
    default:
      return ((const int32_t *) base)[i] / 2147483648.0;
  }
}

/* The integer a float stores as: nearest, ties to even, clamped. */
static int64_t
reference_integer (double v, double scale, double lo, double hi)
{
  double s = nearbyint (v * scale);
  return (int64_t) (s < lo ? lo : (s > hi ? hi : s));
}

/* Random samples of the format, with the extremes and (for integers) the
 * values that must saturate among them. */
static void
fill_samples (cf_audio_format f, void *base, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    int pick = test_rand_int (16);
    switch (f) {
      case CF_AUDIO_F32:
        ((float *) base)[i] = (float) test_rand_range (-1.5, 1.5);
        break;
      case CF_AUDIO_F64:
        ((double *) base)[i] = test_rand_range (-1.5, 1.5);
        break;
      case CF_AUDIO_S16:
        ((int16_t *) base)[i] = pick == 0 ? INT16_MIN : pick == 1 ? INT16_MAX
            : (int16_t) (test_rand () >> 48);
        break;
      default:
        ((int32_t *) base)[i] = pick == 0 ? INT32_MIN : pick == 1 ? INT32_MAX
            : (int32_t) (test_rand () >> 32);
        break;
    }
  }
}

/* Floats to convert back: in range, out of range, and exact half steps. */
static void
fill_floats (float *x, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    int pick = test_rand_int (8);
    x[i] = pick == 0 ? (float) (test_rand_int (65536) - 32768 + 0.5) / 32768.0f
        : (float) test_rand_range (pick == 1 ? -3.0 : -1.0, pick == 1 ? 3.0 : 1.0);
  }
}

/* One conversion on the GPU, between device copies of the buffers. */
typedef struct
{
  const cf_audio_layout *layout;
  int frames;
  size_t pitch;                 /* of the planar floats */
  int to_float;                 /* else from float */
} Conversion;

/* Copies `in` to the device and `out` too (so that what the conversion
 * does not write comes back as it was), converts, copies `out` back. */
static int
convert_on_device (const Conversion * c, const void *in, size_t in_bytes,
    void *out, size_t out_bytes, cf_stream stream)
{
  void *d_in = NULL, *d_out = NULL;
  int st = cf_gpu_malloc (&d_in, in_bytes);

  if (st == CF_OK)
    st = cf_gpu_malloc (&d_out, out_bytes);
  if (st == CF_OK)
    st = cf_gpu_copy_2d (d_in, in_bytes, in, in_bytes, in_bytes, 1,
        CF_COPY_HOST_TO_DEVICE, stream);
  if (st == CF_OK)
    st = cf_gpu_copy_2d (d_out, out_bytes, out, out_bytes, out_bytes, 1,
        CF_COPY_HOST_TO_DEVICE, stream);
  if (st == CF_OK)
    st = c->to_float ? cf_audio_to_float_cuda (c->layout, d_in, c->frames,
        d_out, c->pitch, stream) : cf_audio_from_float_cuda (c->layout, d_in,
        c->pitch, c->frames, d_out, stream);
  if (st == CF_OK)
    st = cf_gpu_copy_2d (out, out_bytes, d_out, out_bytes, out_bytes, 1,
        CF_COPY_DEVICE_TO_HOST, stream);
  if (st == CF_OK)
    st = cf_gpu_stream_sync (stream);
  cf_gpu_free (d_in);
  cf_gpu_free (d_out);
  return st;
}

static void
check_case (int cuda, cf_stream stream, cf_audio_format f, int channels,
    int frames, int interleaved)
{
  size_t bytes = cf_audio_sample_bytes (f);
  /* planar buffers leave a gap between planes; float planes one too */
  size_t plane_pitch = (size_t) frames + (interleaved ? 0 : 3);
  size_t pitch = (size_t) frames + 5;
  cf_audio_layout l = { f, channels, interleaved, plane_pitch };
  size_t n = (size_t) channels * plane_pitch;
  uint8_t *samples = malloc (n * bytes), *back = malloc (n * bytes);
  uint8_t *back_cpu = malloc (n * bytes);
  float *x = malloc ((size_t) channels * pitch * sizeof (float));
  float *x_cpu = malloc ((size_t) channels * pitch * sizeof (float));
  int st, bad = 0;

  fill_samples (f, samples, n);
  for (size_t i = 0; i < (size_t) channels * pitch; i++)
    x[i] = x_cpu[i] = NAN;      /* poison: every used float must be written */

  st = cf_audio_to_float_cpu (&l, samples, frames, x_cpu, pitch);
  if (cuda && st == CF_OK) {
    Conversion conv = { &l, frames, pitch, 1 };
    st = convert_on_device (&conv, samples, n * bytes, x,
        (size_t) channels * pitch * sizeof (float), stream);
  }
  if (!test_check (st == CF_OK, "%s to float %dch %d frames: %s",
          format_names[f], channels, frames, cf_status_name (st)))
    goto out;
  for (int c = 0; c < channels && !bad; c++)
    for (int k = 0; k < frames && !bad; k++) {
      float want = (float) reference_get (f, samples, index_of (&l, c, k));
      float got = cuda ? x[c * pitch + k] : x_cpu[c * pitch + k];
      if (got != want || (cuda && memcmp (&got, &x_cpu[c * pitch + k], 4)))
        bad = test_check (0, "%s %s to float ch %d frame %d: %.9g, want %.9g",
            format_names[f], interleaved ? "interleaved" : "planar", c, k,
            got, want) + 1;
    }
  if (!bad)
    test_check (1, "");

  /* and back: the gaps between planes must stay as they were */
  fill_floats (x_cpu, (size_t) channels * pitch);
  test_fill_random (back_cpu, n * bytes);
  memcpy (back, back_cpu, n * bytes);
  uint8_t *expect = malloc (n * bytes);
  memcpy (expect, back_cpu, n * bytes);
  for (int c = 0; c < channels; c++)
    for (int k = 0; k < frames; k++) {
      double v = x_cpu[c * pitch + k];
      size_t i = index_of (&l, c, k);
      if (f == CF_AUDIO_F32)
        ((float *) expect)[i] = (float) v;
      else if (f == CF_AUDIO_F64)
        ((double *) expect)[i] = v;
      else if (f == CF_AUDIO_S16)
        ((int16_t *) expect)[i] =
            (int16_t) reference_integer (v, 32768.0, -32768.0, 32767.0);
      else
        ((int32_t *) expect)[i] = (int32_t) reference_integer (v,
            2147483648.0, -2147483648.0, 2147483647.0);
    }
  st = cf_audio_from_float_cpu (&l, x_cpu, pitch, frames, back_cpu);
  if (cuda && st == CF_OK) {
    Conversion conv = { &l, frames, pitch, 0 };
    st = convert_on_device (&conv, x_cpu, (size_t) channels * pitch
        * sizeof (float), back, n * bytes, stream);
  }
  if (test_check (st == CF_OK, "%s from float: %s", format_names[f],
          cf_status_name (st))) {
    test_check (memcmp (back_cpu, expect, n * bytes) == 0,
        "%s %s %dch %d frames from float (CPU) differs from the reference",
        format_names[f], interleaved ? "interleaved" : "planar", channels,
        frames);
    if (cuda)
      test_check (memcmp (back, expect, n * bytes) == 0,
          "%s %s %dch %d frames from float (CUDA) differs from the reference",
          format_names[f], interleaved ? "interleaved" : "planar", channels,
          frames);
  }
  free (expect);
out:
  free (samples);
  free (back);
  free (back_cpu);
  free (x);
  free (x_cpu);
}

/* The mix: gains glide linearly across the buffer, out may be wet. */
static void
check_mix (int cuda, cf_stream stream, int channels, int frames)
{
  size_t pitch = (size_t) frames + 7, n = (size_t) channels * pitch;
  float *dry = malloc (n * 4), *wet = malloc (n * 4), *out = malloc (n * 4);
  float a0 = 0.25f, a1 = 0.75f, b0 = 1.0f, b1 = 0.5f;
  int st, bad = 0;

  for (size_t i = 0; i < n; i++) {
    dry[i] = (float) test_rand_range (-1, 1);
    wet[i] = (float) test_rand_range (-1, 1);
  }
  if (cuda) {
    void *d = NULL;
    st = cf_gpu_malloc (&d, 2 * n * 4);
    float *d_dry = d, *d_wet = (float *) d + n;
    if (st == CF_OK)
      st = cf_gpu_copy_2d (d_dry, n * 4, dry, n * 4, n * 4, 1,
          CF_COPY_HOST_TO_DEVICE, stream);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (d_wet, n * 4, wet, n * 4, n * 4, 1,
          CF_COPY_HOST_TO_DEVICE, stream);
    if (st == CF_OK)
      st = cf_audio_mix_cuda (channels, frames, d_dry, pitch, d_wet, pitch,
          d_wet, pitch, a0, a1, b0, b1, stream);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (out, n * 4, d_wet, n * 4, n * 4, 1,
          CF_COPY_DEVICE_TO_HOST, stream);
    if (st == CF_OK)
      st = cf_gpu_stream_sync (stream);
    cf_gpu_free (d);
  } else {
    memcpy (out, wet, n * 4);
    st = cf_audio_mix_cpu (channels, frames, dry, pitch, out, pitch, out,
        pitch, a0, a1, b0, b1);
  }
  if (!test_check (st == CF_OK, "mix: %s", cf_status_name (st)))
    goto out;
  for (int c = 0; c < channels && !bad; c++)
    for (int k = 0; k < frames && !bad; k++) {
      double t = (k + 1.0) / frames;
      double want = (a0 + (a1 - a0) * t) * dry[c * pitch + k]
          + (b0 + (b1 - b0) * t) * wet[c * pitch + k];
      double got = out[c * pitch + k];
      if (fabs (got - want) > 1e-6)
        bad = test_check (0, "mix ch %d frame %d: %.9g, want %.9g", c, k,
            got, want) + 1;
    }
  if (!bad)
    test_check (1, "");
out:
  free (dry);
  free (wet);
  free (out);
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "cpu";
  int cuda = strcmp (mode, "cuda") == 0;
  cf_stream stream = NULL;
  static const int sizes[][2] = { {1, 1}, {2, 1023}, {8, 1024}, {3, 4097},
  {64, 17}, {6, 48000}
  };
  char name[48];

  snprintf (name, sizeof (name), "audio-convert-%s", mode);
  if (cuda) {
    int status = test_gpu_start (name, &stream);
    if (status >= 0)
      return status;
  }
  test_seed_from_env (name);
  for (int f = CF_AUDIO_F32; f <= CF_AUDIO_S32; f++)
    for (size_t s = 0; s < sizeof (sizes) / sizeof (sizes[0]); s++)
      for (int inter = 0; inter < 2; inter++)
        check_case (cuda, stream, (cf_audio_format) f, sizes[s][0],
            sizes[s][1], inter);
  for (size_t s = 0; s < sizeof (sizes) / sizeof (sizes[0]); s++)
    check_mix (cuda, stream, sizes[s][0], sizes[s][1]);
  if (cuda)
    cf_gpu_stream_destroy (stream);
  return test_finish (name);
}
