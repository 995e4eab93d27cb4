/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GStreamer CUDA filters: what the files of the base class share with each
 * other (gstcudafilterbase.c, gstcudafilterbasecontext.c,
 * gstcudafilterbasealloc.c). Only they include it; the elements see
 * gstcudafilterbase.h.
 */
#ifndef __GST_CUDA_FILTER_BASE_PRIVATE_H__
#define __GST_CUDA_FILTER_BASE_PRIVATE_H__

#include "gstcudafilterbase.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#endif

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_filter_base_debug);

typedef struct
{
  /* properties, object lock */
  gint device_id;
  GstCudaFilterBackend backend;

  /* between start and stop */
  gboolean started;              /* object lock */
  gboolean use_cuda;
  GstCudaFilterDevice *device;
  GstCudaStreams streams;
  cf_event computed;            /* recorded after a frame's kernels */
  cf_event handoff;             /* orders our stream with a memory's */
  gboolean fallback_logged;
  /* the source pad's peer computes on our stream (decide_allocation) */
  gboolean downstream_shares_stream;
  /* the caps set_info last accepted (streaming thread) */
  GstCaps *incaps, *outcaps;
#ifdef HAVE_GST_CUDA
  GstCudaContext *context;      /* object lock */
#endif
} GstCudaFilterBasePrivate;

/* G_DEFINE_TYPE's instance-private getter and parent class are static to
 * gstcudafilterbase.c: these hand them to the other files. */
G_GNUC_INTERNAL
GstCudaFilterBasePrivate *gst_cuda_filter_base_get_private (GstCudaFilterBase *
    self);
G_GNUC_INTERNAL gpointer gst_cuda_filter_base_get_parent_class (void);

#define PRIV(self) \
    gst_cuda_filter_base_get_private (GST_CUDA_FILTER_BASE (self))

/* ---- gstcudafilterbasecontext.c: the CUDA context ---------------------- */

G_GNUC_INTERNAL
gchar *gst_cuda_filter_base_find_device (GstCudaFilterBase * self,
    gint device_id);
#ifdef HAVE_GST_CUDA
G_GNUC_INTERNAL
void gst_cuda_filter_base_set_context (GstElement * element,
    GstContext * context);
G_GNUC_INTERNAL
gboolean gst_cuda_filter_base_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
#endif

/* ---- gstcudafilterbasealloc.c: pinned and CUDA pools ------------------- */

G_GNUC_INTERNAL
gboolean gst_cuda_filter_base_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query);
G_GNUC_INTERNAL
gboolean gst_cuda_filter_base_decide_allocation (GstBaseTransform * trans,
    GstQuery * query);

G_END_DECLS

#endif
