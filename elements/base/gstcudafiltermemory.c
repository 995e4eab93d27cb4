/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Video frames in CUDA memory for the plugin's elements; see
 * gstcudafiltermemory.h; the elements' side is gstcudafilterbasememory.c.
 *
 * Synchronisation: GstCudaMemory (GStreamer 1.22) carries no stream or
 * event, so whoever maps a frame assumes the writer finished it. The
 * elements therefore wait for their kernels before a frame leaves them,
 * except when it goes, in CUDA memory, straight to another of the plugin's
 * elements on the same device: both queue their work on the stream of the
 * shared context, so the reader's kernels run after the writer's without
 * anyone waiting on the host, and a pool buffer the reader releases is
 * rewritten only by work queued after its read.
 *
 * From GStreamer 1.24 a memory may carry a stream (GstCudaStream), on which
 * whoever writes or reads it queues the work, or waits for it: the pools
 * the elements make carry the shared stream, and a memory of another
 * stream is ordered with ours on the GPU, through an event, both ways
 * (gst_cuda_filter_memory_order_before, _order_after). A memory with no
 * stream keeps 1.22's rules. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudafiltermemory.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#endif
#ifdef HAVE_GST_CUDA_STREAM
#include <gst/cuda/gstcudastream.h>
#endif

/* Buffers the CUDA pools keep: one being written, one being read. */
#define CUDA_POOL_MIN_BUFFERS 2

/* GST_VIDEO_CAPS_MAKE pastes literals; the format lists here are values. */
static GstCaps *
video_caps_with (const gchar * feature, const gchar * formats)
{
  gchar *str = g_strdup_printf ("video/x-raw%s%s%s, format=(string)%s, "
      "width=" GST_VIDEO_SIZE_RANGE ", height=" GST_VIDEO_SIZE_RANGE
      ", framerate=" GST_VIDEO_FPS_RANGE, feature ? "(" : "",
      feature ? feature : "", feature ? ")" : "", formats);
  GstCaps *caps = gst_caps_from_string (str);

  g_free (str);
  return caps;
}

GstCaps *
gst_cuda_filter_memory_video_caps (const gchar * formats,
    const gchar * cuda_formats)
{
  GstCaps *caps = video_caps_with (NULL, formats);

#ifdef HAVE_GST_CUDA
  caps = gst_caps_merge (video_caps_with (GST_CUDA_FILTER_MEMORY_FEATURE,
          cuda_formats), caps);
#else
  (void) cuda_formats;
#endif
  return caps;
}

gboolean
gst_cuda_filter_caps_are_cuda (const GstCaps * caps)
{
  GstCapsFeatures *f;

  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f, GST_CUDA_FILTER_MEMORY_FEATURE);
}

/* GStreamer 1.22's GstCudaMemory lays I420 and YV12 out with its chroma
 * planes overlapping by half a row when the height is odd (their offsets
 * count height / 2 rows, not (height + 1) / 2), so such frames cannot go
 * through CUDA memory intact: caps fixed to them keep system memory. */
gboolean
gst_cuda_filter_memory_holds (const GstStructure * s)
{
  const gchar *format = gst_structure_get_string (s, "format");
  gint height;

  return !(format && (!strcmp (format, "I420") || !strcmp (format, "YV12"))
      && gst_structure_get_int (s, "height", &height) && height % 2 == 1);
}

GstCaps *
gst_cuda_filter_memory_prefer (GstCaps * caps, gboolean cuda)
{
  GstCaps *first = gst_caps_new_empty (), *rest = gst_caps_new_empty ();

  if (gst_caps_is_any (caps) || gst_caps_is_empty (caps)) {
    gst_caps_unref (first);
    gst_caps_unref (rest);
    return caps;
  }
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    gboolean is_cuda = f && gst_caps_features_contains (f,
        GST_CUDA_FILTER_MEMORY_FEATURE);
    GstCaps **to = is_cuda == cuda ? &first : &rest;

    *to = gst_caps_merge_structure_full (*to, gst_structure_copy
        (gst_caps_get_structure (caps, i)), f ? gst_caps_features_copy (f)
        : NULL);
  }
  gst_caps_unref (caps);
  return gst_caps_merge (first, rest);
}

#ifdef HAVE_GST_CUDA_STREAM
/* The stream the memory's users queue their work on; NULL: none (1.22's
 * rules: its writer finished before handing it on). */
static cf_stream
stream_of (GstMemory * mem)
{
  GstCudaStream *stream = gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST
      (mem));

  return stream ? (cf_stream) gst_cuda_stream_get_handle (stream) : NULL;
}

int
gst_cuda_filter_memory_order_before (GstBuffer * buffer, gboolean write,
    cf_stream ours, cf_event event)
{
  int status = CF_OK;

  for (guint k = 0; k < gst_buffer_n_memory (buffer) && status == CF_OK;
      k++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, k);
    cf_stream theirs = stream_of (mem);

    /* a read waits for a write still queued; a write for everything
     * queued (the readers of the frame the buffer held before) */
    if (!theirs || theirs == ours || (!write && !GST_MEMORY_FLAG_IS_SET (mem,
                GST_CUDA_MEMORY_TRANSFER_NEED_SYNC)))
      continue;
    status = cf_gpu_event_record (event, theirs);
    if (status == CF_OK)
      status = cf_gpu_stream_wait (ours, event);
  }
  return status;
}

int
gst_cuda_filter_memory_order_after (GstBuffer * buffer, cf_stream ours,
    cf_event event, gboolean * streamed)
{
  gboolean recorded = FALSE;
  int status = CF_OK;

  *streamed = gst_buffer_n_memory (buffer) > 0;
  for (guint k = 0; k < gst_buffer_n_memory (buffer) && status == CF_OK;
      k++) {
    cf_stream theirs = stream_of (gst_buffer_peek_memory (buffer, k));

    if (!theirs)
      *streamed = FALSE;
    if (!theirs || theirs == ours)
      continue;
    if (!recorded)
      status = cf_gpu_event_record (event, ours);
    recorded = TRUE;
    if (status == CF_OK)
      status = cf_gpu_stream_wait (theirs, event);
  }
  return status;
}
#else
int
gst_cuda_filter_memory_order_before (GstBuffer * buffer G_GNUC_UNUSED,
    gboolean write G_GNUC_UNUSED, cf_stream ours G_GNUC_UNUSED,
    cf_event event G_GNUC_UNUSED)
{
  return CF_OK;
}

int
gst_cuda_filter_memory_order_after (GstBuffer * buffer G_GNUC_UNUSED,
    cf_stream ours G_GNUC_UNUSED, cf_event event G_GNUC_UNUSED,
    gboolean * streamed)
{
  *streamed = FALSE;
  return CF_OK;
}
#endif

#ifdef HAVE_GST_CUDA
static GstCudaContext *
context_of (GstCudaFilterDevice * device)
{
  return device ? gst_cuda_filter_device_context (device) : NULL;
}

gboolean
gst_cuda_filter_memory_is_device_buffer (GstCudaFilterDevice * device,
    GstBuffer * buffer)
{
  GstCudaContext *context = context_of (device);
  guint n = buffer ? gst_buffer_n_memory (buffer) : 0;

  if (!context || n == 0)
    return FALSE;
  for (guint k = 0; k < n; k++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, k);
    if (!gst_is_cuda_memory (mem)
        || GST_CUDA_MEMORY_CAST (mem)->context != context)
      return FALSE;
  }
  return TRUE;
}

/* A started pool of `device`'s context for `caps`; *size: its buffers'
 * size. From 1.24 its memories carry the device's stream. */
static GstBufferPool *
new_cuda_pool (GstCudaFilterDevice * device, GstCaps * caps, guint * size)
{
  GstCudaContext *context = context_of (device);
  GstVideoInfo info;
  GstBufferPool *pool;
  GstStructure *config;

  if (!context || !gst_video_info_from_caps (&info, caps))
    return NULL;
  gst_cuda_memory_init_once ();
  pool = gst_cuda_buffer_pool_new (context);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, (guint) info.size,
      CUDA_POOL_MIN_BUFFERS, 0);
  gst_buffer_pool_config_add_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_META);
#ifdef HAVE_GST_CUDA_STREAM
  gst_buffer_pool_config_set_cuda_stream (config,
      gst_cuda_filter_device_cuda_stream (device));
#endif
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  /* the pool rounds rows up to the device's pitch */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);
  return pool;
}

void
gst_cuda_filter_memory_propose (GstCudaFilterDevice * device,
    GstQuery * query, GstCaps * caps)
{
  guint size = 0;
  GstBufferPool *pool;

  if (gst_query_get_n_allocation_pools (query) > 0)
    return;                     /* passthrough: downstream answered */
  pool = new_cuda_pool (device, caps, &size);
  if (pool) {
    gst_query_add_allocation_pool (query, pool, size, CUDA_POOL_MIN_BUFFERS,
        0);
    gst_object_unref (pool);
  }
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
}

gboolean
gst_cuda_filter_memory_decide (GstCudaFilterDevice * device,
    GstQuery * query, GstCaps * caps)
{
  GstCudaContext *context = context_of (device);
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;
  gboolean keep;

  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  keep = context && pool && GST_IS_CUDA_BUFFER_POOL (pool)
      && GST_CUDA_BUFFER_POOL (pool)->context == context;
  gst_clear_object (&pool);
  if (keep)
    return TRUE;
  pool = new_cuda_pool (device, caps, &size);
  if (!pool)
    return FALSE;
  min = MAX (min, CUDA_POOL_MIN_BUFFERS);
  if (max != 0 && max < min)
    max = 0;
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

#else
gboolean
gst_cuda_filter_memory_is_device_buffer (GstCudaFilterDevice * device
    G_GNUC_UNUSED, GstBuffer * buffer G_GNUC_UNUSED)
{
  return FALSE;
}

void
gst_cuda_filter_memory_propose (GstCudaFilterDevice * device G_GNUC_UNUSED,
    GstQuery * query G_GNUC_UNUSED, GstCaps * caps G_GNUC_UNUSED)
{
}

gboolean
gst_cuda_filter_memory_decide (GstCudaFilterDevice * device G_GNUC_UNUSED,
    GstQuery * query G_GNUC_UNUSED, GstCaps * caps G_GNUC_UNUSED)
{
  return FALSE;
}

#endif
