/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The base's allocation queries: pinned memory for the data path (a pool
 * of page-locked buffers proposed upstream and used for the output, so
 * copies run at full PCIe speed), CUDA memory pools when the caps say so
 * (gstcudafiltermemory.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>

#include "gstcudafilterbase.h"
#include "gstcudafilterbaseprivate.h"
#include "gstcudafiltermemory.h"
#include "gstcudapinnedallocator.h"

/* GST_ELEMENT_ERROR logs in the base's category */
#define GST_CAT_DEFAULT gst_cuda_filter_base_debug

/* Buffers the pinned pool keeps so upstream can work one frame ahead. */
#define PINNED_POOL_MIN_BUFFERS 2

/* Offers a pool of pinned buffers for `caps` in `query`: a video pool for
 * video caps (so upstream can add video metas), a plain one otherwise. */
static void
add_pinned_pool (GstQuery * query, GstCaps * caps, guint size)
{
  GstVideoInfo info;
  GstBufferPool *pool;
  GstStructure *config;
  GstAllocator *allocator = gst_cuda_pinned_allocator_get ();
  gboolean video = gst_video_info_from_caps (&info, caps);

  pool = video ? gst_video_buffer_pool_new () : gst_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size,
      PINNED_POOL_MIN_BUFFERS, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, NULL);
  if (video)
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_object_unref (allocator);
  if (gst_buffer_pool_set_config (pool, config))
    gst_query_add_allocation_pool (query, pool, size, PINNED_POOL_MIN_BUFFERS,
        0);
  gst_object_unref (pool);
}

static guint
caps_buffer_size (GstCaps * caps)
{
  GstVideoInfo info;
  return gst_video_info_from_caps (&info, caps) ? (guint) info.size : 0;
}

gboolean
gst_cuda_filter_base_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCaps *caps;
  GstAllocator *allocator;
  guint size;

  if (!GST_BASE_TRANSFORM_CLASS (gst_cuda_filter_base_get_parent_class ())->
      propose_allocation (trans, decide_query, query))
    return FALSE;
  if (!PRIV (trans)->use_cuda)
    return TRUE;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps)
    return TRUE;
  if (gst_cuda_filter_caps_are_cuda (caps)) {
    gst_cuda_filter_memory_propose (PRIV (trans)->device, query, caps);
    return TRUE;
  }
  allocator = gst_cuda_pinned_allocator_get ();
  gst_query_add_allocation_param (query, allocator, NULL);
  gst_object_unref (allocator);
  size = caps_buffer_size (caps);
  if (size > 0) {
    add_pinned_pool (query, caps, size);
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  }
  return TRUE;
}

/* Output buffers come from pinned memory unless downstream offers a pool of
 * its own (it may need special memory, e.g. for display). */
gboolean
gst_cuda_filter_base_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstCudaFilterBasePrivate *priv = PRIV (trans);
  GstCaps *outcaps;

  gst_query_parse_allocation (query, &outcaps, NULL);
  priv->downstream_shares_stream = priv->use_cuda
      && GST_CUDA_FILTER_BASE_GET_CLASS (trans)->shares_stream
      && gst_cuda_filter_base_peer_shares (trans->srcpad, priv->device);
  if (outcaps && gst_cuda_filter_caps_are_cuda (outcaps)) {
    if (!gst_cuda_filter_memory_decide (priv->device, query, outcaps)) {
      GST_ELEMENT_ERROR (trans, RESOURCE, SETTINGS,
          ("Cannot make a pool of CUDA memory for %" GST_PTR_FORMAT ".",
              outcaps), ("is the element on the GPU (backend)?"));
      return FALSE;
    }
  } else if (priv->use_cuda
      && gst_query_get_n_allocation_pools (query) == 0) {
    GstCaps *caps;
    guint size;

    gst_query_parse_allocation (query, &caps, NULL);
    size = caps ? caps_buffer_size (caps) : 0;
    if (size > 0)
      add_pinned_pool (query, caps, size);
    if (gst_query_get_n_allocation_params (query) == 0) {
      GstAllocator *allocator = gst_cuda_pinned_allocator_get ();
      gst_query_add_allocation_param (query, allocator, NULL);
      gst_object_unref (allocator);
    }
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_filter_base_get_parent_class ())->
      decide_allocation (trans, query);
}
