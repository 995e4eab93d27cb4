/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Registration of GstCudaIntegralMeta (see the header for the API). */
#include <gst/video/video.h>

#include "gstcudaintegralmeta.h"

GType
gst_cuda_integral_meta_api_get_type (void)
{
  static GType type;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR, NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register (GST_CUDA_INTEGRAL_META_API_NAME,
        tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
integral_meta_init (GstMeta * meta, gpointer params G_GNUC_UNUSED,
    GstBuffer * buffer G_GNUC_UNUSED)
{
  GstCudaIntegralMeta *m = (GstCudaIntegralMeta *) meta;

  m->width = m->height = m->n_channels = 0;
  m->data = NULL;
  for (guint c = 0; c < GST_CUDA_INTEGRAL_META_MAX_CHANNELS; c++) {
    m->sums[c] = m->squares[c] = NULL;
    m->device_sums[c] = m->device_squares[c] = 0;
  }
  m->cuda_context = NULL;
  m->cuda_device = -1;
  m->cuda_event = NULL;
  m->host_ready = 0;
  m->map_host = NULL;
  m->free_data = g_free;
  return TRUE;
}

static void
integral_meta_free (GstMeta * meta, GstBuffer * buffer G_GNUC_UNUSED)
{
  GstCudaIntegralMeta *m = (GstCudaIntegralMeta *) meta;

  if (m->data)
    m->free_data (m->data);
}

/* The tables describe these pixels only: they go along with a copy of the
 * whole buffer, not with a part or another transformation. The tables
 * live in one block: per channel its sums, then its squares. A copy is a
 * host copy: the device block belongs to the original. */
static gboolean
integral_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer G_GNUC_UNUSED, GQuark type, gpointer data)
{
  GstCudaIntegralMeta *m = (GstCudaIntegralMeta *) meta, *d;
  gsize bytes;

  if (!GST_META_TRANSFORM_IS_COPY (type)
      || ((GstMetaTransformCopy *) data)->region)
    return TRUE;                /* other pixels: not carried over */
  if (!gst_cuda_integral_meta_map_host (m))
    return FALSE;
  bytes = (m->sums_stride + m->squares_stride) * (m->height + 1)
      * m->n_channels;
  d = gst_buffer_add_cuda_integral_meta (dest, g_memdup2 (m->sums[0], bytes));
  if (!d)
    return FALSE;
  d->width = m->width;
  d->height = m->height;
  d->n_channels = m->n_channels;
  d->sum_bytes = m->sum_bytes;
  d->sums_stride = m->sums_stride;
  d->squares_stride = m->squares_stride;
  for (guint c = 0; c < m->n_channels; c++) {
    d->sums[c] = (const guint8 *) d->data + (m->sums[c] - m->sums[0]);
    d->squares[c] = (const guint8 *) d->data + (m->squares[c] - m->sums[0]);
  }
  d->host_ready = 1;
  return TRUE;
}

static const GstMetaInfo *
integral_meta_get_info (void)
{
  static const GstMetaInfo *info;

  if (g_once_init_enter (&info)) {
    const GstMetaInfo *i = gst_meta_register
        (gst_cuda_integral_meta_api_get_type (), "GstCudaIntegralMeta",
        sizeof (GstCudaIntegralMeta), integral_meta_init, integral_meta_free,
        integral_meta_transform);
    g_once_init_leave (&info, i);
  }
  return info;
}

GstCudaIntegralMeta *
gst_buffer_add_cuda_integral_meta (GstBuffer * buffer, gpointer data)
{
  GstCudaIntegralMeta *m = (GstCudaIntegralMeta *)
      gst_buffer_add_meta (buffer, integral_meta_get_info (), NULL);

  if (m) {
    m->data = data;
    m->host_ready = 1;
  } else {
    g_free (data);
  }
  return m;
}

GstCudaIntegralMeta *
gst_buffer_add_cuda_integral_meta_device (GstBuffer * buffer, gpointer data,
    GDestroyNotify free_data, gboolean (*map_host) (gpointer meta))
{
  GstCudaIntegralMeta *m = (GstCudaIntegralMeta *)
      gst_buffer_add_meta (buffer, integral_meta_get_info (), NULL);

  if (m) {
    m->data = data;
    m->free_data = free_data;
    m->map_host = map_host;
  } else {
    free_data (data);
  }
  return m;
}
