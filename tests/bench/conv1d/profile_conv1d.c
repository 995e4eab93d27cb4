/* Launches every direct conv1d variant exactly once per case, on 8
 * channels x 48000 frames with masks of 3 to 513 taps, so that a profiler
 * reading hardware counters (global load bytes per kernel) can measure how
 * much each tiling saves. Prints one line per launch, in launch order,
 * with the samples loaded per output that each tiling predicts:
 *
 *   basic   taps: every output reads its taps samples
 *   tiled   (256 + taps - 1) / 256: one load of the block's input and halo
 *   cached  1 own sample + the taps that reach before the block's 256
 *   fast    (2048 + taps - 1) / 2048
 *
 * The reduction basic / tiled is Mask_Width x TILE / (TILE + Mask_Width - 1).
 * tests/gpu/tiling_report.py joins these lines with the profiler's CSV.
 *
 *   profile_conv1d */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "conv1d.h"

#define CHANNELS 8
#define FRAMES 48000
#define MAX_TAPS 513

static void
check (int status, const char *what)
{
  if (status != CF_OK) {
    printf ("%s failed: %s\n", what, cf_status_name (status));
    exit (1);
  }
}

/* Samples the cached variant loads per output: its own, plus the taps that
 * reach before its block of 256, averaged over a block. */
static double
cached_samples (int taps)
{
  double outside = 0;
  for (int i = 0; i < 256; i++)
    outside += taps - 1 - i > 0 ? taps - 1 - i : 0;
  return 1.0 + outside / 256;
}

int
main (void)
{
  static const int sizes[] = { 3, 9, 33, 129, 513 };
  static const cf_conv1d_algorithm variants[] = { CF_CONV1D_BASIC,
    CF_CONV1D_TILED, CF_CONV1D_CACHED, CF_CONV1D_FAST
  };
  size_t pitch = FRAMES + MAX_TAPS - 1;
  size_t bytes = sizeof (float) * CHANNELS * pitch;
  float *h = malloc (bytes), taps[MAX_TAPS], *d_x, *d_y;
  int count = 0, index = 0;

  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("SKIP profile-conv1d: no CUDA device\n");
    return 77;
  }
  for (size_t k = 0; k < CHANNELS * pitch; k++)
    h[k] = (float) ((k * 2654435761u >> 13) % 1000) / 500.0f - 1.0f;
  for (int k = 0; k < MAX_TAPS; k++)
    taps[k] = (float) ((k * 7) % 5) - 2.0f;
  check (cudaMalloc ((void **) &d_x, bytes), "cudaMalloc");
  check (cudaMalloc ((void **) &d_y, bytes), "cudaMalloc");
  check (cudaMemcpy (d_x, h, bytes, cudaMemcpyHostToDevice), "upload");

  printf ("launch,variant,k,predicted_pixels_per_output\n");
  for (size_t s = 0; s < sizeof (sizes) / sizeof (sizes[0]); s++) {
    int n = sizes[s];
    cf_conv1d_mask m = { n, 1, taps, NULL };
    double predicted[4] = { n, (256.0 + n - 1) / 256, cached_samples (n),
      (2048.0 + n - 1) / 2048
    };
    for (int v = 0; v < 4; v++) {
      /* the history of each channel starts taps - 1 frames early */
      check (cf_conv1d_cuda (variants[v], &m, CHANNELS,
              d_x + MAX_TAPS - n, pitch, d_y, pitch, FRAMES, NULL),
          cf_conv1d_algorithm_name (variants[v]));
      check (cudaDeviceSynchronize (), "kernel");
      printf ("%d,%s,%d,%.3f\n", index++,
          cf_conv1d_algorithm_name (variants[v]), n, predicted[v]);
    }
  }
  cudaFree (d_x);
  cudaFree (d_y);
  free (h);
  return 0;
}
