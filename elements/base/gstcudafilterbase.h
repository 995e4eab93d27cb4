/* The base every element of the plugin derives from: device choice and CPU
 * fallback, the CUDA streams, device scratch buffers reused across buffers,
 * pinned host memory for the data path, and CUDA error reporting. */
#ifndef __GST_CUDA_FILTER_BASE_H__
#define __GST_CUDA_FILTER_BASE_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "gpu.h"
#include "gstcudafilterdevice.h"
#include "gstcudafiltermemory.h"

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
  cf_stream freed_on;           /* allocated in stream order: freed in the
                                 * order of this stream (NULL: not) */
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

  /* TRUE: kernels run on the stream of the device (gstcudafilterdevice.h),
   * shared with the plugin's other elements of the context, so that frames
   * handed over in CUDA memory need no wait in between. FALSE: on a stream
   * of the element's own (audio, where instances run side by side). */
  gboolean shares_stream;

  /* The lifecycle, owned by the base: each runs with the element's CUDA
   * context pushed when it is on the GPU (and popped after), so elements
   * never make a context current themselves. */

  /* After the backend is chosen and the device opened: what the element
   * needs for a stream. FALSE after posting an error (the device closes). */
  gboolean (*start) (GstCudaFilterBase * self);
  /* Before the device closes: what start and the stream made goes. */
  void (*stop) (GstCudaFilterBase * self);
  /* New caps, once: caps equal to the current ones (a RECONFIGURE, a
   * repeated caps event) do not come here, so a running stream keeps its
   * state. FALSE after posting an error. */
  gboolean (*set_info) (GstCudaFilterBase * self, GstCaps * incaps,
      GstCaps * outcaps);
};

/* For the elements' class_init, the shapes they share. An enum property
 * (readable, writable, plus `extra` flags) whose type is marked as plugin
 * API, so that the documentation lists its values: */
void gst_cuda_filter_base_class_install_enum (GObjectClass * klass,
    guint prop_id, const gchar * name, const gchar * nick,
    const gchar * blurb, GType type, gint default_value, GParamFlags extra);
/* "sink" and "src" always pads of the same caps (taken). */
void gst_cuda_filter_base_class_add_templates (GstElementClass * klass,
    GstCaps * caps);

/* TRUE between start and stop when buffers are processed on the GPU. */
gboolean gst_cuda_filter_base_uses_cuda (GstCudaFilterBase * self);
const GstCudaStreams *gst_cuda_filter_base_streams (GstCudaFilterBase * self);
/* The GPU (and CUDA context) of the element between start and stop, NULL
 * when it does not use one. */
GstCudaFilterDevice *gst_cuda_filter_base_device (GstCudaFilterBase * self);

/* Called with the object lock: TRUE from the READY to PAUSED change until
 * back in READY, when properties that shape the stream (latency, backend,
 * device) are refused, whether or not a buffer has gone through yet. */
gboolean gst_cuda_filter_base_is_running (GstCudaFilterBase * self);

/* Pushes the element's CUDA context on the calling thread (nothing on the
 * CPU backend) and pops it. The base does this around its pads' functions
 * and the lifecycle; threads of an element's own use it too. Push returns
 * FALSE after posting an error; pop only after a push that succeeded. */
gboolean gst_cuda_filter_base_push (GstCudaFilterBase * self);
void gst_cuda_filter_base_pop (GstCudaFilterBase * self);

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
/* The same in stream order (cf_gpu_malloc_async): usable by work queued
 * on `stream` from now on, freed in the order of the element's compute
 * stream, never waiting for the device. For memory made or freed while
 * buffers flow. */
gboolean gst_cuda_filter_base_ensure_device_ordered (GstCudaFilterBase *
    self, GstCudaDeviceBuffer * buf, gsize size, cf_stream stream);
void gst_cuda_filter_base_free_device (GstCudaDeviceBuffer * buf);

/* Waits for all work of the element's streams: before buffers are
 * unmapped, on every path, success or failure. */
gboolean gst_cuda_filter_base_sync (GstCudaFilterBase * self);

/* Waits for what must be complete before `outbuf` leaves the element: the
 * copies from and to host memory always (the input may be reused once
 * transform returns), the kernels unless `inbuf` came from and `outbuf`
 * goes to, in CUDA memory, the plugin's elements on the same stream, which
 * order their own work around ours. */
gboolean gst_cuda_filter_base_finish (GstCudaFilterBase * self,
    GstBuffer * inbuf, GstBuffer * outbuf);

/* ---- video in CUDA memory (gstcudafilterbasememory.c) ------------------ */

/* transform_caps of the video elements: the same memory on the other pad
 * first, then the other memory type, within the pad's template. Other
 * media (audio) pass as they are. */
GstCaps *gst_cuda_filter_base_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);

/* FALSE when the element will not take or give CUDA memory: backend=cpu,
 * or started without a GPU. */
gboolean gst_cuda_filter_base_offers_cuda_memory (GstCudaFilterBase * self);

/* TRUE when `buffer` holds CUDA memory of the element's context, which the
 * kernels read and write in place (GST_MAP_CUDA). CUDA memory of another
 * context (another GPU) is mapped for the CPU and copied instead. */
gboolean gst_cuda_filter_base_is_device_buffer (GstCudaFilterBase * self,
    GstBuffer * buffer);

/* TRUE when the peer of `pad` (either direction) is one of the plugin's
 * elements that computes on the stream of `device`. */
gboolean gst_cuda_filter_base_peer_shares (GstPad * pad,
    GstCudaFilterDevice * device);

/* Makes the element's kernels wait, on the GPU, for the work queued on the
 * streams of `buffer`'s CUDA memory that they must come after (GStreamer
 * 1.24+; gst_cuda_filter_memory_order_before). FALSE after posting an
 * error. */
gboolean gst_cuda_filter_base_order_before (GstCudaFilterBase * self,
    GstBuffer * buffer, gboolean write);

/* Maps a video frame: device pointers for CUDA memory of the element's
 * context (ordered after its writer and readers, as above), host pointers
 * otherwise. *on_device says which. */
gboolean gst_cuda_filter_base_map_frame (GstCudaFilterBase * self,
    GstVideoFrame * frame, const GstVideoInfo * info, GstBuffer * buffer,
    GstMapFlags flags, gboolean * on_device);

G_END_DECLS

#endif
