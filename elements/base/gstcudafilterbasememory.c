/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The base's side of video in CUDA memory: caps both ways, whether a
 * neighbour computes on our stream, and frames mapped for the kernels.
 * gstcudafiltermemory.c holds what needs no element (pools, caps order,
 * the 1.24 stream hand-offs).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafilterbase.h"
#include "gstcudafiltermemory.h"

GstCaps *
gst_cuda_filter_base_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstPad *other = direction == GST_PAD_SINK ? trans->srcpad : trans->sinkpad;
  gboolean cuda_ok = gst_cuda_filter_base_offers_cuda_memory
      (GST_CUDA_FILTER_BASE (trans));
  GstCaps *same = gst_caps_new_empty (), *swapped = gst_caps_new_empty ();
  GstCaps *templ, *result;

  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    gboolean is_cuda = f && gst_caps_features_contains (f,
        GST_CUDA_FILTER_MEMORY_FEATURE);

    if (!gst_structure_has_name (s, "video/x-raw") || (f
            && gst_caps_features_is_any (f))) {
      same = gst_caps_merge_structure_full (same, gst_structure_copy (s),
          f ? gst_caps_features_copy (f) : NULL);
      continue;
    }
    /* without the GPU, CUDA memory is neither taken nor given */
    if (is_cuda && (!cuda_ok || !gst_cuda_filter_memory_holds (s)))
      continue;
    same = gst_caps_merge_structure_full (same, gst_structure_copy (s),
        f ? gst_caps_features_copy (f) : NULL);
    if (is_cuda)
      swapped = gst_caps_merge_structure_full (swapped,
          gst_structure_copy (s), gst_caps_features_new_empty ());
    else if (cuda_ok && gst_cuda_filter_memory_holds (s))
      swapped = gst_caps_merge_structure_full (swapped,
          gst_structure_copy (s),
          gst_caps_features_new (GST_CUDA_FILTER_MEMORY_FEATURE, NULL));
  }
  /* the same memory first: it needs no copy */
  same = gst_caps_merge (same, swapped);
  templ = gst_pad_get_pad_template_caps (other);
  result = gst_caps_intersect_full (same, templ, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (same);
  gst_caps_unref (templ);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, result,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = tmp;
  }
  GST_DEBUG_OBJECT (trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

gboolean
gst_cuda_filter_base_peer_shares (GstPad * pad,
    GstCudaFilterDevice * device)
{
  GstPad *peer = gst_pad_get_peer (pad);
  GstElement *next = peer ? gst_pad_get_parent_element (peer) : NULL;
  gboolean shares = device && next && GST_IS_CUDA_FILTER_BASE (next)
      && GST_CUDA_FILTER_BASE_GET_CLASS (next)->shares_stream
      && gst_cuda_filter_base_uses_cuda (GST_CUDA_FILTER_BASE (next))
      && gst_cuda_filter_base_device (GST_CUDA_FILTER_BASE (next)) == device;

  gst_clear_object (&next);
  gst_clear_object (&peer);
  return shares;
}

gboolean
gst_cuda_filter_base_is_device_buffer (GstCudaFilterBase * self,
    GstBuffer * buffer)
{
  return gst_cuda_filter_memory_is_device_buffer (gst_cuda_filter_base_device
      (self), buffer);
}

#ifdef HAVE_GST_CUDA
gboolean
gst_cuda_filter_base_map_frame (GstCudaFilterBase * self,
    GstVideoFrame * frame, const GstVideoInfo * info, GstBuffer * buffer,
    GstMapFlags flags, gboolean * on_device)
{
  *on_device = gst_cuda_filter_base_is_device_buffer (self, buffer);
  if (!gst_video_frame_map (frame, info, buffer, flags
          | (*on_device ? GST_MAP_CUDA : 0)))
    return FALSE;
  if (*on_device && !gst_cuda_filter_base_order_before (self, buffer,
          (flags & GST_MAP_WRITE) != 0)) {
    gst_video_frame_unmap (frame);
    return FALSE;
  }
  return TRUE;
}
#else
gboolean
gst_cuda_filter_base_map_frame (GstCudaFilterBase * self G_GNUC_UNUSED,
    GstVideoFrame * frame, const GstVideoInfo * info, GstBuffer * buffer,
    GstMapFlags flags, gboolean * on_device)
{
  *on_device = FALSE;
  return gst_video_frame_map (frame, info, buffer, flags);
}
#endif
