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

static int
box_cpu (const long_job * j, float *ext)
{
  const cf_conv2d_plan *p = j->plan;
  int w = j->fmt->width, h = j->fmt->height, C = j->channels;
  int ry = p->kh / 2, len = w * C;
  size_t row_bytes = sizeof (int32_t) * len;
  int32_t *sums = malloc (row_bytes * h);
  int64_t *prefix = malloc (sizeof (int64_t) * (w + p->kw) * C);
  double weight = p->box_weight;

  if (!sums || !prefix) {
    free (sums);
    free (prefix);
    return CF_ERR_NO_MEMORY;
  }
  for (int y = 0; y < h; y++) {
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
  for (int v = 0; v < len; v++) {
    int64_t sum = 0;
    int x = v / C, c = v % C;
    for (int k = -ry; k <= ry; k++) {
      const int32_t *r = work_row (j, sums, row_bytes, k);
      sum += r ? r[v] : 0;
    }
    for (int y = 0; y < h; y++) {
      const int32_t *in = work_row (j, sums, row_bytes, y + 1 + ry);
      const int32_t *out = work_row (j, sums, row_bytes, y - ry);
      if (c == j->fmt->keep_channel)
        store_at (j, x, y, c, sample_at (j, x, y, c));
      else
        store_at (j, x, y, c, (double) sum * weight + p->offset);
      sum += (in ? in[v] : 0) - (out ? out[v] : 0);
    }
  }
  free (sums);
  free (prefix);
  return CF_OK;
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

static int
weighted_cpu (const long_job * j, float *ext)
{
  const cf_conv2d_plan *p = j->plan;
  cf_conv2d_long_grid g;
  int w = j->fmt->width, h = j->fmt->height, C = j->channels, len;
  size_t row_bytes;
  float *rows, *cols;

  cf_conv2d_long_grid_init (&g, p, j->fmt);
  len = g.nx * C;
  row_bytes = sizeof (float) * len;
  rows = malloc (row_bytes * h);
  cols = malloc (row_bytes * g.ny);
  if (!rows || !cols) {
    free (rows);
    free (cols);
    return CF_ERR_NO_MEMORY;
  }
  for (int y = 0; y < h; y++) {
    extend_row (j, y, ext);
    for (int k = 0; k < g.nx; k++) {
      const float *at = ext + (size_t) cf_conv2d_long_position (k,
          g.step_x, w) * C;
      for (int c = 0; c < C; c++) {
        float acc = 0.0f;
        for (int i = 0; i < p->kw; i++)
          acc += p->row[i] * at[i * C + c];
        rows[(size_t) y * len + k * C + c] = acc;
      }
    }
  }
  for (int m = 0; m < g.ny; m++) {
    int y = cf_conv2d_long_position (m, g.step_y, h);
    for (int v = 0; v < len; v++) {
      float acc = 0.0f;
      for (int i = 0; i < p->kh; i++) {
        const float *r = work_row (j, rows, row_bytes, y + i - p->kh / 2);
        acc += p->col[i] * (r ? r[v] : 0.0f);
      }
      cols[(size_t) m * len + v] = acc;
    }
  }
  for (int y = 0; y < h; y++) {
    int m, k;
    float ty, tx;
    locate (y, g.step_y, g.ny, h, &m, &ty);
    for (int x = 0; x < w; x++) {
      const float *q = cols + (size_t) m * len;
      const float *q2 = g.ny > 1 ? q + len : q;
      locate (x, g.step_x, g.nx, w, &k, &tx);
      for (int c = 0; c < C; c++) {
        int a = k * C + c, b = g.nx > 1 ? a + C : a;
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
  free (rows);
  free (cols);
  return CF_OK;
}

int
cf_conv2d_long_cpu (const cf_conv2d_plan * plan,
    const cf_plane_format * fmt, const void *src, size_t src_stride,
    void *dst, size_t dst_stride)
{
  long_job j = { plan, fmt, src, src_stride, dst, dst_stride, 0 };
  int status = cf_plane_format_check (fmt);
  size_t row_bytes;
  float *ext;

  if (status != CF_OK)
    return status;
  row_bytes = fmt->width * cf_plane_format_pixel_bytes (fmt);
  if (!plan || !plan->long_mask || !src || !dst || src_stride < row_bytes
      || dst_stride < row_bytes)
    return CF_ERR_INVALID;
  j.channels = fmt->channels;
  ext = malloc (sizeof (float) * (fmt->width + plan->kw) * fmt->channels);
  if (!ext)
    return CF_ERR_NO_MEMORY;
  status = plan->box ? box_cpu (&j, ext) : weighted_cpu (&j, ext);
  free (ext);
  return status;
}
