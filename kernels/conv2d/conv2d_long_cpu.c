/* The CPU twin of the long path (conv2d_long.h): the same passes, sums
 * and interpolation as the CUDA kernels, one plane at a time. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d_long.h"

typedef struct
{
  const cf_conv2d_plan *plan;
  const cf_plane_format *fmt;
  const uint8_t *src;
  size_t src_stride;
  uint8_t *dst;
  size_t dst_stride;
  int channels;
} long_job;

static double
sample_at (const long_job * j, int x, int y, int c)
{
  const uint8_t *row = j->src + (size_t) y * j->src_stride;
  if (j->fmt->sample == CF_SAMPLE_U16) {
    uint16_t v;
    memcpy (&v, row + 2 * ((size_t) x * j->channels + c), sizeof (v));
    return v;
  }
  return row[(size_t) x * j->channels + c];
}

static void
store_at (const long_job * j, int x, int y, int c, double v)
{
  uint8_t *row = j->dst + (size_t) y * j->dst_stride;
  double top = j->fmt->sample == CF_SAMPLE_U16 ? 65535.0 : 255.0;

  v = rint (v < 0 ? 0 : (v > top ? top : v));
  if (j->fmt->sample == CF_SAMPLE_U16) {
    uint16_t s = (uint16_t) v;
    memcpy (row + 2 * ((size_t) x * j->channels + c), &s, sizeof (s));
  } else {
    row[(size_t) x * j->channels + c] = (uint8_t) v;
  }
}

/* Source row y with the row factor's reach either side, border applied,
 * as `channels` interleaved samples a pixel. */
static void
extend_row (const long_job * j, int y, float *out)
{
  int rx = j->plan->kw / 2, n = j->fmt->width + j->plan->kw - 1;

  for (int p = 0; p < n; p++) {
    int x = cf_border_index (p - rx, j->fmt->width, j->plan->border);
    for (int c = 0; c < j->channels; c++)
      out[(size_t) p * j->channels + c] = x < 0 ? 0.0f
          : (float) sample_at (j, x, y, c);
  }
}

/* Row r of a work plane, or NULL for a row outside a constant border. */
static const void *
work_row (const long_job * j, const void *plane, size_t row_bytes, int y)
{
  int r = cf_border_index (y, j->fmt->height, j->plan->border);
  return r < 0 ? NULL : (const uint8_t *) plane + (size_t) r * row_bytes;
}

/* The work area: the row pass's plane (32-bit sums for boxes, floats
 * else), then the column pass's. */
static void
work_planes (const long_job * j, const cf_conv2d_long_grid * g, void *work,
    void **rows, float **cols, size_t *row_bytes)
{
  *row_bytes = (size_t) g->nx * j->channels * 4;
  *rows = work;
  *cols = (float *) ((uint8_t *) work + *row_bytes * j->fmt->height);
}

/* Box row sums of source rows [begin, end): prefix sums of each extended
 * row, a window's sum their difference. */
static int
box_rows (const long_job * j, int32_t * sums, int begin, int end)
{
  const cf_conv2d_plan *p = j->plan;
  int w = j->fmt->width, C = j->channels, len = w * C;
  float *ext = malloc (sizeof (float) * (w + p->kw) * C);
  int64_t *prefix = malloc (sizeof (int64_t) * (w + p->kw) * C);

  if (!ext || !prefix) {
    free (ext);
    free (prefix);
    return CF_ERR_NO_MEMORY;
  }
  for (int y = begin; y < end; y++) {
    int32_t *out = sums + (size_t) y * len;
    extend_row (j, y, ext);
    for (int c = 0; c < C; c++)
      prefix[c] = 0;
    for (int q = 0; q < w + p->kw - 1; q++)
      for (int c = 0; c < C; c++)
        prefix[(q + 1) * C + c] = prefix[q * C + c]
            + (int64_t) ext[(size_t) q * C + c];
    for (int x = 0; x < w; x++)
      for (int c = 0; c < C; c++)
        out[x * C + c] = (int32_t) (prefix[(x + p->kw) * C + c]
            - prefix[x * C + c]);
  }
  free (ext);
  free (prefix);
  return CF_OK;
}

/* Box outputs of rows [begin, end): the window's sum for the first row,
 * then a row added below and one taken off above. */
static void
box_columns (const long_job * j, const int32_t * sums, int begin, int end)
{
  const cf_conv2d_plan *p = j->plan;
  int C = j->channels, ry = p->kh / 2, len = j->fmt->width * C;
  size_t row_bytes = sizeof (int32_t) * len;

  for (int v = 0; v < len; v++) {
    int64_t sum = 0;
    int x = v / C, c = v % C;
    for (int k = begin - ry; k <= begin + ry; k++) {
      const int32_t *r = work_row (j, sums, row_bytes, k);
      sum += r ? r[v] : 0;
    }
    for (int y = begin; y < end; y++) {
      const int32_t *in = work_row (j, sums, row_bytes, y + 1 + ry);
      const int32_t *out = work_row (j, sums, row_bytes, y - ry);
      if (c == j->fmt->keep_channel)
        store_at (j, x, y, c, sample_at (j, x, y, c));
      else
        store_at (j, x, y, c, (double) sum * p->box_weight + p->offset);
      sum += (in ? in[v] : 0) - (out ? out[v] : 0);
    }
  }
}

/* The interpolation's cell and weight for output coordinate x. */
static void
locate (int x, int step, int n, int size, int *k, float *t)
{
  int a, b;

  if (n == 1) {
    *k = 0;
    *t = 0.0f;
    return;
  }
  *k = x / step < n - 2 ? x / step : n - 2;
  a = cf_conv2d_long_position (*k, step, size);
  b = cf_conv2d_long_position (*k + 1, step, size);
  *t = (float) (x - a) / (float) (b - a);
}

/* out[k] += w * in[k] over a row: the loops below in this form, which the
 * compiler turns into vector instructions. */
static void
axpy (float *restrict out, const float *restrict in, float w, int len)
{
  for (int k = 0; k < len; k++)
    out[k] += w * in[k];
}

/* Row pass of source rows [begin, end) at the grid's columns: with a step
 * of 1 tap by tap over the whole row, else a dot product a column. */
static int
weighted_rows (const long_job * j, const cf_conv2d_long_grid * g,
    float *rows, int begin, int end)
{
  const cf_conv2d_plan *p = j->plan;
  int C = j->channels, len = g->nx * C;
  float *ext = malloc (sizeof (float) * (j->fmt->width + p->kw) * C);

  if (!ext)
    return CF_ERR_NO_MEMORY;
  for (int y = begin; y < end; y++) {
    float *out = rows + (size_t) y * len;
    extend_row (j, y, ext);
    if (g->step_x == 1) {
      memset (out, 0, sizeof (float) * len);
      for (int i = 0; i < p->kw; i++)
        axpy (out, ext + (size_t) i * C, p->row[i], len);
      continue;
    }
    for (int k = 0; k < g->nx; k++) {
      const float *at = ext + (size_t) cf_conv2d_long_position (k,
          g->step_x, j->fmt->width) * C;
      for (int c = 0; c < C; c++) {
        float acc = 0.0f;
        for (int i = 0; i < p->kw; i++)
          acc += p->row[i] * at[i * C + c];
        out[k * C + c] = acc;
      }
    }
  }
  free (ext);
  return CF_OK;
}

/* Column pass of computed rows [begin, end), tap by tap over whole rows. */
static void
weighted_columns (const long_job * j, const cf_conv2d_long_grid * g,
    const float *rows, float *cols, int begin, int end)
{
  const cf_conv2d_plan *p = j->plan;
  int len = g->nx * j->channels;
  size_t row_bytes = sizeof (float) * len;

  for (int m = begin; m < end; m++) {
    int y = cf_conv2d_long_position (m, g->step_y, j->fmt->height);
    float *out = cols + (size_t) m * len;
    memset (out, 0, row_bytes);
    for (int i = 0; i < p->kh; i++) {
      const float *r = work_row (j, rows, row_bytes, y + i - p->kh / 2);
      if (r)
        axpy (out, r, p->col[i], len);
    }
  }
}

/* Output rows [begin, end), between the computed values around each. */
static void
weighted_output (const long_job * j, const cf_conv2d_long_grid * g,
    const float *cols, int begin, int end)
{
  const cf_conv2d_plan *p = j->plan;
  int w = j->fmt->width, h = j->fmt->height, C = j->channels;
  int len = g->nx * C;

  for (int y = begin; y < end; y++) {
    int m, k;
    float ty, tx;
    locate (y, g->step_y, g->ny, h, &m, &ty);
    for (int x = 0; x < w; x++) {
      const float *q = cols + (size_t) m * len;
      const float *q2 = g->ny > 1 ? q + len : q;
      locate (x, g->step_x, g->nx, w, &k, &tx);
      for (int c = 0; c < C; c++) {
        int a = k * C + c, b = g->nx > 1 ? a + C : a;
        float top = (1.0f - tx) * q[a] + tx * q[b];
        float bottom = (1.0f - tx) * q2[a] + tx * q2[b];
        float sum = (1.0f - ty) * top + ty * bottom;
        if (c == j->fmt->keep_channel)
          store_at (j, x, y, c, sample_at (j, x, y, c));
        else
          store_at (j, x, y, c, sum * p->scale + p->offset);
      }
    }
  }
}

size_t
cf_conv2d_long_cpu_work_bytes (const cf_conv2d_plan * plan,
    const cf_plane_format * format)
{
  cf_conv2d_long_grid g;

  cf_conv2d_long_grid_init (&g, plan, format);
  /* boxes have no column pass's plane */
  return (size_t) g.nx * format->channels * 4 * (format->height
      + (plan->box ? 0 : g.ny));
}

int
cf_conv2d_long_cpu_rows (const cf_conv2d_plan * plan,
    const cf_plane_format * format, cf_conv2d_long_stage stage)
{
  cf_conv2d_long_grid g;

  cf_conv2d_long_grid_init (&g, plan, format);
  switch (stage) {
    case CF_CONV2D_LONG_ROWS:
      return format->height;
    case CF_CONV2D_LONG_COLUMNS:
      return plan->box ? format->height : g.ny;
    default:
      return plan->box ? 0 : format->height;
  }
}

int
cf_conv2d_long_cpu_stage (const cf_conv2d_plan * plan,
    const cf_plane_format * fmt, const void *src, size_t src_stride,
    void *dst, size_t dst_stride, void *work, cf_conv2d_long_stage stage,
    int begin, int end)
{
  long_job j = { plan, fmt, src, src_stride, dst, dst_stride, 0 };
  int status = cf_plane_format_check (fmt);
  cf_conv2d_long_grid g;
  size_t row_bytes;
  void *rows;
  float *cols;

  if (status != CF_OK)
    return status;
  row_bytes = fmt->width * cf_plane_format_pixel_bytes (fmt);
  if (!plan || !plan->long_mask || !src || !dst || !work
      || fmt->height > CF_CONV2D_LONG_MAX_HEIGHT
      || src_stride < row_bytes || dst_stride < row_bytes || begin < 0
      || begin > end || end > cf_conv2d_long_cpu_rows (plan, fmt, stage))
    return CF_ERR_INVALID;
  j.channels = fmt->channels;
  cf_conv2d_long_grid_init (&g, plan, fmt);
  work_planes (&j, &g, work, &rows, &cols, &row_bytes);
  switch (stage) {
    case CF_CONV2D_LONG_ROWS:
      return plan->box ? box_rows (&j, rows, begin, end)
          : weighted_rows (&j, &g, rows, begin, end);
    case CF_CONV2D_LONG_COLUMNS:
      if (plan->box)
        box_columns (&j, rows, begin, end);
      else
        weighted_columns (&j, &g, rows, cols, begin, end);
      return CF_OK;
    case CF_CONV2D_LONG_OUTPUT:
      if (!plan->box)
        weighted_output (&j, &g, cols, begin, end);
      return CF_OK;
  }
  return CF_ERR_INVALID;
}

int
cf_conv2d_long_cpu (const cf_conv2d_plan * plan,
    const cf_plane_format * fmt, const void *src, size_t src_stride,
    void *dst, size_t dst_stride)
{
  int status = cf_plane_format_check (fmt);
  void *work;

  if (status != CF_OK)
    return status;
  if (!plan || !plan->long_mask)
    return CF_ERR_INVALID;
  work = malloc (cf_conv2d_long_cpu_work_bytes (plan, fmt));
  if (!work)
    return CF_ERR_NO_MEMORY;
  for (int s = CF_CONV2D_LONG_ROWS; s <= CF_CONV2D_LONG_OUTPUT
      && status == CF_OK; s++)
    status = cf_conv2d_long_cpu_stage (plan, fmt, src, src_stride, dst,
        dst_stride, work, (cf_conv2d_long_stage) s, 0,
        cf_conv2d_long_cpu_rows (plan, fmt, (cf_conv2d_long_stage) s));
  free (work);
  return status;
}
