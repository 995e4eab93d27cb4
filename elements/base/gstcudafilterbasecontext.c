/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The base's CUDA context: the one the pipeline shares, asked of the
 * neighbours and the application (GstContext), or the device's primary
 * context, offered to them; and the answers to their context queries.
 * The device opened on it is gstcudafilterbase.c's (open_device).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafilterbase.h"
#include "gstcudafilterbaseprivate.h"
#include "gstcudafiltermemory.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#endif

#define GST_CAT_DEFAULT gst_cuda_filter_base_debug

#ifdef HAVE_GST_CUDA
static gboolean
has_context (GstCudaFilterBase * self)
{
  gboolean has;

  GST_OBJECT_LOCK (self);
  has = PRIV (self)->context != NULL;
  GST_OBJECT_UNLOCK (self);
  return has;
}

/* Asks the neighbours (downstream first), then the application and the
 * bins (need-context), for a CUDA context; an answer reaches set_context,
 * which keeps it in priv->context when it is of the right device. */
static void
ask_for_context (GstCudaFilterBase * self)
{
  GstElement *element = GST_ELEMENT (self);
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstPad *pads[] = { GST_BASE_TRANSFORM_SRC_PAD (self),
    GST_BASE_TRANSFORM_SINK_PAD (self)
  };

  for (guint k = 0; k < G_N_ELEMENTS (pads) && !has_context (self); k++) {
    GstContext *context = NULL;
    if (gst_pad_peer_query (pads[k], query)) {
      gst_query_parse_context (query, &context);
      if (context)
        gst_element_set_context (element, context);
    }
  }
  gst_query_unref (query);
  if (!has_context (self))
    gst_element_post_message (element, gst_message_new_need_context
        (GST_OBJECT (self), GST_CUDA_CONTEXT_TYPE));
}

/* Nobody has one: the device's primary context, wrapped, and offered to
 * the pipeline. Primary, not a new one: it lives as long as the process,
 * so the CUDA runtime's state for it (the kernels' modules) never outlives
 * it, however many pipelines come and go. */
static GstCudaContext *
new_primary_context (GstCudaFilterBase * self, gint device_id)
{
  gint device = MAX (device_id, 0);
  GstCudaContext *context;
  GstContext *shared;
  void *handle = NULL;

  if (cf_gpu_primary_context (device, &handle) != CF_OK || !handle)
    return NULL;
  context = gst_cuda_context_new_wrapped ((CUcontext) handle, device);
  if (!context)
    return NULL;
  shared = gst_context_new_cuda_context (context);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_have_context (GST_OBJECT (self), shared));
  return context;
}
#endif

/* The device of the element: with GStreamer's CUDA library the context
 * the pipeline shares (or a new one, then shared), else the primary
 * context of `device` (-1: the first). Returns NULL, or why none. */
gchar *
gst_cuda_filter_base_find_device (GstCudaFilterBase * self, gint device_id)
{
  GstCudaFilterBasePrivate *priv = PRIV (self);
  gchar *error = NULL;

#ifdef HAVE_GST_CUDA
  GstCudaContext *context;

  /* GStreamer's CUDA library loads the driver itself, once; nvcodec does
   * it when its plugin loads, which a pipeline without it never does */
  if (!gst_cuda_load_library ())
    return g_strdup ("GStreamer's CUDA library cannot load libcuda");
  GST_OBJECT_LOCK (self);
  context = priv->context ? gst_object_ref (priv->context) : NULL;
  GST_OBJECT_UNLOCK (self);
  if (!context) {
    ask_for_context (self);
    GST_OBJECT_LOCK (self);
    context = priv->context ? gst_object_ref (priv->context) : NULL;
    GST_OBJECT_UNLOCK (self);
  }
  if (!context && (context = new_primary_context (self, device_id))) {
    GST_OBJECT_LOCK (self);
    if (!priv->context)
      priv->context = gst_object_ref (context);
    GST_OBJECT_UNLOCK (self);
  }
  if (!context)
    return g_strdup_printf ("no CUDA context for device %d",
        MAX (device_id, 0));
  priv->device = gst_cuda_filter_device_for_context (context, &error);
  gst_object_unref (context);
#else
  priv->device = gst_cuda_filter_device_for_id (MAX (device_id, 0), &error);
#endif
  return error;
}

#ifdef HAVE_GST_CUDA
/* A context from the application or a neighbour: taken when none is held
 * and, with an explicit cuda-device-id, only one of that device. */
void
gst_cuda_filter_base_set_context (GstElement * element, GstContext * context)
{
  GstCudaFilterBasePrivate *priv = PRIV (element);
  GstCudaContext *offered = NULL;
  gint device_id;

  GST_OBJECT_LOCK (element);
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (element);
  /* read into a pointer of our own: the held one is guarded by the object
   * lock against the context query and stop, on other threads */
  if (gst_cuda_handle_set_context (element, context, device_id, &offered)
      && offered) {
    GST_OBJECT_LOCK (element);
    if (!priv->context) {
      priv->context = offered;
      offered = NULL;
    }
    GST_OBJECT_UNLOCK (element);
  }
  gst_clear_object (&offered);
  GST_ELEMENT_CLASS (gst_cuda_filter_base_get_parent_class ())->set_context
      (element, context);
}

/* Neighbours asking for a CUDA context get ours. */
gboolean
gst_cuda_filter_base_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    GstCudaFilterBasePrivate *priv = PRIV (trans);
    GstCudaContext *context = NULL;
    gboolean answered;

    GST_OBJECT_LOCK (trans);
    if (priv->context)
      context = gst_object_ref (priv->context);
    GST_OBJECT_UNLOCK (trans);
    answered = context && gst_cuda_handle_context_query (GST_ELEMENT (trans),
        query, context);
    gst_clear_object (&context);
    if (answered)
      return TRUE;
  }
  if (!GST_BASE_TRANSFORM_CLASS (gst_cuda_filter_base_get_parent_class ())->
      query (trans, direction, query))
    return FALSE;
  /* upstream picks the first caps we list: CUDA memory, when we take it */
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS && direction == GST_PAD_SINK
      && gst_cuda_filter_base_offers_cuda_memory (GST_CUDA_FILTER_BASE
          (trans))) {
    GstCaps *caps = NULL;
    gst_query_parse_caps_result (query, &caps);
    if (caps) {
      caps = gst_cuda_filter_memory_prefer (gst_caps_ref (caps), TRUE);
      gst_query_set_caps_result (query, caps);
      gst_caps_unref (caps);
    }
  }
  return TRUE;
}
#endif
