/* Integral images against a reference written here (exact for integers,
 * long double for floats) on random planes: each input type, with and
 * without the table of squares, odd sizes up to 4K, padded input rows and
 * padded tables, one channel of interleaved pixels or several at once;
 * tables poisoned first, and their padding must stay as it was.
 *
 * On the GPU also with the rows scanned by each scan variant.
 *
 *   test_integral cpu|cuda */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integral.h"
#include "test_gpu.h"
#include "test_util.h"

#define POISON 0xA5

static int step = 1;             /* samples from pixel to pixel */
static int channels = 1;         /* channels of a pixel made at once */
static int saturate;            /* integer samples all at their largest */
/* cuda: the tables in bands of rows (CF_SCAN_AUTO) or by a scan variant
 * over the whole plane (cf_integral_cuda_with_scan) */
static cf_scan_algorithm rows_by = CF_SCAN_AUTO;

static double
sample (cf_integral_type type, const uint8_t * in, size_t pitch, int x,
    int y)
{
  const uint8_t *row = in + (size_t) y * pitch;
  size_t i = (size_t) x * step;
  return type == CF_INTEGRAL_U8 ? row[i] : type == CF_INTEGRAL_U16
      ? ((const uint16_t *) row)[i] : ((const float *) row)[i];
}

/* long double: its 64-bit mantissa holds every 64-bit entry exactly */
static long double
entry (size_t size, int is_float, const uint8_t * t, size_t pitch, int x,
    int y)
{
  const uint8_t *row = t + (size_t) y * pitch;
  if (is_float)
    return ((const double *) row)[x];
  return size == 4 ? ((const uint32_t *) row)[x]
      : (long double) ((const uint64_t *) row)[x];
}

/* Checks table `t` (squares when `sq`) entry by entry, and its padding.
 * Exact for integer input; within the double summation's error for
 * floats. */
static void
check_table (const char *what, cf_integral_type type, const uint8_t * in,
    size_t in_pitch, int w, int h, const uint8_t * t, size_t pitch,
    size_t size, int sq)
{
  int is_float = type == CF_INTEGRAL_F32, bad = 0;
  long double *col = calloc ((size_t) w + 1, sizeof (long double));
  long double *col_abs = calloc ((size_t) w + 1, sizeof (long double));
  char first[200] = "";

  for (int y = 0; y <= h; y++) {
    long double run = 0, run_abs = 0;
    for (int x = 0; x <= w; x++) {
      if (y > 0 && x > 0) {
        double v = sample (type, in, in_pitch, x - 1, y - 1);
        v = sq ? v * v : v;
        run += v;
        run_abs += fabs (v);
        col[x] += run;
        col_abs[x] += run_abs;
      }
      {
        long double want = y > 0 && x > 0 ? col[x] : 0;
        long double got = entry (size, is_float, t, pitch, x, y);
        long double slack = is_float ? (w + h + 64) * 0x1p-53L
            * col_abs[x] : 0.0L;
        /* floats: the table holds doubles, compared as such */
        if (is_float)
          want = (double) want;
        if (!(fabsl (got - want) <= slack) && !bad++)
          snprintf (first, sizeof (first), "(%d, %d): got %.20Lg, expected "
              "%.20Lg", x, y, got, want);
      }
    }
    /* the row's padding, untouched */
    for (size_t b = ((size_t) w + 1) * size; b < pitch; b++)
      if (t[(size_t) y * pitch + b] != POISON && !bad++)
        snprintf (first, sizeof (first), "row %d: padding byte %zu written",
            y, b);
  }
  test_check (bad == 0, "%s %s: %d wrong, first %s", what,
      sq ? "squares" : "sums", bad, first);
  free (col);
  free (col_abs);
}

static void
check_case (int cuda, cf_stream stream, cf_integral_type type, int w, int h,
    int pad, int with_squares)
{
  size_t in_size = cf_integral_in_size (type);
  size_t s_size = cf_integral_sum_size (type);
  cf_integral_layout l = { type, w, h, ((size_t) w * step + pad) * in_size,
    ((size_t) w + 1 + pad) * s_size, ((size_t) w + 1 + 2 * pad) * 8, step,
    channels, 0
  };
  size_t in_bytes = l.in_pitch * h, s_bytes = l.sum_pitch * (h + 1);
  size_t q_bytes = l.squares_pitch * (h + 1);
  /* several channels: each one's tables a stride after the previous's */
  size_t stride = ((s_bytes > q_bytes ? s_bytes : q_bytes) + 15) / 8 * 8;
  l.channel_stride = channels > 1 ? stride : 0;
  s_bytes = channels > 1 ? stride * channels : s_bytes;
  q_bytes = channels > 1 ? stride * channels : q_bytes;
  uint8_t *in = malloc (in_bytes), *sum = malloc (s_bytes);
  uint8_t *sq = with_squares ? malloc (q_bytes) : NULL;
  char what[96];
  int st;

  snprintf (what, sizeof (what), "%s%s%s %s %dx%d pad %d, step %d, "
      "%d channels", cuda ? "cuda" : "cpu", rows_by ? " rows by " : "",
      rows_by ? cf_scan_algorithm_name (rows_by) : "",
      cf_integral_type_name (type), w, h, pad, step, channels);
  /* the samples between the pixels of these channels must not count */
  memset (in, 0x7F, in_bytes);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < channels; c++) {
        uint8_t *p = in + (size_t) y * l.in_pitch
            + ((size_t) x * step + c) * in_size;
        if (type == CF_INTEGRAL_U8)
          *p = saturate ? 255 : (uint8_t) test_rand ();
        else if (type == CF_INTEGRAL_U16)
          *(uint16_t *) p = saturate ? 65535 : (uint16_t) test_rand ();
        else
          *(float *) p = (float) test_rand_range (-100, 100);
      }
  memset (sum, POISON, s_bytes);
  if (sq)
    memset (sq, POISON, q_bytes);

  if (cuda) {
    void *d_in = NULL, *d_sum = NULL, *d_sq = NULL, *d_work = NULL;
    st = cf_gpu_malloc (&d_in, in_bytes);
    if (st == CF_OK)
      st = cf_gpu_malloc (&d_sum, s_bytes);
    if (st == CF_OK && sq)
      st = cf_gpu_malloc (&d_sq, q_bytes);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (d_in, in_bytes, in, in_bytes, in_bytes, 1,
          CF_COPY_HOST_TO_DEVICE, stream);
    if (st == CF_OK)
      st = cf_gpu_memset (d_sum, POISON, s_bytes, stream);
    if (st == CF_OK && sq)
      st = cf_gpu_memset (d_sq, POISON, q_bytes, stream);
    if (st == CF_OK && rows_by)
      st = cf_gpu_malloc (&d_work, cf_integral_scan_workspace_size (&l,
              rows_by));
    if (st == CF_OK)
      st = rows_by ? cf_integral_cuda_with_scan (&l, rows_by, d_in, d_sum,
          d_sq, d_work, stream) : cf_integral_cuda (&l, d_in, d_sum, d_sq,
          stream);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (sum, s_bytes, d_sum, s_bytes, s_bytes, 1,
          CF_COPY_DEVICE_TO_HOST, stream);
    if (st == CF_OK && sq)
      st = cf_gpu_copy_2d (sq, q_bytes, d_sq, q_bytes, q_bytes, 1,
          CF_COPY_DEVICE_TO_HOST, stream);
    if (st == CF_OK)
      st = cf_gpu_stream_sync (stream);
    cf_gpu_free (d_in);
    cf_gpu_free (d_sum);
    cf_gpu_free (d_sq);
    cf_gpu_free (d_work);
  } else {
    st = cf_integral_cpu (&l, in, sum, sq);
  }
  for (int c = 0; c < channels
      && test_check (st == CF_OK, "%s: %s", what, cf_status_name (st)); c++) {
    check_table (what, type, in + c * in_size, l.in_pitch, w, h,
        sum + c * l.channel_stride, l.sum_pitch, s_size, 0);
    if (sq)
      check_table (what, type, in + c * in_size, l.in_pitch, w, h,
          sq + c * l.channel_stride, l.squares_pitch, 8, 1);
  }
  free (in);
  free (sum);
  free (sq);
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "cpu";
  int cuda = strcmp (mode, "cuda") == 0;
  cf_stream stream = NULL;
  /* width, height, padding: on the GPU around its tiles (512 entries of
   * a row, bands of 8 rows: a last band of one row at 65, 17, 9, 1081),
   * the last rows' scans along (2048 entries a stretch: three stretches at
   * 4099, the next one's loads issued during each) and down (4104 rows: 513
   * bands, 17 a segment of the column scan) */
  static const int cases[][3] = {
    {1, 1, 0}, {7, 3, 5}, {33, 65, 3}, {1, 500, 1}, {500, 1, 0},
    {640, 480, 0}, {1023, 17, 0}, {2047, 9, 3}, {1921, 1081, 7},
    {3840, 2160, 0}, {4099, 19, 1}, {37, 4104, 2},
  };
  cf_integral_layout bad = { CF_INTEGRAL_U8, 0, 1, 0, 0, 0, 1, 0, 0 };
  char name[32];

  snprintf (name, sizeof (name), "integral-%s", mode);
  if (cuda) {
    int status = test_gpu_start (name, &stream);
    if (status >= 0)
      return status;
  }
  test_seed_from_env (name);
  test_check (cf_integral_cpu (&bad, &bad, &bad, NULL) == CF_ERR_INVALID,
      "an empty plane accepted");
  {
    /* entries off their natural alignment: a fault on the GPU, refused
     * everywhere (a u64 table of squares 4 bytes off, a u32 pitch of 6) */
    static uint64_t plane[16], sums[64], squares[64];
    cf_integral_layout l = { CF_INTEGRAL_U8, 4, 4, 4, 20, 40, 1, 0, 0 };
    test_check (cf_integral_args_check (&l, plane, sums, squares) == CF_OK,
        "good arguments refused");
    test_check (cf_integral_cpu (&l, plane, sums, (uint8_t *) squares + 4)
        == CF_ERR_INVALID, "a misaligned table of squares accepted");
    l.sum_pitch = 22;
    test_check (cf_integral_args_check (&l, plane, sums, squares)
        == CF_ERR_INVALID, "a sum pitch of 22 bytes accepted");
    l.sum_pitch = 20;
    l.type = CF_INTEGRAL_U16;
    l.in_pitch = 9;
    l.sum_pitch = 40;
    test_check (cf_integral_args_check (&l, plane, sums, squares)
        == CF_ERR_INVALID, "an odd 16-bit input pitch accepted");
  }
  for (int t = 0; t < CF_INTEGRAL_N_TYPES; t++)
    for (size_t k = 0; k < sizeof (cases) / sizeof (cases[0]); k++)
      check_case (cuda, stream, t, cases[k][0], cases[k][1], cases[k][2],
          (int) (k + t) % 2);
  /* the largest samples: the tile sums of squares of bytes are 32-bit on
   * the GPU, and must not wrap at any tile width */
  saturate = 1;
  for (int t = CF_INTEGRAL_U8; t <= CF_INTEGRAL_U16; t++) {
    check_case (cuda, stream, t, 3840, 2160, 0, 1);
    check_case (cuda, stream, t, 1921, 67, 3, 1);
  }
  saturate = 0;
  /* one channel of interleaved pixels (RGBA, RGB) */
  for (step = 3; step <= 4; step++)
    for (int t = 0; t < CF_INTEGRAL_N_TYPES; t++) {
      check_case (cuda, stream, t, 37, 29, 5, 1);
      check_case (cuda, stream, t, 1920, 1080, 0, step == 4);
    }
  /* the channels of RGB and RGBA at once, each its own tables: one launch
   * of each kernel for them all on the GPU */
  for (step = 3; step <= 4; step++)
    for (int t = 0; t < CF_INTEGRAL_N_TYPES; t++) {
      channels = 3;
      check_case (cuda, stream, t, 37, 29, 5, 1);
      check_case (cuda, stream, t, 1921, 1081, 3, t != 1);
      channels = step;
      check_case (cuda, stream, t, 513, 17, 0, 1);
      channels = 1;
    }
  /* several channels: a stride too short for the tables, more channels
   * than samples a pixel */
  {
    static uint64_t plane[64], sums[256];
    cf_integral_layout l = { CF_INTEGRAL_U8, 4, 4, 16, 24, 40, 4, 3, 120 };
    test_check (cf_integral_args_check (&l, plane, sums, NULL) == CF_OK,
        "three channels refused");
    l.channel_stride = 112;
    test_check (cf_integral_cpu (&l, plane, sums, NULL) == CF_ERR_INVALID,
        "channels' tables overlapping accepted");
    l.channel_stride = 124;
    test_check (cf_integral_cpu (&l, plane, sums, NULL) == CF_ERR_INVALID,
        "a channel stride off 8-byte alignment accepted");
    l.channel_stride = 120;
    l.channels = 5;
    test_check (cf_integral_cpu (&l, plane, sums, NULL) == CF_ERR_INVALID,
        "5 channels of 4-sample pixels accepted");
  }
  step = 1;
  /* rows by each scan variant: integer planes, sums and squares, odd
   * sizes, one channel of RGBA */
  for (rows_by = CF_SCAN_KOGGE_STONE; cuda && rows_by < CF_SCAN_N_ALGORITHMS;
      rows_by++)
    for (int t = CF_INTEGRAL_U8; t <= CF_INTEGRAL_U16; t++) {
      step = 1;
      check_case (cuda, stream, t, 1, 1, 0, 1);
      check_case (cuda, stream, t, 33, 65, 3, 1);
      check_case (cuda, stream, t, 1921, 1081, 7, 1);
      step = 4;
      check_case (cuda, stream, t, 637, 291, 5, 1);
    }
  if (cuda)
    cf_gpu_stream_destroy (stream);
  return test_finish (name);
}
