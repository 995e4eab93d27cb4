/* Kernel tests of the 2D convolution: the CPU twin ("cpu") or every CUDA
 * variant ("cuda") against a double-precision reference written here, on
 * random images and masks, for every plane layout, border mode and mask
 * shape, at sizes around the variants' tile boundaries, with padded strides
 * and outputs poisoned first.
 *
 *   test_conv2d cpu|cuda
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d.h"
#include "gpu.h"
#include "ref_border.h"
#include "test_gpu.h"
#include "test_util.h"

/* ---- the reference ------------------------------------------------------ */

typedef struct
{
  cf_plane_format fmt;
  size_t stride;
  uint8_t *data;
} plane;

static double
sample (const plane * p, int x, int y, int c)
{
  const uint8_t *row = p->data + (size_t) y * p->stride;
  if (p->fmt.sample == CF_SAMPLE_U16)
    return ((const uint16_t *) row)[x * p->fmt.channels + c];
  return row[x * p->fmt.channels + c];
}

typedef struct
{
  int kw, kh;
  float taps[2][CF_CONV2D_MAX_TAPS];
  int magnitude;
  double divisor, offset;
  cf_border border;
} test_mask;

/* The exact result of one output sample, and how far float arithmetic may
 * move it: 2^-24 per accumulated term on the sum of magnitudes. */
static void
reference (const plane * in, const test_mask * m, int x, int y, int c,
    double *value, double *slack)
{
  double sum[2] = { 0, 0 }, mag = 0;
  int rx = m->kw / 2, ry = m->kh / 2, masks = m->magnitude ? 2 : 1;
  double maxval = in->fmt.sample == CF_SAMPLE_U16 ? 65535 : 255;

  for (int j = 0; j < m->kh; j++) {
    int sy = ref_border_source (y + j - ry, in->fmt.height, m->border);
    for (int i = 0; i < m->kw; i++) {
      int sx = ref_border_source (x + i - rx, in->fmt.width, m->border);
      double v = (sx < 0 || sy < 0) ? 0.0 : sample (in, sx, sy, c);
      for (int k = 0; k < masks; k++) {
        sum[k] += m->taps[k][j * m->kw + i] * v;
        mag += fabs (m->taps[k][j * m->kw + i] * v);
      }
    }
  }
  double v = m->magnitude ? sqrt (sum[0] * sum[0] + sum[1] * sum[1]) : sum[0];
  v = v / m->divisor + m->offset;
  *value = v < 0 ? 0 : (v > maxval ? maxval : v);
  *slack = 6e-8 * (m->kw * m->kh + 16) * (mag / fabs (m->divisor)
      + fabs (m->offset) + 1.0);
  /* further outside the range than rounding reaches: saturated exactly */
  if (v - *slack > maxval || v + *slack < 0)
    *slack = 0;
}

/* ---- cases ----------------------------------------------------------------- */

typedef struct
{
  cf_sample sample;
  int channels, keep;
  const char *name;
} layout;

static const layout layouts[] = {
  {CF_SAMPLE_U8, 1, -1, "u8x1"},
  {CF_SAMPLE_U8, 2, -1, "u8x2"},
  {CF_SAMPLE_U8, 3, -1, "u8x3"},
  {CF_SAMPLE_U8, 4, 3, "u8x4-keep3"},
  {CF_SAMPLE_U8, 4, 0, "u8x4-keep0"},
  {CF_SAMPLE_U16, 1, -1, "u16x1"},
};

static const int shapes[][2] = {
  {1, 1}, {3, 3}, {5, 5}, {3, 5}, {5, 3}, {7, 1}, {1, 7}, {9, 9},
  {15, 15}, {11, 31}, {31, 31}, {25, 25}, {17, 3}, {9, 21},
};

/* Around the tiles: fast 128 x 16 (byte tiles 128 x 8 and 128 x 16,
 * word tiles 64 x 16, tensor-core tiles 64 x 64), separable 64 x 32
 * (four-byte pixels: 224 to 256 x 8), cached 32 x 16, tiled 32 - k + 1,
 * wide 32 lanes x 16 bytes x 32 rows (a warp spans 128 RGBA, 256 two-channel or 512
 * GRAY8 pixels). */
static const int sizes[][2] = {
  {1, 1}, {2, 3}, {7, 5}, {31, 17}, {64, 32}, {65, 33}, {129, 40},
  {200, 67}, {257, 9}, {513, 35}, {1037, 6}, {528, 3}, {481, 9},
};

/* MASK_EXTREME: every tap the same integer, as large as the integer tiles
 * allow (absolute sum at most 127), of one random sign, over a plane
 * mostly at 255, so that sums reach the edge of their 16-bit halves.
 * MASK_BYTE_TAPS: integer taps at the ends of a signed byte, where the
 * one-byte tiles pack four taps to a word: one tap of 128, -128, 127 or
 * -120 somewhere in the mask, and taps of -1, 0 or 1 around it while the
 * absolute sum stays at most 128 (a lone 128 does not fit a byte).
 * MASK_SCALED: a rank-1 mask whose divisor is 2^-100, 2^-40, 2^40 or 2^100
 * times the usual, so that the taps the kernels scale by powers of two
 * (byte and word tiles, the separable column pass) sit at the ends of that
 * scaling: results at the offset or saturated, never NaN or garbage. */
enum
{ MASK_RANDOM, MASK_INTEGER, MASK_SEPARABLE, MASK_MAGNITUDE, MASK_EXTREME,
  MASK_BYTE_TAPS, MASK_SCALED, N_MASK_KINDS
};
static const char *const mask_kinds[] =
    { "random", "integer", "separable", "magnitude", "extreme", "byte-taps",
  "scaled"
};

static void
make_mask (test_mask * m, int kind, int kw, int kh, cf_border border)
{
  double abs_sum = 0;
  float row[CF_CONV2D_MAX_SIZE], col[CF_CONV2D_MAX_SIZE];

  memset (m, 0, sizeof (*m));
  m->kw = kw;
  m->kh = kh;
  m->border = border;
  m->magnitude = kind == MASK_MAGNITUDE;
  for (int i = 0; i < kw; i++)
    row[i] = (float) test_rand_range (0.05, 1.0);
  for (int j = 0; j < kh; j++)
    col[j] = (float) test_rand_range (0.05, 1.0);
  for (int k = 0; k < (m->magnitude ? 2 : 1); k++)
    for (int t = 0; t < kw * kh; t++) {
      float v;
      switch (kind) {
        case MASK_INTEGER: v = (float) (test_rand_int (9) - 3); break;
        case MASK_EXTREME: v = (float) (127 / (kw * kh) > 0
              ? 127 / (kw * kh) : 1); break;
        case MASK_SEPARABLE:
        case MASK_SCALED: v = col[t / kw] * row[t % kw]; break;
        default: v = (float) test_rand_range (-1.0, 1.0); break;
      }
      m->taps[k][t] = v;
      abs_sum += fabs (v);
    }
  if (kind == MASK_BYTE_TAPS) {
    static const float big[] = { 128, -128, 127, -120 };
    int at = test_rand_int (kw * kh);
    float lead = big[test_rand_int (4)];
    abs_sum = fabs (lead);
    for (int t = 0; t < kw * kh; t++) {
      float v = t == at ? lead : (float) (test_rand_int (3) - 1);
      if (t != at && abs_sum + fabs (v) > 128)
        v = 0;
      m->taps[0][t] = v;
      abs_sum += t == at ? 0 : fabs (v);
    }
  }
  /* keep most results inside the sample range, so rounding is exercised */
  m->divisor = abs_sum > 0 ? abs_sum * test_rand_range (0.3, 1.0) : 1.0;
  if (kind == MASK_SCALED) {
    static const int exps[] = { -100, -40, 40, 100 };
    m->divisor = ldexp (m->divisor, exps[test_rand_int (4)]);
  }
  m->offset = kind == MASK_MAGNITUDE ? 0.0 : test_rand_range (0.0, 100.0);
}

typedef struct
{
  plane in;
  test_mask mask;
  cf_conv2d_plan plan;
  size_t out_stride;
  double *expect, *slack;       /* per sample of the output */
  char desc[200];
} test_case;

/* Set: every row pitch aligned to 64 (the tiles that need 16-byte rows). */
static int aligned_rows;

/* A row pitch of at least `min` bytes: sometimes tight, sometimes padded by
 * an odd amount, sometimes aligned to 64. */
static size_t
random_stride (size_t min, int u16)
{
  size_t s;
  switch (aligned_rows ? 2 : test_rand_int (3)) {
    case 0: s = min; break;
    case 1: s = min + 1 + test_rand_int (23); break;
    default: s = (min + 63) / 64 * 64; break;
  }
  return u16 ? (s + 1) & ~(size_t) 1 : s;
}

static int
case_init (test_case * tc, const layout * l, int w, int h, int kind, int kw,
    int kh, cf_border border)
{
  plane *in = &tc->in;
  size_t px;
  int u16 = l->sample == CF_SAMPLE_U16, n;
  cf_conv2d_mask cm;

  memset (tc, 0, sizeof (*tc));
  in->fmt.width = w;
  in->fmt.height = h;
  in->fmt.channels = l->channels;
  in->fmt.sample = l->sample;
  in->fmt.keep_channel = l->keep;
  px = cf_plane_format_pixel_bytes (&in->fmt);
  in->stride = random_stride (w * px, u16);
  tc->out_stride = random_stride (w * px, u16);
  in->data = malloc (in->stride * h);
  test_fill_random (in->data, in->stride * h);
  make_mask (&tc->mask, kind, kw, kh, border);
  if (kind == MASK_EXTREME) {
    float sign = test_rand_int (2) ? 1.0f : -1.0f;
    for (int t = 0; t < kw * kh; t++)
      tc->mask.taps[0][t] *= sign;
    if (sign < 0)
      tc->mask.offset = 255.0;
    for (size_t b = 0; b < in->stride * h; b++)
      if (test_rand_int (8))
        in->data[b] = 0xFF;
  }
  snprintf (tc->desc, sizeof (tc->desc),
      "%s %dx%d stride %zu/%zu, %s mask %dx%d, border %d", l->name, w, h,
      in->stride, tc->out_stride, mask_kinds[kind], kw, kh, border);

  cm.width = kw;
  cm.height = kh;
  cm.taps = tc->mask.taps[0];
  cm.taps2 = tc->mask.magnitude ? tc->mask.taps[1] : NULL;
  cm.divisor = tc->mask.divisor;
  cm.offset = tc->mask.offset;
  cm.border = border;
  if (!test_check (cf_conv2d_plan_init (&tc->plan, &cm) == CF_OK,
          "plan_init refused a valid mask: %s", tc->desc))
    return 0;
  if (kind == MASK_SEPARABLE)
    test_check (tc->plan.separable, "rank-1 mask not detected: %s", tc->desc);
  if (kind == MASK_RANDOM && kw > 1 && kh > 1)
    test_check (!tc->plan.separable, "random mask called separable: %s",
        tc->desc);

  n = w * h * l->channels;
  tc->expect = malloc (sizeof (double) * n);
  tc->slack = malloc (sizeof (double) * n);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < l->channels; c++) {
        int k = (y * w + x) * l->channels + c;
        reference (in, &tc->mask, x, y, c, &tc->expect[k], &tc->slack[k]);
      }
  return 1;
}

static void
case_free (test_case * tc)
{
  free (tc->in.data);
  free (tc->expect);
  free (tc->slack);
}

/* Rows [r0, r1) must hold the result, every other byte the poison. */
static void
check_output (const test_case * tc, const uint8_t * out,
    const uint8_t * poison, int r0, int r1, const char *who)
{
  const cf_plane_format *f = &tc->in.fmt;
  size_t px = cf_plane_format_pixel_bytes (f), row_bytes = f->width * px;
  int bad = 0;
  char first[160] = "";

  for (int y = 0; y < f->height; y++) {
    const uint8_t *row = out + y * tc->out_stride;
    const uint8_t *prow = poison + y * tc->out_stride;
    size_t from = (y >= r0 && y < r1) ? row_bytes : 0;
    if (memcmp (row + from, prow + from, tc->out_stride - from) != 0) {
      if (!bad++)
        snprintf (first, sizeof (first), "row %d: bytes outside the "
            "output rows or past the row end were written", y);
    }
    if (!from)
      continue;
    for (int x = 0; x < f->width; x++)
      for (int c = 0; c < f->channels; c++) {
        plane o = { *f, tc->out_stride, (uint8_t *) out };
        double got = sample (&o, x, y, c);
        int k = (y * f->width + x) * f->channels + c;
        int ok = c == f->keep_channel
            ? got == sample (&tc->in, x, y, c)
            : fabs (got - tc->expect[k]) <= 0.5 + tc->slack[k];
        if (!ok && !bad++)
          snprintf (first, sizeof (first), "(%d,%d) channel %d: got %g, "
              "expected %.4f", x, y, c, got, c == f->keep_channel
              ? sample (&tc->in, x, y, c) : tc->expect[k]);
      }
  }
  test_check (!bad, "%s, rows %d..%d: %d wrong, first %s [%s]", who, r0, r1,
      bad, first, tc->desc);
}

/* ---- backends ------------------------------------------------------------ */

typedef struct
{
  const char *name;
  /* runs rows [r0, r1) into `out` (host memory, poisoned); returns status */
  int (*run) (void *ctx, const test_case * tc, cf_conv2d_algorithm a,
      uint8_t * out, int r0, int r1);
  void *ctx;
} backend;

static int
run_cpu (void *ctx, const test_case * tc, cf_conv2d_algorithm a,
    uint8_t * out, int r0, int r1)
{
  (void) ctx;
  (void) a;
  return cf_conv2d_cpu (&tc->plan, &tc->in.fmt, tc->in.data, tc->in.stride,
      out, tc->out_stride, r0, r1);
}

typedef struct
{
  uint8_t *d_in, *d_out;
  cf_stream stream;
} cuda_ctx;

static int
run_cuda (void *vctx, const test_case * tc, cf_conv2d_algorithm a,
    uint8_t * out, int r0, int r1)
{
  cuda_ctx *ctx = vctx;
  size_t in_bytes = tc->in.stride * tc->in.fmt.height;
  size_t out_bytes = tc->out_stride * tc->in.fmt.height;
  int st;

  if ((st = cf_gpu_malloc ((void **) &ctx->d_in, in_bytes)) != CF_OK
      || (st = cf_gpu_malloc ((void **) &ctx->d_out, out_bytes)) != CF_OK)
    return st;
  st = cf_gpu_copy_2d (ctx->d_in, in_bytes, tc->in.data, in_bytes, in_bytes,
      1, CF_COPY_HOST_TO_DEVICE, ctx->stream);
  if (st == CF_OK)
    st = cf_gpu_copy_2d (ctx->d_out, out_bytes, out, out_bytes, out_bytes, 1,
        CF_COPY_HOST_TO_DEVICE, ctx->stream);
  if (st == CF_OK)
    st = cf_conv2d_cuda (a, &tc->plan, &tc->in.fmt, ctx->d_in,
        tc->in.stride, ctx->d_out, tc->out_stride, r0, r1, ctx->stream);
  if (st == CF_OK)
    st = cf_gpu_copy_2d (out, out_bytes, ctx->d_out, out_bytes, out_bytes, 1,
        CF_COPY_DEVICE_TO_HOST, ctx->stream);
  if (st == CF_OK)
    st = cf_gpu_stream_sync (ctx->stream);
  cf_gpu_free (ctx->d_in);
  cf_gpu_free (ctx->d_out);
  return st;
}

/* The wide variant: masks of 3 or 5 taps a side (3x3 for two), pixels
 * dividing 16 bytes (not RGB). */
static int
wide_runs (const test_case * tc)
{
  int limit = tc->plan.magnitude ? 3 : 5;
  return tc->plan.kw >= 3 && tc->plan.kh >= 3 && tc->plan.kw <= limit
      && tc->plan.kh <= limit && tc->in.fmt.channels != 3;
}

/* Runs one variant on a case: the whole plane, then the plane as random
 * strips into the same buffer, then a lone strip (the rest must stay
 * poisoned). */
static void
run_variant (const backend * be, const test_case * tc, cf_conv2d_algorithm a)
{
  int h = tc->in.fmt.height, st;
  size_t bytes = tc->out_stride * h;
  uint8_t *poison = malloc (bytes), *out = malloc (bytes);
  char who[64];
  int cut1 = test_rand_int (h + 1), cut2 = test_rand_int (h + 1), lo, hi;

  lo = cut1 < cut2 ? cut1 : cut2;
  hi = cut1 < cut2 ? cut2 : cut1;
  snprintf (who, sizeof (who), "%s/%s", be->name, cf_conv2d_algorithm_name (a));
  test_fill_random (poison, bytes);

  memcpy (out, poison, bytes);
  st = be->run (be->ctx, tc, a, out, 0, h);
  if ((a == CF_CONV2D_SEPARABLE && !tc->plan.separable)
      || (a == CF_CONV2D_WIDE && !wide_runs (tc))) {
    test_check (st == CF_ERR_UNSUPPORTED, "%s on a mask it cannot run "
        "returned %s, not CF_ERR_UNSUPPORTED [%s]", who, cf_status_name (st),
        tc->desc);
    goto done;
  }
  if (!test_check (st == CF_OK, "%s failed: %s [%s]", who,
          cf_status_name (st), tc->desc))
    goto done;
  check_output (tc, out, poison, 0, h, who);

  memcpy (out, poison, bytes);
  st = be->run (be->ctx, tc, a, out, 0, lo);
  if (st == CF_OK)
    st = be->run (be->ctx, tc, a, out, lo, hi);
  if (st == CF_OK)
    st = be->run (be->ctx, tc, a, out, hi, h);
  if (test_check (st == CF_OK, "%s strips failed: %s", who,
          cf_status_name (st)))
    check_output (tc, out, poison, 0, h, who);

  memcpy (out, poison, bytes);
  st = be->run (be->ctx, tc, a, out, lo, hi);
  if (test_check (st == CF_OK, "%s strip failed: %s", who,
          cf_status_name (st)))
    check_output (tc, out, poison, lo, hi, who);
done:
  free (poison);
  free (out);
}

/* Cases of {layout, kw, kh, mask kind, width, height}, border k % 4, each
 * through variant `a` and auto */
static void
run_cases (const backend * be, const int (*cases)[6], size_t n,
    cf_conv2d_algorithm a)
{
  for (size_t k = 0; k < n; k++) {
    test_case tc;
    if (case_init (&tc, &layouts[cases[k][0]], cases[k][4], cases[k][5],
            cases[k][3], cases[k][1], cases[k][2], (int) (k % 4))) {
      run_variant (be, &tc, a);
      run_variant (be, &tc, CF_CONV2D_AUTO);
    }
    case_free (&tc);
  }
}

/* ---- contract checks ------------------------------------------------------ */

/* What auto runs for rank-1 masks: separable from 5 x 5 on, but for
 * one-byte planes up to 5 x 5 and for 8-bit four-channel pixels with small
 * integer taps (a box) up to 5 x 5, where the fast variant's byte and word
 * tiles were measured faster; a float rank-1 5 x 5 mask on four-channel
 * pixels runs separable. */
static void
check_choice (cf_conv2d_mask * m)
{
  static const struct
  {
    int size, channels;
    cf_sample sample;
    cf_conv2d_algorithm expect;
  } cases[] = {
    {3, 4, CF_SAMPLE_U8, CF_CONV2D_FAST},
    {5, 4, CF_SAMPLE_U8, CF_CONV2D_FAST},
    {7, 4, CF_SAMPLE_U8, CF_CONV2D_SEPARABLE},
    {5, 1, CF_SAMPLE_U8, CF_CONV2D_FAST},
    {7, 1, CF_SAMPLE_U8, CF_CONV2D_SEPARABLE},
    {5, 2, CF_SAMPLE_U8, CF_CONV2D_SEPARABLE},
    {5, 3, CF_SAMPLE_U8, CF_CONV2D_SEPARABLE},
    {5, 1, CF_SAMPLE_U16, CF_CONV2D_SEPARABLE},
    {3, 1, CF_SAMPLE_U8, CF_CONV2D_FAST},
  };
  cf_conv2d_plan plan;

  for (size_t k = 0; k < sizeof (cases) / sizeof (cases[0]); k++) {
    cf_plane_format f = { 64, 64, cases[k].channels, cases[k].sample,
      cases[k].channels == 4 ? 3 : -1
    };
    m->width = m->height = cases[k].size;
    cf_conv2d_plan_init (&plan, m);
    cf_conv2d_algorithm got = cf_conv2d_choose (&plan, &f);
    test_check (got == cases[k].expect, "auto for a %dx%d box on %d "
        "channels of %s: %s, expected %s", cases[k].size, cases[k].size,
        cases[k].channels, cases[k].sample == CF_SAMPLE_U8 ? "u8" : "u16",
        cf_conv2d_algorithm_name (got),
        cf_conv2d_algorithm_name (cases[k].expect));
  }
  {
    /* a float rank-1 5x5 (binomial rows scaled by 0.3) */
    static const float row[5] = { 0.3f, 1.2f, 1.8f, 1.2f, 0.3f };
    float taps[25];
    const float *was = m->taps;
    for (int t = 0; t < 25; t++)
      taps[t] = row[t / 5] * row[t % 5];
    m->taps = taps;
    m->width = m->height = 5;
    for (int c = 1; c <= 4; c += 3) {
      cf_plane_format f = { 64, 64, c, CF_SAMPLE_U8, c == 4 ? 3 : -1 };
      cf_conv2d_algorithm want = c == 4 ? CF_CONV2D_SEPARABLE
          : CF_CONV2D_FAST;
      cf_conv2d_plan_init (&plan, m);
      test_check (plan.separable && !plan.small_integer
          && cf_conv2d_choose (&plan, &f) == want, "auto for a float rank-1 "
          "5x5 on %d channels of u8: %s, expected %s", c,
          cf_conv2d_algorithm_name (cf_conv2d_choose (&plan, &f)),
          cf_conv2d_algorithm_name (want));
    }
    m->taps = was;
  }
  m->width = m->height = 3;
}

static void
check_plan_validation (void)
{
  float taps[CF_CONV2D_MAX_TAPS + 64];
  cf_conv2d_plan plan;
  cf_conv2d_mask m = { .width = 3, .height = 3,
    .taps = taps, .divisor = 1.0, .offset = 0.0, .border = CF_BORDER_CLAMP };

  for (int k = 0; k < (int) (sizeof (taps) / sizeof (taps[0])); k++)
    taps[k] = 1.0f;
  test_check (cf_conv2d_plan_init (&plan, &m) == CF_OK, "3x3 mask refused");
  test_check (plan.separable && plan.kw == 3 && plan.kh == 3,
      "3x3 box not separable");
  /* integer taps for the integer tiles: absolute sum x 255 below 2^15
   * (at most 128) */
  {
    static const struct
    {
      float tap, other;         /* taps[0], the other eight */
      int small;
    } cases[] = {
      {1, 1, 1}, {-14, 14, 1}, {16, -14, 1}, {17, -14, 0}, {14.5f, 1, 0},
      {0.25f, 0, 0}, {0, 0, 1},
    };
    for (size_t c = 0; c < sizeof (cases) / sizeof (cases[0]); c++) {
      for (int k = 0; k < 9; k++)
        taps[k] = k ? cases[c].other : cases[c].tap;
      test_check (cf_conv2d_plan_init (&plan, &m) == CF_OK
          && plan.small_integer == cases[c].small, "taps %g and 8 x %g: "
          "small_integer %d, expected %d", cases[c].tap, cases[c].other,
          plan.small_integer, cases[c].small);
    }
    for (int k = 0; k < 9; k++)
      taps[k] = 1.0f;
  }
  m.width = 4;
  test_check (cf_conv2d_plan_init (&plan, &m) == CF_ERR_INVALID,
      "even width accepted");
  m.width = CF_CONV2D_MAX_GENERAL + 2;
  test_check (cf_conv2d_plan_init (&plan, &m) == CF_ERR_INVALID,
      "257 wide mask accepted");
  m.width = 3;
  m.height = 0;
  test_check (cf_conv2d_plan_init (&plan, &m) == CF_ERR_INVALID,
      "empty mask accepted");
  m.height = 3;
  m.divisor = 0.0;
  test_check (cf_conv2d_plan_init (&plan, &m) == CF_ERR_INVALID,
      "zero divisor accepted");
  m.divisor = INFINITY;
  test_check (cf_conv2d_plan_init (&plan, &m) == CF_ERR_INVALID,
      "infinite divisor accepted");
  m.divisor = 1e-40;             /* 1 / divisor past the largest float */
  test_check (cf_conv2d_plan_init (&plan, &m) == CF_ERR_INVALID,
      "divisor of 1e-40 accepted");
  m.divisor = 1.0;
  m.offset = NAN;
  test_check (cf_conv2d_plan_init (&plan, &m) == CF_ERR_INVALID,
      "NaN offset accepted");
  m.offset = 1e39;
  test_check (cf_conv2d_plan_init (&plan, &m) == CF_ERR_INVALID,
      "offset past the largest float accepted");
  m.offset = 0.0;
  taps[4] = NAN;
  test_check (cf_conv2d_plan_init (&plan, &m) == CF_ERR_INVALID,
      "NaN tap accepted");
  taps[4] = INFINITY;
  test_check (cf_conv2d_plan_init (&plan, &m) == CF_ERR_INVALID,
      "infinite tap accepted");
  taps[4] = 1.0f;
  m.border = (cf_border) 9;
  test_check (cf_conv2d_plan_init (&plan, &m) == CF_ERR_INVALID,
      "unknown border accepted");
  m.border = CF_BORDER_CLAMP;
  check_choice (&m);
}

static void
check_argument_errors (const backend * be, int cuda)
{
  cf_conv2d_plan plan;
  float taps[9] = { 0, 0, 0, 0, 1, 0, 0, 0, 0 };
  cf_conv2d_mask m = { .width = 3, .height = 3,
    .taps = taps, .divisor = 1.0, .offset = 0.0, .border = CF_BORDER_CLAMP };
  cf_plane_format f = { 8, 8, 4, CF_SAMPLE_U8, 3 };
  uint8_t buf[8 * 8 * 4];
  cf_stream s = cuda ? ((cuda_ctx *) be->ctx)->stream : NULL;

#define RUN(fmt, src, ss, dst, ds, r0, r1) (cuda \
    ? cf_conv2d_cuda (CF_CONV2D_AUTO, &plan, fmt, src, ss, dst, ds, r0, r1, s) \
    : cf_conv2d_cpu (&plan, fmt, src, ss, dst, ds, r0, r1))
  cf_conv2d_plan_init (&plan, &m);
  test_check (RUN (&f, NULL, 32, buf, 32, 0, 8) == CF_ERR_INVALID,
      "%s: NULL source accepted", be->name);
  test_check (RUN (&f, buf, 31, buf + 1, 32, 0, 8) == CF_ERR_INVALID,
      "%s: short stride accepted", be->name);
  test_check (RUN (&f, buf, 32, buf + 1, 32, 0, 9) == CF_ERR_INVALID,
      "%s: rows past the end accepted", be->name);
  test_check (RUN (&f, buf, 32, buf + 1, 32, 5, 4) == CF_ERR_INVALID,
      "%s: reversed rows accepted", be->name);
  f.keep_channel = 1;
  test_check (RUN (&f, buf, 32, buf + 1, 32, 0, 8) == CF_ERR_INVALID,
      "%s: keep channel 1 accepted", be->name);
  f.keep_channel = -1;
  f.channels = 5;
  test_check (RUN (&f, buf, 32, buf + 1, 32, 0, 8) == CF_ERR_INVALID,
      "%s: 5 channels accepted", be->name);
  f.channels = 4;
  f.keep_channel = 3;
  test_check (RUN (&f, buf, 32, buf + 1, 32, 3, 3) == CF_OK,
      "%s: an empty row range is not a no-op", be->name);
#undef RUN
}

/* ---- main ------------------------------------------------------------------- */

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "cpu";
  int cuda = strcmp (mode, "cuda") == 0, sid = 0;
  cuda_ctx cctx = { 0 };
  backend be = { "cpu", run_cpu, NULL };
  static const cf_conv2d_algorithm all[] = { CF_CONV2D_AUTO,
    CF_CONV2D_BASIC, CF_CONV2D_TILED, CF_CONV2D_CACHED, CF_CONV2D_FAST,
    CF_CONV2D_SEPARABLE, CF_CONV2D_WIDE
  };
  char name[32];

  snprintf (name, sizeof (name), "conv2d-%s", mode);
  if (cuda) {
    int status = test_gpu_start (name, &cctx.stream);
    if (status >= 0)
      return status;
    be.name = "cuda";
    be.run = run_cuda;
    be.ctx = &cctx;
  }
  test_seed_from_env (name);
  check_plan_validation ();
  check_argument_errors (&be, cuda);

  /* every layout x border x mask shape; sizes and mask kinds rotate */
  for (size_t l = 0; l < sizeof (layouts) / sizeof (layouts[0]); l++)
    for (int border = 0; border < 4; border++)
      for (size_t s = 0; s < sizeof (shapes) / sizeof (shapes[0]); s++) {
        int kw = shapes[s][0], kh = shapes[s][1];
        int kind = (int) (s + border + l) % N_MASK_KINDS;
        const int *size = sizes[sid++ % (sizeof (sizes) / sizeof (sizes[0]))];
        int w = size[0], h = size[1];
        test_case tc;
        /* keep the reference affordable for the largest masks */
        while ((double) w * h * kw * kh > 3e6) {
          w = (w + 1) / 2;
          h = (h + 1) / 2;
        }
        if (case_init (&tc, &layouts[l], w, h, kind, kw, kh, border)) {
          if (cuda)
            for (size_t a = 0; a < sizeof (all) / sizeof (all[0]); a++)
              run_variant (&be, &tc, all[a]);
          else
            run_variant (&be, &tc, CF_CONV2D_AUTO);
        }
        case_free (&tc);
      }
  /* Frames tall enough that the fast variant's blocks walk several tiles
   * down their column (its ring of rows), with the chunked and the
   * pixel-by-pixel loads (RGB), on the GPU only: the reference costs
   * seconds here. */
  if (cuda) {
    static const int big[][4] = {
      /* layout, kw, kh, mask kind */
      {3, 5, 5, MASK_RANDOM}, {0, 5, 5, MASK_RANDOM}, {2, 3, 3, MASK_INTEGER},
      {3, 15, 15, MASK_RANDOM}, {4, 3, 3, MASK_MAGNITUDE},
      {5, 7, 5, MASK_RANDOM}, {0, 3, 3, MASK_RANDOM},
      {0, 5, 5, MASK_SEPARABLE}, {3, 3, 3, MASK_MAGNITUDE},
      {4, 5, 3, MASK_INTEGER}, {1, 5, 5, MASK_RANDOM}, {5, 3, 5, MASK_RANDOM},
      /* the separable kernel of four-byte pixels: tiles of 224 to 256 x 8,
       * the frame's right edge inside one, both kept-channel positions */
      {3, 15, 15, MASK_SEPARABLE}, {4, 31, 31, MASK_SEPARABLE},
      {4, 7, 7, MASK_SEPARABLE}, {3, 11, 31, MASK_SEPARABLE},
      /* and from 9 to 17 taps, where a tile's halo is 4 to 8 pixels:
       * a factor shorter than the other centred in zeros */
      {4, 9, 9, MASK_SEPARABLE}, {3, 17, 17, MASK_SEPARABLE},
      {4, 13, 7, MASK_SEPARABLE},
      /* the tensor-core tiles: one and two steps of 16 inputs, the
       * tallest mask they take, both kept-channel positions */
      {4, 25, 25, MASK_RANDOM}, {3, 9, 5, MASK_RANDOM},
      {4, 15, 15, MASK_MAGNITUDE}, {4, 7, 7, MASK_RANDOM},
      {3, 7, 1, MASK_RANDOM}, {3, 7, 13, MASK_RANDOM},
      /* taps at the ends of the byte and word tiles' and the separable
       * column pass's scaling */
      {0, 3, 3, MASK_SCALED}, {3, 3, 3, MASK_SCALED}, {4, 5, 5, MASK_SCALED},
      {3, 9, 9, MASK_SCALED}, {0, 5, 5, MASK_SCALED},
      /* 4K and 3001 x 1999 (rows not 16-byte aligned): the fast variant's
       * byte tiles (one-byte planes) and word tiles (four-byte pixels,
       * the kept channel last and first) over thousands of blocks */
      {0, 3, 3, MASK_RANDOM}, {0, 5, 3, MASK_INTEGER}, {0, 1, 5, MASK_RANDOM},
      {0, 5, 5, MASK_RANDOM}, {3, 3, 3, MASK_RANDOM}, {4, 5, 5, MASK_INTEGER},
      /* the integer tiles at the edge of their 16-bit halves */
      {0, 3, 3, MASK_EXTREME}, {0, 5, 3, MASK_EXTREME},
      {3, 3, 3, MASK_EXTREME}, {4, 5, 5, MASK_EXTREME},
      /* the one-byte tiles' taps packed four to a word */
      {0, 3, 3, MASK_BYTE_TAPS}, {0, 5, 5, MASK_BYTE_TAPS},
      {0, 3, 5, MASK_BYTE_TAPS}, {0, 5, 1, MASK_BYTE_TAPS},
      /* one-byte planes on the tensor cores from 9x9 at 4 Mpx */
      {0, 9, 9, MASK_RANDOM},
    };
    for (size_t k = 0; k < sizeof (big) / sizeof (big[0]); k++) {
      test_case tc;
      int w = big[k][1] > 9 ? 640 : 1920, h = 1080;
      if (k + 15 >= sizeof (big) / sizeof (big[0])) {
        w = k % 2 ? 3001 : 3840;
        h = k % 2 ? 1999 : 2160;
      }
      if (case_init (&tc, &layouts[big[k][0]], w, h, big[k][3],
              big[k][1], big[k][2], (int) (k % 4))) {
        run_variant (&be, &tc, CF_CONV2D_FAST);
        run_variant (&be, &tc, CF_CONV2D_WIDE);
        run_variant (&be, &tc, CF_CONV2D_AUTO);
      }
      case_free (&tc);
    }
    /* the tensor-core tiles from the plane's bytes (16-byte rows): one-byte
     * planes from 7 mask rows or columns (5 from 4 Mpx), four-byte pixels
     * from 5 rows (masks of small integer taps only from 7: up to 5 x 5 the
     * integer tiles take them), both kept-channel positions; frames cut by
     * the right and bottom edges inside a tile, one-pixel frames, masks as
     * large as the frame; auto takes them for rank-1 masks on one-byte
     * planes */
    static const int raw[][6] = {
      {0, 7, 7, MASK_RANDOM, 1920, 1080}, {0, 9, 9, MASK_RANDOM, 1920, 1080},
      {0, 5, 5, MASK_RANDOM, 3840, 2160}, {0, 9, 1, MASK_RANDOM, 1001, 517},
      {0, 1, 7, MASK_INTEGER, 1001, 517}, {0, 7, 3, MASK_EXTREME, 777, 95},
      {0, 9, 9, MASK_SEPARABLE, 9, 9}, {0, 7, 7, MASK_RANDOM, 1, 1},
      {0, 9, 5, MASK_RANDOM, 130, 33}, {0, 7, 7, MASK_SEPARABLE, 1920, 1080},
      {3, 5, 5, MASK_RANDOM, 1920, 1080}, {4, 5, 5, MASK_RANDOM, 1920, 1080},
      {4, 5, 5, MASK_SEPARABLE, 1001, 333}, {3, 3, 5, MASK_RANDOM, 1001, 333},
      {4, 1, 5, MASK_RANDOM, 67, 65}, {3, 5, 5, MASK_SEPARABLE, 3840, 2160},
      {3, 5, 5, MASK_RANDOM, 5, 5}, {4, 5, 5, MASK_RANDOM, 1, 1},
      {3, 5, 5, MASK_RANDOM, 65, 17},
    };
    aligned_rows = 1;
    run_cases (&be, raw, sizeof (raw) / sizeof (raw[0]), CF_CONV2D_FAST);
    /* the separable kernel of four-byte pixels on the tensor cores (16-byte
     * source rows, 8-byte destination rows, factors of 11 to 17 taps):
     * every factor size, a factor shorter than the other centred in zeros,
     * both kept-channel positions, every border; 64 x 32 tiles cut by the
     * right and bottom edges, one-pixel frames, masks larger than the
     * frame, blocks walking many tiles */
    static const int sep[][6] = {
      {3, 11, 3, MASK_SEPARABLE, 1001, 333}, {4, 13, 5, MASK_SEPARABLE, 130,
          67},
      {3, 11, 11, MASK_SEPARABLE, 1920, 1080}, {4, 13, 13, MASK_SEPARABLE, 65,
          33},
      {3, 11, 11, MASK_SEPARABLE, 777, 95}, {4, 13, 13, MASK_SEPARABLE, 64,
          32},
      {3, 15, 15, MASK_SEPARABLE, 3840, 2160}, {4, 17, 17, MASK_SEPARABLE,
          1001, 517},
      {3, 17, 5, MASK_SEPARABLE, 333, 129}, {4, 3, 15, MASK_SEPARABLE, 71, 200},
      {3, 15, 15, MASK_SEPARABLE, 1, 1}, {4, 17, 17, MASK_SEPARABLE, 9, 5},
      {3, 11, 13, MASK_SEPARABLE, 3, 70}, {4, 15, 15, MASK_SEPARABLE, 3840,
          2160},
      {3, 5, 17, MASK_SEPARABLE, 1920, 1080}, {4, 11, 11, MASK_SEPARABLE, 1,
          40},
    };
    run_cases (&be, sep, sizeof (sep) / sizeof (sep[0]),
        CF_CONV2D_SEPARABLE);
    aligned_rows = 0;
  }
  if (cuda)
    cf_gpu_stream_destroy (cctx.stream);
  return test_finish (name);
}
