/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaIntegralMeta: the integral images (summed-area tables) of a video
 * frame, attached by cudaprefixsum (output=passthrough, attach-meta=true),
 * and how an application reads the sum, mean and variance of any rectangle
 * of the frame in O(1).
 *
 * This header is the whole API an application needs: it does not link
 * against the plugin. Copy it, include it, and:
 *
 *   GstCudaIntegralMeta *m = gst_buffer_get_cuda_integral_meta (buffer);
 *   gdouble sum, mean, variance;
 *   if (m && gst_cuda_integral_meta_rect (m, 0, x, y, w, h, &sum, &mean,
 *           &variance))
 *     ...
 *
 * Per channel (1 for GRAY and the luma of YUV, 3 for R, G, B of the RGBA
 * family in that order) there are two tables of (width + 1) x (height + 1)
 * entries: row 0 and column 0 are zero and entry (x, y) holds the sum over
 * [0, x) x [0, y) of the samples (`sums`) and of their squares (`squares`).
 * Sums of 8-bit frames are guint32 (exact for any rectangle of up to 16.8
 * million pixels: differences are taken modulo 2^32), of 16-bit frames
 * guint64; squares are always guint64.
 */
#ifndef __GST_CUDA_INTEGRAL_META_H__
#define __GST_CUDA_INTEGRAL_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_CUDA_INTEGRAL_META_API_NAME "GstCudaIntegralMetaAPI"
#define GST_CUDA_INTEGRAL_META_MAX_CHANNELS 3

typedef struct
{
  GstMeta meta;

  guint width, height;          /* of the frame (the plane) */
  guint n_channels;
  guint sum_bytes;              /* 4 (guint32) or 8 (guint64) */
  const guint8 *sums[GST_CUDA_INTEGRAL_META_MAX_CHANNELS];
  const guint8 *squares[GST_CUDA_INTEGRAL_META_MAX_CHANNELS];
  gsize sums_stride, squares_stride;    /* bytes between table rows */
  gpointer data;                /* owns the tables */
} GstCudaIntegralMeta;

static inline GstCudaIntegralMeta *
gst_buffer_get_cuda_integral_meta (GstBuffer * buffer)
{
  GType api = g_type_from_name (GST_CUDA_INTEGRAL_META_API_NAME);
  return api ? (GstCudaIntegralMeta *) gst_buffer_get_meta (buffer, api)
      : NULL;
}

/* Entry (x, y) of a table. */
static inline guint64
gst_cuda_integral_meta_entry (const guint8 * table, gsize stride,
    guint bytes, guint x, guint y)
{
  const guint8 *row = table + (gsize) y * stride;
  return bytes == 4 ? ((const guint32 *) row)[x]
      : ((const guint64 *) row)[x];
}

/* The sum, mean and (population) variance of channel `channel` over the
 * w x h rectangle at (x, y). FALSE when the rectangle is empty or leaves
 * the frame. Any output may be NULL. */
static inline gboolean
gst_cuda_integral_meta_rect (const GstCudaIntegralMeta * m, guint channel,
    guint x, guint y, guint w, guint h, gdouble * sum, gdouble * mean,
    gdouble * variance)
{
  guint64 s, q, n;
  guint x1 = x + w, y1 = y + h;

  if (!m || channel >= m->n_channels || w == 0 || h == 0 || x1 > m->width
      || y1 > m->height || x1 < x || y1 < y)
    return FALSE;
  s = gst_cuda_integral_meta_entry (m->sums[channel], m->sums_stride,
      m->sum_bytes, x1, y1)
      - gst_cuda_integral_meta_entry (m->sums[channel], m->sums_stride,
      m->sum_bytes, x, y1)
      - gst_cuda_integral_meta_entry (m->sums[channel], m->sums_stride,
      m->sum_bytes, x1, y)
      + gst_cuda_integral_meta_entry (m->sums[channel], m->sums_stride,
      m->sum_bytes, x, y);
  if (m->sum_bytes == 4)
    s = (guint32) s;            /* modulo 2^32, like the table */
  q = gst_cuda_integral_meta_entry (m->squares[channel], m->squares_stride,
      8, x1, y1)
      - gst_cuda_integral_meta_entry (m->squares[channel], m->squares_stride,
      8, x, y1)
      - gst_cuda_integral_meta_entry (m->squares[channel], m->squares_stride,
      8, x1, y)
      + gst_cuda_integral_meta_entry (m->squares[channel], m->squares_stride,
      8, x, y);
  n = (guint64) w * h;
  if (sum)
    *sum = (gdouble) s;
  if (mean)
    *mean = (gdouble) s / n;
  if (variance) {
    gdouble mu = (gdouble) s / n, v = (gdouble) q / n - mu * mu;
    *variance = v > 0 ? v : 0;
  }
  return TRUE;
}

/* For the plugin: registers the API and the meta, and attaches one whose
 * tables live in `data` (taken, freed with g_free). */
GType gst_cuda_integral_meta_api_get_type (void);
GstCudaIntegralMeta *gst_buffer_add_cuda_integral_meta (GstBuffer * buffer,
    gpointer data);

G_END_DECLS

#endif
