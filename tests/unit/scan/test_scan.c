/* Scans against a reference written here: exact for integers (sums modulo
 * 2^bits), long double for floats, on random inputs of odd lengths around
 * every tile and level boundary, inclusive and exclusive, every type,
 * every variant; outputs poisoned first. Float scans are held to the
 * precision scan.h promises: within two float roundings of the exact
 * prefix (plus the double accumulation's own tiny error), at any length;
 * a long run of positive values, where a float accumulator drifts, shows
 * it.
 *
 *   test_scan cpu|cuda */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"
#include "test_gpu.h"
#include "test_util.h"

/* Random values of `type`: floats of mixed sign and magnitude, or with
 * `positive` in [0.5, 1.5); integers over their whole range. */
static void
fill (cf_scan_type type, void *p, size_t n, int positive)
{
  for (size_t i = 0; i < n; i++) {
    double v = positive ? test_rand_range (0.5, 1.5)
        : test_rand_range (-1, 1) * pow (10.0, test_rand_int (7) - 3);
    switch (type) {
      case CF_SCAN_F32:
        ((float *) p)[i] = (float) v;
        break;
      case CF_SCAN_F64:
        ((double *) p)[i] = v;
        break;
      case CF_SCAN_I32:
      case CF_SCAN_U32:
        ((uint32_t *) p)[i] = (uint32_t) test_rand ();
        break;
      default:
        ((uint64_t *) p)[i] = test_rand ();
        break;
    }
  }
}

static double
value (cf_scan_type type, const void *p, size_t i)
{
  return type == CF_SCAN_F32 ? ((const float *) p)[i]
      : ((const double *) p)[i];
}

/* Checks `y` against the scan of `x`; returns the number of wrong outputs
 * and describes the first. */
static size_t
check_scan (cf_scan_type type, int inclusive, const void *x, const void *y,
    size_t n, char *first, size_t first_size)
{
  size_t bad = 0;

  if (type == CF_SCAN_F32 || type == CF_SCAN_F64) {
    long double sum = 0, size = 0, window = 0;
    for (size_t i = 0; i < n; i++) {
      long double v = value (type, x, i);
      /* the size of a tile-local prefix ending here (CF_SCAN_TILE) */
      window += fabsl (v);
      if (i >= CF_SCAN_TILE)
        window -= fabsl (value (type, x, i - CF_SCAN_TILE));
      if (inclusive) {
        sum += v;
        size += fabsl (v);
      }
      /* a float output: its rounding, and that of the tile-local prefix
       * (hierarchical variants); any output: the double accumulation,
       * a sum of depth about log2 n (a tree) plus a few sequential terms */
      double accumulation = (log2 ((double) n + 1) + 16) * 0x1p-53
          * (double) size;
      double slack = (type == CF_SCAN_F32 ? 0x1p-24 * (fabs ((double) sum)
              + (double) window) : 0.0) + accumulation;
      double got = value (type, y, i);
      if (!(fabs (got - (double) sum) <= slack) && !bad++)
        snprintf (first, first_size, "output %zu: got %.17g, expected "
            "%.17Lg +- %.3g", i, got, sum, slack);
      if (!inclusive) {
        sum += v;
        size += fabsl (v);
      }
    }
  } else {
    uint64_t sum = 0, mask = type == CF_SCAN_U64 ? ~0ull : 0xffffffffull;
    for (size_t i = 0; i < n; i++) {
      uint64_t v = type == CF_SCAN_U64 ? ((const uint64_t *) x)[i]
          : ((const uint32_t *) x)[i];
      uint64_t got = type == CF_SCAN_U64 ? ((const uint64_t *) y)[i]
          : ((const uint32_t *) y)[i];
      if (inclusive)
        sum = (sum + v) & mask;
      if (got != sum && !bad++)
        snprintf (first, first_size, "output %zu: got %llu, expected %llu",
            i, (unsigned long long) got, (unsigned long long) sum);
      if (!inclusive)
        sum = (sum + v) & mask;
    }
  }
  return bad;
}

typedef struct
{
  int cuda;
  cf_stream stream;
  void *d_x, *d_y, *d_ws;
  size_t capacity, ws_capacity;
  int reuse_ws;                 /* leave the workspace as the last call left it */
  size_t shift;                 /* bytes the arrays start past an allocation's
                                 * start: off 16-byte alignment when not 0 */
} backend;

static int
run_scan (backend * be, cf_scan_algorithm algorithm, cf_scan_type type,
    int inclusive, const void *x, void *y, size_t n, int in_place)
{
  size_t bytes = n * cf_scan_type_size (type), ws;
  char *d_x, *d_y;
  int st;

  if (!be->cuda) {
    if (in_place) {
      memcpy (y, x, bytes);
      return cf_scan_cpu (type, inclusive, y, y, n);
    }
    return cf_scan_cpu (type, inclusive, x, y, n);
  }
  ws = cf_scan_workspace_size (algorithm, type, n);
  if (bytes + be->shift > be->capacity) {
    cf_gpu_free (be->d_x);
    cf_gpu_free (be->d_y);
    be->d_x = be->d_y = NULL;
    if ((st = cf_gpu_malloc (&be->d_x, bytes + 16)) != CF_OK
        || (st = cf_gpu_malloc (&be->d_y, bytes + 16)) != CF_OK)
      return st;
    be->capacity = bytes + 16;
  }
  d_x = (char *) be->d_x + be->shift;
  d_y = (char *) be->d_y + be->shift;
  if (ws > be->ws_capacity) {
    cf_gpu_free (be->d_ws);
    be->d_ws = NULL;
    if ((st = cf_gpu_malloc (&be->d_ws, ws)) != CF_OK)
      return st;
    be->ws_capacity = ws;
  }
  /* poison: every byte 0xFF (NaN for floats) */
  if ((st = cf_gpu_memset (d_y, 0xFF, bytes, be->stream)) != CF_OK
      || (!be->reuse_ws
          && (st = cf_gpu_memset (be->d_ws, 0xA5, ws, be->stream)) != CF_OK)
      || (st = cf_gpu_copy_2d (d_x, bytes, x, bytes, bytes, 1,
              CF_COPY_HOST_TO_DEVICE, be->stream)) != CF_OK)
    return st;
  st = cf_scan_cuda (algorithm, type, inclusive, d_x, in_place ? d_x : d_y,
      n, be->d_ws, be->stream);
  if (st == CF_OK)
    st = cf_gpu_copy_2d (y, bytes, in_place ? d_x : d_y, bytes, bytes, 1,
        CF_COPY_DEVICE_TO_HOST, be->stream);
  if (st == CF_OK)
    st = cf_gpu_stream_sync (be->stream);
  return st;
}

static void
check_case (backend * be, cf_scan_algorithm algorithm, cf_scan_type type,
    int inclusive, size_t n, int positive, int in_place)
{
  size_t bytes = n * cf_scan_type_size (type);
  void *x = malloc (bytes ? bytes : 1), *y = malloc (bytes ? bytes : 1);
  char first[200] = "";
  size_t bad;
  int st;

  fill (type, x, n, positive);
  memset (y, 0xFF, bytes);
  st = run_scan (be, algorithm, type, inclusive, x, y, n, in_place);
  if (test_check (st == CF_OK, "%s %s %s n=%zu: %s", be->cuda
          ? cf_scan_algorithm_name (algorithm) : "cpu",
          cf_scan_type_name (type), inclusive ? "inclusive" : "exclusive", n,
          cf_status_name (st))) {
    bad = check_scan (type, inclusive, x, y, n, first, sizeof (first));
    test_check (bad == 0, "%s %s %s n=%zu%s%s: %zu wrong, first %s",
        be->cuda ? cf_scan_algorithm_name (algorithm) : "cpu",
        cf_scan_type_name (type), inclusive ? "inclusive" : "exclusive", n,
        positive ? ", positive" : "", in_place ? ", in place" : "", bad,
        first);
  }
  free (x);
  free (y);
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "cpu";
  backend be = { strcmp (mode, "cuda") == 0, NULL, NULL, NULL, NULL, 0, 0, 0,
    0
  };
  /* around the tile (2048), the decoupled scan's tile (4096), two levels
   * (2048^2) and odd sizes */
  static const size_t sizes[] = { 1, 2, 31, 255, 256, 257, 2047, 2048, 2049,
    4095, 4096, 4097, 6143, 8193, 65535, 65536, 65537, 1000003, 4194303,
    4194305
  };
  int algorithms = be.cuda ? CF_SCAN_N_ALGORITHMS : 1;
  char name[32];

  snprintf (name, sizeof (name), "scan-%s", mode);
  if (be.cuda) {
    int status = test_gpu_start (name, &be.stream);
    if (status >= 0)
      return status;
  }
  test_seed_from_env (name);
  test_check (cf_scan_cpu (CF_SCAN_N_TYPES, 1, &be, &be, 1)
      == CF_ERR_INVALID, "an unknown type accepted");

  for (int a = 0; a < algorithms; a++)
    for (int t = 0; t < CF_SCAN_N_TYPES; t++)
      for (size_t k = 0; k < sizeof (sizes) / sizeof (sizes[0]); k++) {
        /* the largest sizes once per variant and type, not twice */
        int inclusive = sizes[k] > 100000 ? (int) (k % 2) : 1;
        check_case (&be, a, t, inclusive, sizes[k], 0, k % 3 == 0);
        if (sizes[k] <= 100000)
          check_case (&be, a, t, 0, sizes[k], 0, 0);
      }
  /* the longest: 2^26 floats (three levels: 2^26 / 2048 = 32768
   * tile sums, 16 sums of those, one) */
  for (int a = 0; a < algorithms; a++)
    check_case (&be, a, CF_SCAN_F32, 1, (size_t) 1 << 26, 0, 0);
  /* no drift: 2^24 + 5 positive floats, where a float running sum loses
   * about a tenth of the last digits */
  for (int a = 0; a < algorithms; a++)
    check_case (&be, a, CF_SCAN_F32, 1, (1u << 24) + 5, 1, 0);
  /* calls one after the other on one workspace, as an element makes them:
   * what a call leaves there (the decoupled scan's published tile sums)
   * must not leak into the next, at the same length and at others */
  if (be.cuda) {
    static const size_t lengths[] = { 65537, 65537, 4096, 1000003, 65537 };
    be.reuse_ws = 1;
    for (int a = 0; a < algorithms; a++)
      for (size_t k = 0; k < sizeof (lengths) / sizeof (lengths[0]); k++)
        check_case (&be, a, CF_SCAN_U32, (int) (k % 2), lengths[k], 0, 0);
    be.reuse_ws = 0;
  }
  /* arrays that start off 16-byte alignment, as a caller may pass a part
   * of a buffer: element by element instead of vectors, whole tiles and
   * the last one */
  if (be.cuda) {
    static const size_t lengths[] = { 4096, 8192, 70001 };
    for (int a = 0; a < algorithms; a++)
      for (int t = 0; t < CF_SCAN_N_TYPES; t++)
        for (size_t k = 0; k < sizeof (lengths) / sizeof (lengths[0]); k++) {
          be.shift = cf_scan_type_size (t);
          check_case (&be, a, t, (int) (k % 2), lengths[k], 0, k == 1);
        }
    be.shift = 0;
  }

  if (be.cuda) {
    cf_gpu_free (be.d_x);
    cf_gpu_free (be.d_y);
    cf_gpu_free (be.d_ws);
    cf_gpu_stream_destroy (be.stream);
  }
  return test_finish (name);
}
