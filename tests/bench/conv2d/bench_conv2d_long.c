/* Cost of large masks on a 4K RGBA frame (3840 x 2160, 8-bit), device to
 * device: Gaussians of sigma 2 to 100, boxes of 3 to 1023, a separable
 * mask of two random 1023-tap factors, discs of radius 16 to 100 and
 * general masks up to 255 x 255 (the spectral path), against the largest
 * short general mask (31 x 31) and NPP in the same run (nppiFilterBox for
 * boxes, nppiFilterRow then nppiFilterColumn with integer taps for
 * Gaussians, nppiFilter for general masks and discs; above 33 x 33 NPP's
 * filter is timed once, not queued, as it takes far longer). Each row
 * prints our time, the floor (one frame read and written: a
 * device-to-device copy of it, timed the same way), NPP's time and NPP /
 * ours; the summary gives the ratios and bounds the design aims at: sigma
 * 100 against sigma 2 (at most 4), box 1023 against box 3 (at most 2), a
 * disc of radius 100 under 2 ms, a 255 x 255 general mask under 5 ms.
 *
 *   bench_conv2d_long [--quick]
 *
 * Exits 77 without a CUDA device, 1 on a CUDA or launcher error. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d_long.h"
#include "conv2d_spectral.h"
#include "npp_peer.h"
#include "queued_timer.h"

#define NAME "bench-conv2d-long"
#define W 3840
#define H 2160
#define PIXEL 4
/* NPP reads real pixels around its ROI: a margin of the largest radius */
#define MARGIN 512

typedef NppStatus (*FilterBoxFn) (const Npp8u *, Npp32s, Npp8u *, Npp32s,
    NppiSize, NppiSize, NppiPoint, NppStreamContext);
typedef NppStatus (*FilterLineFn) (const Npp8u *, Npp32s, Npp8u *, Npp32s,
    NppiSize, const Npp32s *, Npp32s, Npp32s, Npp32s, NppStreamContext);
typedef NppStatus (*Filter2dFn) (const Npp8u *, Npp32s, Npp8u *, Npp32s,
    NppiSize, const Npp32s *, NppiSize, NppiPoint, Npp32s,
    NppStreamContext);

typedef struct
{
  FilterBoxFn box;
  FilterLineFn row, column;
  Filter2dFn filter;
  NppStreamContext ctx;
  char version[32];
} Npp;

typedef struct
{
  cf_conv2d_plan *plan;
  cf_conv2d_spectral_gpu *spectral;
  cf_plane_format format;
  uint8_t *src, *dst, *work;
  size_t pitch;
  cudaStream_t stream;
} Ours;

typedef struct
{
  Npp *npp;
  int kind;                     /* 0 box, 1 row + column, 2 general */
  int n, h;                     /* mask width (all), height (general) */
  const Npp32s *d_taps;         /* reversed, device memory */
  Npp32s divisor;
  Npp8u *src, *mid, *dst;       /* src and mid with MARGIN around */
  size_t pitch, margin_pitch;
} Peer;

static void
die (const char *what, int status)
{
  printf ("%s: %s failed: %d\n", NAME, what, status);
  exit (1);
}

static int
ours_call (void *ctx, int set)
{
  Ours *o = ctx;
  (void) set;
  if (o->plan->long_mask)
    return cf_conv2d_long_cuda (o->plan, &o->format, o->src, o->pitch,
        o->dst, o->pitch, o->work, o->stream);
  if (o->plan->spectral)
    return cf_conv2d_spectral_cuda (o->spectral, o->src, o->pitch, o->dst,
        o->pitch, o->stream);
  return cf_conv2d_cuda (CF_CONV2D_AUTO, o->plan, &o->format, o->src,
      o->pitch, o->dst, o->pitch, 0, H, o->stream);
}

static int
copy_call (void *ctx, int set)
{
  Ours *o = ctx;
  (void) set;
  return (int) cudaMemcpy2DAsync (o->dst, o->pitch, o->src, o->pitch,
      W * PIXEL, H, cudaMemcpyDeviceToDevice, o->stream);
}

static Npp8u *
inside (Npp8u * p, size_t pitch)
{
  return p + MARGIN * pitch + MARGIN * PIXEL;
}

static int
peer_call (void *ctx, int set)
{
  Peer *p = ctx;
  NppiSize roi = { W, H }, mask = { p->n, p->n };
  NppiPoint anchor = { p->n / 2, p->n / 2 };
  NppStatus st;
  (void) set;

  mask.height = p->kind == 2 ? p->h : p->n;
  anchor.y = mask.height / 2;
  if (p->kind == 0)
    st = p->npp->box (inside (p->src, p->margin_pitch), p->margin_pitch,
        p->dst, p->pitch, roi, mask, anchor, p->npp->ctx);
  else if (p->kind == 2)
    st = p->npp->filter (inside (p->src, p->margin_pitch), p->margin_pitch,
        p->dst, p->pitch, roi, p->d_taps, mask, anchor, p->divisor,
        p->npp->ctx);
  else {
    /* rows over the frame and the column pass's margin, then columns */
    NppiSize tall = { W, H + 2 * (p->n / 2) };
    st = p->npp->row (inside (p->src, p->margin_pitch) - (p->n / 2)
        * p->margin_pitch, p->margin_pitch, inside (p->mid, p->margin_pitch)
        - (p->n / 2) * p->margin_pitch, p->margin_pitch, tall, p->d_taps,
        p->n, p->n / 2, p->divisor, p->npp->ctx);
    if (st >= 0)
      st = p->npp->column (inside (p->mid, p->margin_pitch),
          p->margin_pitch, p->dst, p->pitch, roi, p->d_taps, p->n,
          p->n / 2, p->divisor, p->npp->ctx);
  }
  return st < 0 ? -1 : 0;
}

static int
npp_load (Npp * npp, cudaStream_t stream)
{
  static const char *const core[] = { "libnppc.so.13", "libnppc.so.12",
    "libnppc.so"
  };
  static const char *const filters[] = { "libnppif.so.13", "libnppif.so.12",
    "libnppif.so"
  };
  char path[512], err[512] = "";
  struct cudaDeviceProp prop;
  int device = 0;
  void *h;

  memset (npp, 0, sizeof (*npp));
  open_first (core, 3, RTLD_NOW | RTLD_GLOBAL, path, sizeof (path), err,
      sizeof (err));
  h = open_first (filters, 3, RTLD_NOW | RTLD_LOCAL, path, sizeof (path),
      err, sizeof (err));
  if (!h) {
    printf ("NPP: not found (%s)\n", err);
    return 0;
  }
  npp->box = (FilterBoxFn) dlsym (h, "nppiFilterBox_8u_C4R_Ctx");
  npp->row = (FilterLineFn) dlsym (h, "nppiFilterRow_8u_C4R_Ctx");
  npp->column = (FilterLineFn) dlsym (h, "nppiFilterColumn_8u_C4R_Ctx");
  npp->filter = (Filter2dFn) dlsym (h, "nppiFilter_8u_C4R_Ctx");
  if (!npp->box || !npp->row || !npp->column || !npp->filter) {
    printf ("NPP: %s lacks a filter (%s)\n", path, dlerror ());
    return 0;
  }
  cudaGetDevice (&device);
  cudaGetDeviceProperties (&prop, device);
  npp_context_init (&npp->ctx, stream, device, &prop);
  printf ("NPP: %s\n", path);
  return 1;
}

static void
gaussian (float *f, int n, double sigma)
{
  double sum = 0;
  for (int i = 0; i < n; i++)
    sum += f[i] = (float) exp (-(double) (i - n / 2) * (i - n / 2)
        / (2 * sigma * sigma));
  for (int i = 0; i < n; i++)
    f[i] = (float) (f[i] / sum);
}

typedef struct
{
  const char *name;
  int kind;                     /* 0 box, 1 Gaussian, 2 general n x n,
                                 * 3 random separable factors, 4 disc of
                                 * radius sigma */
  int n;
  double sigma;
} Case;

static const Case cases[] = {
  {"Gaussian sigma 2 (13 x 13)", 1, 13, 2},
  {"Gaussian sigma 10 (61 x 61)", 1, 61, 10},
  {"Gaussian sigma 25 (151 x 151)", 1, 151, 25},
  {"Gaussian sigma 50 (301 x 301)", 1, 301, 50},
  {"Gaussian sigma 100 (601 x 601)", 1, 601, 100},
  {"box 3", 0, 3, 0}, {"box 31", 0, 31, 0}, {"box 33", 0, 33, 0},
  {"box 255", 0, 255, 0}, {"box 1023", 0, 1023, 0},
  {"general 31 x 31 (today's largest)", 2, 31, 0},
  {"separable, random 1023-tap factors", 3, 1023, 0},
  {"disc radius 16 (33 x 33)", 4, 33, 16},
  {"disc radius 50 (101 x 101)", 4, 101, 50},
  {"disc radius 100 (201 x 201)", 4, 201, 100},
  {"general 63 x 63", 2, 63, 0},
  {"general 255 x 255", 2, 255, 0},
};

/* Rows the summary reads */
enum
{ SIGMA_2 = 0, SIGMA_100 = 4, BOX_3 = 5, BOX_1023 = 9, GENERAL_31 = 10,
  DISC_100 = 14, GENERAL_255 = 16
};

/* The disc as cudaconv2d's preset makes it: each tap the share of its
 * pixel's 16 x 16 points inside the circle, here times 256 (integers). */
static void
disc (float *taps, int n, double radius)
{
  int r = n / 2;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      int in = 0;
      for (int b = 0; b < 16; b++)
        for (int a = 0; a < 16; a++) {
          double x = i - r - 0.5 + (a + 0.5) / 16;
          double y = j - r - 0.5 + (b + 0.5) / 16;
          in += x * x + y * y <= radius * radius;
        }
      taps[j * n + i] = (float) in;
    }
}

/* One call of `fn`, timed by events: for peers too slow to queue. */
static int
time_once (int (*fn) (void *, int), void *ctx, cudaStream_t stream,
    double *us)
{
  cudaEvent_t a, b;
  float ms = 0;
  int status;

  cudaEventCreate (&a);
  cudaEventCreate (&b);
  cudaEventRecord (a, stream);
  status = fn (ctx, 0);
  cudaEventRecord (b, stream);
  if (status == 0)
    status = (int) cudaEventSynchronize (b);
  cudaEventElapsedTime (&ms, a, b);
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  *us = ms * 1000.0;
  return status;
}

#define N_CASES ((int) (sizeof (cases) / sizeof (cases[0])))

int
main (int argc, char **argv)
{
  int quick = argc > 1 && strcmp (argv[1], "--quick") == 0, count = 0;
  int reps = quick ? 10 : 30, gated = 1, peer_gated = 1, have_npp, status;
  static float row[CF_CONV2D_MAX_FACTOR], col[CF_CONV2D_MAX_FACTOR];
  static float taps[CF_CONV2D_MAX_GENERAL_TAPS];
  static Npp32s itaps[CF_CONV2D_MAX_GENERAL_TAPS];
  double ours_us[N_CASES], peer_us[N_CASES], floor_us;
  QueuedTimer timer;
  Ours o = { 0 };
  Peer p = { 0 };
  Npp npp;
  size_t margin_bytes, work = 0;
  void *d_taps;

  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("SKIP %s: no CUDA device\n", NAME);
    return 77;
  }
  if (queued_timer_init (&timer, reps, 3) != cudaSuccess)
    die ("the timer", 0);
  o.stream = timer.stream;
  o.plan = malloc (sizeof (*o.plan));
  o.format = (cf_plane_format) { W, H, 4, CF_SAMPLE_U8, 3 };
  o.pitch = W * PIXEL;
  p.pitch = o.pitch;
  p.margin_pitch = (W + 2 * MARGIN) * PIXEL;
  margin_bytes = p.margin_pitch * (H + 2 * MARGIN);
  /* the largest work area: random factors take steps of 1 */
  for (int c = 0; c < N_CASES; c++) {
    cf_conv2d_mask m = { .width = cases[c].n, .height = cases[c].n,
      .divisor = 1, .row = row, .col = col
    };
    for (int i = 0; i < cases[c].n; i++)
      row[i] = col[i] = cases[c].kind == 0 ? 1.0f : (float) (i % 7 + 1);
    if (cases[c].n > CF_CONV2D_MAX_SIZE && cases[c].kind != 2
        && cases[c].kind != 4 && cf_conv2d_plan_init (o.plan, &m) == CF_OK) {
      size_t b = cf_conv2d_long_work_bytes (o.plan, &o.format);
      work = b > work ? b : work;
    }
  }
  if (cudaMalloc ((void **) &o.src, o.pitch * H) != cudaSuccess
      || cudaMalloc ((void **) &o.dst, o.pitch * H) != cudaSuccess
      || cudaMalloc ((void **) &o.work, work) != cudaSuccess
      || cudaMalloc ((void **) &p.src, margin_bytes) != cudaSuccess
      || cudaMalloc ((void **) &p.mid, margin_bytes) != cudaSuccess
      || cudaMalloc (&d_taps, sizeof (itaps)) != cudaSuccess)
    die ("cudaMalloc", 0);
  {
    uint8_t *host = malloc (margin_bytes);
    for (size_t k = 0; k < margin_bytes; k++)
      host[k] = (uint8_t) ((k * 2654435761u) >> 13);
    cudaMemcpy (o.src, host, o.pitch * H, cudaMemcpyHostToDevice);
    cudaMemcpy (p.src, host, margin_bytes, cudaMemcpyHostToDevice);
    free (host);
  }
  p.dst = o.dst;
  p.d_taps = d_taps;
  p.npp = &npp;
  have_npp = npp_load (&npp, timer.stream);

  status = queued_timer_median (&timer, copy_call, &o, 1, &gated, "copy",
      &floor_us);
  if (status)
    die ("the copy", status);
  printf ("%s: 4K RGBA (%d x %d), device memory; floor: one frame read "
      "and written, %.1f us\n\n", NAME, W, H, floor_us);
  printf ("%-36s %10s %8s %10s %10s\n", "mask", "ours us", "x floor",
      "NPP us", "NPP/ours");
  for (int c = 0; c < N_CASES; c++) {
    const Case *k = &cases[c];
    cf_conv2d_mask m = { .divisor = 1, .border = CF_BORDER_CLAMP };
    int n = k->n;

    m.width = m.height = n;
    if (k->kind == 1)
      gaussian (row, n, k->sigma);
    for (int i = 0; i < n; i++) {
      if (k->kind == 0)
        row[i] = 1.0f;
      else if (k->kind == 3)
        row[i] = (float) ((i * 37 % 101) - 30);
      col[i] = k->kind == 3 ? (float) ((i * 53 % 97) - 20) : row[i];
    }
    if (k->kind == 0)
      m.divisor = (double) n * n;
    if (k->kind == 3)
      m.divisor = 1e6;
    if (k->kind == 4) {
      disc (taps, n, k->sigma);
      m.taps = taps;
      m.divisor = 0;
      for (int i = 0; i < n * n; i++)
        m.divisor += taps[i];
    } else if (n <= CF_CONV2D_MAX_SIZE || k->kind == 2) {
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
          taps[j * n + i] = k->kind == 2 ? (float) ((i * 7 + j * 3) % 11 - 3)
              : col[j] * row[i];
      m.taps = taps;
      if (k->kind == 2)
        m.divisor = 100.0 * (n / 31) * (n / 31);
    } else {
      m.row = row;
      m.col = col;
    }
    if ((status = cf_conv2d_plan_init (o.plan, &m)) != CF_OK)
      die ("the plan", status);
    cf_conv2d_spectral_cuda_free (o.spectral);
    o.spectral = NULL;
    if (o.plan->spectral
        && (status = cf_conv2d_spectral_cuda_new (&o.spectral, o.plan,
                &o.format, o.stream)) != CF_OK)
      die ("the spectral path's transforms", status);
    gated = 1;
    status = queued_timer_median (&timer, ours_call, &o, 1, &gated, "ours",
        &ours_us[c]);
    if (status) {
      /* once more timed call by call, not queued behind the gate */
      printf ("(%s: status %d queued behind the gate; timed one by one)\n",
          k->name, status);
      gated = 0;
      status = queued_timer_median (&timer, ours_call, &o, 1, &gated, "ours",
          &ours_us[c]);
    }
    if (status)
      die (k->name, status);

    /* NPP: the same mask in integer taps (Gaussians scaled to 2^16) */
    peer_us[c] = -1;
    p.n = p.h = n;
    p.kind = k->kind == 0 ? 0 : (k->kind == 2 || k->kind == 4 ? 2 : 1);
    if (have_npp && k->kind != 3) {
      int taps_n = p.kind == 2 ? n * n : n;
      Npp32s sum = 0;
      for (int i = 0; i < taps_n; i++) {
        /* NPP wants them reversed; these are symmetric but the general
         * ones */
        float t = p.kind == 2 ? taps[taps_n - 1 - i] : row[i] * 65536.0f;
        itaps[i] = (Npp32s) lrintf (t);
        sum += itaps[i];
      }
      p.divisor = p.kind == 2 ? (Npp32s) lrint (m.divisor)
          : (sum ? sum : 1);
      cudaMemcpy (d_taps, itaps, taps_n * sizeof (Npp32s),
          cudaMemcpyHostToDevice);
      if (p.kind == 2 && n > 33)
        status = time_once (peer_call, &p, timer.stream, &peer_us[c]);
      else
        status = queued_timer_median (&timer, peer_call, &p, 1, &peer_gated,
            "NPP", &peer_us[c]);
      if (status)
        peer_us[c] = -1;
    }
    printf ("%-36s %10.1f %8.2f", k->name, ours_us[c], ours_us[c] / floor_us);
    if (peer_us[c] > 0)
      printf (" %10.1f %10.2f\n", peer_us[c], peer_us[c] / ours_us[c]);
    else
      printf (" %10s %10s\n", "-", "-");
  }
  printf ("\nsummary: Gaussian sigma 100 / sigma 2 = %.2f (target at most 4)"
      "; box 1023 / box 3 = %.2f (target at most 2); sigma 100 / general "
      "31 x 31 = %.2f; box 1023 / general 31 x 31 = %.2f; disc radius 100 "
      "%.0f us (target under 2000); general 255 x 255 %.0f us (target "
      "under 5000), %.2f x general 31 x 31\n",
      ours_us[SIGMA_100] / ours_us[SIGMA_2], ours_us[BOX_1023] /
      ours_us[BOX_3], ours_us[SIGMA_100] / ours_us[GENERAL_31],
      ours_us[BOX_1023] / ours_us[GENERAL_31], ours_us[DISC_100],
      ours_us[GENERAL_255], ours_us[GENERAL_255] / ours_us[GENERAL_31]);
  cf_conv2d_spectral_cuda_free (o.spectral);
  queued_timer_free (&timer);
  return 0;
}
