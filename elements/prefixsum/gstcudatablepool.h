/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Device blocks for the integral tables that travel on buffers
 * (GstCudaIntegralMeta): computed on the GPU, they stay there, and a host
 * copy is made only when someone asks for it, once per block. A block goes
 * back to its pool when its buffer's meta is freed; the pool frees its
 * device memory once the element has dropped it and every block is back. */
#ifndef __GST_CUDA_TABLE_POOL_H__
#define __GST_CUDA_TABLE_POOL_H__

#include <glib.h>

#include "gpu.h"
#include "gstcudafilterdevice.h"

G_BEGIN_DECLS

typedef struct _GstCudaTablePool GstCudaTablePool;

typedef struct
{
  GstCudaTablePool *pool;
  void *device;                 /* the tables on the GPU */
  cf_event written;             /* recorded after the work that fills them */
  gsize size;

  GMutex lock;                  /* guards host */
  gpointer host;                /* the host copy, or NULL */
} GstCudaTableBlock;

/* A pool of blocks of `size` bytes on `device` (referenced). */
GstCudaTablePool *gst_cuda_table_pool_new (GstCudaFilterDevice * device,
    gsize size);
gsize gst_cuda_table_pool_block_size (GstCudaTablePool * pool);
/* The element's reference: dropped at stop or when the size changes. */
void gst_cuda_table_pool_release (GstCudaTablePool * pool);

/* A free block (allocated when none is free), with the device's context
 * current; NULL and *status set on a CUDA failure. */
GstCudaTableBlock *gst_cuda_table_pool_acquire (GstCudaTablePool * pool,
    int *status);
/* Back to the pool; any thread. */
void gst_cuda_table_block_release (GstCudaTableBlock * block);

/* The host copy, made on the first call once the tables are written;
 * NULL on a CUDA failure. Any thread. */
gconstpointer gst_cuda_table_block_host (GstCudaTableBlock * block);

G_END_DECLS

#endif
