/* The long path of cudaconv2d's kernels (conv2d_long.h): separable masks
 * with factors of up to 1023 taps, on the CPU twin ("cpu") or the GPU
 * ("cuda"), against a float64 convolution written here on random planes
 * of every layout, every border and odd sizes (masks wider than the
 * plane too). Outputs are poisoned first; the bytes past each row must
 * stay. Boxes must equal the exact sum's rounding; other masks must stay
 * within 1 level of the exact value. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d_long.h"
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
{ MASK_GAUSSIAN, MASK_BOX, MASK_ROW, MASK_COLUMN, MASK_RANDOM, MASK_SMOOTH,
  N_MASKS
};

static const char *const mask_names[] = { "gaussian", "box", "row",
  "column", "random", "smooth"
};

typedef struct
{
  int use_gpu;
  cf_stream stream;
} backend;

static void
gaussian (float *taps, int n, double sigma)
{
  double sum = 0;
  for (int i = 0; i < n; i++)
    sum += exp (-(double) ((i - n / 2) * (i - n / 2)) / (2 * sigma * sigma));
  for (int i = 0; i < n; i++)
    taps[i] = (float) (exp (-(double) ((i - n / 2) * (i - n / 2))
            / (2 * sigma * sigma)) / sum);
}

static int
odd (int lo, int hi)
{
  return (lo + test_rand_int (hi - lo + 1)) | 1;
}

/* Set: the Gaussians' sigma, else random. */
static double fixed_sigma;

/* Factors, sizes and the divisor of mask kind `kind`. */
static void
make_mask (int kind, float *row, float *col, int *kw, int *kh,
    double *divisor, double *offset)
{
  *divisor = 1.0;
  *offset = 0.0;
  switch (kind) {
    case MASK_GAUSSIAN:{
      double sigma = fixed_sigma > 0 ? fixed_sigma
          : test_rand_range (11.0, 100.0);
      *kw = *kh = 2 * (int) ceil (3 * sigma) + 1;
      gaussian (row, *kw, sigma);
      gaussian (col, *kh, sigma);
      return;
    }
    case MASK_BOX:
      *kw = test_rand_int (3) ? odd (1, 1023) : 1023;
      *kh = test_rand_int (3) ? odd (1, 1023) : odd (33, 99);
      for (int i = 0; i < *kw; i++)
        row[i] = 1.0f;
      for (int j = 0; j < *kh; j++)
        col[j] = 2.0f;
      *divisor = 2.0 * *kw * *kh * test_rand_range (0.5, 1.5);
      *offset = test_rand_range (-20, 20);
      return;
    case MASK_ROW:
    case MASK_COLUMN:{
      int n = odd (33, 1023);
      float *f = kind == MASK_ROW ? row : col;
      double sum = 0;
      for (int i = 0; i < n; i++)
        sum += f[i] = (float) test_rand_range (-0.2, 1.0);
      *kw = kind == MASK_ROW ? n : 1;
      *kh = kind == MASK_ROW ? 1 : n;
      (kind == MASK_ROW ? col : row)[0] = 1.0f;
      *divisor = sum;
      return;
    }
    case MASK_RANDOM:
      *kw = odd (1, 301);
      *kh = odd (33, 301);
      for (int i = 0; i < *kw; i++)
        row[i] = (float) test_rand_range (-1, 1);
      for (int j = 0; j < *kh; j++)
        col[j] = (float) test_rand_range (-1, 1);
      *divisor = test_rand_range (20, 200);
      *offset = 128;
      return;
    default:{
      /* a raised cosine window: smooth, so the grid takes steps */
      *kw = odd (201, 1023);
      *kh = odd (33, 1023);
      for (int i = 0; i < *kw; i++)
        row[i] = (float) (1 - cos (2 * M_PI * (i + 1) / (*kw + 1)));
      for (int j = 0; j < *kh; j++)
        col[j] = (float) (1 - cos (2 * M_PI * (j + 1) / (*kh + 1)));
      *divisor = (*kw + 1) * (double) (*kh + 1) * test_rand_range (0.9, 1.1);
      *offset = test_rand_range (-5, 5);
      return;
    }
  }
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

/* The exact values, float64, separably: rows then columns. */
static double *
reference (const uint8_t *src, size_t stride, const layout * l, int w,
    int h, const float *row, const float *col, int kw, int kh, int border)
{
  int C = l->channels;
  double *rows = calloc ((size_t) w * h * C, sizeof (double));
  double *out = calloc ((size_t) w * h * C, sizeof (double));

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < C; c++) {
        double s = 0;
        for (int i = 0; i < kw; i++) {
          int sx = ref_border_source (x + i - kw / 2, w, border);
          if (sx >= 0)
            s += row[i] * sample_of (src, stride, l, sx, y, c);
        }
        rows[((size_t) y * w + x) * C + c] = s;
      }
  for (int y = 0; y < h; y++)
    for (size_t v = 0; v < (size_t) w * C; v++) {
      double s = 0;
      for (int j = 0; j < kh; j++) {
        int sy = ref_border_source (y + j - kh / 2, h, border);
        if (sy >= 0)
          s += col[j] * rows[(size_t) sy * w * C + v];
      }
      out[(size_t) y * w * C + v] = s;
    }
  free (rows);
  return out;
}

static int
run (const backend * be, const cf_conv2d_plan * plan,
    const cf_plane_format * f, const uint8_t *src, size_t stride,
    uint8_t *dst)
{
  size_t bytes = stride * f->height, work_bytes;
  void *d_src = NULL, *d_dst = NULL, *d_work = NULL;
  int st;

  if (!be->use_gpu && test_rand_int (2))
    return cf_conv2d_long_cpu (plan, f, src, stride, dst, stride);
  if (!be->use_gpu) {
    /* the stages as threads take them: each stage's rows in up to three
     * ranges, run in a shuffled order */
    void *work = malloc (cf_conv2d_long_cpu_work_bytes (plan, f));
    st = work ? CF_OK : CF_ERR_NO_MEMORY;
    for (int s = CF_CONV2D_LONG_ROWS; s <= CF_CONV2D_LONG_OUTPUT
        && st == CF_OK; s++) {
      int n = cf_conv2d_long_cpu_rows (plan, f, (cf_conv2d_long_stage) s);
      int a = test_rand_int (n + 1), b = a + test_rand_int (n - a + 1);
      int cuts[4] = { 0, a, b, n };
      for (int k = 2; k >= 0 && st == CF_OK; k--)
        st = cf_conv2d_long_cpu_stage (plan, f, src, stride, dst, stride,
            work, (cf_conv2d_long_stage) s, cuts[k], cuts[k + 1]);
    }
    free (work);
    return st;
  }
  work_bytes = cf_conv2d_long_work_bytes (plan, f);
  if ((st = cf_gpu_malloc (&d_src, bytes)) != CF_OK
      || (st = cf_gpu_malloc (&d_dst, bytes)) != CF_OK
      || (st = cf_gpu_malloc (&d_work, work_bytes)) != CF_OK)
    goto done;
  if ((st = cf_gpu_copy_2d (d_src, stride, src, stride, stride, f->height,
              CF_COPY_HOST_TO_DEVICE, be->stream)) != CF_OK
      || (st = cf_gpu_copy_2d (d_dst, stride, dst, stride, stride,
              f->height, CF_COPY_HOST_TO_DEVICE, be->stream)) != CF_OK
      || (st = cf_conv2d_long_cuda (plan, f, d_src, stride, d_dst, stride,
              d_work, be->stream)) != CF_OK
      || (st = cf_gpu_copy_2d (dst, stride, d_dst, stride, stride, f->height,
              CF_COPY_DEVICE_TO_HOST, be->stream)) != CF_OK)
    goto done;
  st = cf_gpu_stream_sync (be->stream);
done:
  cf_gpu_free (d_src);
  cf_gpu_free (d_dst);
  cf_gpu_free (d_work);
  return st;
}

static void
run_case (const backend * be, const layout * l, int kind, int w, int h,
    int border)
{
  static float row[CF_CONV2D_MAX_FACTOR], col[CF_CONV2D_MAX_FACTOR];
  int kw, kh, C = l->channels, bad = 0;
  double divisor, offset, top = l->sample == CF_SAMPLE_U16 ? 65535 : 255;
  cf_plane_format f = { w, h, C, l->sample, l->keep };
  size_t pixel = cf_plane_format_pixel_bytes (&f);
  /* padded rows; 16-bit rows stay on 2-byte boundaries */
  size_t stride = w * pixel + (pixel == 2 ? 6 : 7) + test_rand_int (3) * 2;
  uint8_t *src = malloc (stride * h), *dst = malloc (stride * h);
  uint8_t *poison = malloc (stride * h);
  cf_conv2d_plan *plan = malloc (sizeof (*plan));
  cf_conv2d_mask mask = { 0 };
  cf_conv2d_long_grid g;
  double *exact;
  int st;

  make_mask (kind, row, col, &kw, &kh, &divisor, &offset);
  mask.width = kw;
  mask.height = kh;
  mask.row = row;
  mask.col = col;
  mask.divisor = divisor;
  mask.offset = offset;
  mask.border = (cf_border) border;
  test_fill_random (src, stride * h);
  test_fill_random (poison, stride * h);
  memcpy (dst, poison, stride * h);
  if (!test_check (cf_conv2d_plan_init (plan, &mask) == CF_OK,
          "%s %dx%d: plan refused", mask_names[kind], kw, kh))
    goto done;
  cf_conv2d_long_grid_init (&g, plan, &f);
  if (kw <= CF_CONV2D_MAX_SIZE && kh <= CF_CONV2D_MAX_SIZE) {
    test_check (!plan->long_mask, "%dx%d factors: not long", kw, kh);
    goto done;
  }
  test_check (plan->box == (kind == MASK_BOX), "%s: box flag",
      mask_names[kind]);
  st = run (be, plan, &f, src, stride, dst);
  if (!test_check (st == CF_OK, "%s %s %dx%d on %dx%d border %d: %s",
          l->name, mask_names[kind], kw, kh, w, h, border,
          cf_status_name (st)))
    goto done;
  exact = reference (src, stride, l, w, h, row, col, kw, kh, border);
  for (int y = 0; y < h && bad < 3; y++) {
    for (int x = 0; x < w && bad < 3; x++)
      for (int c = 0; c < C; c++) {
        double got = sample_of (dst, stride, l, x, y, c), want, v;
        int ok;
        if (c == l->keep) {
          want = sample_of (src, stride, l, x, y, c);
          ok = got == want;
        } else {
          v = exact[((size_t) y * w + x) * C + c] / divisor + offset;
          v = v < 0 ? 0 : (v > top ? top : v);
          want = v;
          /* boxes: exact sums, the same rounding; others within 1 */
          ok = kind == MASK_BOX ? fabs (got - v) <= 0.5 + 1e-6
              : fabs (got - v) <= 1.0;
        }
        if (!ok && ++bad <= 3)
          test_check (0, "%s %s %dx%d (steps %d, %d) on %dx%d border %d: "
              "(%d, %d) channel %d is %g, exact %.4f", l->name,
              mask_names[kind], kw, kh, g.step_x, g.step_y, w, h, border,
              x, y, c, got, want);
      }
    if (memcmp (dst + (size_t) y * stride + w * pixel,
            poison + (size_t) y * stride + w * pixel, stride - w * pixel)) {
      test_check (0, "%s %s: bytes past row %d written", l->name,
          mask_names[kind], y);
      bad++;
    }
  }
  test_check (bad == 0, "%s %s %dx%d steps %d, %d on %dx%d border %d",
      l->name, mask_names[kind], kw, kh, g.step_x, g.step_y, w, h, border);
  free (exact);
done:
  free (src);
  free (dst);
  free (poison);
  free (plan);
}

/* What the plan accepts and refuses, and the grid's steps. */
static void
check_plans (const backend * be)
{
  static float row[CF_CONV2D_MAX_FACTOR + 2], taps[33 * 33];
  cf_conv2d_plan *plan = malloc (sizeof (*plan));
  cf_conv2d_mask m = { 0 };
  cf_plane_format f = { 64, 48, 1, CF_SAMPLE_U8, -1 };
  cf_conv2d_long_grid g;
  uint8_t plane[64 * 48] = { 0 }, out[64 * 48];

  for (int i = 0; i < CF_CONV2D_MAX_FACTOR + 2; i++)
    row[i] = 1.0f;
  for (int i = 0; i < 33 * 33; i++)
    taps[i] = 1.0f;
  m.row = m.col = row;
  m.divisor = 1;
  m.width = m.height = CF_CONV2D_MAX_FACTOR;
  test_check (cf_conv2d_plan_init (plan, &m) == CF_OK && plan->long_mask
      && plan->box, "1023 x 1023 factors: a long box");
  m.width = CF_CONV2D_MAX_FACTOR + 2;
  test_check (cf_conv2d_plan_init (plan, &m) == CF_ERR_INVALID,
      "1025 taps refused");
  m.width = 34;
  test_check (cf_conv2d_plan_init (plan, &m) == CF_ERR_INVALID,
      "an even factor refused");
  m.width = 33;
  m.taps2 = taps;
  test_check (cf_conv2d_plan_init (plan, &m) == CF_ERR_INVALID,
      "factors with a second mask refused");
  memset (&m, 0, sizeof (m));
  m.divisor = 1;
  m.taps = taps;
  m.width = m.height = 33;
  test_check (cf_conv2d_plan_init (plan, &m) == CF_OK && plan->long_mask
      && plan->box && plan->kw == 33 && plan->row[32] == 1.0f,
      "33 x 33 taps of ones: separated, a long box");
  m.height = 1;
  test_check (cf_conv2d_plan_init (plan, &m) == CF_OK && plan->long_mask
      && plan->kw == 33 && plan->kh == 1, "one row of 33 taps: long");
  test_check (cf_conv2d_cpu (plan, &f, plane, 64, out, 64, 0, 10)
      == CF_ERR_UNSUPPORTED, "part of a plane refused for a long mask");
  test_check (cf_conv2d_cpu (plan, &f, plane, 64, out, 64, 0, 48) == CF_OK,
      "the whole plane through cf_conv2d_cpu");
  if (be->use_gpu)
    test_check (cf_conv2d_cuda (CF_CONV2D_AUTO, plan, &f, plane, 64, out,
            64, 0, 48, be->stream) == CF_ERR_UNSUPPORTED,
        "cf_conv2d_cuda refuses a long mask");
  test_check (cf_conv2d_long_cuda (plan, &f, plane, 64, out, 64, NULL,
          be->stream) != CF_OK, "no work area refused");
  m.width = 3;
  cf_conv2d_plan_init (plan, &m);
  test_check (cf_conv2d_long_cpu (plan, &f, plane, 64, out, 64)
      == CF_ERR_INVALID, "a short mask refused by the long path");

  /* the documented step of a Gaussian of sigma 100 on 8-bit planes */
  memset (&m, 0, sizeof (m));
  gaussian (row, 601, 100.0);
  m.row = m.col = row;
  m.width = m.height = 601;
  m.divisor = 1;
  cf_conv2d_plan_init (plan, &m);
  f.width = 3840;
  f.height = 2160;
  cf_conv2d_long_grid_init (&g, plan, &f);
  test_check (g.step_x == 4 && g.step_y == 4 && g.nx == 961,
      "sigma 100: steps %d, %d, %d columns", g.step_x, g.step_y, g.nx);
  free (plan);
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "cpu";
  backend be = { strcmp (mode, "cuda") == 0, NULL };
  static const int sizes[][2] = {
    {97, 61}, {1, 7}, {13, 1}, {200, 3}, {5, 150}, {333, 181}, {64, 64},
    {1280, 9}, {3, 700},
    /* computed columns that end a row block: 1024 wide with steps of 4
     * (257 columns), 2048 with 2 or 4 */
    {1024, 5}, {2048, 3},
  };
  char name[40];
  int sid = 0;

  snprintf (name, sizeof (name), "conv2d-long-%s", mode);
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
        run_case (&be, &layouts[l], kind, s[0], s[1], border);
      }
  /* sigma 100 takes steps of 4: at 1024 columns the last computed column
   * (the 257th) is the first of a row block of 256, at 2048 the 513th */
  fixed_sigma = 100;
  for (size_t l = 0; l < sizeof (layouts) / sizeof (layouts[0]); l++) {
    run_case (&be, &layouts[l], MASK_GAUSSIAN, 1024, 3, (int) l % 4);
    run_case (&be, &layouts[l], MASK_GAUSSIAN, 2048, 2, (int) (l + 1) % 4);
  }
  return test_finish (name);
}
