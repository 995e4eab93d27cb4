/* Scan benchmark: every variant on 2^28 elements (f32 and u32, inclusive),
 * against CUB's DeviceScan::InclusiveSum in the same run, and the floor of
 * the device: a device-to-device copy of the same bytes (a scan reads and
 * writes each element once at best); every variant at 2^10 to 2^28 floats;
 * and the reduction (sum, sum of squares, min and max at once) of 2^28
 * floats against CUB's DeviceReduce::Sum. Device time of each call
 * (queued_timer.h: calls queued back to back, events around each), after
 * warm-up, median of 20; below 150 MB of input and output the calls
 * rotate over as many arrays as that takes, so that the 50 MB L2 does not
 * hold them. Throughput counts the bytes read and written.
 *
 *   bench_scan [--quick]     (--quick: 2^24 elements, median of 5) */
#include <cuda_runtime.h>
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

typedef struct
{
  cf_scan_algorithm algorithm;  /* CF_SCAN_N_ALGORITHMS: CUB; +1: copy;
                                 * +2: our reduction; +3: CUB's */
  cf_scan_type type;
  void *in, *out, *ws;           /* arrays of `capacity` elements */
  size_t n, ws_bytes;
} Job;

/* Input + output bytes the rotation moves at least, and the arrays'
 * length in elements (set in main). */
#define ROTATE_TARGET 150e6
static size_t capacity;
static QueuedTimer timer;
static int gated = 1;

/* Call on the set-th stretch of n elements of the arrays. */
static int
run_job (void *ctx, int set)
{
  const Job *j = ctx;
  size_t offset = (size_t) set * j->n * 4;
  void *in = (char *) j->in + offset, *out = (char *) j->out + offset;
  cudaStream_t s = timer.stream;

  if (j->algorithm == CF_SCAN_N_ALGORITHMS) {
    size_t bytes = j->ws_bytes;
    return cub_inclusive_sum (j->type == CF_SCAN_F32 ? 0 : 1, in, out,
        j->n, j->ws, &bytes, s);
  }
  if (j->algorithm == CF_SCAN_N_ALGORITHMS + 1)
    return (int) cudaMemcpyAsync (out, in, j->n * 4,
        cudaMemcpyDeviceToDevice, s);
  if (j->algorithm == CF_SCAN_N_ALGORITHMS + 2) {
    cf_reduce_layout l = { CF_REDUCE_F32, (int) j->n, 1, 1, j->n * 4 };
    return cf_reduce_cuda (&l, in, out, j->ws, (cf_stream) s);
  }
  if (j->algorithm == CF_SCAN_N_ALGORITHMS + 3) {
    size_t bytes = j->ws_bytes;
    return cub_reduce_sum (in, out, j->n, j->ws, &bytes, s);
  }
  return cf_scan_cuda (j->algorithm, j->type, 1, in, out, j->n, j->ws,
      (cf_stream) s);
}

/* Median device time of one call, in µs; negative on failure. */
static double
time_job (const Job * j)
{
  size_t sets = (size_t) (ROTATE_TARGET / (8.0 * j->n)) + 1;
  double us;

  if (sets > capacity / j->n)
    sets = capacity / j->n;
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
  int quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  size_t n = quick ? (size_t) 1 << 24 : (size_t) 1 << 28;
  int runs = quick ? 5 : 20, count = 0;
  static const cf_scan_type types[] = { CF_SCAN_F32, CF_SCAN_U32 };
  struct cudaDeviceProp prop;
  size_t cub_bytes = 0, ws_bytes = 0;
  void *in, *out, *ws;
  double copy_us;

  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("SKIP bench-scan: no CUDA device\n");
    return 77;
  }
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
    size_t r = cf_reduce_workspace_size (&l), c = 0;
    cub_reduce_sum (NULL, NULL, n, NULL, &c, 0);
    ws_bytes = r > ws_bytes ? r : ws_bytes;
    ws_bytes = c > ws_bytes ? c : ws_bytes;
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
    Job copy = { CF_SCAN_N_ALGORITHMS + 1, CF_SCAN_F32, in, out, ws, n, 0 };
    copy_us = time_job (&copy);
  }
  printf ("%s, %d SMs; %zu elements (%zu MB in, %zu MB out), median of %d\n"
      "floor: device-to-device copy of the same bytes, %.1f us = %.0f GB/s\n\n",
      prop.name, prop.multiProcessorCount, n, (n * 4) >> 20, (n * 4) >> 20,
      runs, copy_us, 2.0 * n * 4 / copy_us / 1e3);
  printf ("scan summary (inclusive; GB/s = bytes read + written / time)\n");
  printf ("%-5s %-12s %10s %8s %10s\n", "type", "variant", "us", "GB/s",
      "vs CUB");
  for (size_t t = 0; t < sizeof (types) / sizeof (types[0]); t++) {
    Job cub = { CF_SCAN_N_ALGORITHMS, types[t], in, out, ws, n, ws_bytes };
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
  printf ("\nscan by size (f32 inclusive, us)\n%10s", "n");
  for (int a = 0; a < CF_SCAN_N_ALGORITHMS; a++)
    printf (" %12s", cf_scan_algorithm_name (a));
  printf (" %12s %12s %12s\n", "CUB", "auto alone", "CUB alone");
  for (size_t m = 1 << 10; m <= n; m <<= 1) {
    Job cub = { CF_SCAN_N_ALGORITHMS, CF_SCAN_F32, in, out, ws, m, ws_bytes };
    printf ("%10zu", m);
    for (int a = 0; a < CF_SCAN_N_ALGORITHMS; a++) {
      Job j = { a, CF_SCAN_F32, in, out, ws, m, ws_bytes };
      printf (" %12.1f", time_job (&j));
    }
    {
      Job a = { CF_SCAN_AUTO, CF_SCAN_F32, in, out, ws, m, ws_bytes };
      printf (" %12.1f %12.1f %12.1f\n", time_job (&cub), time_alone (&a),
          time_alone (&cub));
    }
  }

  /* the reduction: reads once, four statistics at once */
  {
    Job ours = { CF_SCAN_N_ALGORITHMS + 2, CF_SCAN_F32, in, out, ws, n,
      ws_bytes
    };
    Job cub = { CF_SCAN_N_ALGORITHMS + 3, CF_SCAN_F32, in, out, ws, n,
      ws_bytes
    };
    double us = time_job (&ours), cub_us = time_job (&cub);
    printf ("\nreduction summary (%zu floats read once; GB/s of reads)\n"
        "%-34s %10.1f us %8.0f GB/s\n%-34s %10.1f us %8.0f GB/s\n"
        "%-34s %10.2fx\n", n, "ours (sum, squares, min, max)", us,
        n * 4 / us / 1e3, "CUB DeviceReduce::Sum", cub_us,
        n * 4 / cub_us / 1e3, "CUB / ours", cub_us / us);
  }
  cudaFree (in);
  cudaFree (out);
  cudaFree (ws);
  queued_timer_free (&timer);
  return 0;
}
