/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GPU the elements compute on; see gstcudafilterdevice.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafilterdevice.h"

struct _GstCudaFilterDevice
{
  gint ref;                     /* registry lock */
  gint id;
#ifdef HAVE_GST_CUDA
  GstCudaContext *context;
#endif
#ifdef HAVE_GST_CUDA_STREAM
  GstCudaStream *cuda_stream;   /* owns `stream` */
#endif
  cf_stream stream;
  void *handle;                 /* the CUcontext */
};

/* The live devices, one per context: elements that share a context find
 * the same stream. */
static GMutex registry_lock;
static GList *registry;

int
gst_cuda_filter_device_push (GstCudaFilterDevice * dev)
{
  return cf_gpu_push_context (dev->handle);
}

void
gst_cuda_filter_device_pop (GstCudaFilterDevice * dev G_GNUC_UNUSED)
{
  cf_gpu_pop_context ();
}

static gboolean
same_context (GstCudaFilterDevice * dev, gconstpointer context, gint id)
{
#ifdef HAVE_GST_CUDA
  (void) id;
  return dev->context == context;
#else
  (void) context;
  return dev->id == id;
#endif
}

/* The registered device of `context` (or of `id` without GStreamer's CUDA
 * library), or a new one with its stream. */
static GstCudaFilterDevice *
lookup (gpointer context, gint id, gchar ** error)
{
  GstCudaFilterDevice *dev = NULL;
  gboolean pushed = FALSE;
  int status;

  g_mutex_lock (&registry_lock);
  for (GList * l = registry; l; l = l->next) {
    if (same_context (l->data, context, id)) {
      dev = l->data;
      dev->ref++;
      break;
    }
  }
  if (dev) {
    g_mutex_unlock (&registry_lock);
    return dev;
  }

  dev = g_new0 (GstCudaFilterDevice, 1);
  dev->ref = 1;
  dev->id = id;
#ifdef HAVE_GST_CUDA
  dev->context = gst_object_ref (context);
  dev->handle = gst_cuda_context_get_handle (context);
  status = CF_OK;
#else
  status = cf_gpu_primary_context (id, &dev->handle);
#endif
  if (status == CF_OK)
    pushed = (status = gst_cuda_filter_device_push (dev)) == CF_OK;
#ifdef HAVE_GST_CUDA_STREAM
  /* GStreamer's own stream type, so that pools can carry it; a blocking
   * stream (the only kind it makes): GStreamer's copies on the legacy
   * default stream, for memory that has no stream, order themselves after
   * the plugin's work */
  if (status == CF_OK
      && !(dev->cuda_stream = gst_cuda_stream_new (dev->context)))
    status = CF_ERR_CONTEXT;
  if (status == CF_OK)
    dev->stream = (cf_stream) gst_cuda_stream_get_handle (dev->cuda_stream);
#else
  /* non-blocking: the legacy default stream of other code in the context
   * neither waits for the plugin's work nor holds it up */
  if (status == CF_OK)
    status = cf_gpu_stream_create (&dev->stream);
#endif
  if (pushed)
    gst_cuda_filter_device_pop (dev);
  if (status != CF_OK) {
    *error = g_strdup_printf ("device %d cannot be used: %s", id,
        cf_status_name (status));
#ifdef HAVE_GST_CUDA
    gst_object_unref (dev->context);
#endif
    g_free (dev);
    dev = NULL;
  } else {
    registry = g_list_prepend (registry, dev);
  }
  g_mutex_unlock (&registry_lock);
  return dev;
}

#ifdef HAVE_GST_CUDA
GstCudaFilterDevice *
gst_cuda_filter_device_for_context (GstCudaContext * context, gchar ** error)
{
  guint id = 0;

  g_object_get (context, "cuda-device-id", &id, NULL);
  return lookup (context, (gint) id, error);
}

GstCudaContext *
gst_cuda_filter_device_context (GstCudaFilterDevice * dev)
{
  return dev->context;
}
#else
GstCudaFilterDevice *
gst_cuda_filter_device_for_id (gint id, gchar ** error)
{
  return lookup (NULL, id, error);
}
#endif

GstCudaFilterDevice *
gst_cuda_filter_device_ref (GstCudaFilterDevice * dev)
{
  g_mutex_lock (&registry_lock);
  dev->ref++;
  g_mutex_unlock (&registry_lock);
  return dev;
}

void
gst_cuda_filter_device_unref (GstCudaFilterDevice * dev)
{
  gboolean last;

  g_mutex_lock (&registry_lock);
  last = --dev->ref == 0;
  if (last)
    registry = g_list_remove (registry, dev);
  g_mutex_unlock (&registry_lock);
  if (!last)
    return;
  if (gst_cuda_filter_device_push (dev) == CF_OK) {
    cf_gpu_stream_sync (dev->stream);
#ifndef HAVE_GST_CUDA_STREAM
    cf_gpu_stream_destroy (dev->stream);
#endif
    gst_cuda_filter_device_pop (dev);
  }
#ifdef HAVE_GST_CUDA_STREAM
  gst_cuda_stream_unref (dev->cuda_stream);
#endif
#ifdef HAVE_GST_CUDA
  gst_object_unref (dev->context);
#endif
  g_free (dev);
}

gint
gst_cuda_filter_device_id (GstCudaFilterDevice * dev)
{
  return dev->id;
}

cf_stream
gst_cuda_filter_device_stream (GstCudaFilterDevice * dev)
{
  return dev->stream;
}

#ifdef HAVE_GST_CUDA_STREAM
GstCudaStream *
gst_cuda_filter_device_cuda_stream (GstCudaFilterDevice * dev)
{
  return dev->cuda_stream;
}
#endif
