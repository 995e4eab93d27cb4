/* One call of one cudaprefixsum kernel on the sizes of the benchmarks'
 * headline rows, and nothing else on the GPU, so that Nsight Compute can
 * read that call's counters (DRAM throughput, instructions, occupancy,
 * stalls) with no launch to skip:
 *
 *   profile_prefixsum scan f32|u32 N      inclusive scan, algorithm auto
 *   profile_prefixsum reduce N|rgba|stereo
 *                                         sum, squares, min, max of N floats,
 *                                         a 4K RGBA8 frame or 2^23 stereo
 *                                         float frames, per channel
 *   profile_prefixsum integral squares|sums
 *                                         4K GRAY8 tables (sums, or both)
 *   profile_prefixsum box R [strip]       box means of R, G, B of 4K RGBA
 *                                         (strip: rows 320-703 of 1080p)
 *
 * Inputs are small positive values, not zeros; outputs are not checked
 * (the unit tests do that). Exits 1 if the call fails, 77 with no GPU. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boxmean.h"
#include "integral.h"
#include "reduce.h"
#include "scan.h"

/* Device memory of `bytes`, filled with a pattern of small values (as
 * bytes, which is a valid small float or u32 in every 4-byte word whose
 * top byte is kept below 0x3f). */
static void *
device_input (size_t bytes)
{
  unsigned char *h = malloc (bytes);
  void *d = NULL;

  if (!h || cudaMalloc (&d, bytes) != cudaSuccess) {
    printf ("cannot allocate %zu MB\n", bytes >> 20);
    exit (1);
  }
  for (size_t k = 0; k < bytes; k++)
    h[k] = (unsigned char) ((k * 2654435761u >> 13) & (k % 4 == 3 ? 0x3e
            : 0xff));
  cudaMemcpy (d, h, bytes, cudaMemcpyHostToDevice);
  free (h);
  return d;
}

static void *
device_zeros (size_t bytes)
{
  void *d = NULL;

  if (cudaMalloc (&d, bytes) != cudaSuccess
      || cudaMemset (d, 0, bytes) != cudaSuccess) {
    printf ("cannot allocate %zu MB\n", bytes >> 20);
    exit (1);
  }
  return d;
}

static int
scan (const char *type_name, size_t n)
{
  cf_scan_type type = strcmp (type_name, "u32") == 0 ? CF_SCAN_U32
      : CF_SCAN_F32;
  void *in = device_input (n * 4), *out = device_zeros (n * 4);
  void *ws = device_zeros (cf_scan_workspace_size (CF_SCAN_AUTO, type, n));

  return cf_scan_cuda (CF_SCAN_AUTO, type, 1, in, out, n, ws, NULL);
}

/* N floats of one channel; "rgba": a 4K RGBA8 frame, 4 channels;
 * "stereo": 2^23 frames of 2 floats (bench_scan's per-channel rows) */
static int
reduce (const char *what)
{
  cf_reduce_layout l = { CF_REDUCE_F32, 0, 1, 1, 0 };
  size_t bytes;
  void *in, *out, *ws;

  if (strcmp (what, "rgba") == 0) {
    l.type = CF_REDUCE_U8;
    l.width = 3840;
    l.rows = 2160;
    l.channels = 4;
    l.pitch = 3840 * 4;
  } else if (strcmp (what, "stereo") == 0) {
    l.width = 1 << 23;
    l.channels = 2;
    l.pitch = (size_t) l.width * 8;
  } else {
    l.width = (int) strtoull (what, NULL, 0);
    l.pitch = (size_t) l.width * 4;
  }
  bytes = l.pitch * l.rows;
  in = device_input (bytes);
  out = device_zeros (sizeof (cf_stats) * l.channels);
  ws = device_zeros (cf_reduce_workspace_size (&l));
  return cf_reduce_cuda (&l, in, out, ws, NULL);
}

/* the benchmark's headline rows: 4K GRAY8, rows packed (not padded) */
static int
integral (int squares)
{
  cf_integral_layout l = { 0 };
  size_t table;

  l.type = CF_INTEGRAL_U8;
  l.width = 3840;
  l.height = 2160;
  l.in_pitch = 3840;
  l.sum_pitch = 3841 * 4;
  l.squares_pitch = 3841 * 8;
  l.in_step = 1;
  table = l.sum_pitch * 2161;
  return cf_integral_cuda (&l, device_input (l.in_pitch * l.height),
      device_zeros (table), squares ? device_zeros (l.squares_pitch * 2161)
      : NULL, NULL);
}

static int
box (int radius, int strip)
{
  cf_integral_layout l = { 0 };
  cf_box_params p = { 0 };
  size_t bytes;

  l.type = CF_INTEGRAL_U8;
  l.width = strip ? 1920 : 3840;
  l.height = strip ? 1080 : 2160;
  l.in_pitch = (size_t) l.width * 4;
  l.sum_pitch = ((size_t) l.width + 1) * 4;
  l.in_step = 4;
  l.channels = 3;
  l.channel_stride = (l.sum_pitch * ((size_t) l.height + 1) + 7) / 8 * 8;
  p.radius = radius;
  p.out_pitch = l.in_pitch;
  p.out_step = 4;
  p.row_begin = strip ? 320 : 0;
  p.row_end = strip ? 704 : l.height;
  p.copy_others = 1;
  bytes = l.in_pitch * l.height;
  return cf_box_direct_cuda (&l, device_input (bytes), &p,
      device_zeros (bytes), NULL);
}

int
main (int argc, char **argv)
{
  int count = 0, st;

  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("SKIP profile-prefixsum: no CUDA device\n");
    return 77;
  }
  if (argc == 4 && strcmp (argv[1], "scan") == 0)
    st = scan (argv[2], strtoull (argv[3], NULL, 0));
  else if (argc == 3 && strcmp (argv[1], "reduce") == 0)
    st = reduce (argv[2]);
  else if (argc == 3 && strcmp (argv[1], "integral") == 0)
    st = integral (strcmp (argv[2], "squares") == 0);
  else if ((argc == 3 || argc == 4) && strcmp (argv[1], "box") == 0)
    st = box (atoi (argv[2]), argc == 4 && strcmp (argv[3], "strip") == 0);
  else {
    fprintf (stderr, "usage: profile_prefixsum scan f32|u32 N | reduce N|rgba|stereo | "
        "integral sums|squares | box R [strip]\n");
    return 2;
  }
  if (st != 0 || cudaDeviceSynchronize () != cudaSuccess) {
    printf ("the call failed (%d): %s\n", st,
        cudaGetErrorString (cudaGetLastError ()));
    return 1;
  }
  printf ("done\n");
  return 0;
}
