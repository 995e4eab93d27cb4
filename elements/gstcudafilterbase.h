/* The base every element of the plugin derives from: device choice and CPU
 * fallback, the CUDA streams, device scratch buffers reused across buffers,
 * pinned host memory for the data path, and CUDA error reporting. */
#ifndef __GST_CUDA_FILTER_BASE_H__
#define __GST_CUDA_FILTER_BASE_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

#include "gpu.h"

G_BEGIN_DECLS

typedef enum
{
  GST_CUDA_FILTER_BACKEND_AUTO,
  GST_CUDA_FILTER_BACKEND_CUDA,
  GST_CUDA_FILTER_BACKEND_CPU,
} GstCudaFilterBackend;

#define GST_TYPE_CUDA_FILTER_BACKEND (gst_cuda_filter_backend_get_type ())
GType gst_cuda_filter_backend_get_type (void);

#define GST_TYPE_CUDA_FILTER_BASE (gst_cuda_filter_base_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCudaFilterBase, gst_cuda_filter_base,
    GST, CUDA_FILTER_BASE, GstBaseTransform)

/* A device allocation that only grows. */
typedef struct
{
  void *ptr;
  gsize size;
} GstCudaDeviceBuffer;

/* Streams of one element: kernels run on `compute`; `upload` and
 * `download` carry the copies so that both directions overlap the kernels. */
typedef struct
{
  cf_stream compute, upload, download;
} GstCudaStreams;

struct _GstCudaFilterBaseClass
{
  GstBaseTransformClass parent_class;
};

/* TRUE between start and stop when buffers are processed on the GPU. */
gboolean gst_cuda_filter_base_uses_cuda (GstCudaFilterBase * self);
const GstCudaStreams *gst_cuda_filter_base_streams (GstCudaFilterBase * self);

/* Makes the element's device current on the calling (streaming) thread.
 * Returns FALSE after posting an error. */
gboolean gst_cuda_filter_base_enter (GstCudaFilterBase * self);

/* Posts a GST_ELEMENT_ERROR naming the CUDA error and returns FALSE when
 * status is not CF_OK; returns TRUE otherwise. `what` says what failed. */
gboolean gst_cuda_filter_base_check (GstCudaFilterBase * self, int status,
    const gchar * what);
#define GST_CUDA_FILTER_CHECK(self, status, what) \
    gst_cuda_filter_base_check (GST_CUDA_FILTER_BASE (self), (status), (what))

/* Grows `buf` to at least `size` bytes of device memory (contents are not
 * kept). Returns FALSE after posting an error. */
gboolean gst_cuda_filter_base_ensure_device (GstCudaFilterBase * self,
    GstCudaDeviceBuffer * buf, gsize size);
void gst_cuda_filter_base_free_device (GstCudaDeviceBuffer * buf);

/* Waits for all work of the element's streams. */
gboolean gst_cuda_filter_base_sync (GstCudaFilterBase * self);

G_END_DECLS

#endif
