/* Box means and adaptive thresholds against a reference written here (each
 * window summed from a table of prefix sums built here in 64 bits, and
 * pixel by pixel for small frames), on random u8 and u16 planes and single
 * channels of interleaved pixels, radii from 1 to the largest, odd sizes;
 * the table comes from the integral image of the same backend, of the
 * whole plane or, in strips, of each strip's rows and their halo (the
 * output rows of each strip filtered from its own table); outputs
 * poisoned first, and the samples between output pixels must stay. On
 * the GPU, radii up to CF_BOX_DIRECT_MAX_RADIUS also straight from the
 * input, with no table (cf_box_direct_cuda), against the same reference.
 *
 *   test_boxmean cpu|cuda */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boxmean.h"
#include "test_gpu.h"
#include "test_util.h"

#define POISON 0xA5

/* Input samples: random (0), all at the type's largest (1), or random
 * zeros and ones (2: many means exactly halfway, rounded up) */
static int pattern;
/* Non-zero: the GPU's box filter without tables (cf_box_direct_cuda) */
static int direct;
/* Row pitches: 0, odd (3 and 1 samples past the pixels, which keeps
 * pixels of four bytes off word boundaries); 4, whole words but not
 * multiples of 16 bytes; 16, multiples of 16 bytes (each pixel's word
 * and whole 16-byte runs of pixels on their boundaries) */
static int pitch_align;

static size_t
pitch_for (size_t bytes, size_t odd_extra)
{
  size_t p;

  if (!pitch_align)
    return bytes + odd_extra;
  p = (bytes + pitch_align - 1) / pitch_align * pitch_align;
  return pitch_align == 4 && p % 16 == 0 ? p + 4 : p;
}

static uint64_t
px (const uint8_t * in, const cf_integral_layout * l, int x, int y)
{
  const uint8_t *row = in + (size_t) y * l->in_pitch;
  size_t i = (size_t) x * l->in_step;
  return l->type == CF_INTEGRAL_U8 ? row[i] : ((const uint16_t *) row)[i];
}

/* Checks one channel of `out` against `in`: `ref` has room for a table
 * of the plane; counts wrong samples in *bad and describes the first. */
static void
check_channel (const cf_integral_layout * l, const uint8_t * in,
    const cf_box_params * p, const uint8_t * out, uint64_t * ref, int *bad,
    char *first, size_t first_size)
{
  int w = l->width, h = l->height, radius = p->radius, step = l->in_step;

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      ref[(size_t) (y + 1) * (w + 1) + x + 1] = px (in, l, x, y)
          + ref[(size_t) y * (w + 1) + x + 1]
          + ref[(size_t) (y + 1) * (w + 1) + x] - ref[(size_t) y * (w + 1) + x];
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int x0 = x - radius < 0 ? 0 : x - radius, y0 = y - radius < 0 ? 0
          : y - radius;
      int x1 = x + radius + 1 > w ? w : x + radius + 1;
      int y1 = y + radius + 1 > h ? h : y + radius + 1;
      uint64_t s = ref[(size_t) y1 * (w + 1) + x1]
          - ref[(size_t) y0 * (w + 1) + x1] - ref[(size_t) y1 * (w + 1) + x0]
          + ref[(size_t) y0 * (w + 1) + x0];
      uint64_t n = (uint64_t) (x1 - x0) * (y1 - y0), want, got;
      if (w * h <= 64 * 48) {
        /* small frames: pixel by pixel too */
        uint64_t brute = 0;
        for (int j = y0; j < y1; j++)
          for (int i = x0; i < x1; i++)
            brute += px (in, l, i, j);
        if (brute != s && !(*bad)++)
          snprintf (first, first_size, "the test's own table is wrong");
      }
      if (p->threshold)
        /* exact: v > s / n - offset, with long double */
        want = (long double) px (in, l, x, y) > (long double) s / n
            - p->offset ? (l->type == CF_INTEGRAL_U8 ? 255 : 65535) : 0;
      else
        want = (2 * s + n) / (2 * n);
      got = l->type == CF_INTEGRAL_U8
          ? out[(size_t) y * p->out_pitch + (size_t) x * step]
          : ((const uint16_t *) (out + (size_t) y * p->out_pitch))
          [(size_t) x * step];
      if (got != want && !(*bad)++)
        snprintf (first, first_size, "(%d, %d): got %llu, expected %llu",
            x, y, (unsigned long long) got, (unsigned long long) want);
    }
}

/* Tables and box filter of `strips` horizontal strips (1: the whole
 * plane at once), each strip's table made from its rows and the halo the
 * radius reaches, on `cuda` or the CPU. `sum` holds the largest table. */
static int
filter_strips (int cuda, cf_stream stream, const cf_integral_layout * l,
    const uint8_t * in, uint8_t * sum, const cf_box_params * params,
    uint8_t * out, int strips)
{
  int rows = (l->height + strips - 1) / strips, st = CF_OK;

  for (int a = 0; a < l->height && st == CF_OK; a += rows) {
    int b = a + rows < l->height ? a + rows : l->height;
    int t0 = a - params->radius > 0 ? a - params->radius : 0;
    int t1 = b + params->radius < l->height ? b + params->radius : l->height;
    cf_integral_layout part = *l;
    cf_box_params p = *params;
    part.height = t1 - t0;
    p.row_begin = strips > 1 ? a : 0;
    p.row_end = strips > 1 ? b : 0;
    p.table_row = t0;
    if (strips == 1)
      part.height = l->height;
    if (direct) {
      st = cf_box_direct_cuda (l, in, &p, out, stream);
      continue;
    }
    st = cuda ? cf_integral_cuda (&part, in + (size_t) t0 * l->in_pitch, sum,
        NULL, stream) : cf_integral_cpu (&part, in + (size_t) t0
        * l->in_pitch, sum, NULL);
    if (st == CF_OK)
      st = cuda ? cf_box_cuda (l, in, sum, &p, out, stream)
          : cf_box_cpu (l, in, sum, &p, out);
  }
  return st;
}

/* `channels` of each pixel filtered at once (one table each), from sample
 * `start` of every `step`; `copy`: the pixels' other samples copied by the
 * box filter too. */
static void
check_case (int cuda, cf_stream stream, cf_integral_type type, int w, int h,
    int step, int radius, int threshold, double offset, int strips,
    int channels, int start, int copy)
{
  size_t size = cf_integral_in_size (type);
  cf_integral_layout l = { type, w, h, pitch_for ((size_t) w * step * size,
        3 * size), ((size_t) w + 1) * cf_integral_sum_size (type), 0, step,
    channels, 0
  };
  cf_box_params p = { radius, threshold, offset,
    pitch_for ((size_t) w * step * size, size) + (pitch_align == 16 ? 16 : 0),
    step, 0, 0, 0, copy, start
  };
  size_t in_bytes = l.in_pitch * h, sum_bytes = l.sum_pitch * (h + 1);
  size_t out_bytes = p.out_pitch * h;
  uint8_t *in = malloc (in_bytes), *sum = malloc (sum_bytes);
  uint8_t *out = malloc (out_bytes), *poison = malloc (out_bytes);
  char what[200], first[160] = "";
  uint64_t *ref = NULL;
  int st, bad = 0;

  /* several channels: each one's table a stride after the previous's */
  l.channel_stride = channels > 1 ? (sum_bytes + 7) / 8 * 8 : 0;
  sum_bytes = channels > 1 ? l.channel_stride * channels : sum_bytes;
  sum = realloc (sum, sum_bytes);
  snprintf (what, sizeof (what), "%s %s %dx%d step %d radius %d %s %g, "
      "%d strips, %d channels from %d%s, samples %s, rows %zu", cuda
      ? (direct ? "cuda, no table" : "cuda") : "cpu",
      cf_integral_type_name (type), w, h, step, radius,
      threshold ? "threshold, offset" : "mean", offset, strips, channels,
      start, copy ? ", the others copied" : "", pattern == 0 ? "random"
      : pattern == 1 ? "at their largest" : "0 or 1", l.in_pitch);
  test_fill_random (in, in_bytes);
  if (pattern == 1)
    memset (in, 0xFF, in_bytes);
  else if (pattern == 2)
    for (size_t k = 0; k < in_bytes; k++)
      in[k] = size == 1 || k % 2 == 0 ? in[k] & 1 : 0;
  memset (poison, POISON, out_bytes);
  if (cuda) {
    void *d_in = NULL, *d_sum = NULL, *d_out = NULL;
    st = cf_gpu_malloc (&d_in, in_bytes);
    if (st == CF_OK)
      st = cf_gpu_malloc (&d_sum, sum_bytes);
    if (st == CF_OK)
      st = cf_gpu_malloc (&d_out, out_bytes);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (d_in, in_bytes, in, in_bytes, in_bytes, 1,
          CF_COPY_HOST_TO_DEVICE, stream);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (d_out, out_bytes, poison, out_bytes, out_bytes, 1,
          CF_COPY_HOST_TO_DEVICE, stream);
    if (st == CF_OK)
      st = filter_strips (1, stream, &l, (uint8_t *) d_in + start * size,
          d_sum, &p, (uint8_t *) d_out + start * size, strips);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (out, out_bytes, d_out, out_bytes, out_bytes, 1,
          CF_COPY_DEVICE_TO_HOST, stream);
    if (st == CF_OK)
      st = cf_gpu_stream_sync (stream);
    cf_gpu_free (d_in);
    cf_gpu_free (d_sum);
    cf_gpu_free (d_out);
  } else {
    memcpy (out, poison, out_bytes);
    st = filter_strips (0, NULL, &l, in + start * size, sum, &p,
        out + start * size, strips);
  }
  if (!test_check (st == CF_OK, "%s: %s", what, cf_status_name (st)))
    goto done;
  ref = calloc (((size_t) w + 1) * (h + 1), sizeof (uint64_t));
  for (int c = 0; c < channels; c++)
    check_channel (&l, in + (start + c) * size, &p, out + (start + c) * size,
        ref, &bad, first,
        sizeof (first));
  /* the pixels' other samples copied, or as they were; everything past
   * the pixels as it was */
  for (int y = 0; y < h; y++)
    for (size_t b = 0; b < p.out_pitch; b++) {
      size_t sample = b / size;
      int k = (int) (sample % step), pixel = sample / step < (size_t) w;
      int filtered = pixel && k >= start && k < start + channels;
      uint8_t want = pixel && copy ? in[(size_t) y * l.in_pitch + b] : POISON;
      if (!filtered && out[(size_t) y * p.out_pitch + b] != want && !bad++)
        snprintf (first, sizeof (first), "row %d byte %zu: got %d, expected "
            "%d", y, b, out[(size_t) y * p.out_pitch + b], want);
    }
  test_check (bad == 0, "%s: %d wrong, first %s", what, bad, first);
done:
  free (ref);
  free (in);
  free (sum);
  free (out);
  free (poison);
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "cpu";
  int cuda = strcmp (mode, "cuda") == 0;
  cf_stream stream = NULL;
  /* width, height, radius */
  static const int cases[][3] = {
    {1, 1, 1}, {17, 9, 1}, {64, 48, 2}, {97, 61, 8}, {33, 130, 64},
    {70, 40, 1024}, {321, 201, 5}, {1921, 1081, 16},
  };
  cf_integral_layout l = { CF_INTEGRAL_U8, 8, 8, 8, 36, 0, 1, 0, 0 };
  cf_box_params bad = { 0, 0, 0, 8, 1, 0, 0, 0, 0, 0 };
  char name[32];

  snprintf (name, sizeof (name), "boxmean-%s", mode);
  if (cuda) {
    int status = test_gpu_start (name, &stream);
    if (status >= 0)
      return status;
  }
  test_seed_from_env (name);
  {
    /* 8-byte aligned storage for the argument checks */
    static uint64_t table[9 * 9], plane[64];
    cf_box_params good = { 1, 0, 0, 8, 1, 0, 0, 0, 0, 0 };
    cf_integral_layout l16 = { CF_INTEGRAL_U16, 8, 8, 16, 72, 0, 1, 0, 0 };
    cf_box_params good16 = { 1, 0, 0, 16, 1, 0, 0, 0, 0, 0 };
    /* output rows: inside the plane, and a table that reaches them */
    static const int rows[][4] = {
      /* row_begin, row_end, table_row, accepted */
      {2, 6, 1, 1}, {2, 6, 0, 1}, {0, 8, 0, 1}, {7, 8, 6, 1},
      {2, 6, 2, 0}, {-1, 6, 0, 0}, {2, 9, 0, 0}, {5, 5, 0, 0},
      {6, 2, 0, 0}, {0, 0, 1, 0}, {0, 4, -1, 0},
    };
    for (size_t k = 0; k < sizeof (rows) / sizeof (rows[0]); k++) {
      cf_box_params p = good;
      p.row_begin = rows[k][0];
      p.row_end = rows[k][1];
      p.table_row = rows[k][2];
      test_check ((cf_box_args_check (&l, plane, table, &p, plane) == CF_OK)
          == rows[k][3], "rows [%d, %d) from table row %d %s", rows[k][0],
          rows[k][1], rows[k][2], rows[k][3] ? "refused" : "accepted");
    }
    test_check (cf_box_args_check (&l, plane, table, &good, plane) == CF_OK,
        "good arguments refused");
    test_check (cf_box_args_check (&l, plane, table, &bad, plane)
        == CF_ERR_INVALID, "radius 0 accepted");
    bad.radius = CF_BOX_MAX_RADIUS + 1;
    test_check (cf_box_args_check (&l, plane, table, &bad, plane)
        == CF_ERR_INVALID, "radius %d accepted", CF_BOX_MAX_RADIUS + 1);
    /* copies of the pixels' other samples: from an input of the same
     * pixels, the filtered channels inside them */
    {
      cf_box_params copy = good;
      copy.copy_others = 1;
      test_check (cf_box_args_check (&l, plane, table, &copy, plane)
          == CF_OK, "copying the other samples refused");
      test_check (cf_box_args_check (&l, NULL, table, &copy, plane)
          == CF_ERR_INVALID, "copying the other samples of no input "
          "accepted");
      copy.pixel_start = 1;
      test_check (cf_box_args_check (&l, plane, table, &copy, plane)
          == CF_ERR_INVALID, "a channel past the pixel accepted");
      copy.pixel_start = 0;
      copy.out_step = 2;
      copy.out_pitch = 16;
      test_check (cf_box_args_check (&l, plane, table, &copy, plane)
          == CF_ERR_INVALID, "pixels of 1 sample in, 2 out accepted");
    }
    /* off their alignment: a fault on the GPU, refused everywhere */
    test_check (cf_box_args_check (&l, plane, (uint8_t *) table + 2, &good,
            plane) == CF_ERR_INVALID, "a misaligned table accepted");
    test_check (cf_box_args_check (&l16, plane, (uint8_t *) table + 4, &good16,
            plane) == CF_ERR_INVALID, "a 4-byte aligned u64 table accepted");
    test_check (cf_box_args_check (&l16, plane, table, &good16,
            (uint8_t *) plane + 1) == CF_ERR_INVALID,
        "a misaligned 16-bit output accepted");
    test_check (cf_box_args_check (&l16, plane, table, &good16, plane)
        == CF_OK, "good 16-bit arguments refused");
    /* with no table: an input, small radii, a few channels; table_row
     * not looked at */
    {
      cf_box_params p = good;
      cf_integral_layout four = l;
      p.table_row = 5;
      test_check (cf_box_direct_args_check (&l, plane, &p, plane) == CF_OK,
          "good arguments refused with no table");
      test_check (cf_box_direct_args_check (&l, NULL, &p, plane)
          == CF_ERR_INVALID, "no input accepted with no table");
      p.radius = CF_BOX_DIRECT_MAX_RADIUS + 1;
      test_check (cf_box_direct_args_check (&l, plane, &p, plane)
          == CF_ERR_INVALID, "radius %d accepted with no table", p.radius);
      p.radius = 1;
      four.width = 2;
      four.in_step = 4;
      four.channels = 4;
      p.out_step = 4;
      test_check (cf_box_direct_args_check (&four, plane, &p, plane)
          == CF_OK, "4 channels refused with no table");
      four.in_step = four.channels = p.out_step = 5;
      four.width = 1;
      test_check (cf_box_direct_args_check (&four, plane, &p, plane)
          == CF_ERR_INVALID, "5 channels accepted with no table");
      test_check (cf_box_direct_args_check (&l, (uint8_t *) plane + 1,
              &good, plane) == CF_OK, "a byte input one byte on refused");
      test_check (cf_box_direct_args_check (&l16, (uint8_t *) plane + 1,
              &good16, plane) == CF_ERR_INVALID,
          "a misaligned 16-bit input accepted with no table");
    }
  }
  /* the pixel-word kernels round means inside the plane by a multiply and
   * a shift: checked here, on the host, for every sum of every radius */
  {
    long errors = cf_box_words_division_errors ();
    if (errors < 0)
      printf ("%s: a build without CUDA, no word kernels to check\n", name);
    else
      test_check (errors == 0, "%ld rounded means wrong by the word "
          "kernels' division", errors);
  }
  for (int t = 0; t < 2; t++)
    for (size_t k = 0; k < sizeof (cases) / sizeof (cases[0]); k++)
      for (int step = 1; step <= 4; step += 3) {
        check_case (cuda, stream, t, cases[k][0], cases[k][1], step,
            cases[k][2], 0, 0, 1, 1, 0, 0);
        check_case (cuda, stream, t, cases[k][0], cases[k][1], step,
            cases[k][2], 1, k % 3 == 0 ? 0 : k % 3 == 1 ? 7.5 : -3, 1,
            step == 4 && k % 2 ? 3 : 1, 0, 0);
      }
  /* in strips, each from a table of its own rows and halo: strips shorter
   * and longer than the radius, a last strip of one row, a radius that
   * reaches past the plane */
  {
    static const int strip_cases[][4] = {
      /* width, height, radius, strips */
      {97, 61, 8, 4}, {33, 130, 3, 13}, {321, 201, 40, 3}, {64, 9, 1, 9},
      {70, 40, 1024, 5}, {1921, 1081, 16, 8}, {5, 61, 2, 4},
    };
    for (int t = 0; t < 2; t++)
      for (size_t k = 0; k < sizeof (strip_cases) / sizeof (strip_cases[0]);
          k++) {
        const int *c = strip_cases[k];
        check_case (cuda, stream, t, c[0], c[1], 1 + 3 * (k % 2), c[2],
            (int) (k % 2), k % 3 ? 0.0 : 2.5, c[3], 1, 0, 0);
        /* the three colour channels of RGBA and ARGB at once, alpha
         * copied, as the element filters them */
        check_case (cuda, stream, t, c[0], c[1], 4, c[2], (int) (k % 2),
            k % 3 ? 0.0 : 2.5, c[3], 3, (int) (k % 2), 1);
      }
  }
  /* the largest sums, and means exactly halfway */
  for (pattern = 1; pattern <= 2; pattern++)
    for (int t = 0; t < 2; t++) {
      check_case (cuda, stream, t, 1921, 1081, 4, 1024, 0, 0, 1, 3, 0, 1);
      check_case (cuda, stream, t, 97, 61, 1, 1, 0, 0, 1, 1, 0, 0);
      check_case (cuda, stream, t, 321, 201, 4, 2, 0, 0, 3, 3, 1, 1);
    }
  pattern = 0;
  /* with no table, on the GPU: every case above whose radius it takes */
  for (direct = cuda; direct && pattern <= 2; pattern++) {
    for (int t = 0; t < 2; t++) {
      for (size_t k = 0; k < sizeof (cases) / sizeof (cases[0]); k++)
        for (int step = 1; step <= 4 && cases[k][2]
            <= CF_BOX_DIRECT_MAX_RADIUS; step += 3) {
          check_case (cuda, stream, t, cases[k][0], cases[k][1], step,
              cases[k][2], 0, 0, 1, 1, 0, 0);
          check_case (cuda, stream, t, cases[k][0], cases[k][1], step,
              cases[k][2], 1, k % 3 == 0 ? 0 : k % 3 == 1 ? 7.5 : -3, 1,
              step == 4 && k % 2 ? 3 : 1, 0, 0);
          if (step == 4)
            check_case (cuda, stream, t, cases[k][0], cases[k][1], 4,
                cases[k][2], (int) (k % 2), 0, 1, 3, (int) (k % 2), 1);
        }
      /* the largest radius, in strips of rows, four channels */
      check_case (cuda, stream, t, 1921, 1081, 4, CF_BOX_DIRECT_MAX_RADIUS,
          0, 0, 8, 3, 1, 1);
      check_case (cuda, stream, t, 97, 61, 4, CF_BOX_DIRECT_MAX_RADIUS, 1,
          2.5, 4, 3, 0, 1);
      check_case (cuda, stream, t, 33, 130, 1, 3, 0, 0, 13, 1, 0, 0);
      check_case (cuda, stream, t, 5, 61, 4, 2, 1, 0, 4, 4, 0, 0);
      check_case (cuda, stream, t, 200, 3, 2, 1, 0, 0, 1, 2, 0, 1);
    }
    /* pixels of four bytes on word boundaries, the element's case, which
     * the GPU filters word by word: RGBA and ARGB with alpha copied, four
     * channels; every radius (sums in 16-bit lanes up to 7, 32-bit lanes
     * from 8), odd sizes, strips, frames narrower and shorter than the
     * radius, launches below and above 2^20 pixels (tiles of 16 and 32
     * rows) */
    for (pitch_align = 4; pitch_align <= 16; pitch_align += 12)
      for (int radius = 1; radius <= CF_BOX_DIRECT_MAX_RADIUS; radius++) {
        int w = 61 + 7 * radius, h = 29 + 3 * radius;
        int strips = 1 + radius % 3, threshold = radius % 4 == 3;
        double offset = radius % 2 ? 7.5 : -3;
        check_case (cuda, stream, 0, w, h, 4, radius, threshold, offset,
            strips, 3, 0, 1);
        check_case (cuda, stream, 0, w + 2, h - 1, 4, radius, !threshold,
            offset, 1, 3, 1, 1);
        check_case (cuda, stream, 0, w - 1, h + 1, 4, radius, threshold,
            offset, strips, 4, 0, 0);
        check_case (cuda, stream, 0, 1 + radius % 5, 70, 4, radius, 0, 0,
            strips, 3, 0, 1);
        check_case (cuda, stream, 0, 200, 1 + radius % 4, 4, radius, 0, 0,
            1, 3, 1, 1);
        /* a launch of over 2^20 pixels, which takes the taller tiles
         * (the cases above take the short ones of small launches) */
        if (pitch_align == 16)
          check_case (cuda, stream, 0, 1031, 1019, 4, radius, threshold,
              offset, 1, 3, radius % 2, 1);
      }
    pitch_align = 16;
    check_case (cuda, stream, 0, 1921, 1081, 4, 7, 0, 0, 1, 3, 0, 1);
    check_case (cuda, stream, 0, 1921, 1081, 4, 8, 0, 0, 3, 3, 1, 1);
    check_case (cuda, stream, 0, 1, 1, 4, 1, 0, 0, 1, 4, 0, 0);
    pitch_align = 0;
  }
  pattern = direct = 0;
  if (cuda)
    cf_gpu_stream_destroy (stream);
  return test_finish (name);
}
