/*
 * Audio sample conversion (kernels/audio/audio_convert.h): every format,
 * interleaved and planar, odd frame counts and channel counts, against a
 * reference written from the header's rules (integers divided by 2^15 or
 * 2^31; back with rounding to nearest even and saturation), plus the
 * dry/wet mix, to and from planes of floats and of doubles (F64 and S32
 * streams are filtered in double: their samples must come through whole).
 * `cuda` runs the CUDA kernels and requires them to equal the CPU twin bit
 * for bit.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audio_convert.h"
#include "audio_route.h"
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

static double
plane_get (const void *p, int f64, size_t i)
{
  return f64 ? ((const double *) p)[i] : ((const float *) p)[i];
}

static void
plane_put (void *p, int f64, size_t i, double v)
{
  if (f64)
    ((double *) p)[i] = v;
  else
    ((float *) p)[i] = (float) v;
}

/* Plane values to convert back: in range, out of range, and exact half
 * steps of 16 and of 32 bits (doubles for f64 planes, floats else). */
static void
fill_plane (void *x, int f64, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    int pick = test_rand_int (8);
    double v = pick == 0 ? (test_rand_int (65536) - 32768 + 0.5) / 32768.0
        : pick == 1 && f64 ? ((double) (int32_t) (test_rand () >> 32) + 0.5)
        / 2147483648.0 : test_rand_range (pick == 2 ? -3.0 : -1.0,
        pick == 2 ? 3.0 : 1.0);
    plane_put (x, f64, i, v);
  }
}

/* One conversion on the GPU, between device copies of the buffers. */
typedef struct
{
  const cf_audio_layout *layout;
  int frames;
  size_t pitch;                 /* of the planes */
  int to_planar;                /* else from the planes */
  int f64;                      /* planes of doubles */
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
    st = c->to_planar ? cf_audio_to_planar_cuda (c->layout, d_in, c->frames,
        d_out, c->pitch, c->f64, stream) : cf_audio_from_planar_cuda
        (c->layout, d_in, c->pitch, c->frames, d_out, c->f64, stream);
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
    int frames, int interleaved, int f64)
{
  size_t bytes = cf_audio_sample_bytes (f), es = f64 ? 8 : 4;
  const char *plane = f64 ? "double" : "float";
  /* planar buffers leave a gap between planes; the planes one too */
  size_t plane_pitch = (size_t) frames + (interleaved ? 0 : 3);
  size_t pitch = (size_t) frames + 5;
  cf_audio_layout l = { f, channels, interleaved, plane_pitch };
  size_t n = (size_t) channels * plane_pitch, np = (size_t) channels * pitch;
  uint8_t *samples = malloc (n * bytes), *back = malloc (n * bytes);
  uint8_t *back_cpu = malloc (n * bytes);
  uint8_t *x = malloc (np * es), *x_cpu = malloc (np * es);
  int st, bad = 0;

  fill_samples (f, samples, n);
  for (size_t i = 0; i < np; i++) {
    plane_put (x, f64, i, NAN); /* poison: every used sample must be written */
    plane_put (x_cpu, f64, i, NAN);
  }

  st = cf_audio_to_planar_cpu (&l, samples, frames, x_cpu, pitch, f64);
  if (cuda && st == CF_OK) {
    Conversion conv = { &l, frames, pitch, 1, f64 };
    st = convert_on_device (&conv, samples, n * bytes, x, np * es, stream);
  }
  if (!test_check (st == CF_OK, "%s to %s %dch %d frames: %s",
          format_names[f], plane, channels, frames, cf_status_name (st)))
    goto out;
  for (int c = 0; c < channels && !bad; c++)
    for (int k = 0; k < frames && !bad; k++) {
      double exact = reference_get (f, samples, index_of (&l, c, k));
      double want = f64 ? exact : (float) exact;
      size_t i = c * pitch + k;
      double got = plane_get (cuda ? x : x_cpu, f64, i);
      if (got != want || (cuda && memcmp (x + i * es, x_cpu + i * es, es)))
        bad = test_check (0, "%s %s to %s ch %d frame %d: %.17g, want %.17g",
            format_names[f], interleaved ? "interleaved" : "planar", plane,
            c, k, got, want) + 1;
    }
  if (!bad)
    test_check (1, "");

  /* and back: the gaps between planes must stay as they were */
  fill_plane (x_cpu, f64, np);
  test_fill_random (back_cpu, n * bytes);
  memcpy (back, back_cpu, n * bytes);
  uint8_t *expect = malloc (n * bytes);
  memcpy (expect, back_cpu, n * bytes);
  for (int c = 0; c < channels; c++)
    for (int k = 0; k < frames; k++) {
      double v = plane_get (x_cpu, f64, c * pitch + k);
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
  st = cf_audio_from_planar_cpu (&l, x_cpu, pitch, frames, back_cpu, f64);
  if (cuda && st == CF_OK) {
    Conversion conv = { &l, frames, pitch, 0, f64 };
    st = convert_on_device (&conv, x_cpu, np * es, back, n * bytes, stream);
  }
  if (test_check (st == CF_OK, "%s from %s: %s", format_names[f], plane,
          cf_status_name (st))) {
    test_check (memcmp (back_cpu, expect, n * bytes) == 0,
        "%s %s %dch %d frames from %s (CPU) differs from the reference",
        format_names[f], interleaved ? "interleaved" : "planar", channels,
        frames, plane);
    if (cuda)
      test_check (memcmp (back, expect, n * bytes) == 0,
          "%s %s %dch %d frames from %s (CUDA) differs from the reference",
          format_names[f], interleaved ? "interleaved" : "planar", channels,
          frames, plane);
  }
  free (expect);
out:
  free (samples);
  free (back);
  free (back_cpu);
  free (x);
  free (x_cpu);
}

/* The mix: gains glide linearly across the buffer, out may be wet; within
 * the rounding of the planes' type. */
static void
check_mix (int cuda, cf_stream stream, int channels, int frames, int f64)
{
  size_t es = f64 ? 8 : 4, pitch = (size_t) frames + 7;
  size_t n = (size_t) channels * pitch;
  uint8_t *dry = malloc (n * es), *wet = malloc (n * es), *out = malloc (n
      * es);
  double a0 = 0.25, a1 = 0.75, b0 = 1.0, b1 = 0.5;
  double tolerance = f64 ? 1e-15 : 1e-6;
  int st, bad = 0;

  for (size_t i = 0; i < n; i++) {
    plane_put (dry, f64, i, test_rand_range (-1, 1));
    plane_put (wet, f64, i, test_rand_range (-1, 1));
  }
  if (cuda) {
    void *d = NULL;
    st = cf_gpu_malloc (&d, 2 * n * es);
    uint8_t *d_dry = d, *d_wet = (uint8_t *) d + n * es;
    if (st == CF_OK)
      st = cf_gpu_copy_2d (d_dry, n * es, dry, n * es, n * es, 1,
          CF_COPY_HOST_TO_DEVICE, stream);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (d_wet, n * es, wet, n * es, n * es, 1,
          CF_COPY_HOST_TO_DEVICE, stream);
    if (st == CF_OK)
      st = cf_audio_mix_cuda (channels, frames, d_dry, pitch, d_wet, pitch,
          d_wet, pitch, a0, a1, b0, b1, f64, stream);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (out, n * es, d_wet, n * es, n * es, 1,
          CF_COPY_DEVICE_TO_HOST, stream);
    if (st == CF_OK)
      st = cf_gpu_stream_sync (stream);
    cf_gpu_free (d);
  } else {
    memcpy (out, wet, n * es);
    st = cf_audio_mix_cpu (channels, frames, dry, pitch, out, pitch, out,
        pitch, a0, a1, b0, b1, f64);
  }
  if (!test_check (st == CF_OK, "mix: %s", cf_status_name (st)))
    goto out;
  for (int c = 0; c < channels && !bad; c++)
    for (int k = 0; k < frames && !bad; k++) {
      double t = (k + 1.0) / frames;
      size_t i = c * pitch + k;
      double want = (a0 + (a1 - a0) * t) * plane_get (dry, f64, i)
          + (b0 + (b1 - b0) * t) * plane_get (wet, f64, i);
      double got = plane_get (out, f64, i);
      if (fabs (got - want) > tolerance)
        bad = test_check (0, "mix (%s) ch %d frame %d: %.17g, want %.17g",
            f64 ? "double" : "float", c, k, got, want) + 1;
    }
  if (!bad)
    test_check (1, "");
out:
  free (dry);
  free (wet);
  free (out);
}

/* Uploads `n` bytes of each of `count` host arrays into one device block;
 * *d is the block, arrays at d + k * n. */
static int
upload_all (void **d, uint8_t ** host, int count, size_t n, cf_stream stream)
{
  int st = cf_gpu_malloc (d, count * n);

  for (int k = 0; k < count && st == CF_OK; k++)
    st = cf_gpu_copy_2d ((uint8_t *) * d + k * n, n, host[k], n, n, 1,
        CF_COPY_HOST_TO_DEVICE, stream);
  return st;
}

/* The crossfade from a to b: exactly a before the start, the raised cosine
 * across `length` frames, exactly b after; the start within the call, or
 * before it (a fade that began in an earlier buffer). */
static void
check_crossfade (int cuda, cf_stream stream, int channels, int frames,
    int f64)
{
  size_t es = f64 ? 8 : 4, pitch = (size_t) frames + 5;
  size_t n = (size_t) channels * pitch;
  uint8_t *a = malloc (n * es), *b = malloc (n * es), *out = malloc (n * es);
  uint8_t *arrays[2] = { a, b };
  long long length = frames / 2 + 1, start = -(long long) (frames / 3);
  double tolerance = f64 ? 1e-15 : 1e-6;
  int st, bad = 0;

  for (size_t i = 0; i < n; i++) {
    plane_put (a, f64, i, test_rand_range (-1, 1));
    plane_put (b, f64, i, test_rand_range (-1, 1));
  }
  if (cuda) {
    void *d = NULL;
    st = upload_all (&d, arrays, 2, n * es, stream);
    if (st == CF_OK)
      st = cf_audio_crossfade_cuda (channels, frames, d, pitch,
          (uint8_t *) d + n * es, pitch, d, pitch, start, length, f64,
          stream);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (out, n * es, d, n * es, n * es, 1,
          CF_COPY_DEVICE_TO_HOST, stream);
    if (st == CF_OK)
      st = cf_gpu_stream_sync (stream);
    cf_gpu_free (d);
  } else {
    st = cf_audio_crossfade_cpu (channels, frames, a, pitch, b, pitch, out,
        pitch, start, length, f64);
  }
  if (!test_check (st == CF_OK, "crossfade: %s", cf_status_name (st)))
    goto out;
  for (int c = 0; c < channels && !bad; c++)
    for (int k = 0; k < frames && !bad; k++) {
      long long t = start + k;
      double w = t <= 0 ? 0.0 : t >= length ? 1.0
          : (1.0 - cos (M_PI * t / length)) / 2.0;
      size_t i = c * pitch + k;
      double x = plane_get (a, f64, i), y = plane_get (b, f64, i);
      double want = (1.0 - w) * x + w * y, got = plane_get (out, f64, i);
      /* outside the fade, each side exactly */
      int exact = t <= 0 || t >= length;
      if (exact ? got != (t <= 0 ? x : y) : fabs (got - want) > tolerance)
        bad = test_check (0, "crossfade (%s) ch %d frame %d (t %lld of "
            "%lld): %.17g, want %.17g", f64 ? "double" : "float", c, k, t,
            length, got, want) + 1;
    }
  if (!bad)
    test_check (1, "");
out:
  free (a);
  free (b);
  free (out);
}

/* Sums of planes: a gather (one source each, one destination silent) and
 * a scatter (several sources summed), against sums done here in double. */
static void
check_sums (int cuda, cf_stream stream, int frames, int f64)
{
  size_t es = f64 ? 8 : 4, pitch = (size_t) frames + 3;
  cf_audio_plane_sums sums = { 0 };
  const int sources = 5;
  uint8_t *src = malloc (sources * pitch * es);
  uint8_t *dst = malloc (4 * pitch * es);
  uint8_t *arrays[1] = { src };
  /* dst 0: 1 + 3; dst 1: nothing; dst 2: 4; dst 3: 0 + 2 + 4 */
  static const int first[] = { 0, 2, 2, 3, 6 };
  static const int source[] = { 1, 3, 4, 0, 2, 4 };
  double tolerance = f64 ? 1e-15 : 1e-6;
  int st, bad = 0;

  sums.planes = 4;
  memcpy (sums.first, first, sizeof (first));
  memcpy (sums.source, source, sizeof (source));
  for (size_t i = 0; i < sources * pitch; i++)
    plane_put (src, f64, i, test_rand_range (-1, 1));
  if (cuda) {
    void *d = NULL, *d_dst = NULL;
    st = upload_all (&d, arrays, 1, sources * pitch * es, stream);
    if (st == CF_OK)
      st = cf_gpu_malloc (&d_dst, 4 * pitch * es);
    if (st == CF_OK)
      st = cf_audio_sum_planes_cuda (&sums, d, pitch, frames, d_dst, pitch,
          f64, stream);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (dst, 4 * pitch * es, d_dst, 4 * pitch * es,
          4 * pitch * es, 1, CF_COPY_DEVICE_TO_HOST, stream);
    if (st == CF_OK)
      st = cf_gpu_stream_sync (stream);
    cf_gpu_free (d);
    cf_gpu_free (d_dst);
  } else {
    st = cf_audio_sum_planes_cpu (&sums, src, pitch, frames, dst, pitch,
        f64);
  }
  if (!test_check (st == CF_OK, "sums: %s", cf_status_name (st)))
    goto out;
  for (int j = 0; j < 4 && !bad; j++)
    for (int k = 0; k < frames && !bad; k++) {
      double want = 0.0, got = plane_get (dst, f64, j * pitch + k);
      for (int r = first[j]; r < first[j + 1]; r++)
        want += plane_get (src, f64, source[r] * pitch + k);
      if (fabs (got - want) > tolerance)
        bad = test_check (0, "sums (%s) plane %d frame %d: %.17g, want "
            "%.17g", f64 ? "double" : "float", j, k, got, want) + 1;
    }
  /* a table out of range is refused */
  sums.first[4] = CF_AUDIO_MAX_ROUTES + 1;
  if (!bad)
    test_check (cf_audio_sum_planes_cpu (&sums, src, pitch, frames, dst,
            pitch, f64) == CF_ERR_INVALID, "a bad table was taken");
out:
  free (src);
  free (dst);
}

/* A random table of `planes` planes over `sources` sources, each plane
 * with 0 to `most` distinct sources. */
static void
random_table (cf_audio_plane_sums * t, int planes, int sources, int most)
{
  int n = 0;

  t->planes = planes;
  for (int j = 0; j < planes; j++) {
    int count = test_rand_int (most + 1);
    t->first[j] = n;
    for (int k = 0; k < count && k < sources && n < CF_AUDIO_MAX_ROUTES;
        k++) {
      int pick = test_rand_int (sources), dup = 0;
      for (int q = t->first[j]; q < n; q++)
        dup |= t->source[q] == pick;
      if (!dup)
        t->source[n++] = pick;
    }
  }
  t->first[planes] = n;
}

/* The routed conversions (audio_route.h) against what they stand for: a
 * conversion and a sum of planes done one after the other, bit for bit.
 * Into planes: a gather (one source a plane, or none); out of them: sums
 * of up to three planes, in every format (S16 and S32 saturate). */
static void
check_routed (int cuda, cf_stream stream, cf_audio_format f, int frames,
    int interleaved, int f64)
{
  int channels = 1 + test_rand_int (8), planes = 1 + test_rand_int (12);
  size_t es = f64 ? 8 : 4, bps = cf_audio_sample_bytes (f);
  size_t pitch = (size_t) frames + 5;
  cf_audio_layout in = { f, channels, interleaved, pitch };
  cf_audio_layout out = { f, 0, interleaved, pitch };
  cf_audio_plane_sums gather, scatter;
  size_t raw_in = bps * channels * pitch, planes_bytes = es * 16 * pitch;
  uint8_t *raw = malloc (raw_in), *tmp = malloc (planes_bytes);
  uint8_t *want = malloc (planes_bytes), *got = malloc (planes_bytes);
  uint8_t *raw_out, *raw_want;
  size_t raw_out_bytes;
  int st;

  random_table (&gather, planes, channels, 1);
  random_table (&scatter, 1 + test_rand_int (8), planes, 3);
  out.channels = scatter.planes;
  raw_out_bytes = bps * out.channels * pitch;
  raw_out = calloc (1, raw_out_bytes);
  raw_want = calloc (1, raw_out_bytes);
  fill_samples (f, raw, channels * pitch);
  memset (want, 0, planes_bytes);
  memcpy (got, want, planes_bytes);

  /* into planes */
  cf_audio_to_planar_cpu (&in, raw, frames, tmp, pitch, f64);
  cf_audio_sum_planes_cpu (&gather, tmp, pitch, frames, want, pitch, f64);
  if (cuda) {
    void *d_raw = NULL, *d_planes = NULL;
    st = upload_all (&d_raw, &raw, 1, raw_in, stream);
    if (st == CF_OK)
      st = upload_all (&d_planes, &got, 1, planes_bytes, stream);
    if (st == CF_OK)
      st = cf_audio_to_planes_routed_cuda (&in, d_raw, frames, &gather,
          d_planes, pitch, f64, stream);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (got, planes_bytes, d_planes, planes_bytes,
          planes_bytes, 1, CF_COPY_DEVICE_TO_HOST, stream);
    if (st == CF_OK)
      st = cf_gpu_stream_sync (stream);
    cf_gpu_free (d_raw);
    cf_gpu_free (d_planes);
  } else {
    st = cf_audio_to_planes_routed_cpu (&in, raw, frames, &gather, got,
        pitch, f64);
  }
  test_check (st == CF_OK && memcmp (got, want, es * planes * pitch) == 0,
      "routed %s %s %d ch x %d into %d planes (%s): %s, not a conversion "
      "and a gather", format_names[f], interleaved ? "interleaved"
      : "planar", channels, frames, planes, f64 ? "double" : "float",
      cf_status_name (st));

  /* out of them: the planes as filtered output (beyond full scale too) */
  fill_plane (tmp, f64, 16 * pitch);
  cf_audio_sum_planes_cpu (&scatter, tmp, pitch, frames, want, pitch, f64);
  cf_audio_from_planar_cpu (&out, want, pitch, frames, raw_want, f64);
  if (cuda) {
    void *d_planes = NULL, *d_raw = NULL;
    st = upload_all (&d_planes, &tmp, 1, planes_bytes, stream);
    if (st == CF_OK)
      st = upload_all (&d_raw, &raw_out, 1, raw_out_bytes, stream);
    if (st == CF_OK)
      st = cf_audio_from_planes_routed_cuda (&out, d_planes, pitch, frames,
          &scatter, d_raw, f64, stream);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (raw_out, raw_out_bytes, d_raw, raw_out_bytes,
          raw_out_bytes, 1, CF_COPY_DEVICE_TO_HOST, stream);
    if (st == CF_OK)
      st = cf_gpu_stream_sync (stream);
    cf_gpu_free (d_raw);
    cf_gpu_free (d_planes);
  } else {
    st = cf_audio_from_planes_routed_cpu (&out, tmp, pitch, frames,
        &scatter, raw_out, f64);
  }
  test_check (st == CF_OK && memcmp (raw_out, raw_want, raw_out_bytes) == 0,
      "routed %s %s: %d planes into %d ch x %d (%s): %s, not a sum of "
      "planes and a conversion", format_names[f], interleaved
      ? "interleaved" : "planar", planes, out.channels, frames, f64
      ? "double" : "float", cf_status_name (st));

  /* a table naming a channel the stream lacks is refused */
  gather.first[1] = 1;
  gather.source[0] = channels;
  for (int j = 1; j <= gather.planes; j++)
    gather.first[j] = 1;
  test_check (cf_audio_to_planes_routed_cpu (&in, raw, frames, &gather, got,
          pitch, f64) == CF_ERR_INVALID, "routed: channel %d of %d taken",
      channels, channels);
  free (raw);
  free (tmp);
  free (want);
  free (got);
  free (raw_out);
  free (raw_want);
}

/* Both conversions on page-locked raw samples read or written in place,
 * against the CPU twin. */
static void
check_mapped (cf_stream stream)
{
  size_t room = sizeof (float) * 8 * 1024;
  uint8_t *host = NULL, *d = NULL;
  int st = cf_gpu_host_alloc ((void **) &host, room);

  if (st == CF_OK)
    st = cf_gpu_malloc ((void **) &d, room);
  if (!test_check (st == CF_OK, "mapped: allocation: %s",
          cf_status_name (st)))
    goto out;

  /* 8 channels of interleaved floats in page-locked memory */
  {
    cf_audio_layout l = { CF_AUDIO_F32, 8, 1, 0 };
    int frames = 1023;
    size_t n = (size_t) frames * 8, pitch = 1024;
    float *planes = malloc (sizeof (float) * 8 * pitch), *want = malloc
        (sizeof (float) * 8 * pitch), *raw = malloc (sizeof (float) * n);
    float *src = (float *) host;
    for (size_t i = 0; i < n; i++)
      src[i] = (float) test_rand_range (-1, 1);
    st = cf_audio_to_planar_cuda (&l, cf_gpu_host_device_pointer (src),
        frames, d, pitch, 0, stream);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (planes, 8 * pitch * 4, d, 8 * pitch * 4,
          8 * pitch * 4, 1, CF_COPY_DEVICE_TO_HOST, stream);
    if (st == CF_OK)
      st = cf_gpu_stream_sync (stream);
    cf_audio_to_planar_cpu (&l, src, frames, want, pitch, 0);
    for (int c = 0; c < 8 && st == CF_OK; c++)
      test_check (memcmp (planes + c * pitch, want + c * pitch,
              sizeof (float) * frames) == 0, "to planar from page-locked "
          "memory: channel %d differs", c);
    /* and back, written in place */
    memset (host, 0, sizeof (float) * n);
    if (st == CF_OK)
      st = cf_audio_from_planar_cuda (&l, d, pitch, frames,
          cf_gpu_host_device_pointer (host), 0, stream);
    if (st == CF_OK)
      st = cf_gpu_stream_sync (stream);
    cf_audio_from_planar_cpu (&l, want, pitch, frames, raw, 0);
    test_check (st == CF_OK && memcmp (host, raw, sizeof (float) * n) == 0,
        "from planar into page-locked memory: %s", cf_status_name (st));
    free (planes);
    free (want);
    free (raw);
  }
out:
  cf_gpu_host_free (host);
  cf_gpu_free (d);
}

/* NaN in the planes stores as 0 in the integer formats, where a C cast
 * of NaN to an integer is undefined (and gives the most negative value on
 * x86); the other samples as usual. */
static void
check_nan_to_integers (void)
{
  static const float planes[2][4] = {
    {NAN, 0.5f, -NAN, 0.25f}, {1.0f, NAN, -1.0f, NAN}
  };

  for (int f = CF_AUDIO_S16; f <= CF_AUDIO_S32; f++) {
    cf_audio_layout l = { (cf_audio_format) f, 2, 1, 0 };
    int32_t out[8];
    double scale = f == CF_AUDIO_S16 ? 32768.0 : 2147483648.0;
    int bad = 0;

    memset (out, 0x55, sizeof (out));
    int st = cf_audio_from_planar_cpu (&l, planes, 4, 4, out, 0);
    for (int n = 0; n < 4; n++)
      for (int c = 0; c < 2; c++) {
        double v = planes[c][n];
        int64_t want = isnan (v) ? 0
            : reference_integer (v, scale, -scale, scale - 1);
        int64_t got = f == CF_AUDIO_S16 ? ((int16_t *) out)[n * 2 + c]
            : out[n * 2 + c];
        bad += got != want;
      }
    test_check (st == CF_OK && !bad, "NaN to %s: %d samples wrong (%s)",
        format_names[f], bad, cf_status_name (st));
  }
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
  check_nan_to_integers ();
  for (int f64 = 0; f64 <= 1; f64++) {
    for (int f = CF_AUDIO_F32; f <= CF_AUDIO_S32; f++)
      for (size_t s = 0; s < sizeof (sizes) / sizeof (sizes[0]); s++)
        for (int inter = 0; inter < 2; inter++)
          check_case (cuda, stream, (cf_audio_format) f, sizes[s][0],
              sizes[s][1], inter, f64);
    for (size_t s = 0; s < sizeof (sizes) / sizeof (sizes[0]); s++) {
      check_mix (cuda, stream, sizes[s][0], sizes[s][1], f64);
      check_crossfade (cuda, stream, sizes[s][0], sizes[s][1], f64);
      check_sums (cuda, stream, sizes[s][1], f64);
      for (int f = CF_AUDIO_F32; f <= CF_AUDIO_S32; f++)
        for (int inter = 0; inter < 2; inter++)
          check_routed (cuda, stream, (cf_audio_format) f, sizes[s][1],
              inter, f64);
    }
  }
  if (cuda) {
    check_mapped (stream);
    cf_gpu_stream_destroy (stream);
  }
  return test_finish (name);
}
