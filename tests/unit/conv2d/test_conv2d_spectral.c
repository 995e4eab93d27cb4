/* The spectral path of cudaconv2d's kernels (conv2d_spectral.h): masks
 * above 31 taps a side that are not separable (discs, random masks up to
 * 255 x 255), on the CPU twin ("cpu") or the GPU ("cuda"), against a
 * direct float64 correlation written here, on random planes of every
 * layout and border, odd sizes and masks larger than the plane. Outputs
 * are poisoned first and the bytes past each row must stay; every output
 * must be within 1 level of the exact value, the kept channel equal to the
 * source. Two full-size planes are checked at random pixels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d_spectral.h"
#include "ref_border.h"
#include "test_gpu.h"
#include "test_util.h"

typedef struct
{
  const char *name;
  int channels;
  cf_sample sample;
  int keep;
} layout;

static const layout layouts[] = {
  {"GRAY8", 1, CF_SAMPLE_U8, -1}, {"2 x 8-bit", 2, CF_SAMPLE_U8, -1},
  {"RGB", 3, CF_SAMPLE_U8, -1}, {"RGBA", 4, CF_SAMPLE_U8, 3},
  {"ARGB", 4, CF_SAMPLE_U8, 0}, {"GRAY16", 1, CF_SAMPLE_U16, -1},
};

enum
{ MASK_DISC, MASK_RANDOM, MASK_RING, MASK_SIGNED, N_MASKS };

static const char *const mask_names[] = { "disc", "random", "ring",
  "signed"
};

typedef struct
{
  int use_gpu;
  cf_stream stream;
} backend;

static int
odd (int lo, int hi)
{
  return (lo + test_rand_int (hi - lo + 1)) | 1;
}

/* A disc of radius r: each tap the share of its pixel's 8 x 8 points
 * inside the circle. */
static void
disc (float *taps, int r)
{
  int n = 2 * r + 1;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      int in = 0;
      for (int b = 0; b < 8; b++)
        for (int a = 0; a < 8; a++) {
          double x = i - r + (a + 0.5) / 8 - 0.5, y = j - r + (b + 0.5) / 8
              - 0.5;
          in += x * x + y * y <= (double) r * r;
        }
      taps[j * n + i] = in / 64.0f;
    }
}

/* Taps, sizes, divisor and offset of mask kind `kind`, at most `largest`
 * a side. */
static void
make_mask (int kind, int largest, float *taps, int *kw, int *kh,
    double *divisor, double *offset)
{
  double sum = 0;

  *offset = 0;
  switch (kind) {
    case MASK_DISC:{
      int r = 16 + test_rand_int ((largest - 1) / 2 - 15);
      *kw = *kh = 2 * r + 1;
      disc (taps, r);
      break;
    }
    case MASK_RANDOM:
      /* one side may be short: still not separable */
      *kw = odd (test_rand_int (2) ? 33 : 3, largest);
      *kh = *kw <= 31 ? odd (33, largest) : odd (3, largest);
      for (int k = 0; k < *kw * *kh; k++)
        taps[k] = (float) test_rand_range (0, 1);
      *offset = test_rand_range (-10, 10);
      break;
    case MASK_RING:{
      /* a thin ring: a lens's bokeh */
      int r = 16 + test_rand_int ((largest - 1) / 2 - 15);
      *kw = *kh = 2 * r + 1;
      for (int j = 0; j < *kh; j++)
        for (int i = 0; i < *kw; i++) {
          double d = hypot (i - r, j - r);
          taps[j * *kw + i] = fabs (d - (r - 2)) < 1.5 ? 1.0f : 0.0f;
        }
      break;
    }
    default:
      /* mixed signs summing to about 1: a large sharpening */
      *kw = odd (33, largest);
      *kh = odd (33, largest);
      for (int k = 0; k < *kw * *kh; k++)
        taps[k] = (float) test_rand_range (-1, 1);
      taps[*kw * *kh / 2] += 4.0f;
      *offset = 128;
      break;
  }
  for (int k = 0; k < *kw * *kh; k++)
    sum += taps[k];
  *divisor = kind == MASK_SIGNED ? test_rand_range (4, 40) : sum;
}

static double
sample_of (const uint8_t *plane, size_t stride, const layout * l, int x,
    int y, int c)
{
  const uint8_t *row = plane + (size_t) y * stride;
  if (l->sample == CF_SAMPLE_U16) {
    uint16_t v;
    memcpy (&v, row + 2 * (size_t) x, 2);
    return v;
  }
  return row[(size_t) x * l->channels + c];
}

/* The exact output at (x, y), channel c: a direct correlation in double,
 * divided, offset and saturated. */
static double
exact_at (const uint8_t *src, size_t stride, const layout * l, int w,
    int h, const float *taps, int kw, int kh, int border, double divisor,
    double offset, int x, int y, int c)
{
  double s = 0, top = l->sample == CF_SAMPLE_U16 ? 65535 : 255;

  for (int j = 0; j < kh; j++) {
    int sy = ref_border_source (y + j - kh / 2, h, border);
    if (sy < 0)
      continue;
    for (int i = 0; i < kw; i++) {
      int sx = ref_border_source (x + i - kw / 2, w, border);
      if (sx >= 0)
        s += taps[j * kw + i] * sample_of (src, stride, l, sx, sy, c);
    }
  }
  s = s / divisor + offset;
  return s < 0 ? 0 : (s > top ? top : s);
}

static int
run (const backend * be, const cf_conv2d_plan * plan,
    const cf_plane_format * f, const uint8_t *src, size_t stride,
    uint8_t *dst, int *used_double)
{
  size_t bytes = stride * f->height;
  void *d_src = NULL, *d_dst = NULL;
  cf_conv2d_spectral_gpu *s = NULL;
  int st;

  *used_double = 1;
  if (!be->use_gpu && test_rand_int (2))
    return cf_conv2d_cpu (plan, f, src, stride, dst, stride, 0, f->height);
  if (!be->use_gpu) {
    /* the channels as threads take them: last first */
    cf_conv2d_spectral_cpu *c;
    st = cf_conv2d_spectral_cpu_new (&c, plan, f);
    for (int k = cf_conv2d_spectral_cpu_channels (c) - 1; k >= 0
        && st == CF_OK; k--)
      st = cf_conv2d_spectral_cpu_channel (c, src, stride, dst, stride, k);
    cf_conv2d_spectral_cpu_free (c);
    return st;
  }
  if ((st = cf_gpu_malloc (&d_src, bytes)) != CF_OK
      || (st = cf_gpu_malloc (&d_dst, bytes)) != CF_OK
      || (st = cf_conv2d_spectral_cuda_new (&s, plan, f, be->stream))
      != CF_OK)
    goto done;
  *used_double = cf_conv2d_spectral_cuda_double (s);
  if ((st = cf_gpu_copy_2d (d_src, stride, src, stride, stride, f->height,
              CF_COPY_HOST_TO_DEVICE, be->stream)) != CF_OK
      || (st = cf_gpu_copy_2d (d_dst, stride, dst, stride, stride,
              f->height, CF_COPY_HOST_TO_DEVICE, be->stream)) != CF_OK
      || (st = cf_conv2d_spectral_cuda (s, d_src, stride, d_dst, stride,
              be->stream)) != CF_OK
      || (st = cf_gpu_copy_2d (dst, stride, d_dst, stride, stride, f->height,
              CF_COPY_DEVICE_TO_HOST, be->stream)) != CF_OK)
    goto done;
  st = cf_gpu_stream_sync (be->stream);
done:
  cf_conv2d_spectral_cuda_free (s);
  cf_gpu_free (d_src);
  cf_gpu_free (d_dst);
  return st;
}

/* One case; `samples` > 0 checks that many random pixels, else all. */
static void
run_case (const backend * be, const layout * l, int kind, int largest,
    int w, int h, int border, int samples)
{
  static float taps[CF_CONV2D_MAX_GENERAL_TAPS];
  int kw, kh, C = l->channels, bad = 0, used_double, n;
  double divisor, offset, worst = 0;
  cf_plane_format f = { w, h, C, l->sample, l->keep };
  size_t pixel = cf_plane_format_pixel_bytes (&f);
  /* padded rows; 16-bit rows stay on 2-byte boundaries */
  size_t stride = w * pixel + (pixel == 2 ? 6 : 7) + test_rand_int (3) * 2;
  uint8_t *src = malloc (stride * h), *dst = malloc (stride * h);
  uint8_t *poison = malloc (stride * h);
  cf_conv2d_plan *plan = malloc (sizeof (*plan));
  cf_conv2d_mask mask = { 0 };
  cf_conv2d_spectral_size z;
  int st;

  make_mask (kind, largest, taps, &kw, &kh, &divisor, &offset);
  mask.width = kw;
  mask.height = kh;
  mask.taps = taps;
  mask.divisor = divisor;
  mask.offset = offset;
  mask.border = (cf_border) border;
  test_fill_random (src, stride * h);
  test_fill_random (poison, stride * h);
  memcpy (dst, poison, stride * h);
  if (!test_check (cf_conv2d_plan_init (plan, &mask) == CF_OK
          && plan->spectral && !plan->long_mask, "%s %dx%d: a spectral plan",
          mask_names[kind], kw, kh))
    goto done;
  cf_conv2d_spectral_size_init (&z, plan, &f);
  st = run (be, plan, &f, src, stride, dst, &used_double);
  if (!test_check (st == CF_OK, "%s %s %dx%d on %dx%d border %d: %s",
          l->name, mask_names[kind], kw, kh, w, h, border,
          cf_status_name (st)))
    goto done;
  test_check (used_double == (be->use_gpu ? z.use_double : 1),
      "%s %s: precision as the size says", l->name, mask_names[kind]);
  n = samples > 0 ? samples : w * h;
  for (int s = 0; s < n && bad < 3; s++) {
    int x = samples > 0 ? test_rand_int (w) : s % w;
    int y = samples > 0 ? test_rand_int (h) : s / w;
    for (int c = 0; c < C; c++) {
      double got = sample_of (dst, stride, l, x, y, c), want;
      int ok;
      if (c == l->keep) {
        want = sample_of (src, stride, l, x, y, c);
        ok = got == want;
      } else {
        want = exact_at (src, stride, l, w, h, taps, kw, kh, border,
            divisor, offset, x, y, c);
        ok = fabs (got - want) <= 1.0;
        worst = fmax (worst, fabs (got - want));
      }
      if (!ok && ++bad <= 3)
        test_check (0, "%s %s %dx%d (%s) on %dx%d border %d: (%d, %d) "
            "channel %d is %g, exact %.4f", l->name, mask_names[kind], kw, kh,
            used_double ? "double" : "float", w, h, border, x, y, c, got,
            want);
    }
  }
  for (int y = 0; y < h; y++)
    if (memcmp (dst + (size_t) y * stride + w * pixel,
            poison + (size_t) y * stride + w * pixel, stride - w * pixel)) {
      test_check (0, "%s %s: bytes past row %d written", l->name,
          mask_names[kind], y);
      bad++;
      break;
    }
  test_check (bad == 0, "%s %s %dx%d (%s, %dx%d transform) on %dx%d border "
      "%d: largest difference %.3f", l->name, mask_names[kind], kw, kh,
      used_double ? "double" : "float", z.nx, z.ny, w, h, border, worst);
done:
  free (src);
  free (dst);
  free (poison);
  free (plan);
}

/* What the plan accepts and refuses, the sizes and the precision. */
static void
check_plans (const backend * be)
{
  static float taps[257 * 257];
  cf_conv2d_plan *plan = malloc (sizeof (*plan));
  cf_conv2d_mask m = { 0 };
  cf_plane_format f = { 3840, 2160, 4, CF_SAMPLE_U8, 3 };
  cf_conv2d_spectral_size z;
  uint8_t plane[64 * 48] = { 0 }, out[64 * 48];
  cf_plane_format small = { 64, 48, 1, CF_SAMPLE_U8, -1 };

  test_check (cf_conv2d_spectral_good_size (4094) == 4096
      && cf_conv2d_spectral_good_size (2414) == 2430
      && cf_conv2d_spectral_good_size (11) == 12
      && cf_conv2d_spectral_good_size (1) == 1, "sizes of 2, 3, 5 and 7");
  m.divisor = 1;
  m.taps = taps;
  m.width = m.height = 257;
  test_check (cf_conv2d_plan_init (plan, &m) == CF_ERR_INVALID,
      "257 x 257 taps refused");
  for (int k = 0; k < 255 * 255; k++)
    taps[k] = 1.0f;
  m.width = m.height = 255;
  test_check (cf_conv2d_plan_init (plan, &m) == CF_OK && plan->long_mask
      && plan->box && !plan->spectral, "255 x 255 ones: a long box");
  disc (taps, 100);
  m.width = m.height = 201;
  m.divisor = 31416;
  test_check (cf_conv2d_plan_init (plan, &m) == CF_OK && plan->spectral
      && !plan->long_mask, "disc of radius 100: spectral");
  test_check (cf_conv2d_spectral_size_init (&z, plan, &f) == CF_OK
      && z.nx == 4050 && z.ny == 2400 && z.channels == 3
      && z.channel[2] == 2 && !z.use_double,
      "disc 100 on 4K RGBA: %dx%d, %d channels, %s", z.nx, z.ny, z.channels,
      z.use_double ? "double" : "float");
  f.channels = 1;
  f.sample = CF_SAMPLE_U16;
  f.keep_channel = -1;
  test_check (cf_conv2d_spectral_size_init (&z, plan, &f) == CF_OK
      && z.use_double, "GRAY16: double");
  test_check (cf_conv2d_cpu (plan, &small, plane, 64, out, 64, 0, 10)
      == CF_ERR_UNSUPPORTED, "part of a plane refused for a spectral mask");
  if (be->use_gpu)
    test_check (cf_conv2d_cuda (CF_CONV2D_AUTO, plan, &small, plane, 64, out,
            64, 0, 48, be->stream) == CF_ERR_UNSUPPORTED,
        "cf_conv2d_cuda refuses a spectral mask");
  m.width = m.height = 3;
  cf_conv2d_plan_init (plan, &m);
  test_check (cf_conv2d_spectral_size_init (&z, plan, &small)
      == CF_ERR_INVALID, "a short mask refused by the spectral path");
  free (plan);
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "cpu";
  backend be = { strcmp (mode, "cuda") == 0, NULL };
  static const int sizes[][2] = {
    {97, 61}, {1, 7}, {13, 1}, {120, 3}, {5, 90}, {73, 45}, {64, 64},
    {160, 9}, {3, 100},
  };
  char name[40];
  int sid = 0;

  snprintf (name, sizeof (name), "conv2d-spectral-%s", mode);
  if (be.use_gpu) {
    int status = test_gpu_start (name, &be.stream);
    if (status >= 0)
      return status;
  }
  test_seed_from_env (name);
  check_plans (&be);
  for (size_t l = 0; l < sizeof (layouts) / sizeof (layouts[0]); l++)
    for (int border = 0; border < 4; border++)
      for (int kind = 0; kind < N_MASKS; kind++) {
        const int *s = sizes[sid++ % (sizeof (sizes) / sizeof (sizes[0]))];
        run_case (&be, &layouts[l], kind, 101, s[0], s[1], border, 0);
      }
  /* the largest masks, over planes smaller than they are */
  for (int kind = 0; kind < N_MASKS; kind++)
    run_case (&be, &layouts[kind % 6], kind, 255, 40 + kind, 31, kind % 4, 0);
  /* full-size planes at random pixels: 4K RGBA on the GPU, 1080p on the
   * CPU; GRAY16 with a 255 x 255 mask */
  run_case (&be, &layouts[3], MASK_DISC, 201, be.use_gpu ? 3840 : 1920,
      be.use_gpu ? 2160 : 1080, CF_BORDER_MIRROR, 400);
  run_case (&be, &layouts[5], MASK_RANDOM, 255, 1920, 1080, CF_BORDER_CLAMP,
      400);
  return test_finish (name);
}
