/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's `overlap`: see gstcudaconv1doverlap.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaconv1doverlap.h"

/* Outputs on their way at most: one on the GPU while the next is queued
 * behind it is all the overlap there is; more would only hold more
 * buffers. */
#define GST_CUDA_CONV1D_QUEUED 2

typedef struct
{
  GstBuffer *out;               /* pushed once `done` has passed */
  GstBuffer *in;                /* its input, whose page-locked samples the
                                 * GPU may still read */
  cf_event done;                /* recorded after the buffer's work */
} Output;

void
gst_cuda_conv1d_outputs_init (GstCudaConv1dOutputs * o,
    GstCudaFilterBase * owner)
{
  o->owner = owner;
  g_mutex_init (&o->lock);
  g_cond_init (&o->cond);
  g_queue_init (&o->queue);
  g_queue_init (&o->spare);
  o->ret = GST_FLOW_OK;
}

void
gst_cuda_conv1d_outputs_finalize (GstCudaConv1dOutputs * o)
{

  g_mutex_clear (&o->lock);
  g_cond_clear (&o->cond);
}

/* The output thread: waits for the head's work, pushes it (or drops it
 * during a flush), then takes it off the queue. */
static gpointer
push_outputs (gpointer data)
{
  GstCudaConv1dOutputs *o = data;
  /* the thread is the element's own: its context stays pushed until the
   * thread ends */
  gboolean current = gst_cuda_filter_base_push (o->owner);

  g_mutex_lock (&o->lock);
  for (;;) {
    Output *head;
    gboolean drop;
    GstFlowReturn ret = GST_FLOW_OK;
    int st;

    while (!o->stopping && g_queue_is_empty (&o->queue))
      g_cond_wait (&o->cond, &o->lock);
    if (g_queue_is_empty (&o->queue))
      break;
    head = g_queue_peek_head (&o->queue);
    g_mutex_unlock (&o->lock);

    /* the GPU may still write the output and read the input */
    st = current ? cf_gpu_event_sync (head->done) : CF_ERR_INVALID;
    g_mutex_lock (&o->lock);
    drop = o->discarding || o->stopping || o->ret != GST_FLOW_OK;
    g_mutex_unlock (&o->lock);
    if (drop) {
      gst_buffer_unref (head->out);
    } else if (!GST_CUDA_FILTER_CHECK (o->owner, st, "filtering audio")) {
      gst_buffer_unref (head->out);
      ret = GST_FLOW_ERROR;
    } else {
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (o->owner), head->out);
    }
    gst_clear_buffer (&head->in);

    g_mutex_lock (&o->lock);
    g_queue_pop_head (&o->queue);
    g_queue_push_tail (&o->spare, head->done);
    g_free (head);
    if (ret != GST_FLOW_OK && o->ret == GST_FLOW_OK && !o->discarding)
      o->ret = ret;
    g_cond_broadcast (&o->cond);
  }
  g_mutex_unlock (&o->lock);
  if (current)
    gst_cuda_filter_base_pop (o->owner);
  return NULL;
}

GstFlowReturn
gst_cuda_conv1d_send (GstCudaConv1dOutputs * o, GstBuffer * in,
    GstBuffer * made)
{
  cf_stream stream =
      gst_cuda_filter_base_streams (o->owner)->compute;
  cf_event done;
  GstFlowReturn ret;
  Output *item;
  int st = CF_OK;

  g_mutex_lock (&o->lock);
  done = g_queue_pop_head (&o->spare);
  g_mutex_unlock (&o->lock);
  if (!done)
    st = cf_gpu_event_create (&done);
  if (st == CF_OK)
    st = cf_gpu_event_record (done, stream);
  if (!GST_CUDA_FILTER_CHECK (o->owner, st, "filtering audio")) {
    if (done)
      cf_gpu_event_destroy (done);
    gst_buffer_unref (made);
    gst_clear_buffer (&in);
    return GST_FLOW_ERROR;
  }
  item = g_new (Output, 1);
  item->out = made;
  item->in = in;
  item->done = done;

  g_mutex_lock (&o->lock);
  while (o->ret == GST_FLOW_OK && !o->discarding
      && g_queue_get_length (&o->queue) >= GST_CUDA_CONV1D_QUEUED)
    g_cond_wait (&o->cond, &o->lock);
  ret = o->discarding ? GST_FLOW_FLUSHING : o->ret;
  if (ret == GST_FLOW_OK) {
    g_queue_push_tail (&o->queue, item);
    item = NULL;
    if (!o->thread)
      o->thread = g_thread_new ("cudaconv1d-out", push_outputs, o);
    g_cond_broadcast (&o->cond);
  }
  g_mutex_unlock (&o->lock);
  if (item) {
    /* not queued: the GPU's work on it ends before it goes */
    cf_gpu_event_sync (item->done);
    cf_gpu_event_destroy (item->done);
    gst_buffer_unref (item->out);
    gst_clear_buffer (&item->in);
    g_free (item);
  }
  return ret;
}

GstFlowReturn
gst_cuda_conv1d_wait_sent (GstCudaConv1dOutputs * o)
{
  GstFlowReturn ret;

  g_mutex_lock (&o->lock);
  while (!g_queue_is_empty (&o->queue))
    g_cond_wait (&o->cond, &o->lock);
  ret = o->ret;
  g_mutex_unlock (&o->lock);
  return ret;
}

void
gst_cuda_conv1d_discard (GstCudaConv1dOutputs * o)
{

  g_mutex_lock (&o->lock);
  o->discarding = TRUE;
  g_cond_broadcast (&o->cond);
  g_mutex_unlock (&o->lock);
}

void
gst_cuda_conv1d_resume (GstCudaConv1dOutputs * o)
{

  g_mutex_lock (&o->lock);
  o->discarding = TRUE;
  while (!g_queue_is_empty (&o->queue))
    g_cond_wait (&o->cond, &o->lock);
  o->discarding = FALSE;
  o->ret = GST_FLOW_OK;
  g_mutex_unlock (&o->lock);
}

void
gst_cuda_conv1d_stop_outputs (GstCudaConv1dOutputs * o)
{
  GThread *thread;
  cf_event done;

  g_mutex_lock (&o->lock);
  o->stopping = TRUE;
  g_cond_broadcast (&o->cond);
  thread = o->thread;
  o->thread = NULL;
  g_mutex_unlock (&o->lock);
  /* the thread drops what is queued, once the GPU is done with it */
  if (thread)
    g_thread_join (thread);
  g_mutex_lock (&o->lock);
  while ((done = g_queue_pop_head (&o->spare)))
    cf_gpu_event_destroy (done);
  o->stopping = o->discarding = FALSE;
  o->ret = GST_FLOW_OK;
  g_mutex_unlock (&o->lock);
}
