/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum's integral tables: see gstcudaprefixsumtables.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaprefixsumtables.h"

/* Bytes of the tables of all channels: per channel its sums, then its
 * squares, as GstCudaIntegralMeta keeps them. */
void
gst_cuda_prefix_sum_video_table_layout (GstCudaPrefixSumVideo * v,
    gsize * sum_pitch, gsize * sq_pitch, gsize * per_channel)
{
  gint w = GST_VIDEO_INFO_WIDTH (&v->info);
  gint h = GST_VIDEO_INFO_HEIGHT (&v->info);

  /* rows of whole 8-byte words: every table (the squares' u64 after the
   * sums, the next channel's after those) starts 8-byte aligned, as the
   * GPU needs */
  *sum_pitch = GST_ROUND_UP_8 (((gsize) w + 1) * cf_integral_sum_size
      (v->type));
  *sq_pitch = ((gsize) w + 1) * 8;
  *per_channel = (*sum_pitch + *sq_pitch) * ((gsize) h + 1);
}

/* The shape of the tables a meta describes. */
static void
describe_tables (GstCudaPrefixSumVideo * v, GstCudaIntegralMeta * view)
{
  gsize sum_pitch, sq_pitch, per;

  gst_cuda_prefix_sum_video_table_layout (v, &sum_pitch, &sq_pitch, &per);
  view->width = GST_VIDEO_INFO_WIDTH (&v->info);
  view->height = GST_VIDEO_INFO_HEIGHT (&v->info);
  view->n_channels = v->n_channels;
  view->sum_bytes = (guint) cf_integral_sum_size (v->type);
  view->sums_stride = sum_pitch;
  view->squares_stride = sq_pitch;
}

/* The host tables: a meta's block (attached to `buf`, which must be
 * writable: before its frame is mapped) or the element's, described by the
 * returned meta or by `storage`. */
GstCudaIntegralMeta *
gst_cuda_prefix_sum_video_host_tables (GstCudaPrefixSumVideo * v,
    GstBuffer * buf, gboolean attach, GstCudaIntegralMeta * storage)
{
  GstCudaIntegralMeta *view = storage;
  gsize sum_pitch, sq_pitch, per;
  gpointer block;

  gst_cuda_prefix_sum_video_table_layout (v, &sum_pitch, &sq_pitch, &per);
  if (attach) {
    block = g_malloc (per * v->n_channels);
    view = gst_buffer_add_cuda_integral_meta (buf, block);
    if (!view)
      return NULL;
  } else {
    if (!v->tables)
      v->tables = g_malloc (per * v->n_channels);
    block = v->tables;
    view->host_ready = 1;
  }
  describe_tables (v, view);
  for (guint c = 0; c < v->n_channels; c++) {
    view->sums[c] = (const guint8 *) block + c * per;
    view->squares[c] = view->sums[c] + sum_pitch * (view->height + 1);
  }
  return view;
}

/* map_host of a meta whose tables are on the device. */
static gboolean
map_device_tables (gpointer meta)
{
  GstCudaIntegralMeta *m = meta;
  GstCudaTableBlock *block = m->data;
  const guint8 *host = gst_cuda_table_block_host (block);

  if (!host)
    return FALSE;
  for (guint c = 0; c < m->n_channels; c++) {
    m->sums[c] = host + (m->device_sums[c] - (guintptr) block->device);
    m->squares[c] = host + (m->device_squares[c] - (guintptr) block->device);
  }
  g_atomic_int_set (&m->host_ready, 1);
  return TRUE;
}

/* GPU: the tables stay on the device, in a block of the element's pool
 * that travels on `buf` in the meta (attached before the frame is mapped,
 * while the buffer is writable). */
GstCudaIntegralMeta *
gst_cuda_prefix_sum_video_device_tables (GstCudaPrefixSumVideo * v,
    GstBuffer * buf, GstCudaTableBlock ** block)
{
  GstCudaFilterDevice *device =
      gst_cuda_filter_base_device (v->owner);
  GstCudaIntegralMeta *view;
  gsize sum_pitch, sq_pitch, per;
  int status;

  gst_cuda_prefix_sum_video_table_layout (v, &sum_pitch, &sq_pitch, &per);
  if (!v->table_pool)
    v->table_pool = gst_cuda_table_pool_new (device,
        per * v->n_channels);
  *block = gst_cuda_table_pool_acquire (v->table_pool, &status);
  if (!GST_CUDA_FILTER_CHECK (v->owner, status, "allocating integral tables"))
    return NULL;
  view = gst_buffer_add_cuda_integral_meta_device (buf, *block,
      (GDestroyNotify) gst_cuda_table_block_release, map_device_tables);
  if (!view)
    return NULL;
  describe_tables (v, view);
  for (guint c = 0; c < v->n_channels; c++) {
    guintptr sums = (guintptr) (*block)->device + c * per;
    view->device_sums[c] = sums;
    view->device_squares[c] = sums + sum_pitch * (view->height + 1);
  }
#ifdef HAVE_GST_CUDA
  view->cuda_context = gst_cuda_filter_device_context (device);
#endif
  view->cuda_device = gst_cuda_filter_device_id (device);
  view->cuda_event = (*block)->written;
  return view;
}
