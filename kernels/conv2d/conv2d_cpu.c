/* CPU twin of the 2D convolution: the fallback where no GPU is usable and
 * the behaviour the CUDA variants must match.
 *
 * Rows are converted to float once, padded left and right by the border
 * mode, and kept in a ring of `kh` rows, so the inner loop is a branch-free
 * multiply-add over a contiguous row (the compiler vectorises it). Separable
 * masks keep row-filtered rows in the ring instead, for kw + kh multiplies
 * per sample instead of kw * kh.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d_long.h"
#include "conv2d_spectral.h"

typedef struct
{
  const cf_conv2d_plan *plan;
  const cf_plane_format *fmt;
  const uint8_t *src;
  size_t src_stride;
  int rx, ry, row_len;          /* row_len: samples in one output row */
  float *padded;                /* one input row with kw - 1 pixels of border */
  float *ring;                  /* kh rows: padded input, or row-filtered */
  int *ring_row;                /* which virtual row each ring slot holds */
  int ring_stride;
} cpu_conv;

static float
load_sample (const cpu_conv * c, int x, int y, int ch)
{
  const uint8_t *row = c->src + (size_t) y * c->src_stride;
  int n = c->fmt->channels;
  if (c->fmt->sample == CF_SAMPLE_U16) {
    /* rows of 16-bit samples may start at odd addresses (any stride) */
    uint16_t v;
    memcpy (&v, row + 2 * (size_t) (x * n + ch), sizeof (v));
    return v;
  }
  return row[x * n + ch];
}

/* Virtual row v (any integer) as floats with rx pixels of border each side,
 * into `out`. */
static void
pad_row (const cpu_conv * c, int v, float *out)
{
  const cf_plane_format *f = c->fmt;
  int n = f->channels, padded_w = f->width + c->plan->kw - 1;
  int y = cf_border_index (v, f->height, c->plan->border);

  for (int px = 0; px < padded_w; px++) {
    int x = y < 0 ? -1 : cf_border_index (px - c->rx, f->width,
        c->plan->border);
    for (int ch = 0; ch < n; ch++)
      out[px * n + ch] = x < 0 ? 0.0f : load_sample (c, x, y, ch);
  }
}

/* out[k] += w * in[k] over a whole row: the hot loop. */
static void
axpy (float *restrict out, const float *restrict in, float w, int len)
{
  for (int k = 0; k < len; k++)
    out[k] += w * in[k];
}

/* Ring slot holding virtual row v: the padded input row (general masks) or
 * the row-filtered row (separable). Each virtual row is built once while it
 * stays in the ring. */
static const float *
ring_get (cpu_conv * c, int v)
{
  int slot = ((v % c->plan->kh) + c->plan->kh) % c->plan->kh;
  float *dst = c->ring + (size_t) slot * c->ring_stride;

  if (c->ring_row[slot] == v)
    return dst;
  c->ring_row[slot] = v;
  if (!c->plan->separable) {
    pad_row (c, v, dst);
    return dst;
  }
  pad_row (c, v, c->padded);
  memset (dst, 0, sizeof (float) * c->row_len);
  for (int i = 0; i < c->plan->kw; i++)
    axpy (dst, c->padded + i * c->fmt->channels, c->plan->row[i],
        c->row_len);
  return dst;
}

/* Sums of one output row y into acc (and acc2 for magnitude masks). */
static void
sum_row (cpu_conv * c, int y, float *acc, float *acc2)
{
  const cf_conv2d_plan *p = c->plan;
  int n = c->fmt->channels;

  memset (acc, 0, sizeof (float) * c->row_len);
  if (acc2)
    memset (acc2, 0, sizeof (float) * c->row_len);
  for (int j = 0; j < p->kh; j++) {
    const float *in = ring_get (c, y + j - c->ry);
    if (p->separable) {
      axpy (acc, in, p->col[j], c->row_len);
      continue;
    }
    for (int i = 0; i < p->kw; i++) {
      float w = p->taps[0][j * p->kw + i];
      if (w != 0.0f)
        axpy (acc, in + i * n, w, c->row_len);
      if (acc2 && (w = p->taps[1][j * p->kw + i]) != 0.0f)
        axpy (acc2, in + i * n, w, c->row_len);
    }
  }
}

/* Saturate to [0, maxval], then round to nearest, ties to even (the
 * default rounding mode). The CUDA kernels compute the same. */
static inline float
saturate (float v, float maxval)
{
  return v < 0.0f ? 0.0f : (v > maxval ? maxval : v);
}

static void
store_row (cpu_conv * c, int y, const float *acc, const float *acc2,
    uint8_t * dst)
{
  const cf_plane_format *f = c->fmt;
  const cf_conv2d_plan *p = c->plan;
  int n = f->channels, keep = f->keep_channel;
  int u16 = f->sample == CF_SAMPLE_U16;
  float maxval = u16 ? 65535.0f : 255.0f;

  for (int k = 0; k < c->row_len; k++) {
    float v = acc2 ? sqrtf (acc[k] * acc[k] + acc2[k] * acc2[k]) : acc[k];
    long r = lrintf (saturate (v * p->scale + p->offset, maxval));
    if (u16) {
      uint16_t v = (uint16_t) r;
      memcpy (dst + 2 * (size_t) k, &v, sizeof (v));
    } else
      dst[k] = (uint8_t) r;
  }
  /* the kept channel (alpha or padding) is copied from the source */
  if (keep >= 0)
    for (int x = 0; x < f->width; x++)
      dst[x * n + keep] = (uint8_t) load_sample (c, x, y, keep);
}

/* A spectral plane on one thread, its transforms made and freed here. */
static int
spectral_cpu (const cf_conv2d_plan * plan, const cf_plane_format * fmt,
    const void *src, size_t src_stride, void *dst, size_t dst_stride)
{
  cf_conv2d_spectral_cpu *s;
  int status = cf_conv2d_spectral_cpu_new (&s, plan, fmt);

  for (int k = 0; status == CF_OK && k < cf_conv2d_spectral_cpu_channels (s);
      k++)
    status = cf_conv2d_spectral_cpu_channel (s, src, src_stride, dst,
        dst_stride, k);
  cf_conv2d_spectral_cpu_free (s);
  return status;
}

int
cf_conv2d_cpu (const cf_conv2d_plan * plan, const cf_plane_format * fmt,
    const void *src, size_t src_stride, void *dst, size_t dst_stride,
    int row_begin, int row_end)
{
  cpu_conv c = { 0 };
  float *acc;
  int status = cf_plane_format_check (fmt);
  size_t pixel_bytes;

  if (status != CF_OK)
    return status;
  pixel_bytes = cf_plane_format_pixel_bytes (fmt);
  if (!plan || !src || !dst || row_begin < 0 || row_end > fmt->height
      || row_begin > row_end || src_stride < fmt->width * pixel_bytes
      || dst_stride < fmt->width * pixel_bytes)
    return CF_ERR_INVALID;
  if (row_begin == row_end)
    return CF_OK;
  /* long and spectral masks filter whole planes (conv2d_long.h,
   * conv2d_spectral.h) */
  if (plan->long_mask || plan->spectral) {
    if (row_begin != 0 || row_end != fmt->height)
      return CF_ERR_UNSUPPORTED;
    return plan->long_mask ? cf_conv2d_long_cpu (plan, fmt, src, src_stride,
        dst, dst_stride) : spectral_cpu (plan, fmt, src, src_stride, dst,
        dst_stride);
  }

  c.plan = plan;
  c.fmt = fmt;
  c.src = src;
  c.src_stride = src_stride;
  c.rx = plan->kw / 2;
  c.ry = plan->kh / 2;
  c.row_len = fmt->width * fmt->channels;
  c.ring_stride = (fmt->width + plan->kw - 1) * fmt->channels;
  c.padded = malloc (sizeof (float) * c.ring_stride * (plan->kh + 1));
  acc = malloc (sizeof (float) * c.row_len * 2);
  c.ring_row = malloc (sizeof (int) * plan->kh);
  if (!c.padded || !acc || !c.ring_row) {
    status = CF_ERR_NO_MEMORY;
    goto done;
  }
  c.ring = c.padded + c.ring_stride;
  for (int s = 0; s < plan->kh; s++)
    c.ring_row[s] = INT_MIN;     /* holds no row yet */

  for (int y = row_begin; y < row_end; y++) {
    float *acc2 = plan->magnitude ? acc + c.row_len : NULL;
    sum_row (&c, y, acc, acc2);
    store_row (&c, y, acc, acc2, (uint8_t *) dst + (size_t) y * dst_stride);
  }

done:
  free (c.padded);
  free (acc);
  free (c.ring_row);
  return status;
}
