/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Device blocks for integral tables; see gstcudatablepool.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudatablepool.h"

struct _GstCudaTablePool
{
  gint refcount;                /* the element's + one per block out */
  GstCudaFilterDevice *device;
  gsize size;

  GMutex lock;                  /* guards free_blocks */
  GSList *free_blocks;
};

GstCudaTablePool *
gst_cuda_table_pool_new (GstCudaFilterDevice * device, gsize size)
{
  GstCudaTablePool *pool = g_new0 (GstCudaTablePool, 1);

  pool->refcount = 1;
  pool->device = gst_cuda_filter_device_ref (device);
  pool->size = size;
  g_mutex_init (&pool->lock);
  return pool;
}

gsize
gst_cuda_table_pool_block_size (GstCudaTablePool * pool)
{
  return pool->size;
}

static void
free_block (GstCudaTableBlock * block)
{
  if (block->device)
    cf_gpu_free (block->device);
  if (block->written)
    cf_gpu_event_destroy (block->written);
  g_free (block->host);
  g_mutex_clear (&block->lock);
  g_free (block);
}

/* The last block came back after the element let go: the device memory
 * goes, on whichever thread that is, with the pool's context pushed. */
static void
pool_unref (GstCudaTablePool * pool)
{
  gboolean pushed;

  if (!g_atomic_int_dec_and_test (&pool->refcount))
    return;
  pushed = gst_cuda_filter_device_push (pool->device) == CF_OK;

  g_slist_free_full (pool->free_blocks, (GDestroyNotify) free_block);
  if (pushed)
    gst_cuda_filter_device_pop (pool->device);
  gst_cuda_filter_device_unref (pool->device);
  g_mutex_clear (&pool->lock);
  g_free (pool);
}

void
gst_cuda_table_pool_release (GstCudaTablePool * pool)
{
  if (pool)
    pool_unref (pool);
}

GstCudaTableBlock *
gst_cuda_table_pool_acquire (GstCudaTablePool * pool, int *status)
{
  GstCudaTableBlock *block = NULL;

  *status = gst_cuda_filter_device_push (pool->device);
  if (*status != CF_OK)
    return NULL;
  g_mutex_lock (&pool->lock);
  if (pool->free_blocks) {
    block = pool->free_blocks->data;
    pool->free_blocks = g_slist_delete_link (pool->free_blocks,
        pool->free_blocks);
  }
  g_mutex_unlock (&pool->lock);
  if (!block) {
    block = g_new0 (GstCudaTableBlock, 1);
    g_mutex_init (&block->lock);
    block->size = pool->size;
    *status = cf_gpu_malloc (&block->device, pool->size);
    /* the tables' row padding goes to the host with them: defined once,
     * before any stream of the elements uses the block */
    if (*status == CF_OK)
      *status = cf_gpu_memset (block->device, 0, pool->size, NULL);
    if (*status == CF_OK)
      *status = cf_gpu_stream_sync (NULL);
    if (*status == CF_OK)
      *status = cf_gpu_event_create (&block->written);
    if (*status != CF_OK) {
      free_block (block);
      gst_cuda_filter_device_pop (pool->device);
      return NULL;
    }
  }
  gst_cuda_filter_device_pop (pool->device);
  block->pool = pool;
  g_atomic_int_inc (&pool->refcount);
  return block;
}

void
gst_cuda_table_block_release (GstCudaTableBlock * block)
{
  GstCudaTablePool *pool = block->pool;

  /* the next frame's tables are not this one's */
  g_clear_pointer (&block->host, g_free);
  g_mutex_lock (&pool->lock);
  pool->free_blocks = g_slist_prepend (pool->free_blocks, block);
  g_mutex_unlock (&pool->lock);
  pool_unref (pool);
}

gconstpointer
gst_cuda_table_block_host (GstCudaTableBlock * block)
{
  gpointer host;

  g_mutex_lock (&block->lock);
  if (!block->host) {
    gpointer copy = g_malloc (block->size);
    GstCudaFilterDevice *device = block->pool->device;
    int status = gst_cuda_filter_device_push (device);
    gboolean pushed = status == CF_OK;

    /* the application's thread, often: its own context comes back */
    if (status == CF_OK)
      status = cf_gpu_event_sync (block->written);
    /* to pageable memory the copy is complete when the call returns */
    if (status == CF_OK)
      status = cf_gpu_copy_2d (copy, block->size, block->device,
          block->size, block->size, 1, CF_COPY_DEVICE_TO_HOST, NULL);
    if (status == CF_OK)
      status = cf_gpu_stream_sync (NULL);
    if (pushed)
      gst_cuda_filter_device_pop (device);
    if (status == CF_OK)
      block->host = copy;
    else
      g_free (copy);
  }
  host = block->host;
  g_mutex_unlock (&block->lock);
  return host;
}
