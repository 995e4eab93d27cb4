/* Reductions against a reference written here (long double sums, exact
 * minimum and maximum) on random images and audio buffers: every sample
 * type, 1 to 8 channels, odd widths and heights, rows padded with values
 * that must not count, buffers of 1, 2 and 4 channels with pixels left
 * over past the last 16-byte vector; outputs poisoned first. On the GPU,
 * every case through each variant (auto, tree).
 *
 *   test_reduce cpu|cuda */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce.h"
#include "test_gpu.h"
#include "test_util.h"

/* A random sample of `type` over its range (floats: mixed magnitudes);
 * stored at p, returned as a value. */
static long double
put_random (cf_reduce_type type, uint8_t * p)
{
  switch (type) {
    case CF_REDUCE_U8:
      *p = (uint8_t) test_rand ();
      return *p;
    case CF_REDUCE_U16:
      *(uint16_t *) p = (uint16_t) test_rand ();
      return *(uint16_t *) p;
    case CF_REDUCE_S16:
      *(int16_t *) p = (int16_t) test_rand ();
      return *(int16_t *) p;
    case CF_REDUCE_S32:
      *(int32_t *) p = (int32_t) test_rand ();
      return *(int32_t *) p;
    case CF_REDUCE_F32:
      *(float *) p = (float) (test_rand_range (-1, 1)
          * pow (10.0, test_rand_int (5) - 2));
      return *(float *) p;
    default:
      *(double *) p = test_rand_range (-1, 1) * pow (10.0,
          test_rand_int (5) - 2);
      return *(double *) p;
  }
}

typedef struct
{
  long double sum, squares, size;
  double min, max;
} Ref;

/* cuda: the CUDA variant `algorithm` on `stream`; else the CPU twin */
static void
check_case (int cuda, cf_reduce_algorithm algorithm, cf_stream stream,
    cf_reduce_type type, int width, int rows, int channels, int pad)
{
  size_t size = cf_reduce_type_size (type);
  size_t pitch = ((size_t) width * channels + pad) * size;
  size_t bytes = pitch * rows;
  uint8_t *data = malloc (bytes);
  cf_reduce_layout l = { type, width, rows, channels, pitch };
  cf_stats *out = malloc (sizeof (cf_stats) * channels);
  Ref *ref = calloc (channels, sizeof (Ref));
  char what[128];
  int st, bad = 0;

  snprintf (what, sizeof (what), "%s %s %dx%d x %d channels, pad %d",
      cuda ? cf_reduce_algorithm_name (algorithm) : "cpu",
      cf_reduce_type_name (type), width, rows, channels, pad);
  for (int c = 0; c < channels; c++) {
    ref[c].min = INFINITY;
    ref[c].max = -INFINITY;
  }
  /* the padding gets large values: counted, they show */
  memset (data, 0x7F, bytes);
  for (int y = 0; y < rows; y++)
    for (int x = 0; x < width; x++)
      for (int c = 0; c < channels; c++) {
        long double v = put_random (type, data + y * pitch
            + ((size_t) x * channels + c) * size);
        ref[c].sum += v;
        ref[c].squares += v * v;
        ref[c].size += v * v > fabsl (v) ? v * v : fabsl (v);
        ref[c].min = fmin (ref[c].min, (double) v);
        ref[c].max = fmax (ref[c].max, (double) v);
      }
  for (int c = 0; c < channels; c++)
    out[c].sum = out[c].sum_squares = out[c].min = out[c].max = NAN;

  if (cuda) {
    void *d_data = NULL, *d_out = NULL, *ws = NULL;
    size_t ws_bytes = cf_reduce_workspace_size (&l);
    st = cf_gpu_malloc (&d_data, bytes);
    if (st == CF_OK)
      st = cf_gpu_malloc (&d_out, sizeof (cf_stats) * channels);
    if (st == CF_OK)
      st = cf_gpu_malloc (&ws, ws_bytes);
    if (st == CF_OK)
      st = cf_gpu_memset (d_out, 0xFF, sizeof (cf_stats) * channels, stream);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (d_data, bytes, data, bytes, bytes, 1,
          CF_COPY_HOST_TO_DEVICE, stream);
    if (st == CF_OK)
      st = cf_reduce_cuda_variant (algorithm, &l, d_data, d_out, ws, stream);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (out, sizeof (cf_stats) * channels, d_out,
          sizeof (cf_stats) * channels, sizeof (cf_stats) * channels, 1,
          CF_COPY_DEVICE_TO_HOST, stream);
    if (st == CF_OK)
      st = cf_gpu_stream_sync (stream);
    cf_gpu_free (d_data);
    cf_gpu_free (d_out);
    cf_gpu_free (ws);
  } else {
    st = cf_reduce_cpu (&l, data, out);
  }
  if (test_check (st == CF_OK, "%s: %s", what, cf_status_name (st))) {
    for (int c = 0; c < channels; c++) {
      /* double sums taken in runs (reduce.h): a few thousand roundings of
       * 2^-53 at most, of the terms' total size */
      double items = (double) width * rows;
      double slack = 0x1p-53 * (double) ref[c].size * (4096 + items / 4096
          + 64) + 1e-300;
      if (!(fabs (out[c].sum - (double) ref[c].sum) <= slack
              && fabs (out[c].sum_squares - (double) ref[c].squares) <= slack
              && out[c].min == ref[c].min && out[c].max == ref[c].max)
          && !bad++)
        test_check (0, "%s: channel %d: sum %.17g (%.17Lg), squares %.17g "
            "(%.17Lg), min %.17g (%.17g), max %.17g (%.17g)", what, c,
            out[c].sum, ref[c].sum, out[c].sum_squares, ref[c].squares,
            out[c].min, ref[c].min, out[c].max, ref[c].max);
    }
    if (!bad)
      test_check (1, "");
  }
  free (data);
  free (out);
  free (ref);
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "cpu";
  int cuda = strcmp (mode, "cuda") == 0;
  cf_stream stream = NULL;
  /* width, rows, channels, padding in samples */
  static const int cases[][4] = {
    {1, 1, 1, 0}, {7, 3, 1, 5}, {640, 480, 1, 0}, {1921, 1081, 1, 13},
    {3840, 2160, 4, 0}, {333, 17, 3, 2}, {4096, 1, 8, 0}, {48000, 1, 2, 0},
    {1024, 1, 6, 0}, {100003, 1, 1, 0}, {37, 1000, 4, 3},
    /* one channel without padding: floats read 16 bytes at a time, the
     * last 1 to 3 apart; and enough that every block loops */
    {6, 1, 1, 0}, {4194307, 1, 1, 0}, {1023, 4097, 1, 0},
    /* a channel's last size for one block (which then writes the
     * statistics itself), and the first for two */
    {4096, 1, 1, 0}, {4096, 1, 3, 0}, {4097, 1, 1, 0}, {4097, 1, 2, 0},
    {2048, 2, 1, 0},
    /* 2 and 4 channels read as 16-byte vectors of whole pixels or frames,
     * with whole pixels left over (or none), and enough that every block
     * loops */
    {1, 1, 4, 0}, {3, 1, 2, 0}, {4097, 1, 4, 0}, {48001, 1, 2, 0},
    {1921, 1081, 4, 0}, {2097155, 1, 2, 0},
  };
  cf_reduce_layout bad = { CF_REDUCE_U8, 0, 1, 1, 0 };
  char name[32];

  snprintf (name, sizeof (name), "reduce-%s", mode);
  if (cuda) {
    int status = test_gpu_start (name, &stream);
    if (status >= 0)
      return status;
  }
  test_seed_from_env (name);
  test_check (cf_reduce_cpu (&bad, &bad, NULL) == CF_ERR_INVALID,
      "an empty layout accepted");
  for (int a = 0; a < (cuda ? CF_REDUCE_N_ALGORITHMS : 1); a++)
    for (int t = 0; t < CF_REDUCE_N_TYPES; t++)
      for (size_t k = 0; k < sizeof (cases) / sizeof (cases[0]); k++)
        check_case (cuda, a, stream, t, cases[k][0], cases[k][1],
            cases[k][2], cases[k][3]);
  if (cuda) {
    /* a good layout, pointers that are not looked at: only the algorithm
     * is wrong */
    cf_reduce_layout one = { CF_REDUCE_U8, 1, 1, 1, 1 };
    cf_stats unused;
    test_check (cf_reduce_cuda_variant (CF_REDUCE_N_ALGORITHMS, &one, &one,
            &unused, &unused, stream) == CF_ERR_INVALID,
        "an unknown algorithm accepted");
  }
  if (cuda)
    cf_gpu_stream_destroy (stream);
  return test_finish (name);
}
