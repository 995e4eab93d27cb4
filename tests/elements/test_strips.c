/* The strips a plane in system memory is cut into on its way through the
 * GPU: every kernel covers its rows once, in order, and waits for the
 * uploads of every source row its tiles read, the rows of a tile that
 * reaches past the strip's end included (a kernel lays tiles of up to
 * GST_CUDA_STRIP_ALIGN rows from the strip's first row). No GPU needed:
 * this checks the plan the element follows. */
#include "gstcudastrips.h"
#include "border.h"
#include "test_util.h"

typedef struct
{
  gint height, radius;
  cf_border border;
} Reads;

/* As the conv2d element: rows [b - r, e + r) through the border mode. */
static gint
last_read (gpointer user, gint b, gint e)
{
  const Reads *m = user;
  gint last = e - 1;

  for (gint v = b - m->radius; v < e + m->radius; v++)
    last = MAX (last, cf_border_index (v, m->height, m->border));
  return last;
}

/* The first source row not yet uploaded when kernel j starts. */
static gint
uploaded_rows (const GstCudaStripPlan * p, gint j, gint height)
{
  return MIN (height, (p->wait[j] + 1) * p->rows);
}

static void
check_plan (gsize row_bytes, gint height, gint radius, gint min_rows,
    cf_border border)
{
  /* tile heights of the kernels; 64: conv2d's tensor-core tiles */
  static const gint tiles[] = { 1, 8, 16, 32, 64 };
  Reads m = { height, radius, border };
  GstCudaStripPlan p;
  gint next = 0;

  gst_cuda_strips_plan (&p, row_bytes, height, min_rows, last_read, &m);
  if (!test_check (p.n >= 1 && p.n <= GST_CUDA_STRIPS_MAX
          && (p.n - 1) * p.rows < height && p.n * p.rows >= height,
          "%d rows: %d strips of %d", height, p.n, p.rows))
    return;
  for (gint j = 0; j < p.n; j++) {
    gint have = uploaded_rows (&p, j, height);

    test_check (p.begin[j] == next && p.end[j] > p.begin[j]
        && (j < p.n - 1 || p.end[j] == height),
        "%d rows, r %d: kernel %d rows [%d, %d) after row %d", height,
        radius, j, p.begin[j], p.end[j], next);
    test_check (p.wait[j] <= p.after[j] && p.after[j] < p.n
        && (j == 0 || p.after[j] >= p.after[j - 1]),
        "%d rows: kernel %d waits for upload %d, issued after %d",
        height, j, p.wait[j], p.after[j]);
    next = p.end[j];
    for (guint t = 0; t < G_N_ELEMENTS (tiles); t++) {
      gint worst = -1;

      for (gint y0 = p.begin[j]; y0 < p.end[j]; y0 += tiles[t])
        for (gint y = y0 - radius; y < y0 + tiles[t] + radius; y++)
          worst = MAX (worst, cf_border_index (y, height, border));
      test_check (worst < have, "%d rows of %zu bytes, r %d, border %d, "
          "tiles of %d: kernel %d [%d, %d) reads row %d, %d uploaded",
          height, row_bytes, radius, border, tiles[t], j, p.begin[j],
          p.end[j], worst, have);
    }
  }
}

int
main (void)
{
  static const gint heights[] = { 1, 2, 63, 64, 65, 127, 270, 480, 720,
    1080, 1081, 2160, 2161, 4320, 4333 };
  static const gsize widths[] = { 1, 1920, 1920 * 4, 3840 * 4, 7680 * 4 };

  test_seed_from_env ("strips");
  for (guint h = 0; h < G_N_ELEMENTS (heights); h++)
    for (guint w = 0; w < G_N_ELEMENTS (widths); w++)
      for (gint r = 0; r <= 20; r += (r < 3 ? 1 : 4))
        for (gint b = CF_BORDER_CLAMP; b <= CF_BORDER_CONSTANT; b++)
          check_plan (widths[w], heights[h], r, 2 * r * (r % 2),
              (cf_border) b);
  /* random planes, radii up to a box mean's */
  for (int i = 0; i < 2000; i++) {
    gint height = 1 + test_rand_int (5000);
    gsize row_bytes = 1 + (gsize) test_rand_int (40000);
    gint r = test_rand_int (i % 4 ? 16 : 200);

    check_plan (row_bytes, height, r, i % 2 ? 2 * r : 0,
        (cf_border) test_rand_int (4));
  }
  return test_finish ("strips");
}
