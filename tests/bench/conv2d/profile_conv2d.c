/* Launches every conv2d variant exactly once per case, on 1080p RGBA with
 * square masks of 3, 5, 9 and 15 taps, so that a profiler reading hardware
 * counters (global load bytes per kernel) can measure how much each tiling
 * saves. Prints one line per launch, in launch order, with the load bytes
 * per output pixel the tiling formulas predict:
 *
 *   basic   K^2 pixels per output pixel
 *   tiled   (32^2 / (33 - K)^2): the 32x32 input tile per (33-K)^2 outputs
 *   cached  1 own pixel + the halo taps that fall outside the 32x16 tile
 *   fast    (128 + K - 1)(16 + K - 1) / (128 x 16)
 *
 * tests/gpu/tiling_report.py joins these lines with the profiler's CSV.
 *
 * With --one, a single launch of one variant on a 4K plane, for reading a
 * kernel's counters (DRAM throughput, stalls, occupancy) in Nsight Compute:
 * FORMAT is rgba or gray8; a separable variant gets a Gaussian-like rank-1
 * mask, the others a mask of rank > 1: of small integer taps (which the
 * fast variant sums in integers), or with MASK `float`, of fractional taps
 * (summed in float).
 *
 *   profile_conv2d [WIDTH HEIGHT]     (default 1920 1080)
 *   profile_conv2d --one FORMAT K VARIANT [integer|float] */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d.h"


static int
check (int status, const char *what)
{
  if (status != CF_OK) {
    printf ("%s failed: %s\n", what, cf_status_name (status));
    exit (1);
  }
  return 0;
}

/* Pixels the cached variant reads from global memory per output pixel:
 * its own, plus the taps outside the 32x16 block, averaged over a block. */
static double
cached_pixels (int k)
{
  int r = k / 2;
  double outside = 0;
  for (int ty = 0; ty < 16; ty++)
    for (int tx = 0; tx < 32; tx++)
      for (int j = -r; j <= r; j++)
        for (int i = -r; i <= r; i++)
          outside += (tx + i < 0 || tx + i >= 32 || ty + j < 0
              || ty + j >= 16);
  return 1.0 + outside / (32 * 16);
}

static int
profile_one (const char *format, int k, const char *variant,
    const char *mask)
{
  int gray = strcmp (format, "gray8") == 0, a;
  cf_plane_format f = { 3840, 2160, gray ? 1 : 4, CF_SAMPLE_U8, gray ? -1 : 3 };
  size_t pitch = (size_t) f.width * f.channels, bytes = pitch * f.height;
  float taps[CF_CONV2D_MAX_TAPS];
  cf_conv2d_mask m = { .width = k, .height = k,
    .taps = taps, .divisor = 1.0, .offset = 0.0, .border = CF_BORDER_CLAMP };
  cf_conv2d_plan plan;
  unsigned char *d_in, *d_out;

  for (a = 0; a < CF_CONV2D_N_ALGORITHMS; a++)
    if (strcmp (cf_conv2d_algorithm_name (a), variant) == 0)
      break;
  if (a == CF_CONV2D_N_ALGORITHMS || k < 1 || k > CF_CONV2D_MAX_SIZE
      || k % 2 == 0 || (!gray && strcmp (format, "rgba") != 0)
      || (strcmp (mask, "integer") != 0 && strcmp (mask, "float") != 0)) {
    printf ("usage: profile_conv2d --one rgba|gray8 K VARIANT "
        "[integer|float]\n");
    return 2;
  }
  for (int t = 0; t < k * k; t++)
    taps[t] = a == CF_CONV2D_SEPARABLE
        ? (float) ((t / k + 1) * (t % k + 1)) : (float) ((t * 7) % 5) - 2.0f;
  m.divisor = k * k;
  /* a third off every tap: no longer integers, so summed in float */
  if (strcmp (mask, "float") == 0)
    for (int t = 0; t < k * k; t++)
      taps[t] += 1.0f / 3.0f;
  check (cf_conv2d_plan_init (&plan, &m), "plan");
  check (cudaMalloc ((void **) &d_in, bytes), "cudaMalloc");
  check (cudaMalloc ((void **) &d_out, bytes), "cudaMalloc");
  check (cudaMemset (d_in, 0x5a, bytes), "memset");
  check (cf_conv2d_cuda (a, &plan, &f, d_in, pitch, d_out, pitch, 0,
          f.height, NULL), variant);
  check (cudaDeviceSynchronize (), "kernel");
  printf ("%s 4K %s %dx%d %s mask: one launch\n", variant, format, k, k,
      mask);
  cudaFree (d_in);
  cudaFree (d_out);
  return 0;
}

int
main (int argc, char **argv)
{
  if ((argc == 5 || argc == 6) && strcmp (argv[1], "--one") == 0)
    return profile_one (argv[2], atoi (argv[3]), argv[4],
        argc == 6 ? argv[5] : "integer");
  int W = argc > 2 ? atoi (argv[1]) : 1920, H = argc > 2 ? atoi (argv[2]) : 1080;
  static const int sizes[] = { 3, 5, 9, 15 };
  static const cf_conv2d_algorithm variants[] = { CF_CONV2D_BASIC,
    CF_CONV2D_TILED, CF_CONV2D_CACHED, CF_CONV2D_FAST
  };
  cf_plane_format f = { W, H, 4, CF_SAMPLE_U8, 3 };
  size_t bytes;
  unsigned char *h, *d_in, *d_out;
  int count = 0, index = 0;

  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("SKIP profile-conv2d: no CUDA device\n");
    return 77;
  }
  if (W < 1 || H < 1) {
    printf ("usage: profile_conv2d [WIDTH HEIGHT]\n");
    return 2;
  }
  f.width = W;
  f.height = H;
  bytes = (size_t) W * H * 4;
  h = malloc (bytes);
  for (size_t k = 0; k < bytes; k++)
    h[k] = (unsigned char) (k * 2654435761u >> 13);
  check (cudaMalloc ((void **) &d_in, bytes), "cudaMalloc");
  check (cudaMalloc ((void **) &d_out, bytes), "cudaMalloc");
  check (cudaMemcpy (d_in, h, bytes, cudaMemcpyHostToDevice), "upload");

  printf ("launch,variant,k,predicted_pixels_per_output\n");
  for (size_t s = 0; s < sizeof (sizes) / sizeof (sizes[0]); s++) {
    int k = sizes[s];
    float taps[CF_CONV2D_MAX_TAPS];
    cf_conv2d_mask m = { .width = k, .height = k,
    .taps = taps, .divisor = 1.0, .offset = 0.0, .border = CF_BORDER_CLAMP };
    cf_conv2d_plan plan;
    double predicted[4];

    /* a mask of rank > 1, so that no variant takes a shortcut */
    for (int t = 0; t < k * k; t++)
      taps[t] = (float) ((t * 7) % 5) - 2.0f;
    m.divisor = k * k;
    check (cf_conv2d_plan_init (&plan, &m), "plan");
    predicted[0] = (double) k * k;
    predicted[1] = 32.0 * 32.0 / ((33.0 - k) * (33.0 - k));
    predicted[2] = cached_pixels (k);
    predicted[3] = (128.0 + k - 1) * (16.0 + k - 1) / (128.0 * 16.0);
    for (int v = 0; v < 4; v++) {
      check (cf_conv2d_cuda (variants[v], &plan, &f, d_in, W * 4, d_out,
              W * 4, 0, H, NULL), cf_conv2d_algorithm_name (variants[v]));
      check (cudaDeviceSynchronize (), "kernel");
      printf ("%d,%s,%d,%.3f\n", index++, cf_conv2d_algorithm_name
          (variants[v]), k, predicted[v]);
    }
  }
  cudaFree (d_in);
  cudaFree (d_out);
  free (h);
  return 0;
}
