/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's `overlap`: see gstcudaconv1doverlap.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaconv1d.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_conv1d_debug);
#define GST_CAT_DEFAULT gst_cuda_conv1d_debug

static cf_stream
stream_of (GstCudaConv1d * self)
{
  return gst_cuda_filter_base_streams (GST_CUDA_FILTER_BASE (self))->compute;
}

static gboolean
ensure_events (GstCudaConv1d * self)
{
  GstCudaConv1dHeld *h = &self->held;

  for (guint k = 0; k < 2; k++)
    if (!h->done[k] && !GST_CUDA_FILTER_CHECK (self,
            cf_gpu_event_create (&h->done[k]), "creating an event"))
      return FALSE;
  return TRUE;
}

/* The added latency is the longest input buffer: a longer one than seen
 * so far makes the pipeline ask again. */
static void
note_duration (GstCudaConv1d * self, GstClockTime duration)
{
  GstCudaConv1dHeld *h = &self->held;

  if (!GST_CLOCK_TIME_IS_VALID (duration) || duration <= h->longest)
    return;
  GST_OBJECT_LOCK (self);
  h->longest = duration;
  GST_OBJECT_UNLOCK (self);
  GST_INFO_OBJECT (self, "holding buffers of up to %" GST_TIME_FORMAT,
      GST_TIME_ARGS (duration));
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_latency (GST_OBJECT (self)));
}

GstFlowReturn
gst_cuda_conv1d_hold (GstCudaConv1d * self, GstBuffer * in,
    GstClockTime duration, GstBuffer * made, GstBuffer ** outbuf)
{
  GstCudaConv1dHeld *h = &self->held;
  guint next = 1 - h->which;
  int st;

  *outbuf = NULL;
  note_duration (self, duration);
  if (!ensure_events (self))
    goto failed;
  st = cf_gpu_event_record (h->done[next], stream_of (self));
  if (st == CF_OK && h->out)
    st = cf_gpu_event_sync (h->done[h->which]);
  if (!GST_CUDA_FILTER_CHECK (self, st, "filtering audio"))
    goto failed;
  *outbuf = h->out;
  gst_clear_buffer (&h->in);
  h->out = made;
  h->in = in;
  h->which = next;
  return GST_FLOW_OK;

failed:
  gst_buffer_unref (made);
  gst_clear_buffer (&in);
  return GST_FLOW_ERROR;
}

GstFlowReturn
gst_cuda_conv1d_push_held (GstCudaConv1d * self)
{
  GstCudaConv1dHeld *h = &self->held;
  GstBuffer *out = h->out;
  int st;

  if (!out)
    return GST_FLOW_OK;
  h->out = NULL;
  st = gst_cuda_filter_base_enter (GST_CUDA_FILTER_BASE (self))
      ? cf_gpu_event_sync (h->done[h->which]) : CF_ERR_INVALID;
  gst_clear_buffer (&h->in);
  if (!GST_CUDA_FILTER_CHECK (self, st, "filtering audio")) {
    gst_buffer_unref (out);
    return GST_FLOW_ERROR;
  }
  return gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
}

void
gst_cuda_conv1d_drop_held (GstCudaConv1d * self)
{
  GstCudaConv1dHeld *h = &self->held;

  if (!h->out)
    return;
  /* the GPU may still write it, and read the input */
  if (gst_cuda_filter_base_enter (GST_CUDA_FILTER_BASE (self)))
    cf_gpu_event_sync (h->done[h->which]);
  gst_clear_buffer (&h->out);
  gst_clear_buffer (&h->in);
}

void
gst_cuda_conv1d_clear_held (GstCudaConv1d * self)
{
  GstCudaConv1dHeld *h = &self->held;

  gst_cuda_conv1d_drop_held (self);
  for (guint k = 0; k < 2; k++)
    if (h->done[k])
      cf_gpu_event_destroy (h->done[k]);
  h->done[0] = h->done[1] = NULL;
  h->which = 0;
  GST_OBJECT_LOCK (self);
  h->longest = 0;
  GST_OBJECT_UNLOCK (self);
}
