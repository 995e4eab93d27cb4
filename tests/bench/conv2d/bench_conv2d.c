/* Kernel benchmark of the 2D convolution: every CUDA variant behind
 * cf_conv2d_cuda() and NPP's nppiFilter_8u, on 1080p and 4K planes of RGBA8
 * and GRAY8, with square masks of 3 to 15 taps, general and separable, and
 * general masks of small integer taps (the same for NPP) up to 5x5. Each
 * time is printed next to the device memory floor of the case, taken from a
 * device-to-device copy measured in the same run, and each plane's header
 * gives the time of one frame's copy, timed as the cases are.
 *
 *   bench_conv2d [--quick] [--csv FILE]
 *
 * Exits 77 (skip) without a CUDA device and 1 on any CUDA or launcher error.
 * A timing is never a failure: the benchmark only reports.
 */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d.h"
#include "npp_peer.h"
#include "queued_timer.h"

#define NAME "bench-conv2d"
#define EXIT_SKIP 77

#define FULL_REPS 30
#define QUICK_REPS 10
#define WARMUP 3

#define COPY_BYTES ((size_t) 256 << 20)
#define COPY_REPS 20

/* Below ROTATE_BELOW bytes of input + output, one buffer pair could stay in
 * the 50 MB L2 between launches and the timing would show L2, not device
 * memory: rotate among enough pairs to move over ROTATE_TARGET bytes. */
#define ROTATE_BELOW 100e6
#define ROTATE_TARGET 150e6
#define MAX_PAIRS 64


static const int mask_sizes[] = { 3, 5, 7, 9, 15 };

#define N_MASK_SIZES ((int) (sizeof (mask_sizes) / sizeof (mask_sizes[0])))
/* NPP reads real pixels around its ROI: a margin of the largest radius. */
#define NPP_MARGIN 7

typedef struct
{
  const char *name;
  int width, height;
} Size;

static const Size sizes[] = {
  {"1080p", 1920, 1080},
  {"4K", 3840, 2160},
};

#define N_SIZES ((int) (sizeof (sizes) / sizeof (sizes[0])))

typedef struct
{
  const char *name;
  int channels, keep_channel;
} Layout;

static const Layout layouts[] = {
  {"RGBA8", 4, 3},
  {"GRAY8", 1, -1},
};

#define N_LAYOUTS 2

typedef enum
{
  MASK_GENERAL,
  MASK_SEPARABLE,
  MASK_INTEGER,
} MaskKind;

static const char *const kind_names[] = { "general", "separable", "integer" };

/* Integer masks (the same taps and divisor for us and NPP, which always
 * takes integers) up to this size: the sizes the integer tiles take. */
#define INTEGER_MAX_SIZE 5

/* Auto last, so that its row closes each group. */
static const cf_conv2d_algorithm variants[] = {
  CF_CONV2D_BASIC, CF_CONV2D_TILED, CF_CONV2D_CACHED, CF_CONV2D_FAST,
  CF_CONV2D_SEPARABLE, CF_CONV2D_WIDE, CF_CONV2D_AUTO,
};

#define N_VARIANTS ((int) (sizeof (variants) / sizeof (variants[0])))

typedef NppStatus (*NppiFilter8uFn) (const Npp8u * pSrc, Npp32s nSrcStep,
    Npp8u * pDst, Npp32s nDstStep, NppiSize oSizeROI, const Npp32s * pKernel,
    NppiSize oKernelSize, NppiPoint oAnchor, Npp32s nDivisor,
    NppStreamContext nppStreamCtx);


typedef struct
{
  int loaded;
  char path[512];               /* the library that answered */
  char version[32];
  NppiFilter8uFn filter[N_LAYOUTS];
  const char *filter_name[N_LAYOUTS];
  int usable[N_LAYOUTS];        /* passed the check, no error since */
  int gated;                    /* see queued_timer_median() */
  NppStreamContext ctx;
} Npp;

/* ---- errors ------------------------------------------------------------ */

static void die (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2), noreturn));

static void
die (const char *fmt, ...)
{
  va_list ap;

  /* Let a held stream go, or the process would wait for it at exit. */
  queued_timer_release ();
  fflush (stdout);
  fprintf (stderr, NAME ": ");
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  exit (1);
}

static void
check_cuda (cudaError_t err, const char *what)
{
  if (err != cudaSuccess)
    die ("%s failed: %s (%s)", what, cudaGetErrorName (err),
        cudaGetErrorString (err));
}

/* Launcher statuses are CUDA errors when positive, ours when negative. */
static void
check_launch (int status, const char *what)
{
  if (status != CF_OK)
    die ("%s failed: %s", what, cf_status_name (status));
}

static void *
xmalloc (size_t size)
{
  void *p = malloc (size);
  if (!p)
    die ("out of host memory (%zu bytes)", size);
  return p;
}

/* ---- random inputs: the same from run to run --------------------------- */

/* xorshift64*; `state` must not be 0. */
static uint64_t
rng_next (uint64_t * state)
{
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 0x2545F4914F6CDD1Dull;
}

static double
rng_uniform (uint64_t * state, double lo, double hi)
{
  return lo + (hi - lo) * (double) (rng_next (state) >> 11)
      / 9007199254740992.0;
}

/* Images draw from one sequence; each mask has its own seed, so its taps do
 * not depend on what ran before it. */
static uint64_t image_rng = 0x9E3779B97F4A7C15ull;

static void
fill_random (uint8_t * p, size_t n)
{
  size_t k = 0;

  for (; k + 8 <= n; k += 8) {
    uint64_t v = rng_next (&image_rng);
    memcpy (p + k, &v, 8);
  }
  for (; k < n; k++)
    p[k] = (uint8_t) (rng_next (&image_rng) >> 56);
}

/* ---- timing ------------------------------------------------------------ */

typedef QueuedTimer Timer;

/* One launch on buffer pair `pair`; returns 0 or the launch's status. */
typedef int (*LaunchFn) (void *ctx, int pair);

/* ---- copy ceiling ------------------------------------------------------ */

typedef struct
{
  void *src, *dst;
  size_t bytes;
  cudaStream_t stream;
} CopyLaunch;

static int
copy_launch (void *data, int pair)
{
  CopyLaunch *c = data;

  (void) pair;
  return cudaMemcpyAsync (c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice,
      c->stream);
}

/* Device-to-device copy rate, read + write bytes per second. */
static double
copy_ceiling (Timer * t)
{
  CopyLaunch c = { NULL, NULL, COPY_BYTES, t->stream };
  int reps = t->reps, gated = 1, status;
  double us = 0;

  check_cuda (cudaMalloc (&c.src, c.bytes), "cudaMalloc");
  check_cuda (cudaMalloc (&c.dst, c.bytes), "cudaMalloc");
  check_cuda (cudaMemset (c.src, 0x5a, c.bytes), "cudaMemset");
  t->reps = COPY_REPS;
  status = queued_timer_median (t, copy_launch, &c, 1, &gated, "copy", &us);
  t->reps = reps;
  check_cuda ((cudaError_t) status, "cudaMemcpyAsync");
  check_cuda (cudaFree (c.src), "cudaFree");
  check_cuda (cudaFree (c.dst), "cudaFree");
  return 2.0 * c.bytes / (us * 1e-6);
}

/* ---- buffers ----------------------------------------------------------- */

/* Input/output pairs of one (size, layout), with tight strides, and the
 * same images with a margin for NPP. */
typedef struct
{
  int width, height, bpp, pairs;
  size_t stride, plane_bytes;
  size_t npp_stride, npp_bytes;
  uint8_t *in[MAX_PAIRS], *out[MAX_PAIRS], *npp_in[MAX_PAIRS];
} Buffers;

static int
pairs_needed (size_t in_out_bytes)
{
  int n;

  if (in_out_bytes >= ROTATE_BELOW)
    return 1;
  n = (int) (ROTATE_TARGET / in_out_bytes) + 1;
  return n > MAX_PAIRS ? MAX_PAIRS : n;
}

static void
buffers_init (Buffers * b, const Size * s, const Layout * l, int with_npp)
{
  int m = NPP_MARGIN;
  uint8_t *host;

  memset (b, 0, sizeof (*b));
  b->width = s->width;
  b->height = s->height;
  b->bpp = l->channels;
  b->stride = (size_t) s->width * b->bpp;
  b->plane_bytes = b->stride * s->height;
  b->npp_stride = (size_t) (s->width + 2 * m) * b->bpp;
  b->npp_bytes = b->npp_stride * (s->height + 2 * m);
  b->pairs = pairs_needed (2 * b->plane_bytes);

  /* One random image per pair, margin included; ours is its interior, so
   * both libraries filter the same pixels. */
  host = xmalloc (b->npp_bytes);
  for (int k = 0; k < b->pairs; k++) {
    fill_random (host, b->npp_bytes);
    check_cuda (cudaMalloc ((void **) &b->in[k], b->plane_bytes),
        "cudaMalloc");
    check_cuda (cudaMalloc ((void **) &b->out[k], b->plane_bytes),
        "cudaMalloc");
    check_cuda (cudaMemcpy2D (b->in[k], b->stride,
            host + m * b->npp_stride + m * b->bpp, b->npp_stride, b->stride,
            s->height, cudaMemcpyHostToDevice), "cudaMemcpy2D");
    check_cuda (cudaMemset (b->out[k], 0, b->plane_bytes), "cudaMemset");
    if (with_npp) {
      check_cuda (cudaMalloc ((void **) &b->npp_in[k], b->npp_bytes),
          "cudaMalloc");
      check_cuda (cudaMemcpy (b->npp_in[k], host, b->npp_bytes,
              cudaMemcpyHostToDevice), "cudaMemcpy");
    }
  }
  free (host);
}

static void
buffers_free (Buffers * b)
{
  for (int k = 0; k < b->pairs; k++) {
    check_cuda (cudaFree (b->in[k]), "cudaFree");
    check_cuda (cudaFree (b->out[k]), "cudaFree");
    if (b->npp_in[k])
      check_cuda (cudaFree (b->npp_in[k]), "cudaFree");
  }
}

/* ---- masks ------------------------------------------------------------- */

/* Random taps in [-1, 1]: of rank > 1, so no variant can split them. */
static void
make_general (float *taps, int n, double *divisor)
{
  uint64_t state = 0x5DEECE66Dull * (uint64_t) n;
  double sum = 0;

  for (int k = 0; k < n * n; k++) {
    taps[k] = (float) rng_uniform (&state, -1.0, 1.0);
    sum += fabs (taps[k]);
  }
  *divisor = sum;
}

/* The general mask's taps in integers as large as the integer tiles allow
 * (absolute sum at most 127: 8-bit sums within 16 bits), of rank > 1; the
 * divisor as NPP's: their sum when positive, else their magnitudes'. */
static void
make_integer (float *taps, int n, double *divisor)
{
  double abs_sum, sum = 0, abs_int = 0;

  make_general (taps, n, &abs_sum);
  for (int k = 0; k < n * n; k++) {
    /* towards zero, so that the magnitudes stay within 127 */
    taps[k] = (float) (long) (taps[k] * 127.0 / abs_sum);
    sum += taps[k];
    abs_int += fabs (taps[k]);
  }
  *divisor = sum > 0 ? sum : abs_int > 0 ? abs_int : 1;
}

/* Gaussian of sigma n / 6, the outer product of its 1D profile (centre tap
 * 1), so that the plan finds it separable. */
static void
make_gaussian (float *taps, int n, double *divisor)
{
  double g[CF_CONV2D_MAX_SIZE], sigma = n / 6.0, sum = 0;
  int r = n / 2;

  for (int i = 0; i < n; i++)
    g[i] = exp (-(double) (i - r) * (i - r) / (2 * sigma * sigma));
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      taps[j * n + i] = (float) (g[j] * g[i]);
      sum += taps[j * n + i];
    }
  *divisor = sum;
}

/* NPP wants integer taps, stored last tap first (it convolves), and an
 * integer divisor: the taps scaled up so that small ones survive rounding,
 * divided by their sum, or by their magnitudes when that sum is not
 * positive. Returns the divisor. */
static Npp32s
npp_taps (const float *taps, int n, double scale, Npp32s * out)
{
  Npp32s sum = 0, abs_sum = 0;

  for (int k = 0; k < n * n; k++) {
    Npp32s v = (Npp32s) lround (taps[k] * scale);
    out[n * n - 1 - k] = v;
    sum += v;
    abs_sum += v < 0 ? -v : v;
  }
  if (sum > 0)
    return sum;
  return abs_sum > 0 ? abs_sum : 1;
}

/* ---- our launches and NPP's -------------------------------------------- */

typedef struct
{
  cf_conv2d_algorithm algorithm;
  const cf_conv2d_plan *plan;
  const cf_plane_format *format;
  const Buffers *b;
  cudaStream_t stream;
} OurLaunch;

static int
our_launch (void *data, int pair)
{
  OurLaunch *o = data;

  return cf_conv2d_cuda (o->algorithm, o->plan, o->format, o->b->in[pair],
      o->b->stride, o->b->out[pair], o->b->stride, 0, o->format->height,
      (cf_stream) o->stream);
}

typedef struct
{
  NppiFilter8uFn fn;
  const Buffers *b;
  const Npp32s *d_taps;
  int n;
  Npp32s divisor;
  const NppStreamContext *ctx;
} NppLaunch;

static int
npp_launch (void *data, int pair)
{
  NppLaunch *l = data;
  const Buffers *b = l->b;
  const Npp8u *roi = b->npp_in[pair] + NPP_MARGIN * b->npp_stride
      + NPP_MARGIN * b->bpp;
  NppiSize size = { b->width, b->height }, ksize = { l->n, l->n };
  NppiPoint anchor = { l->n / 2, l->n / 2 };
  NppStatus st;

  st = l->fn (roi, (Npp32s) b->npp_stride, b->out[pair], (Npp32s) b->stride,
      size, l->d_taps, ksize, anchor, l->divisor, *l->ctx);
  /* Warnings (> 0) still filter. */
  return st < 0 ? st : 0;
}

/* ---- NPP loading and its check ------------------------------------------ */

static void
npp_load (Npp * npp)
{
  static const char *const core[] = {
    "libnppc.so.13", "libnppc.so.12", "libnppc.so"
  };
  static const char *const filters[] = {
    "libnppif.so.13", "libnppif.so.12", "libnppif.so"
  };
  char err[512] = "", core_path[512], core_err[512] = "";
  NppGetLibVersionFn get_version;
  const NppLibraryVersion *version;
  void *h;

  memset (npp, 0, sizeof (*npp));
  /* The core library first and global, so that the filter library's
   * dependency resolves even from outside the loader's path. */
  open_first (core, 3, RTLD_NOW | RTLD_GLOBAL, core_path, sizeof (core_path),
      core_err, sizeof (core_err));
  h = open_first (filters, 3, RTLD_NOW | RTLD_LOCAL, npp->path,
      sizeof (npp->path), err, sizeof (err));
  if (!h) {
    printf ("NPP: not found (%s)\n", err);
    return;
  }
  npp->filter[0] = (NppiFilter8uFn) dlsym (h, "nppiFilter_8u_C4R_Ctx");
  npp->filter[1] = (NppiFilter8uFn) dlsym (h, "nppiFilter_8u_C1R_Ctx");
  npp->filter_name[0] = "nppiFilter_8u_C4R_Ctx";
  npp->filter_name[1] = "nppiFilter_8u_C1R_Ctx";
  if (!npp->filter[0] || !npp->filter[1]) {
    printf ("NPP: not found (%s: %s)\n", npp->path, dlerror ());
    return;
  }
  get_version = (NppGetLibVersionFn) dlsym (h, "nppGetLibVersion");
  if (get_version && (version = get_version ()))
    snprintf (npp->version, sizeof (npp->version), "%d.%d.%d",
        version->major, version->minor, version->build);
  else
    snprintf (npp->version, sizeof (npp->version), "?");
  npp->loaded = 1;
}

/* Largest difference between NPP and our CPU twin on interior pixels of a
 * small image, where neither needs a border; -1 when the twin fails. */
static int
compare_with_twin (const Layout * l, const uint8_t * src, size_t src_stride,
    const uint8_t * got, int w, int h, int n, const Npp32s * itaps,
    Npp32s divisor)
{
  cf_plane_format f = { w, h, l->channels, CF_SAMPLE_U8, l->keep_channel };
  float taps[CF_CONV2D_MAX_TAPS];
  cf_conv2d_mask mask = { .width = n, .height = n,
    .taps = taps, .divisor = divisor, .offset = 0, .border = CF_BORDER_CLAMP };
  cf_conv2d_plan plan;
  uint8_t *want = xmalloc ((size_t) w * h * l->channels);
  int r = n / 2, worst = 0;

  /* itaps are stored reversed for NPP; the twin takes them as written. */
  for (int k = 0; k < n * n; k++)
    taps[k] = (float) itaps[n * n - 1 - k];
  if (cf_conv2d_plan_init (&plan, &mask) != CF_OK
      || cf_conv2d_cpu (&plan, &f, src, src_stride, want,
          (size_t) w * l->channels, 0, h) != CF_OK) {
    free (want);
    return -1;
  }
  for (int y = r; y < h - r; y++)
    for (int x = r; x < w - r; x++)
      for (int c = 0; c < l->channels; c++) {
        size_t at = ((size_t) y * w + x) * l->channels + c;
        int d = abs ((int) got[at] - (int) want[at]);
        if (c != l->keep_channel && d > worst)
          worst = d;
      }
  free (want);
  return worst;
}

/* Calls NPP once on a small image of layout `li` and checks its status, and
 * its result against our CPU twin. Returns 1 when NPP can be timed. */
static int
npp_check (Npp * npp, int li)
{
  const Layout *l = &layouts[li];
  const int w = 64, h = 48, n = 5, m = NPP_MARGIN;
  size_t stride = (size_t) w * l->channels;
  size_t pstride = (size_t) (w + 2 * m) * l->channels;
  size_t pbytes = pstride * (h + 2 * m);
  uint8_t *src = xmalloc (pbytes), *got = xmalloc (stride * h);
  uint8_t *d_src, *d_dst;
  float taps[25];
  Npp32s itaps[25], divisor, *d_taps;
  NppiSize roi = { w, h }, ksize = { n, n };
  NppiPoint anchor = { n / 2, n / 2 };
  NppStatus st;
  int worst;

  /* Positive taps divided by their sum keep the outputs off the clamps, and
   * a mask without symmetry shows a flipped or shifted one. */
  fill_random (src, pbytes);
  for (int k = 0; k < n * n; k++)
    taps[k] = (float) (1 + rng_next (&image_rng) % 16);
  divisor = npp_taps (taps, n, 1.0, itaps);
  check_cuda (cudaMalloc ((void **) &d_src, pbytes), "cudaMalloc");
  check_cuda (cudaMalloc ((void **) &d_dst, stride * h), "cudaMalloc");
  check_cuda (cudaMalloc ((void **) &d_taps, sizeof (itaps)), "cudaMalloc");
  check_cuda (cudaMemcpy (d_src, src, pbytes, cudaMemcpyHostToDevice),
      "cudaMemcpy");
  check_cuda (cudaMemset (d_dst, 0, stride * h), "cudaMemset");
  check_cuda (cudaMemcpy (d_taps, itaps, sizeof (itaps),
          cudaMemcpyHostToDevice), "cudaMemcpy");

  st = npp->filter[li] (d_src + m * pstride + m * l->channels,
      (Npp32s) pstride, d_dst, (Npp32s) stride, roi, d_taps, ksize, anchor,
      divisor, npp->ctx);
  /* The whole device: should the context be off, NPP may not have run on
   * our stream. */
  check_cuda (cudaDeviceSynchronize (), "cudaDeviceSynchronize");
  check_cuda (cudaMemcpy (got, d_dst, stride * h, cudaMemcpyDeviceToHost),
      "cudaMemcpy");
  check_cuda (cudaFree (d_src), "cudaFree");
  check_cuda (cudaFree (d_dst), "cudaFree");
  check_cuda (cudaFree (d_taps), "cudaFree");

  if (st < 0) {
    printf ("NPP check %s: %s returned %d: no NPP column for %s\n", l->name,
        npp->filter_name[li], st, l->name);
  } else {
    worst = compare_with_twin (l, src + m * pstride + m * l->channels,
        pstride, got, w, h, n, itaps, divisor);
    /* NPP's integer division may round where we round to nearest: 1 is
     * agreement. More means the call is not the filter we think. */
    printf ("NPP check %s: %s status %d, max diff from ours %d%s\n",
        l->name, npp->filter_name[li], st, worst,
        worst > 1 || worst < 0 ? " (MISMATCH: NPP times may not compare)"
        : "");
  }
  free (src);
  free (got);
  return st >= 0;
}

/* ---- output ------------------------------------------------------------ */

static FILE *csv;

/* A positive value with `decimals`, else "-": absent or not measured. */
static const char *
opt_num (char *buf, size_t size, double v, int decimals)
{
  if (v > 0)
    snprintf (buf, size, "%.*f", decimals, v);
  else
    snprintf (buf, size, "-");
  return buf;
}

typedef struct
{
  const char *size, *layout, *kind;
  int n;
  const char *best;
  double best_us, auto_us, npp_us, floor_us;
} Summary;

static void
print_case_header (void)
{
  printf ("%-5s %-5s %-9s %5s %-9s %7s %7s %5s %5s %7s %5s\n", "size",
      "fmt", "kind", "mask", "variant", "us", "Mpx/s", "GB/s", "floor",
      "NPP us", "ratio");
}

/* One measured case; us < 0 when the variant cannot run the mask. */
static void
print_case (const Size * s, const Layout * l, MaskKind kind, int n,
    const char *variant, double us, double floor_us, double npp_us)
{
  double px = (double) s->width * s->height;
  double bytes = 2.0 * px * l->channels;
  char mask[16], npp[16], ratio[16];

  snprintf (mask, sizeof (mask), "%dx%d", n, n);
  opt_num (npp, sizeof (npp), npp_us, 1);
  opt_num (ratio, sizeof (ratio), npp_us > 0 ? npp_us / us : -1, 2);
  if (us < 0) {
    printf ("%-5s %-5s %-9s %5s %-9s %7s\n", s->name, l->name,
        kind_names[kind], mask, variant, "unsup.");
    if (csv)
      fprintf (csv, "case,%s,%s,%s,%s,%s,,,,%.2f,,\n", s->name, l->name,
          kind_names[kind], mask, variant, floor_us);
    return;
  }
  printf ("%-5s %-5s %-9s %5s %-9s %7.1f %7.0f %5.0f %5.1f %7s %5s\n",
      s->name, l->name, kind_names[kind], mask, variant, us, px / us,
      bytes / (us * 1e3), floor_us, npp, ratio);
  if (csv) {
    fprintf (csv, "case,%s,%s,%s,%s,%s,%.2f,%.1f,%.1f,%.2f,", s->name,
        l->name, kind_names[kind], mask, variant, us, px / us,
        bytes / (us * 1e3), floor_us);
    if (npp_us > 0)
      fprintf (csv, "%.2f,%.3f\n", npp_us, npp_us / us);
    else
      fprintf (csv, ",\n");
  }
}

static void
print_summary (const Summary * rows, int n_rows)
{
  printf ("\nconv2d kernel summary (us, median; ratio = NPP / auto, "
      "> 1: auto is faster)\n");
  printf ("%-5s %-5s %-9s %5s %-9s %7s %7s %7s %5s %5s\n", "size", "fmt",
      "kind", "mask", "best", "best us", "auto us", "NPP us", "ratio",
      "floor");
  if (csv)
    fprintf (csv, "record,size,layout,kind,mask,best,best_us,auto_us,"
        "npp_us,npp_over_auto,floor_us\n");
  for (int k = 0; k < n_rows; k++) {
    const Summary *r = &rows[k];
    double ratio_v = r->npp_us > 0 && r->auto_us > 0 ?
        r->npp_us / r->auto_us : -1;
    char mask[16], best[16], autos[16], npp[16], ratio[16];

    snprintf (mask, sizeof (mask), "%dx%d", r->n, r->n);
    opt_num (best, sizeof (best), r->best_us, 1);
    opt_num (autos, sizeof (autos), r->auto_us, 1);
    opt_num (npp, sizeof (npp), r->npp_us, 1);
    opt_num (ratio, sizeof (ratio), ratio_v, 2);
    printf ("%-5s %-5s %-9s %5s %-9s %7s %7s %7s %5s %5.1f\n", r->size,
        r->layout, r->kind, mask, r->best, best, autos, npp, ratio,
        r->floor_us);
    if (csv) {
      /* Absent values are empty fields in the CSV. */
      fprintf (csv, "summary,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.2f\n", r->size,
          r->layout, r->kind, mask, r->best, r->best_us > 0 ? best : "",
          r->auto_us > 0 ? autos : "", r->npp_us > 0 ? npp : "",
          ratio_v > 0 ? ratio : "", r->floor_us);
    }
  }
}

/* ---- the cases --------------------------------------------------------- */

typedef struct
{
  Timer *timer;
  Npp *npp;
  Npp32s *d_npp_taps;           /* room for the largest mask */
  double copy_bytes_per_s;
  int gated;                    /* for our launches, see queued_timer_median() */
  Summary *rows;
  int n_rows;
} Bench;

/* NPP's median on this mask, or -1 when there is none. */
static double
time_npp (Bench * bench, int li, const Buffers * b, MaskKind kind, int n,
    const float *taps)
{
  Npp *npp = bench->npp;
  Npp32s itaps[CF_CONV2D_MAX_TAPS];
  NppLaunch l;
  double us = -1;
  int status;

  if (!npp->loaded || !npp->usable[li])
    return -1;
  l.fn = npp->filter[li];
  l.b = b;
  l.d_taps = bench->d_npp_taps;
  l.n = n;
  /* Gaussian taps are at most 1: scale them further than random ones. */
  l.divisor = npp_taps (taps, n, kind == MASK_SEPARABLE ? 256.0
      : kind == MASK_INTEGER ? 1.0 : 16.0, itaps);
  l.ctx = &npp->ctx;
  check_cuda (cudaMemcpy (bench->d_npp_taps, itaps,
          (size_t) n * n * sizeof (Npp32s), cudaMemcpyHostToDevice),
      "cudaMemcpy");
  status = queued_timer_median (bench->timer, npp_launch, &l, b->pairs,
      &npp->gated, "NPP", &us);
  if (status != 0) {
    printf ("NPP: %s returned %d on %dx%d: no NPP column for %s from here\n",
        npp->filter_name[li], status, n, n, layouts[li].name);
    npp->usable[li] = 0;
    return -1;
  }
  return us;
}

/* Every variant (and NPP) on one mask of one (size, layout). */
static void
bench_mask (Bench * bench, const Size * s, int li, const Buffers * b,
    MaskKind kind, int n)
{
  const Layout *l = &layouts[li];
  cf_plane_format f = { s->width, s->height, l->channels, CF_SAMPLE_U8,
    l->keep_channel
  };
  float taps[CF_CONV2D_MAX_TAPS];
  cf_conv2d_mask mask = { .width = n, .height = n,
    .taps = taps, .divisor = 1.0, .offset = 0.0, .border = CF_BORDER_CLAMP };
  cf_conv2d_plan plan;
  OurLaunch o = { CF_CONV2D_AUTO, &plan, &f, b, bench->timer->stream };
  Summary *row = &bench->rows[bench->n_rows++];
  double floor_us, npp_us;

  if (kind == MASK_GENERAL)
    make_general (taps, n, &mask.divisor);
  else if (kind == MASK_INTEGER)
    make_integer (taps, n, &mask.divisor);
  else
    make_gaussian (taps, n, &mask.divisor);
  check_launch (cf_conv2d_plan_init (&plan, &mask), "cf_conv2d_plan_init");
  if (plan.separable != (kind == MASK_SEPARABLE))
    printf ("note: the plan finds the %dx%d %s mask %sseparable\n", n, n,
        kind_names[kind], plan.separable ? "" : "not ");

  floor_us = 2.0 * b->plane_bytes / bench->copy_bytes_per_s * 1e6;
  npp_us = time_npp (bench, li, b, kind, n, taps);

  memset (row, 0, sizeof (*row));
  row->size = s->name;
  row->layout = l->name;
  row->kind = kind_names[kind];
  row->n = n;
  row->best = "-";
  row->auto_us = -1;
  row->npp_us = npp_us;
  row->floor_us = floor_us;

  for (int v = 0; v < N_VARIANTS; v++) {
    const char *name = cf_conv2d_algorithm_name (variants[v]);
    double us = -1;
    int status;

    if (variants[v] == CF_CONV2D_SEPARABLE && !plan.separable)
      continue;
    o.algorithm = variants[v];
    status = queued_timer_median (bench->timer, our_launch, &o, b->pairs,
        &bench->gated, "conv2d", &us);
    if (status == CF_ERR_UNSUPPORTED)
      us = -1;
    else
      check_launch (status, name);
    print_case (s, l, kind, n, name, us, floor_us, npp_us);
    if (us < 0)
      continue;
    if (variants[v] == CF_CONV2D_AUTO)
      row->auto_us = us;
    else if (row->best_us == 0 || us < row->best_us) {
      row->best_us = us;
      row->best = name;
    }
  }
  fflush (stdout);
}

typedef struct
{
  const Buffers *b;
  cudaStream_t stream;
} FrameCopy;

static int
frame_copy_launch (void *data, int pair)
{
  const FrameCopy *c = data;

  return cudaMemcpyAsync (c->b->out[pair], c->b->in[pair],
      c->b->plane_bytes, cudaMemcpyDeviceToDevice, c->stream);
}

/* One frame copied from input to output buffer by the driver, timed as
 * the cases are: what moving these bytes costs one call here, its fixed
 * costs included (the floor column is the bytes at the large copy's
 * rate, with none). */
static double
time_frame_copy (Bench * bench, const Buffers * b)
{
  FrameCopy c = { b, bench->timer->stream };
  int gated = 1;
  double us = -1;

  check_cuda ((cudaError_t) queued_timer_median (bench->timer,
          frame_copy_launch, &c, b->pairs, &gated, "copy", &us),
      "cudaMemcpyAsync");
  return us;
}

static void
bench_plane (Bench * bench, const Size * s, int li)
{
  const Layout *l = &layouts[li];
  int with_npp = bench->npp->loaded && bench->npp->usable[li];
  Buffers b;

  buffers_init (&b, s, l, with_npp);
  printf ("\n%s %s: %.1f MB in + out, %d buffer pair%s; the frame copied "
      "in -> out, timed the same way: %.1f us\n", s->name, l->name,
      2.0 * b.plane_bytes / 1e6, b.pairs, b.pairs > 1 ? "s" : "",
      time_frame_copy (bench, &b));
  print_case_header ();
  for (int kind = MASK_GENERAL; kind <= MASK_INTEGER; kind++)
    for (int k = 0; k < N_MASK_SIZES; k++)
      if (kind != MASK_INTEGER || mask_sizes[k] <= INTEGER_MAX_SIZE)
        bench_mask (bench, s, li, &b, (MaskKind) kind, mask_sizes[k]);
  buffers_free (&b);
}

/* ---- main -------------------------------------------------------------- */

static void
usage (FILE * out)
{
  fprintf (out, "usage: bench_conv2d [--quick] [--csv FILE]\n"
      "  --quick     %d timed launches per case instead of %d\n"
      "  --csv FILE  also write every line to FILE as CSV\n"
      "  --help      this text\n", QUICK_REPS, FULL_REPS);
}

/* Returns -1 to go on, else the exit status. */
static int
parse_args (int argc, char **argv, int *reps, const char **csv_path)
{
  for (int k = 1; k < argc; k++) {
    if (strcmp (argv[k], "--quick") == 0) {
      *reps = QUICK_REPS;
    } else if (strcmp (argv[k], "--csv") == 0 && k + 1 < argc) {
      *csv_path = argv[++k];
    } else if (strncmp (argv[k], "--csv=", 6) == 0) {
      *csv_path = argv[k] + 6;
    } else if (strcmp (argv[k], "--help") == 0 || strcmp (argv[k], "-h") == 0) {
      usage (stdout);
      return 0;
    } else {
      fprintf (stderr, NAME ": unknown argument '%s'\n", argv[k]);
      usage (stderr);
      return 2;
    }
  }
  return -1;
}

int
main (int argc, char **argv)
{
  const char *csv_path = NULL;
  struct cudaDeviceProp prop;
  Summary rows[N_SIZES * N_LAYOUTS * 3 * N_MASK_SIZES];
  Timer timer;
  Npp npp;
  Bench bench;
  int reps = FULL_REPS, count = 0, device = 0, ret;
  cudaError_t err;

  if ((ret = parse_args (argc, argv, &reps, &csv_path)) >= 0)
    return ret;

  err = cudaGetDeviceCount (&count);
  if (err != cudaSuccess || count == 0) {
    printf ("SKIP " NAME ": no CUDA device (%s)\n", err != cudaSuccess ?
        cudaGetErrorName (err) : "none found");
    return EXIT_SKIP;
  }
  check_cuda (cudaSetDevice (device), "cudaSetDevice");
  check_cuda (cudaGetDeviceProperties (&prop, device),
      "cudaGetDeviceProperties");

  if (csv_path && !(csv = fopen (csv_path, "w")))
    die ("cannot write %s", csv_path);

  check_cuda (queued_timer_init (&timer, reps, WARMUP), "queued_timer_init");

  memset (&bench, 0, sizeof (bench));
  bench.timer = &timer;
  bench.npp = &npp;
  bench.rows = rows;
  bench.gated = 1;
  bench.copy_bytes_per_s = copy_ceiling (&timer);

  printf ("%s, %d SMs, L2 %.0f MiB, copy %.0f GB/s (read + write)\n",
      prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1048576.0,
      bench.copy_bytes_per_s / 1e9);
  printf ("median of %d launches after %d warm-up, CUDA events; "
      "floor = (in + out) / copy\n", reps, WARMUP);
  if (csv) {
    fprintf (csv, "record,device,sms,l2_bytes,copy_gb_per_s,reps\n");
    fprintf (csv, "device,\"%s\",%d,%d,%.1f,%d\n", prop.name,
        prop.multiProcessorCount, prop.l2CacheSize,
        bench.copy_bytes_per_s / 1e9, reps);
  }

  npp_load (&npp);
  npp.gated = 1;
  if (npp.loaded) {
    printf ("NPP %s: %s\n", npp.version, npp.path);
    npp_context_init (&npp.ctx, timer.stream, device, &prop);
    check_cuda (cudaMalloc ((void **) &bench.d_npp_taps,
            CF_CONV2D_MAX_TAPS * sizeof (Npp32s)), "cudaMalloc");
    for (int li = 0; li < N_LAYOUTS; li++)
      npp.usable[li] = npp_check (&npp, li);
  }

  if (csv)
    fprintf (csv, "record,size,layout,kind,mask,variant,us,mpx_per_s,"
        "gb_per_s,floor_us,npp_us,npp_over_ours\n");
  for (int s = 0; s < N_SIZES; s++)
    for (int li = 0; li < N_LAYOUTS; li++)
      bench_plane (&bench, &sizes[s], li);
  print_summary (rows, bench.n_rows);

  if (bench.d_npp_taps)
    check_cuda (cudaFree (bench.d_npp_taps), "cudaFree");
  queued_timer_free (&timer);
  if (csv && fclose (csv) != 0)
    die ("cannot write %s", csv_path);
  return 0;
}
