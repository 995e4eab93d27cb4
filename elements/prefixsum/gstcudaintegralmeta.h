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
 *
 * Tables computed on the GPU stay there: `device_sums` and `device_squares`
 * are their CUdeviceptr addresses (same strides as the host tables) in
 * `cuda_context` (the pipeline's GstCudaContext, or NULL for the primary
 * context of `cuda_device`). A CUDA application orders its reads after
 * `cuda_event` (a cudaEvent_t/CUevent recorded once they are written):
 *
 *   cudaStreamWaitEvent (my_stream, (cudaEvent_t) m->cuda_event, 0);
 *   my_kernel<<<..., my_stream>>> ((const uint32_t *) m->device_sums[0],
 *       m->sums_stride, ...);
 *
 * and is done with them before it releases the buffer. The host tables of
 * such a meta are copied from the device the first time they are asked for
 * (gst_cuda_integral_meta_map_host(), which gst_cuda_integral_meta_rect()
 * calls), once per frame; until then `sums` and `squares` are NULL.
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

  /* the tables on the GPU, 0 when they were computed on the CPU */
  guint64 device_sums[GST_CUDA_INTEGRAL_META_MAX_CHANNELS];
  guint64 device_squares[GST_CUDA_INTEGRAL_META_MAX_CHANNELS];
  gpointer cuda_context;        /* a GstCudaContext, or NULL */
  gint cuda_device;
  gpointer cuda_event;          /* recorded once the device tables are written */

  /* private: the host tables are there, or how to bring them */
  gint host_ready;
  gboolean (*map_host) (gpointer meta);
  GDestroyNotify free_data;
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

/* Makes `sums` and `squares` valid on the host: TRUE at once for tables
 * computed on the CPU, else after the one copy from the device (thread
 * safe; later calls return at once). FALSE when the copy failed. */
static inline gboolean
gst_cuda_integral_meta_map_host (const GstCudaIntegralMeta * m)
{
  return g_atomic_int_get (&m->host_ready)
      || (m->map_host && m->map_host ((gpointer) m));
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
      || y1 > m->height || x1 < x || y1 < y
      || !gst_cuda_integral_meta_map_host (m))
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
 * host tables live in `data` (taken, freed with g_free). */
GType gst_cuda_integral_meta_api_get_type (void);
GstCudaIntegralMeta *gst_buffer_add_cuda_integral_meta (GstBuffer * buffer,
    gpointer data);
/* Attaches one whose tables are on the device only: `data` (taken, freed
 * with `free_data`) is passed to `map_host`, which fills the host pointers
 * and sets host_ready. The caller fills the device fields. */
GstCudaIntegralMeta *gst_buffer_add_cuda_integral_meta_device (GstBuffer *
    buffer, gpointer data, GDestroyNotify free_data,
    gboolean (*map_host) (gpointer meta));

G_END_DECLS

#endif
