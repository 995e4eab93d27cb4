/* Scan benchmark: every variant on 2^28 elements (f32 and u32, inclusive),
 * against CUB's DeviceScan::InclusiveSum in the same run, and the floor of
 * the device: a device-to-device copy of the same bytes (a scan reads and
 * writes each element once at best); every variant at 2^10 to 2^28 floats,
 * with the copy of each size and CUB's time over auto's; the reduction
 * (sum, sum of squares, min and max at once; `auto` and the textbook
 * `tree`) of 2^28 floats against CUB's DeviceReduce::Sum, then at 2^10
 * to 2^28 floats, and per channel of
 * interleaved samples (a 4K RGBA frame, 2^24 stereo float frames) against
 * CUB's DeviceReduce of each pixel's channels widened to doubles, one
 * pass; the reductions' floor is reading the bytes once, half the copy.
 * Device time of each call (queued_timer.h: calls queued back to back,
 * events around each), after warm-up, median of 20; below 150 MB of input
 * and output the calls rotate over as many arrays as that takes, so that
 * the 50 MB L2 does not hold them. Throughput counts the bytes read and
 * written.
 *
 *   bench_scan [--quick] [--reductions]
 *     --quick: 2^24 elements, median of 5; --reductions: the reductions
 *     only */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queued_timer.h"
#include "reduce.h"
#include "scan.h"

int cub_inclusive_sum (int type, const void *in, void *out, size_t n,
    void *temp, size_t *temp_bytes, cudaStream_t stream);
int cub_reduce_sum (const float *in, double *out, size_t n, void *temp,
    size_t *temp_bytes, cudaStream_t stream);
int cub_channel_sums (int type, const void *in, double *out, size_t n,
    void *temp, size_t *temp_bytes, cudaStream_t stream);

/* what a job runs, past the scan variants */
enum
{
  JOB_CUB_SCAN = CF_SCAN_N_ALGORITHMS,
  JOB_COPY,
  JOB_REDUCE,                   /* ours: one float channel */
  JOB_CUB_REDUCE,               /* CUB's DeviceReduce::Sum of floats */
  JOB_REDUCE_RGBA,              /* ours: n RGBA pixels, 4 channels */
  JOB_CUB_RGBA,
  JOB_REDUCE_STEREO,            /* ours: n frames of 2 floats */
  JOB_CUB_STEREO,
  JOB_TREE,                     /* the same three by our `tree` variant */
  JOB_TREE_RGBA,
  JOB_TREE_STEREO
};

typedef struct
{
  int algorithm;                /* a cf_scan_algorithm, or JOB_* */
  cf_scan_type type;
  void *in, *out, *ws;           /* arrays of `capacity` elements */
  size_t n, ws_bytes;
} Job;

/* bytes of one of a job's n items in its input */
static size_t
item_bytes (const Job * j)
{
  return j->algorithm == JOB_REDUCE_STEREO || j->algorithm == JOB_CUB_STEREO
      || j->algorithm == JOB_TREE_STEREO ? 8 : 4;
}

/* Input + output bytes the rotation moves at least, and the arrays'
 * length in elements (set in main). */
#define ROTATE_TARGET 150e6
/* the per-channel reductions: a 4K RGBA frame, and stereo float frames
 * (no larger than the arrays of --quick) */
#define RGBA_PIXELS (3840 * 2160)
#define STEREO_FRAMES (1 << 23)
static size_t capacity;
static QueuedTimer timer;
static int gated = 1;

/* The data of one of our reduction jobs: n floats of one channel, n
 * RGBA pixels of a 4K frame (3840 a row), or n stereo float frames. */
static cf_reduce_layout
reduce_layout (const Job * j)
{
  cf_reduce_layout l = { CF_REDUCE_F32, (int) j->n, 1, 1, j->n * 4 };

  if (j->algorithm == JOB_REDUCE_RGBA || j->algorithm == JOB_TREE_RGBA) {
    l.type = CF_REDUCE_U8;
    l.width = 3840;
    l.rows = (int) (j->n / 3840);
    l.channels = 4;
    l.pitch = 3840 * 4;
  } else if (j->algorithm == JOB_REDUCE_STEREO
      || j->algorithm == JOB_TREE_STEREO) {
    l.channels = 2;
    l.pitch = j->n * 8;
  }
  return l;
}

/* Call on the set-th stretch of n elements of the arrays. */
static int
run_job (void *ctx, int set)
{
  const Job *j = ctx;
  size_t offset = (size_t) set * j->n * item_bytes (j);
  void *in = (char *) j->in + offset, *out = (char *) j->out + offset;
  cudaStream_t s = timer.stream;

  size_t bytes = j->ws_bytes;

  switch (j->algorithm) {
    case JOB_CUB_SCAN:
      return cub_inclusive_sum (j->type == CF_SCAN_F32 ? 0 : 1, in, out,
          j->n, j->ws, &bytes, s);
    case JOB_COPY:
      return (int) cudaMemcpyAsync (out, in, j->n * 4,
          cudaMemcpyDeviceToDevice, s);
    case JOB_REDUCE:
    case JOB_REDUCE_RGBA:
    case JOB_REDUCE_STEREO:
    case JOB_TREE:
    case JOB_TREE_RGBA:
    case JOB_TREE_STEREO:{
      cf_reduce_layout l = reduce_layout (j);
      return cf_reduce_cuda_variant (j->algorithm >= JOB_TREE ?
          CF_REDUCE_TREE : CF_REDUCE_AUTO, &l, in, out, j->ws, (cf_stream) s);
    }
    case JOB_CUB_REDUCE:
      return cub_reduce_sum (in, out, j->n, j->ws, &bytes, s);
    case JOB_CUB_RGBA:
      return cub_channel_sums (0, in, out, j->n, j->ws, &bytes, s);
    case JOB_CUB_STEREO:
      return cub_channel_sums (1, in, out, j->n, j->ws, &bytes, s);
    default:
      return cf_scan_cuda (j->algorithm, j->type, 1, in, out, j->n, j->ws,
          (cf_stream) s);
  }
}

/* Whether our reduction and the peer's give the same sums of each
 * channel (to 1e-9 of their size), both run on the first stretch, the
 * peer's written past ours. */
static int
sums_agree (const Job * ours, const Job * peer)
{
  int channels = ours->algorithm == JOB_REDUCE_RGBA ? 4 : 2;
  cf_stats stats[4];
  double sums[4];
  Job p = *peer;

  p.out = (char *) peer->out + sizeof (stats);
  if (run_job ((void *) ours, 0) != 0 || run_job (&p, 0) != 0
      || cudaStreamSynchronize (timer.stream) != cudaSuccess
      || cudaMemcpy (stats, ours->out, sizeof (cf_stats) * channels,
          cudaMemcpyDeviceToHost) != cudaSuccess
      || cudaMemcpy (sums, p.out, sizeof (double) * channels,
          cudaMemcpyDeviceToHost) != cudaSuccess)
    return 0;
  for (int c = 0; c < channels; c++)
    if (!(fabs (stats[c].sum - sums[c]) <= 1e-9 * fabs (sums[c]) + 1e-6))
      return 0;
  return 1;
}

/* Median device time of one call, in µs; negative on failure. */
static double
time_job (const Job * j)
{
  size_t sets = (size_t) (ROTATE_TARGET / (2.0 * item_bytes (j) * j->n)) + 1;
  double us;

  if (sets > capacity * 4 / (item_bytes (j) * j->n))
    sets = capacity * 4 / (item_bytes (j) * j->n);
  if (queued_timer_median (&timer, run_job, (void *) j, (int) sets, &gated,
          "scan", &us) != 0 || cudaGetLastError () != cudaSuccess)
    return -1;
  return us;
}

/* Median time of a lone call, each waited for before the next: what a
 * caller that needs every result before going on sees, the host's launch
 * included. In µs; negative on failure. */
static double
time_alone (const Job * j)
{
  size_t sets = capacity / j->n;
  float ms[QUEUED_TIMER_MAX_REPS];
  cudaStream_t s = timer.stream;

  for (int k = 0; k < timer.reps; k++) {
    int set = (int) ((size_t) k % sets);
    if (cudaEventRecord (timer.start[k], s) != cudaSuccess
        || run_job ((void *) j, set) != 0
        || cudaEventRecord (timer.stop[k], s) != cudaSuccess
        || cudaEventSynchronize (timer.stop[k]) != cudaSuccess
        || cudaEventElapsedTime (&ms[k], timer.start[k], timer.stop[k])
        != cudaSuccess)
      return -1;
  }
  for (int a = 1; a < timer.reps; a++)  /* insertion sort: a few values */
    for (int b = a; b > 0 && ms[b - 1] > ms[b]; b--) {
      float t = ms[b];
      ms[b] = ms[b - 1];
      ms[b - 1] = t;
    }
  return 1e3 * ms[timer.reps / 2];
}

int
main (int argc, char **argv)
{
  int quick = 0, scans = 1;
  size_t n;
  int runs, count = 0;
  static const cf_scan_type types[] = { CF_SCAN_F32, CF_SCAN_U32 };
  struct cudaDeviceProp prop;
  size_t cub_bytes = 0, ws_bytes = 0;
  void *in, *out, *ws;
  double copy_us;

  for (int k = 1; k < argc; k++) {
    if (strcmp (argv[k], "--quick") == 0)
      quick = 1;
    else if (strcmp (argv[k], "--reductions") == 0)
      scans = 0;
    else {
      fprintf (stderr, "usage: bench_scan [--quick] [--reductions]\n");
      return 2;
    }
  }
  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("SKIP bench-scan: no CUDA device\n");
    return 77;
  }
  n = quick ? (size_t) 1 << 24 : (size_t) 1 << 28;
  runs = quick ? 5 : 20;
  capacity = n;
  if (queued_timer_init (&timer, runs, 3) != cudaSuccess) {
    printf ("cannot create the timing stream and events\n");
    return 1;
  }
  cudaGetDeviceProperties (&prop, 0);
  cub_inclusive_sum (0, NULL, NULL, n, NULL, &cub_bytes, 0);
  for (int a = 0; a < CF_SCAN_N_ALGORITHMS; a++) {
    size_t w = cf_scan_workspace_size (a, CF_SCAN_F32, n);
    ws_bytes = w > ws_bytes ? w : ws_bytes;
  }
  ws_bytes = cub_bytes > ws_bytes ? cub_bytes : ws_bytes;
  {
    cf_reduce_layout l = { CF_REDUCE_F32, (int) n, 1, 1, n * 4 };
    cf_reduce_layout rgba = { CF_REDUCE_U8, 3840, 2160, 4, 3840 * 4 };
    cf_reduce_layout stereo = { CF_REDUCE_F32, STEREO_FRAMES, 1, 2,
      (size_t) STEREO_FRAMES * 8
    };
    size_t w[6] = { cf_reduce_workspace_size (&l),
      cf_reduce_workspace_size (&rgba), cf_reduce_workspace_size (&stereo),
      0, 0, 0
    };
    cub_reduce_sum (NULL, NULL, n, NULL, &w[3], 0);
    cub_channel_sums (0, NULL, NULL, RGBA_PIXELS, NULL, &w[4], 0);
    cub_channel_sums (1, NULL, NULL, STEREO_FRAMES, NULL, &w[5], 0);
    for (int k = 0; k < 6; k++)
      ws_bytes = w[k] > ws_bytes ? w[k] : ws_bytes;
  }
  if (cudaMalloc (&in, n * 4) != cudaSuccess
      || cudaMalloc (&out, n * 4) != cudaSuccess
      || cudaMalloc (&ws, ws_bytes) != cudaSuccess) {
    printf ("cannot allocate %zu MB\n", (n * 8 + ws_bytes) >> 20);
    return 1;
  }
  /* not all zeros: small positive values */
  {
    float *h = malloc (n * 4);
    for (size_t i = 0; i < n; i++)
      h[i] = (float) ((i * 2654435761u >> 20) & 1023) / 1024.0f;
    cudaMemcpy (in, h, n * 4, cudaMemcpyHostToDevice);
    free (h);
  }

  {
    Job copy = { JOB_COPY, CF_SCAN_F32, in, out, ws, n, 0 };
    copy_us = time_job (&copy);
  }
  printf ("%s, %d SMs; %zu elements (%zu MB in, %zu MB out), median of %d\n"
      "floor: device-to-device copy of the same bytes, %.1f us = %.0f GB/s\n\n",
      prop.name, prop.multiProcessorCount, n, (n * 4) >> 20, (n * 4) >> 20,
      runs, copy_us, 2.0 * n * 4 / copy_us / 1e3);
  if (scans) {
    printf ("scan summary (inclusive; GB/s = bytes read + written / time)\n");
    printf ("%-5s %-12s %10s %8s %10s\n", "type", "variant", "us", "GB/s",
        "vs CUB");
    for (size_t t = 0; t < sizeof (types) / sizeof (types[0]); t++) {
      Job cub = { JOB_CUB_SCAN, types[t], in, out, ws, n, ws_bytes };
      double cub_us = time_job (&cub);
      for (int a = 0; a < CF_SCAN_N_ALGORITHMS; a++) {
        Job j = { a, types[t], in, out, ws, n, ws_bytes };
        double us = time_job (&j);
        if (us < 0) {
          printf ("%-5s %-12s failed\n", cf_scan_type_name (types[t]),
              cf_scan_algorithm_name (a));
          continue;
        }
        printf ("%-5s %-12s %10.1f %8.0f %9.2fx\n", cf_scan_type_name (types[t]),
            cf_scan_algorithm_name (a), us, 2.0 * n * 4 / us / 1e3,
            cub_us / us);
      }
      printf ("%-5s %-12s %10.1f %8.0f %9s\n", cf_scan_type_name (types[t]),
          "CUB", cub_us, 2.0 * n * 4 / cub_us / 1e3, "1.00x");
    }
    printf ("%-5s %-12s %10.1f %8.0f\n", "-", "copy (floor)", copy_us,
        2.0 * n * 4 / copy_us / 1e3);

    /* every size: how the variants scale, and the fixed costs at small n;
     * then auto and CUB called alone, each call waited for */
    printf ("\nscan by size (f32 inclusive, us; floor: the copy of the same "
        "bytes; ratio: CUB's time over auto's)\n%10s", "n");
    for (int a = 0; a < CF_SCAN_N_ALGORITHMS; a++)
      printf (" %12s", cf_scan_algorithm_name (a));
    printf (" %12s %12s %12s %10s %8s\n", "CUB", "auto alone", "CUB alone",
        "floor", "ratio");
    for (size_t m = 1 << 10; m <= n; m <<= 1) {
      Job cub = { JOB_CUB_SCAN, CF_SCAN_F32, in, out, ws, m, ws_bytes };
      Job copy = { JOB_COPY, CF_SCAN_F32, in, out, ws, m, 0 };
      Job a = { CF_SCAN_AUTO, CF_SCAN_F32, in, out, ws, m, ws_bytes };
      double auto_us = -1, cub_us;
      printf ("%10zu", m);
      for (int v = 0; v < CF_SCAN_N_ALGORITHMS; v++) {
        Job j = { v, CF_SCAN_F32, in, out, ws, m, ws_bytes };
        double us = time_job (&j);
        auto_us = v == CF_SCAN_AUTO ? us : auto_us;
        printf (" %12.1f", us);
      }
      cub_us = time_job (&cub);
      printf (" %12.1f %12.1f %12.1f %10.1f %7.2fx\n", cub_us,
          time_alone (&a), time_alone (&cub), time_job (&copy),
          cub_us / auto_us);
    }
  }

  /* the reduction: reads once, four statistics at once */
  {
    Job ours = { JOB_REDUCE, CF_SCAN_F32, in, out, ws, n, ws_bytes };
    Job tree = { JOB_TREE, CF_SCAN_F32, in, out, ws, n, ws_bytes };
    Job cub = { JOB_CUB_REDUCE, CF_SCAN_F32, in, out, ws, n, ws_bytes };
    double us = time_job (&ours), tree_us = time_job (&tree);
    double cub_us = time_job (&cub);
    printf ("\nreduction summary (%zu floats read once; GB/s of reads)\n"
        "%-34s %10.1f us %8.0f GB/s\n%-34s %10.1f us %8.0f GB/s\n"
        "%-34s %10.1f us %8.0f GB/s\n%-34s %10.1f us %8.0f GB/s\n"
        "%-34s %10.2fx\n", n,
        "ours, auto (sum, squares, min, max)", us, n * 4 / us / 1e3,
        "ours, tree (the same)", tree_us, n * 4 / tree_us / 1e3,
        "CUB DeviceReduce::Sum", cub_us, n * 4 / cub_us / 1e3,
        "floor (reading them: half the copy)", copy_us / 2,
        n * 4 / (copy_us / 2) / 1e3, "CUB / ours (auto)", cub_us / us);
  }
  printf ("\nreduction by size (floats, us; ours: four statistics, CUB: the "
      "sum; floor: half the copy of the same bytes; ratio: CUB over auto)"
      "\n%10s %10s %10s %10s %10s %8s\n", "n", "auto", "tree", "CUB Sum",
      "floor", "ratio");
  for (size_t m = 1 << 10; m <= n; m <<= 1) {
    Job ours = { JOB_REDUCE, CF_SCAN_F32, in, out, ws, m, ws_bytes };
    Job tree = { JOB_TREE, CF_SCAN_F32, in, out, ws, m, ws_bytes };
    Job cub = { JOB_CUB_REDUCE, CF_SCAN_F32, in, out, ws, m, ws_bytes };
    Job copy = { JOB_COPY, CF_SCAN_F32, in, out, ws, m, 0 };
    double us = time_job (&ours), tree_us = time_job (&tree);
    double cub_us = time_job (&cub);
    printf ("%10zu %10.1f %10.1f %10.1f %10.1f %7.2fx\n", m, us, tree_us,
        cub_us, time_job (&copy) / 2, cub_us / us);
  }
  printf ("\nreduction per channel of interleaved samples (us; ours: four "
      "statistics a channel, CUB: DeviceReduce of each pixel widened to "
      "its channels' sums in double; ratio: CUB over auto)\n%-28s %10s %10s "
      "%10s %10s %8s\n", "case", "auto", "tree", "CUB", "floor", "ratio");
  {
    static const struct
    {
      const char *name;
      int ours, tree, cub;
      size_t items;
    } cases[] = {
      {"4K RGBA8, 4 channels", JOB_REDUCE_RGBA, JOB_TREE_RGBA, JOB_CUB_RGBA,
          RGBA_PIXELS},
      {"stereo f32, 2^23 frames", JOB_REDUCE_STEREO, JOB_TREE_STEREO,
          JOB_CUB_STEREO, STEREO_FRAMES},
    };
    for (size_t c = 0; c < sizeof (cases) / sizeof (cases[0]); c++) {
      Job ours = { cases[c].ours, CF_SCAN_F32, in, out, ws, cases[c].items,
        ws_bytes
      };
      Job tree = { cases[c].tree, CF_SCAN_F32, in, out, ws, cases[c].items,
        ws_bytes
      };
      Job cub = { cases[c].cub, CF_SCAN_F32, in, out, ws, cases[c].items,
        ws_bytes
      };
      /* a copy of the same bytes, counted in 4-byte words */
      Job copy = { JOB_COPY, CF_SCAN_F32, in, out, ws,
        cases[c].items * item_bytes (&ours) / 4, 0
      };
      double us = time_job (&ours), tree_us = time_job (&tree);
      double cub_us = time_job (&cub);
      printf ("%-28s %10.1f %10.1f %10.1f %10.1f %7.2fx%s\n", cases[c].name,
          us, tree_us, cub_us, time_job (&copy) / 2, cub_us / us,
          sums_agree (&ours, &cub) ? "" : "  (the sums differ: not timed "
          "alike)");
    }
  }
  cudaFree (in);
  cudaFree (out);
  cudaFree (ws);
  queued_timer_free (&timer);
  return 0;
}
