/* Integral image benchmark: cf_integral_cuda() on GRAY8 frames (1080p and
 * 4K, the table of sums alone and with the table of squares, rows packed
 * and padded to 16 bytes) against NPP's
 * nppiIntegral_8u32s_C1R_Ctx (same (w+1) x (h+1) table) in the same run,
 * checked equal first, and the memory floor: the bytes read and written at
 * the speed of a device-to-device copy measured here. Device time of each
 * call (queued_timer.h: calls queued back to back, events around each),
 * median of 30, rotating over 4 buffer sets (more than the L2 cache
 * holds). Then the 4K table with its rows scanned by each scan
 * variant over the whole plane (the `algorithm` property of
 * cudaprefixsum), against the tables built in bands of rows. Last, box
 * means of the R, G and B of RGBA (as cudaprefixsum filters them) at
 * radius 1 to 16 and 64, tables and box kernel, on a whole 4K frame and
 * on one strip of a 1080p frame (rows 320 to 703 from a table of those
 * rows and their halo: the middle one of the three strips the element
 * filters a 1080p RGBA frame in host memory in, 0-319, 320-703 and
 * 704-1079, strips of 384 rows on 64-row lines); up
 * to radius 16 also with no table (cf_box_direct_cuda, what cudaprefixsum
 * runs there), the floor: a device-to-device copy of the same rows, and
 * the peer: cudaconv2d's `auto` on the same rows with the same box as a
 * mask ((2r + 1)^2 taps of 1, divided by their count; alpha kept), up to
 * its largest mask.
 *
 *   bench_integral */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boxmean.h"
#include "conv2d.h"
#include "integral.h"
#include "npp_peer.h"
#include "queued_timer.h"

#define SETS 4
#define RUNS 30

typedef NppStatus (*NppiIntegralFn) (const Npp8u * pSrc, int nSrcStep,
    Npp32s * pDst, int nDstStep, NppiSize oROI, Npp32s nVal,
    NppStreamContext ctx);

typedef struct
{
  int width, height, squares;
  void *in[SETS], *sum[SETS], *sq[SETS];
  cf_integral_layout l;
  cf_scan_algorithm rows_by;    /* which 3 */
  void *scan_work;
} Case;

/* which: 0 ours, 1 NPP, 2 copy of the same bytes, 3 ours with the rows
 * by c->rows_by */
static QueuedTimer timer;
static int gated = 1;

typedef struct
{
  const Case *c;
  int which;
  NppiIntegralFn npp;
  const NppStreamContext *ctx;
} Launch;

static int
launch (void *data, int set)
{
  const Launch *l = data;
  const Case *c = l->c;
  int which = l->which;
  cf_stream s = (cf_stream) timer.stream;

  if (which == 0)
    return cf_integral_cuda (&c->l, c->in[set], c->sum[set],
        c->squares ? c->sq[set] : NULL, s);
  if (which == 3)
    return cf_integral_cuda_with_scan (&c->l, c->rows_by, c->in[set],
        c->sum[set], c->squares ? c->sq[set] : NULL, c->scan_work, s);
  if (which == 1) {
    NppiSize roi = { c->width, c->height };
    return l->npp (c->in[set], (int) c->l.in_pitch, c->sum[set],
        (int) c->l.sum_pitch, roi, 0, *l->ctx) < 0;
  }
  return (int) cudaMemcpyAsync (c->sum[set], c->sum[(set + 1) % SETS],
      c->l.sum_pitch * (c->height + 1) + c->l.in_pitch * c->height / 4,
      cudaMemcpyDeviceToDevice, timer.stream);
}

static double
time_us (const Case * c, int which, NppiIntegralFn npp,
    const NppStreamContext * ctx)
{
  Launch l = { c, which, npp, ctx };
  double us;

  if (queued_timer_median (&timer, launch, &l, SETS, &gated, "integral",
          &us) != 0 || cudaGetLastError () != cudaSuccess)
    return -1;
  return us;
}

/* ---- box means --------------------------------------------------------- */

typedef struct
{
  cf_integral_layout l;         /* the whole plane, R G B at once */
  cf_box_params p;
  const uint8_t *in;
  uint8_t *out, *work;
  int which;                    /* 0 tables, 1 no table, 2 copy, 3 mask */
  cf_conv2d_plan plan;          /* the box as cudaconv2d's mask */
} BoxCase;

static int
box_launch (void *data, int set)
{
  const BoxCase *b = data;
  cf_stream s = (cf_stream) timer.stream;
  int first = b->p.row_begin - b->p.radius, last = b->p.row_end
      + b->p.radius;
  cf_integral_layout rows = b->l;
  cf_box_params p = b->p;

  (void) set;
  if (b->which == 1)
    return cf_box_direct_cuda (&b->l, b->in, &b->p, b->out, s);
  if (b->which == 3) {
    cf_plane_format f = { b->l.width, b->l.height, 4, CF_SAMPLE_U8, 3 };
    return cf_conv2d_cuda (CF_CONV2D_AUTO, &b->plan, &f, b->in,
        b->l.in_pitch, b->out, b->p.out_pitch, b->p.row_begin, b->p.row_end,
        s);
  }
  if (b->which == 2)
    return (int) cudaMemcpyAsync (b->out + (size_t) b->p.row_begin
        * b->l.in_pitch, b->in + (size_t) b->p.row_begin * b->l.in_pitch,
        (size_t) (b->p.row_end - b->p.row_begin) * b->l.in_pitch,
        cudaMemcpyDeviceToDevice, timer.stream);
  first = first > 0 ? first : 0;
  last = last < b->l.height ? last : b->l.height;
  rows.height = last - first;
  p.table_row = first;
  int st = cf_integral_cuda (&rows, b->in + (size_t) first * b->l.in_pitch,
      b->work, NULL, s);
  return st ? st : cf_box_cuda (&b->l, b->in, b->work, &p, b->out, s);
}

static void
box_means (void)
{
  static const int radii[] = { 1, 2, 3, 5, 7, 8, 12, 15, 16, 64 };
  const size_t in_bytes = (size_t) 3840 * 4 * 2160;
  const size_t table = ((size_t) 3841 * 4 * 2161 + 7) / 8 * 8;
  uint8_t *in, *out, *work, *host = malloc (in_bytes);

  for (size_t k = 0; k < in_bytes; k++)
    host[k] = (uint8_t) (k * 2654435761u >> 13);
  if (cudaMalloc ((void **) &in, in_bytes) != cudaSuccess
      || cudaMalloc ((void **) &out, in_bytes) != cudaSuccess
      || cudaMalloc ((void **) &work, 3 * table) != cudaSuccess) {
    printf ("box means: cannot allocate\n");
    return;
  }
  cudaMemcpy (in, host, in_bytes, cudaMemcpyHostToDevice);
  free (host);
  printf ("box means of R, G, B of RGBA (us): tables (4 launches) and box "
      "kernel, or no table (1 launch); the peer, cudaconv2d with the box "
      "as its mask, and its time over ours\n%-22s %6s %10s %10s %10s %10s "
      "%8s\n", "case", "radius", "tables", "no table", "floor",
      "cudaconv2d", "ratio");
  for (int big = 1; big >= 0; big--)
    for (size_t r = 0; r < sizeof (radii) / sizeof (radii[0]); r++) {
      BoxCase b;
      double us[4] = { -1, -1, -1, -1 };
      static float ones[CF_CONV2D_MAX_TAPS];
      cf_conv2d_mask mask = { 0 };
      int w = big ? 3840 : 1920, h = big ? 2160 : 1080;
      memset (&b, 0, sizeof (b));
      b.l.type = CF_INTEGRAL_U8;
      b.l.width = w;
      b.l.height = h;
      b.l.in_pitch = (size_t) w * 4;
      b.l.sum_pitch = ((size_t) w + 1) * 4;
      b.l.in_step = 4;
      b.l.channels = 3;
      b.l.channel_stride = (b.l.sum_pitch * ((size_t) h + 1) + 7) / 8 * 8;
      b.p.radius = radii[r];
      b.p.out_pitch = b.l.in_pitch;
      b.p.out_step = 4;
      b.p.row_begin = big ? 0 : 320;
      b.p.row_end = big ? h : 704;
      b.p.copy_others = 1;
      b.in = in;
      b.out = out;
      b.work = work;
      mask.width = mask.height = 2 * radii[r] + 1;
      for (int k = 0; k < mask.width * mask.height
          && mask.width <= CF_CONV2D_MAX_SIZE; k++)
        ones[k] = 1.0f;
      mask.taps = ones;
      mask.divisor = (double) mask.width * mask.height;
      mask.border = CF_BORDER_CLAMP;
      if (mask.width <= CF_CONV2D_MAX_SIZE)
        cf_conv2d_plan_init (&b.plan, &mask);
      for (b.which = 0; b.which < 4; b.which++)
        if ((b.which != 1 || b.p.radius <= CF_BOX_DIRECT_MAX_RADIUS)
            && (b.which != 3 || mask.width <= CF_CONV2D_MAX_SIZE)
            && (queued_timer_median (&timer, box_launch, &b, 1, &gated,
                    "box means", &us[b.which]) != 0
                || cudaGetLastError () != cudaSuccess))
          us[b.which] = -1;
      printf ("%-22s %6d %10.1f %10.1f %10.1f %10.1f %7.2fx\n", big
          ? "4K frame" : "1080p strip, 384 rows", radii[r], us[0], us[1],
          us[2], us[3], us[1] > 0 && us[3] > 0 ? us[3] / us[1]
          : us[0] > 0 && us[3] > 0 ? us[3] / us[0] : 0);
    }
  cudaFree (in);
  cudaFree (out);
  cudaFree (work);
}

int
main (void)
{
  /* width, height, squares (2: table rows padded to 16 bytes) */
  static const int sizes[][3] = { {1920, 1080, 0}, {3840, 2160, 0},
  {3840, 2160, 1}, {3840, 2160, 2}
  };
  static const char *const core[] = { "libnppc.so.13", "libnppc.so.12" };
  static const char *const ist[] = { "libnppist.so.13", "libnppist.so.12" };
  char path[512], err[512] = "", core_path[512], core_err[512] = "";
  NppiIntegralFn npp = NULL;
  NppStreamContext ctx;
  struct cudaDeviceProp prop;
  int count = 0;
  void *h;

  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("SKIP bench-integral: no CUDA device\n");
    return 77;
  }
  cudaGetDeviceProperties (&prop, 0);
  if (queued_timer_init (&timer, RUNS, 3) != cudaSuccess) {
    printf ("cannot create the timing stream and events\n");
    return 1;
  }
  npp_context_init (&ctx, timer.stream, 0, &prop);
  open_first (core, 2, RTLD_NOW | RTLD_GLOBAL, core_path, sizeof (core_path),
      core_err, sizeof (core_err));
  h = open_first (ist, 2, RTLD_NOW | RTLD_LOCAL, path, sizeof (path), err,
      sizeof (err));
  if (h)
    npp = (NppiIntegralFn) dlsym (h, "nppiIntegral_8u32s_C1R_Ctx");
  printf ("%s; NPP: %s\n\n", prop.name, npp ? path : "not found");
  printf ("integral summary (GRAY8 -> u32 table; us, median of %d)\n", RUNS);
  printf ("%-6s %-8s %10s %10s %8s %10s\n", "size", "tables", "ours us",
      "NPP us", "NPP/ours", "floor us");
  for (size_t s = 0; s < sizeof (sizes) / sizeof (sizes[0]); s++) {
    Case c;
    size_t in_bytes, sum_bytes, sq_bytes;
    double ours, theirs = -1, copy, floor_us;
    uint8_t *host;

    memset (&c, 0, sizeof (c));
    c.width = sizes[s][0];
    c.height = sizes[s][1];
    c.squares = sizes[s][2];
    c.l.type = CF_INTEGRAL_U8;
    c.l.width = c.width;
    c.l.height = c.height;
    c.l.in_pitch = c.width;
    c.l.sum_pitch = ((size_t) c.width + 1) * 4;
    c.l.squares_pitch = ((size_t) c.width + 1) * 8;
    if (c.squares == 2) {
      c.l.sum_pitch = (c.l.sum_pitch + 15) / 16 * 16;
      c.l.squares_pitch = (c.l.squares_pitch + 15) / 16 * 16;
    }
    in_bytes = c.l.in_pitch * c.height;
    sum_bytes = c.l.sum_pitch * (c.height + 1);
    sq_bytes = c.l.squares_pitch * (c.height + 1);
    host = malloc (in_bytes);
    for (size_t k = 0; k < in_bytes; k++)
      host[k] = (uint8_t) (k * 2654435761u >> 13);
    for (int k = 0; k < SETS; k++) {
      cudaMalloc (&c.in[k], in_bytes);
      cudaMalloc (&c.sum[k], sum_bytes + in_bytes);
      if (c.squares)
        cudaMalloc (&c.sq[k], sq_bytes);
      cudaMemcpy (c.in[k], host, in_bytes, cudaMemcpyHostToDevice);
    }
    ours = time_us (&c, 0, npp, &ctx);
    if (npp && !c.squares) {
      /* the same table first */
      uint32_t *a = malloc (sum_bytes), *b = malloc (sum_bytes);
      cudaMemcpy (a, c.sum[2 % SETS], sum_bytes, cudaMemcpyDeviceToHost);
      theirs = time_us (&c, 1, npp, &ctx);
      cudaMemcpy (b, c.sum[2 % SETS], sum_bytes, cudaMemcpyDeviceToHost);
      if (memcmp (a, b, sum_bytes) != 0) {
        printf ("NPP's table differs from ours at %dx%d\n", c.width,
            c.height);
        theirs = -1;
      }
      free (a);
      free (b);
    }
    copy = time_us (&c, 2, npp, &ctx);
    /* the copy moved the table plus a quarter of the input (one read, one
     * write): scale to the bytes an integral must move */
    floor_us = copy * (in_bytes + sum_bytes + (c.squares ? sq_bytes : 0))
        / (2.0 * (sum_bytes + in_bytes / 4));
    printf ("%-6s %-8s %10.1f %10.1f %8.2f %10.1f\n",
        c.width == 3840 ? "4K" : "1080p", c.squares == 2 ? "sum+sq16"
        : c.squares ? "sum+sq" : "sum",
        ours, theirs, theirs > 0 ? theirs / ours : 0.0, floor_us);
    if (c.width == 3840 && !c.squares) {
      double by[CF_SCAN_N_ALGORITHMS];
      for (int a = CF_SCAN_KOGGE_STONE; a < CF_SCAN_N_ALGORITHMS; a++) {
        c.rows_by = (cf_scan_algorithm) a;
        cudaMalloc (&c.scan_work, cf_integral_scan_workspace_size (&c.l,
                c.rows_by));
        by[a] = time_us (&c, 3, npp, &ctx);
        cudaFree (c.scan_work);
      }
      printf ("\n4K GRAY8 table, rows by (us): bands %.1f",
          ours);
      for (int a = CF_SCAN_KOGGE_STONE; a < CF_SCAN_N_ALGORITHMS; a++)
        printf (", %s %.1f", cf_scan_algorithm_name ((cf_scan_algorithm) a),
            by[a]);
      printf ("\n\n");
    }
    for (int k = 0; k < SETS; k++) {
      cudaFree (c.in[k]);
      cudaFree (c.sum[k]);
      cudaFree (c.sq[k]);
    }
    free (host);
  }
  box_means ();
  queued_timer_free (&timer);
  return 0;
}
