/* Kernel benchmark of the 1D convolution: 8 channels x 48000 frames (one
 * second at 48 kHz) through every direct variant and the partitioned FFT
 * path, for masks of 64, 1024, 16384 and 262144 taps; the crossover between
 * the direct and the FFT path; and the streaming cost of one 1024-frame
 * buffer, the element's unit of work.
 *
 *   bench_conv1d [--quick]
 *
 * Times are medians of CUDA-event timings after a warm-up; the real-time
 * factor is one second of audio over the time. Exits 77 without a GPU. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv1d.h"
#include "fir.h"

#define CHANNELS 8
#define FRAMES 48000
#define BUFFER 1024

static int reps = 20;

static void
check (int status, const char *what)
{
  if (status != CF_OK) {
    printf ("%s failed: %s\n", what, cf_status_name (status));
    exit (1);
  }
}

static int
compare (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return (x > y) - (x < y);
}

static float
median (float *v, int n)
{
  qsort (v, n, sizeof (float), compare);
  return v[n / 2];
}

static float
percentile (float *v, int n, double p)
{
  qsort (v, n, sizeof (float), compare);
  return v[(int) (p * (n - 1))];
}

typedef struct
{
  float *h;                     /* host taps */
  float *d_x, *d_y;             /* device: history + frames, per channel */
  size_t x_pitch, y_pitch;
  cudaStream_t stream;
  cudaEvent_t start, stop;
} Bench;

/* Median µs of one direct launch over the whole second. */
static float
time_direct (Bench * b, cf_conv1d_algorithm a, int taps)
{
  cf_conv1d_mask m = { taps, 1, b->h, NULL };
  float ms[64];

  for (int r = -2; r < reps; r++) {
    cudaEventRecord (b->start, b->stream);
    check (cf_conv1d_cuda (a, &m, CHANNELS, b->d_x, b->x_pitch, b->d_y,
            b->y_pitch, FRAMES, (cf_stream) b->stream), "direct");
    cudaEventRecord (b->stop, b->stream);
    check (cudaEventSynchronize (b->stop), "sync");
    if (r >= 0)
      cudaEventElapsedTime (&ms[r], b->start, b->stop);
  }
  return median (ms, reps) * 1000.0f;
}

/* Median µs of the FFT path over the whole second, in one call (fresh
 * history each time). */
static float
time_fft (Bench * b, int taps, int block)
{
  cf_fir_config cfg = { CHANNELS, {taps, 1, b->h, NULL}, CF_FIR_FFT,
    CF_CONV1D_FAST, block, FRAMES, 1, (cf_stream) b->stream, 0
  };
  cf_fir *fir;
  float ms[64];

  check (cf_fir_new (&fir, &cfg), "fft filter");
  for (int r = -2; r < reps; r++) {
    check (cf_fir_reset (fir), "reset");
    cudaEventRecord (b->start, b->stream);
    check (cf_fir_process (fir, b->d_x, b->x_pitch, b->d_y, b->y_pitch,
            FRAMES), "fft");
    cudaEventRecord (b->stop, b->stream);
    check (cudaEventSynchronize (b->stop), "sync");
    if (r >= 0)
      cudaEventElapsedTime (&ms[r], b->start, b->stop);
  }
  cf_fir_free (fir);
  return median (ms, reps) * 1000.0f;
}

/* One 1024-frame buffer when a stream goes through the filter in buffers
 * (200 buffers): µs until its output is ready (median, 99th percentile). */
static void
time_stream (Bench * b, int taps, cf_fir_path path, float *med, float *p99)
{
  cf_fir_config cfg = { CHANNELS, {taps, 1, b->h, NULL}, path, CF_CONV1D_FAST,
    0, BUFFER, 1, (cf_stream) b->stream, 0
  };
  enum { N = 200 };
  float ms[N];
  cf_fir *fir;

  cfg.block = path == CF_FIR_FFT ? cf_fir_pick_block (&cfg.mask, BUFFER) : 0;
  check (cf_fir_new (&fir, &cfg), "stream filter");
  for (int r = -20; r < N; r++) {
    cudaEventRecord (b->start, b->stream);
    check (cf_fir_process (fir, b->d_x, b->x_pitch, b->d_y, b->y_pitch,
            BUFFER), "stream");
    cudaEventRecord (b->stop, b->stream);
    check (cudaEventSynchronize (b->stop), "sync");
    if (r >= 0)
      cudaEventElapsedTime (&ms[r], b->start, b->stop);
  }
  cf_fir_free (fir);
  *p99 = percentile (ms, N, 0.99) * 1000.0f;
  *med = median (ms, N) * 1000.0f;
}

int
main (int argc, char **argv)
{
  static const int long_taps[] = { 64, 1024, 16384, 262144 };
  static const int cross_taps[] = { 16, 32, 64, 128, 256, 512, 1024, 2048,
    4096
  };
  static const int blocks[] = { 256, 1024, 4096 };
  static const cf_conv1d_algorithm direct[] = { CF_CONV1D_BASIC,
    CF_CONV1D_TILED, CF_CONV1D_CACHED, CF_CONV1D_FAST
  };
  int count = 0, max_taps = 262144;
  Bench b;
  float *h_x;
  struct cudaDeviceProp prop;
  float best_fft[4] = { 0 }, fast_us[4] = { 0 };

  /* --stream TAPS: the streamed buffers alone, for a profiler */
  int stream_taps = argc > 2 && strcmp (argv[1], "--stream") == 0
      ? atoi (argv[2]) : 0;
  if (argc > 1 && strcmp (argv[1], "--quick") == 0)
    reps = 7;
  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("SKIP bench-conv1d: no CUDA device\n");
    return 77;
  }
  cudaGetDeviceProperties (&prop, 0);
  printf ("%s, %d SMs; %d channels x %d frames (1 s at 48 kHz), median of "
      "%d\n", prop.name, prop.multiProcessorCount, CHANNELS, FRAMES, reps);

  b.x_pitch = max_taps - 1 + FRAMES;
  b.y_pitch = FRAMES;
  h_x = malloc (sizeof (float) * CHANNELS * b.x_pitch);
  b.h = malloc (sizeof (float) * max_taps);
  srand (7);
  for (size_t k = 0; k < CHANNELS * b.x_pitch; k++)
    h_x[k] = (float) rand () / RAND_MAX - 0.5f;
  for (int k = 0; k < max_taps; k++)
    b.h[k] = ((float) rand () / RAND_MAX - 0.5f) * 0.01f;
  check (cudaMalloc ((void **) &b.d_x, sizeof (float) * CHANNELS * b.x_pitch),
      "alloc");
  check (cudaMalloc ((void **) &b.d_y, sizeof (float) * CHANNELS * b.y_pitch),
      "alloc");
  check (cudaMemcpy (b.d_x, h_x, sizeof (float) * CHANNELS * b.x_pitch,
          cudaMemcpyHostToDevice), "upload");
  cudaStreamCreate (&b.stream);
  cudaEventCreate (&b.start);
  cudaEventCreate (&b.stop);

  if (stream_taps > 0) {
    float med, p99;
    time_stream (&b, stream_taps, CF_FIR_FFT, &med, &p99);
    printf ("%d taps, 1024-frame buffers: output %.1f us (p99 %.1f)\n",
        stream_taps, med, p99);
    return 0;
  }
  printf ("\n%8s %-10s %6s %10s %10s\n", "taps", "path", "block", "us",
      "x realtime");
  for (int t = 0; t < 4; t++) {
    int taps = long_taps[t];
    if (taps <= CF_CONV1D_MAX_DIRECT_TAPS)
      for (int v = 0; v < 4; v++) {
        float us = time_direct (&b, direct[v], taps);
        if (direct[v] == CF_CONV1D_FAST)
          fast_us[t] = us;
        printf ("%8d %-10s %6s %10.1f %10.0f\n", taps,
            cf_conv1d_algorithm_name (direct[v]), "-", us, 1e6 / us);
      }
    for (int k = 0; k < 3; k++) {
      float us = time_fft (&b, taps, blocks[k]);
      if (!best_fft[t] || us < best_fft[t])
        best_fft[t] = us;
      printf ("%8d %-10s %6d %10.1f %10.0f\n", taps, "fft", blocks[k], us,
          1e6 / us);
    }
  }

  printf ("\ncrossover (1 s, 8 ch): direct fast against the FFT path at "
      "its best block\n%8s %10s %10s\n", "taps", "direct us", "fft us");
  for (size_t t = 0; t < sizeof (cross_taps) / sizeof (cross_taps[0]); t++) {
    float d = time_direct (&b, CF_CONV1D_FAST, cross_taps[t]), f = 0;
    for (int k = 0; k < 3; k++) {
      float us = time_fft (&b, cross_taps[t], blocks[k]);
      if (!f || us < f)
        f = us;
    }
    printf ("%8d %10.1f %10.1f %s\n", cross_taps[t], d, f,
        d <= f ? "direct" : "fft");
  }

  printf ("\nconv1d kernel summary (8 ch x 1 s at 48 kHz)\n");
  printf ("%8s %12s %12s %12s %14s\n", "taps", "direct us", "fft us",
      "best x rt", "1024 out us");
  for (int t = 0; t < 4; t++) {
    float med, p99, best = fast_us[t] && fast_us[t] < best_fft[t]
        ? fast_us[t] : best_fft[t];
    char direct_us[16] = "-";
    time_stream (&b, long_taps[t], long_taps[t]
        <= 256 ? CF_FIR_DIRECT : CF_FIR_FFT, &med, &p99);
    if (fast_us[t])
      snprintf (direct_us, sizeof (direct_us), "%.1f", fast_us[t]);
    printf ("%8d %12s %12.1f %12.0f %8.1f/%5.1f\n", long_taps[t],
        direct_us, best_fft[t], 1e6 / best, med, p99);
  }
  printf ("(1024 out: one 1024-frame buffer streamed, until its output is "
      "ready, median/99th percentile)\n");
  return 0;
}
