/* Pinned host memory for buffers that cross PCIe.
 *
 * Memory comes from cudaHostAlloc (portable: valid for every device) and is
 * handed out as ordinary system memory that frees itself with cudaFreeHost,
 * so buffers built on it map, share and copy like any other. Allocation is
 * slow (the pages are locked), so it is meant to sit behind a buffer pool. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudapinnedallocator.h"
#include "gpu.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_pinned_allocator_debug);
#define GST_CAT_DEFAULT gst_cuda_pinned_allocator_debug

struct _GstCudaPinnedAllocator
{
  GstAllocator parent;
};

G_DEFINE_TYPE_WITH_CODE (GstCudaPinnedAllocator, gst_cuda_pinned_allocator,
    GST_TYPE_ALLOCATOR,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_pinned_allocator_debug,
        "cudapinnedallocator", 0, "pinned host memory"));

static void
free_pinned (gpointer ptr)
{
  cf_gpu_host_free (ptr);
}

static GstMemory *
gst_cuda_pinned_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  gsize align = params->align | gst_memory_alignment;
  gsize maxsize = size + params->prefix + params->padding;
  guint8 *base, *data;
  int status = cf_gpu_host_alloc ((void **) &base, maxsize + align);

  if (status != CF_OK) {
    GST_ERROR_OBJECT (allocator, "cannot pin %" G_GSIZE_FORMAT " bytes: %s",
        maxsize, cf_status_name (status));
    return NULL;
  }
  data = (guint8 *) (((guintptr) base + align) & ~(guintptr) align);
  if ((params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED) && params->prefix)
    memset (data, 0, params->prefix);
  if ((params->flags & GST_MEMORY_FLAG_ZERO_PADDED) && params->padding)
    memset (data + params->prefix + size, 0, params->padding);
  return gst_memory_new_wrapped (params->flags, data, maxsize,
      params->prefix, size, base, free_pinned);
}

static void
gst_cuda_pinned_allocator_free (GstAllocator * allocator G_GNUC_UNUSED,
    GstMemory * mem G_GNUC_UNUSED)
{
  /* memory from alloc() is wrapped system memory and never comes back here */
  g_assert_not_reached ();
}

static void
gst_cuda_pinned_allocator_class_init (GstCudaPinnedAllocatorClass * klass)
{
  GstAllocatorClass *alloc_class = GST_ALLOCATOR_CLASS (klass);

  alloc_class->alloc = GST_DEBUG_FUNCPTR (gst_cuda_pinned_allocator_alloc);
  alloc_class->free = GST_DEBUG_FUNCPTR (gst_cuda_pinned_allocator_free);
}

static void
gst_cuda_pinned_allocator_init (GstCudaPinnedAllocator * self)
{
  GST_OBJECT_FLAG_SET (self, GST_OBJECT_FLAG_MAY_BE_LEAKED);
}

GstAllocator *
gst_cuda_pinned_allocator_get (void)
{
  static GstAllocator *instance;

  if (g_once_init_enter (&instance)) {
    GstAllocator *a = g_object_new (GST_TYPE_CUDA_PINNED_ALLOCATOR, NULL);
    gst_object_ref_sink (a);
    g_once_init_leave (&instance, a);
  }
  return gst_object_ref (instance);
}
