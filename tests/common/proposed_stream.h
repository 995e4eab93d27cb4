/* The stream of the CUDA pool an element proposes upstream (GStreamer
 * 1.24+), asked as a decoder asks: caps, then the allocation query. The
 * element is left PAUSED in *keep, in a pipeline of its own with `context`
 * set, so that its device, and so its stream, lives on for the elements of
 * the plugin started meanwhile on the same context: a source that adopts
 * this stream shares it with them. Unref the stream, set *keep to NULL and
 * unref it when done. NULL (and *keep NULL or to free) when the element
 * proposes no pool with a stream. */
#ifndef CF_TEST_PROPOSED_STREAM_H
#define CF_TEST_PROPOSED_STREAM_H

#include <gst/gst.h>
#include <gst/cuda/gstcuda.h>

static inline GstCudaStream *
proposed_stream (GstCudaContext * context, const gchar * element,
    GstCaps * caps, GstElement ** keep)
{
  gchar *desc = g_strdup_printf ("%s name=f ! fakesink async=false",
      element);
  GstElement *pipe = gst_parse_launch (desc, NULL), *f;
  GstPad *pad, *sinkpad;
  GstCudaStream *stream = NULL;
  GstBufferPool *pool = NULL;
  GstContext *shared;
  GstSegment segment;
  GstQuery *query;

  g_free (desc);
  *keep = pipe;
  if (!pipe)
    return NULL;
  shared = gst_context_new_cuda_context (context);
  gst_element_set_context (pipe, shared);
  gst_context_unref (shared);
  f = gst_bin_get_by_name (GST_BIN (pipe), "f");
  sinkpad = gst_element_get_static_pad (f, "sink");
  pad = gst_pad_new ("feed", GST_PAD_SRC);
  gst_pad_set_active (pad, TRUE);
  gst_pad_link (pad, sinkpad);
  gst_element_set_state (pipe, GST_STATE_PAUSED);
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_pad_push_event (pad, gst_event_new_stream_start ("proposed"));
  gst_pad_push_event (pad, gst_event_new_caps (caps));
  gst_pad_push_event (pad, gst_event_new_segment (&segment));
  query = gst_query_new_allocation (caps, TRUE);
  if (gst_pad_peer_query (pad, query)
      && gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  if (pool && GST_IS_CUDA_BUFFER_POOL (pool)) {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    stream = gst_buffer_pool_config_get_cuda_stream (config);
    gst_structure_free (config);
  }
  gst_clear_object (&pool);
  gst_query_unref (query);
  gst_pad_unlink (pad, sinkpad);
  gst_object_unref (pad);
  gst_object_unref (sinkpad);
  gst_object_unref (f);
  return stream;
}

#endif
