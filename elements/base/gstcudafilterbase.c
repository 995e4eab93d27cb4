/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GStreamer CUDA filters: shared element base
 */

/**
 * SECTION:gstcudafilterbase
 * @title: GstCudaFilterBase
 *
 * What every element of the plugin shares:
 *
 * - `backend` picks the implementation: `auto` runs on the GPU when one is
 *   usable and otherwise on the CPU twin of the same kernels, saying so once
 *   in the log; `cuda` fails the READY to PAUSED change with a RESOURCE
 *   error naming the reason when no GPU is usable; `cpu` never touches CUDA.
 * - `cuda-device-id` picks the GPU as GStreamer's CUDA elements do: -1
 *   takes the CUDA context the pipeline shares (through GstContext, with
 *   nvh264dec, cudaupload, cudadownload and the plugin's other elements),
 *   or the first GPU's; an explicit id takes only a context of that GPU.
 *   Kernels run with that context current.
 * - CUDA streams: uploads and downloads on streams of the element's own,
 *   so both copy directions can overlap the kernels; the kernels of the
 *   video elements on the stream the context's elements share
 *   (gstcudafilterdevice.h), the others on one of their own.
 * - Device scratch buffers that grow when needed and are otherwise reused.
 * - Pinned host memory: a buffer pool of page-locked memory is proposed
 *   upstream and used for output buffers, so copies run at full PCIe speed.
 * - Every CUDA failure becomes a GST_ELEMENT_ERROR with the CUDA error name.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/audio/audio.h>
#include <gst/video/video.h>

#include "gstcudafilterbase.h"
#include "gstcudafilterbaseprivate.h"
#include "gstcudafiltermemory.h"

/* shared with the base's other files (gstcudafilterbaseprivate.h) */
GST_DEBUG_CATEGORY (gst_cuda_filter_base_debug);
#define GST_CAT_DEFAULT gst_cuda_filter_base_debug

#define DEFAULT_CUDA_DEVICE_ID -1
#define DEFAULT_BACKEND GST_CUDA_FILTER_BACKEND_AUTO

enum
{
  PROP_0,
  PROP_CUDA_DEVICE_ID,
  PROP_BACKEND,
};

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstCudaFilterBase, gst_cuda_filter_base,
    GST_TYPE_BASE_TRANSFORM, G_ADD_PRIVATE (GstCudaFilterBase)
    GST_DEBUG_CATEGORY_INIT (gst_cuda_filter_base_debug, "cudafilterbase", 0,
        "CUDA filter base"));

GstCudaFilterBasePrivate *
gst_cuda_filter_base_get_private (GstCudaFilterBase * self)
{
  return gst_cuda_filter_base_get_instance_private (self);
}

gpointer
gst_cuda_filter_base_get_parent_class (void)
{
  return gst_cuda_filter_base_parent_class;
}

GType
gst_cuda_filter_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_FILTER_BACKEND_AUTO,
        "The GPU when one is usable, else the CPU", "auto"},
    {GST_CUDA_FILTER_BACKEND_CUDA, "The GPU; fail without one", "cuda"},
    {GST_CUDA_FILTER_BACKEND_CPU, "The CPU", "cpu"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaFilterBackend", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static void gst_cuda_filter_base_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_cuda_filter_base_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static gboolean gst_cuda_filter_base_start (GstBaseTransform * trans);
static gboolean gst_cuda_filter_base_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static GstFlowReturn gst_cuda_filter_base_chain (GstPad * pad,
    GstObject * parent, GstBuffer * buffer);
static gboolean gst_cuda_filter_base_sink_event (GstPad * pad,
    GstObject * parent, GstEvent * event);
static gboolean gst_cuda_filter_base_sink_query (GstPad * pad,
    GstObject * parent, GstQuery * query);

/* GstBaseTransform's own sink pad functions, which the base calls with the
 * element's context pushed */
static GstPadChainFunction parent_chain;
static GstPadEventFunction parent_sink_event;
static GstPadQueryFunction parent_sink_query;
static gsize parent_functions_read;
static gboolean gst_cuda_filter_base_stop (GstBaseTransform * trans);
static void gst_cuda_filter_base_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer);
static GstCaps *gst_cuda_filter_base_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps);

void
gst_cuda_filter_base_class_install_enum (GObjectClass * klass, guint prop_id,
    const gchar * name, const gchar * nick, const gchar * blurb, GType type,
    gint default_value, GParamFlags extra)
{
  g_object_class_install_property (klass, prop_id,
      g_param_spec_enum (name, nick, blurb, type, default_value,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | extra));
  gst_type_mark_as_plugin_api (type, 0);
}

void
gst_cuda_filter_base_class_add_templates (GstElementClass * klass,
    GstCaps * caps)
{
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

static void
gst_cuda_filter_base_class_init (GstCudaFilterBaseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cuda_filter_base_set_property;
  gobject_class->get_property = gst_cuda_filter_base_get_property;

  /**
   * GstCudaFilterBase:cuda-device-id:
   *
   * The CUDA device to run on. -1 takes the CUDA context the pipeline
   * shares, whatever its device, else the first device; an explicit id
   * takes only a context of that device.
   */
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to run on (-1 = the one of the context the pipeline "
          "shares, else the first one)", -1, G_MAXINT16,
          DEFAULT_CUDA_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstCudaFilterBase:backend:
   *
   * Where buffers are processed. `auto` uses the GPU when one is usable and
   * otherwise the CPU implementation of the same operation (logged once);
   * `cuda` fails to start without a usable GPU; `cpu` never uses the GPU.
   */
  gst_cuda_filter_base_class_install_enum (gobject_class, PROP_BACKEND,
      "backend", "Backend", "Where buffers are processed: auto (GPU if "
      "usable, else CPU), cuda (GPU, fail without one) or cpu",
      GST_TYPE_CUDA_FILTER_BACKEND, DEFAULT_BACKEND, GST_PARAM_MUTABLE_READY);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_filter_base_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_filter_base_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_filter_base_set_caps);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cuda_filter_base_before_transform);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_filter_base_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_filter_base_decide_allocation);
  trans_class->fixate_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_filter_base_fixate_caps);
#ifdef HAVE_GST_CUDA
  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_filter_base_set_context);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_filter_base_query);
#else
  (void) element_class;
#endif

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_FILTER_BASE, 0);
}

static void
gst_cuda_filter_base_init (GstCudaFilterBase * self)
{
  GstCudaFilterBasePrivate *priv = PRIV (self);

  GstPad *sink = GST_BASE_TRANSFORM_SINK_PAD (self);

  priv->device_id = DEFAULT_CUDA_DEVICE_ID;
  priv->backend = DEFAULT_BACKEND;

  /* every buffer, event and query that reaches the element runs with its
   * context pushed, and the thread gets its own context back after */
  if (g_once_init_enter (&parent_functions_read)) {
    parent_chain = GST_PAD_CHAINFUNC (sink);
    parent_sink_event = GST_PAD_EVENTFUNC (sink);
    parent_sink_query = GST_PAD_QUERYFUNC (sink);
    g_once_init_leave (&parent_functions_read, 1);
  }
  gst_pad_set_chain_function (sink,
      GST_DEBUG_FUNCPTR (gst_cuda_filter_base_chain));
  gst_pad_set_event_function (sink,
      GST_DEBUG_FUNCPTR (gst_cuda_filter_base_sink_event));
  gst_pad_set_query_function (sink,
      GST_DEBUG_FUNCPTR (gst_cuda_filter_base_sink_query));
}

gboolean
gst_cuda_filter_base_is_running (GstCudaFilterBase * self)
{
  return GST_STATE (self) > GST_STATE_READY
      || GST_STATE_NEXT (self) > GST_STATE_READY || PRIV (self)->started;
}

static void
gst_cuda_filter_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaFilterBasePrivate *priv = PRIV (object);

  GST_OBJECT_LOCK (object);
  if (gst_cuda_filter_base_is_running (GST_CUDA_FILTER_BASE (object))) {
    GST_OBJECT_UNLOCK (object);
    GST_ELEMENT_WARNING (object, LIBRARY, SETTINGS, ("Refused %s: it can "
            "change only in the NULL or READY state.", pspec->name), (NULL));
    return;
  }
  switch (prop_id) {
    case PROP_CUDA_DEVICE_ID:
      priv->device_id = g_value_get_int (value);
      break;
    case PROP_BACKEND:
      priv->backend = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_cuda_filter_base_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaFilterBasePrivate *priv = PRIV (object);

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, priv->device_id);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, priv->backend);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

/* Releases the streams and the device (its context pushed meanwhile). */
static void
close_device (GstCudaFilterBasePrivate * priv, gboolean own_compute)
{
  cf_stream *all[] = { &priv->streams.upload, &priv->streams.download,
    &priv->streams.compute
  };

  gboolean pushed;

  if (!priv->device)
    return;
  pushed = gst_cuda_filter_device_push (priv->device) == CF_OK;
  for (guint k = 0; k < G_N_ELEMENTS (all); k++) {
    if (*all[k] && (all[k] != &priv->streams.compute || own_compute)) {
      cf_gpu_stream_sync (*all[k]);
      cf_gpu_stream_destroy (*all[k]);
    }
    *all[k] = NULL;
  }
  if (priv->computed)
    cf_gpu_event_destroy (priv->computed);
  if (priv->handoff)
    cf_gpu_event_destroy (priv->handoff);
  priv->computed = priv->handoff = NULL;
  if (pushed)
    gst_cuda_filter_device_pop (priv->device);
  g_clear_pointer (&priv->device, gst_cuda_filter_device_unref);
}

/* Opens the element's device: the context, its shared stream, streams of
 * the element's own. Returns NULL, or why the device is not usable;
 * *mismatch: the reason is a driver or a GPU that cannot run this build,
 * which a user can mend (a newer driver, another build). */
static gchar *
open_device (GstCudaFilterBase * self, gint device_id, gboolean * mismatch)
{
  GstCudaFilterBasePrivate *priv = PRIV (self);
  gboolean shares = GST_CUDA_FILTER_BASE_GET_CLASS (self)->shares_stream;
  int count = 0, status = cf_gpu_device_count (&count);
  gchar *error;
  char name[256], why[512];
  gint id;

  *mismatch = FALSE;
  if (!cf_gpu_built_with_cuda ())
    return g_strdup ("the plugin was built without CUDA");
  /* the runtime says cudaErrorInsufficientDriver with no driver at all,
   * too: only a driver that answers is one too old */
  if (count == 0 && cf_gpu_check_build (-1, why, sizeof (why)) != CF_OK) {
    *mismatch = TRUE;
    return g_strdup (why);
  }
  if (count == 0)
    return g_strdup_printf ("no CUDA device (%s)", status == CF_OK
        ? "none present" : cf_status_name (status));
  if (device_id >= count)
    return g_strdup_printf ("cuda-device-id is %d but there %s %d device%s",
        device_id, count == 1 ? "is" : "are", count, count == 1 ? "" : "s");
  if ((error = gst_cuda_filter_base_find_device (self, device_id)))
    return error;
  id = gst_cuda_filter_device_id (priv->device);
  if ((status = gst_cuda_filter_device_push (priv->device)) != CF_OK) {
    close_device (priv, FALSE);
    return g_strdup_printf ("device %d cannot be used: %s", id,
        cf_status_name (status));
  }
  if (cf_gpu_check_build (id, why, sizeof (why)) != CF_OK) {
    gst_cuda_filter_device_pop (priv->device);
    close_device (priv, FALSE);
    *mismatch = TRUE;
    return g_strdup (why);
  }
  if ((status = cf_gpu_event_create (&priv->computed)) != CF_OK
      || (status = cf_gpu_event_create (&priv->handoff)) != CF_OK
      || (status = cf_gpu_stream_create (&priv->streams.upload)) != CF_OK
      || (status = cf_gpu_stream_create (&priv->streams.download)) != CF_OK
      || (!shares
          && (status = cf_gpu_stream_create (&priv->streams.compute))
          != CF_OK)) {
    gst_cuda_filter_device_pop (priv->device);
    close_device (priv, !shares);
    return g_strdup_printf ("device %d cannot be used: %s", id,
        cf_status_name (status));
  }
  gst_cuda_filter_device_pop (priv->device);
  if (shares)
    priv->streams.compute = gst_cuda_filter_device_stream (priv->device);
  if (cf_gpu_device_name (id, name, sizeof (name)) == CF_OK)
    GST_INFO_OBJECT (self, "using CUDA device %d: %s", id, name);
  return NULL;
}

/* Opens the GPU, or settles on the CPU, as `backend` says. */
static gboolean
choose_backend (GstBaseTransform * trans)
{
  GstCudaFilterBasePrivate *priv = PRIV (trans);
  GstCudaFilterBackend backend;
  gint device;
  gchar *reason = NULL;
  gboolean mismatch;

  GST_OBJECT_LOCK (trans);
  backend = priv->backend;
  device = priv->device_id;
  GST_OBJECT_UNLOCK (trans);

  priv->use_cuda = FALSE;
  if (backend == GST_CUDA_FILTER_BACKEND_CPU) {
    GST_INFO_OBJECT (trans, "processing on the CPU, as requested");
    return TRUE;
  }
  reason = open_device (GST_CUDA_FILTER_BASE (trans), device, &mismatch);
  if (!reason) {
    priv->use_cuda = TRUE;
    return TRUE;
  }
  if (backend == GST_CUDA_FILTER_BACKEND_CUDA) {
    GST_ELEMENT_ERROR (trans, RESOURCE, NOT_FOUND,
        ("No usable CUDA device: %s.", reason),
        ("backend=cuda needs a GPU; backend=auto would use the CPU"));
    g_free (reason);
    return FALSE;
  }
  if (!priv->fallback_logged) {
    int count = 0;
    /* no GPU at all is what backend=auto is for; a GPU that fails, or a
     * driver or GPU the build cannot serve, is news */
    if (mismatch || (cf_gpu_device_count (&count) == CF_OK && count > 0))
      GST_ELEMENT_WARNING (trans, RESOURCE, OPEN_READ_WRITE,
          ("The GPU cannot be used (%s); processing on the CPU.", reason),
          (NULL));
    else
      GST_WARNING_OBJECT (trans, "processing on the CPU: %s", reason);
    priv->fallback_logged = TRUE;
  }
  g_free (reason);
  return TRUE;
}

/* The output memory: CUDA memory when the next element is one of ours on
 * the same device, else the memory the frames came in (no copy), when the
 * peer takes it. */
static GstCaps *
gst_cuda_filter_base_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  GstCudaFilterBasePrivate *priv = PRIV (trans);
  gboolean cuda = gst_cuda_filter_caps_are_cuda (caps);

  if (direction == GST_PAD_SINK && priv->use_cuda
      && gst_cuda_filter_base_peer_shares (trans->srcpad, priv->device))
    cuda = TRUE;
  othercaps = gst_cuda_filter_memory_prefer (othercaps, cuda);
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_filter_base_parent_class)
      ->fixate_caps (trans, direction, caps, othercaps);
}

static void
forget_device (GstBaseTransform * trans)
{
  GstCudaFilterBasePrivate *priv = PRIV (trans);

  close_device (priv,
      !GST_CUDA_FILTER_BASE_GET_CLASS (trans)->shares_stream);
  priv->use_cuda = FALSE;
  priv->downstream_shares_stream = FALSE;
#ifdef HAVE_GST_CUDA
  /* the next start asks the pipeline again: it may share another one */
  GST_OBJECT_LOCK (trans);
  gst_clear_object (&priv->context);
  GST_OBJECT_UNLOCK (trans);
#endif
}

static gboolean
gst_cuda_filter_base_start (GstBaseTransform * trans)
{
  GstCudaFilterBase *self = GST_CUDA_FILTER_BASE (trans);
  GstCudaFilterBaseClass *klass = GST_CUDA_FILTER_BASE_GET_CLASS (self);
  gboolean ok = choose_backend (trans);

  if (ok && klass->start) {
    ok = gst_cuda_filter_base_push (self);
    if (ok) {
      ok = klass->start (self);
      gst_cuda_filter_base_pop (self);
    }
  }
  if (!ok)
    forget_device (trans);
  GST_OBJECT_LOCK (trans);
  PRIV (trans)->started = ok;
  GST_OBJECT_UNLOCK (trans);
  return ok;
}

static gboolean
gst_cuda_filter_base_stop (GstBaseTransform * trans)
{
  GstCudaFilterBase *self = GST_CUDA_FILTER_BASE (trans);
  GstCudaFilterBaseClass *klass = GST_CUDA_FILTER_BASE_GET_CLASS (self);
  GstCudaFilterBasePrivate *priv = PRIV (trans);

  if (klass->stop) {
    /* without the context the element's device memory leaks, but its
     * host side is still released */
    gboolean pushed = gst_cuda_filter_base_push (self);
    klass->stop (self);
    if (pushed)
      gst_cuda_filter_base_pop (self);
  }
  gst_clear_caps (&priv->incaps);
  gst_clear_caps (&priv->outcaps);
  forget_device (trans);
  GST_OBJECT_LOCK (trans);
  priv->started = FALSE;
  GST_OBJECT_UNLOCK (trans);
  return TRUE;
}

/* Whether caps `a` and `b` describe the same stream: equal, or spelt
 * differently (a channel mask given or implied, fields in another order)
 * with the same parsed info and memory. */
static gboolean
same_stream (GstCaps * a, GstCaps * b)
{
  GstAudioInfo audio_a, audio_b;
  GstVideoInfo video_a, video_b;

  if (gst_caps_is_equal (a, b))
    return TRUE;
  if (gst_cuda_filter_caps_are_cuda (a) != gst_cuda_filter_caps_are_cuda (b))
    return FALSE;
  if (gst_audio_info_from_caps (&audio_a, a)
      && gst_audio_info_from_caps (&audio_b, b))
    return gst_audio_info_is_equal (&audio_a, &audio_b);
  if (gst_video_info_from_caps (&video_a, a)
      && gst_video_info_from_caps (&video_b, b))
    return gst_video_info_is_equal (&video_a, &video_b);
  return FALSE;
}

/* New caps reach the element once; the same again (a RECONFIGURE, a
 * repeated caps event) change nothing. */
static gboolean
gst_cuda_filter_base_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaFilterBase *self = GST_CUDA_FILTER_BASE (trans);
  GstCudaFilterBaseClass *klass = GST_CUDA_FILTER_BASE_GET_CLASS (self);
  GstCudaFilterBasePrivate *priv = PRIV (trans);

  if (priv->incaps && priv->outcaps && same_stream (incaps, priv->incaps)
      && same_stream (outcaps, priv->outcaps)) {
    GST_DEBUG_OBJECT (self, "same caps again: the stream goes on");
    return TRUE;
  }
  gst_clear_caps (&priv->incaps);
  gst_clear_caps (&priv->outcaps);
  if (klass->set_info && !klass->set_info (self, incaps, outcaps))
    return FALSE;
  priv->incaps = gst_caps_ref (incaps);
  priv->outcaps = gst_caps_ref (outcaps);
  return TRUE;
}

static GstFlowReturn
gst_cuda_filter_base_chain (GstPad * pad, GstObject * parent,
    GstBuffer * buffer)
{
  GstCudaFilterBase *self = GST_CUDA_FILTER_BASE (parent);
  GstFlowReturn ret;

  if (!gst_cuda_filter_base_push (self)) {
    gst_buffer_unref (buffer);
    return GST_FLOW_ERROR;
  }
  ret = parent_chain (pad, parent, buffer);
  gst_cuda_filter_base_pop (self);
  return ret;
}

static gboolean
gst_cuda_filter_base_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstCudaFilterBase *self = GST_CUDA_FILTER_BASE (parent);
  gboolean ret, pushed = gst_cuda_filter_base_push (self);

  /* an event still goes on without the context: EOS and flushes must */
  ret = parent_sink_event (pad, parent, event);
  if (pushed)
    gst_cuda_filter_base_pop (self);
  return ret;
}

static gboolean
gst_cuda_filter_base_sink_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstCudaFilterBase *self = GST_CUDA_FILTER_BASE (parent);
  gboolean ret, pushed = gst_cuda_filter_base_push (self);

  ret = parent_sink_query (pad, parent, query);
  if (pushed)
    gst_cuda_filter_base_pop (self);
  return ret;
}

gboolean
gst_cuda_filter_base_uses_cuda (GstCudaFilterBase * self)
{
  return PRIV (self)->use_cuda;
}

const GstCudaStreams *
gst_cuda_filter_base_streams (GstCudaFilterBase * self)
{
  return &PRIV (self)->streams;
}

gboolean
gst_cuda_filter_base_offers_cuda_memory (GstCudaFilterBase * self)
{
  GstCudaFilterBasePrivate *priv = PRIV (self);
  gboolean offers;

  GST_OBJECT_LOCK (self);
  offers = priv->backend != GST_CUDA_FILTER_BACKEND_CPU
      && (!priv->started || priv->use_cuda);
  GST_OBJECT_UNLOCK (self);
  return offers;
}

GstCudaFilterDevice *
gst_cuda_filter_base_device (GstCudaFilterBase * self)
{
  return PRIV (self)->device;
}

/* Between start and stop the device does not change; a buffer, event or
 * query only comes then, or on the CPU backend, or before start (use_cuda
 * FALSE): nothing to push. */
gboolean
gst_cuda_filter_base_push (GstCudaFilterBase * self)
{
  GstCudaFilterBasePrivate *priv = PRIV (self);

  if (!priv->use_cuda || !priv->device)
    return TRUE;
  return gst_cuda_filter_base_check (self,
      gst_cuda_filter_device_push (priv->device),
      "making the CUDA context current");
}

void
gst_cuda_filter_base_pop (GstCudaFilterBase * self)
{
  GstCudaFilterBasePrivate *priv = PRIV (self);

  if (priv->use_cuda && priv->device)
    gst_cuda_filter_device_pop (priv->device);
}

gboolean
gst_cuda_filter_base_check (GstCudaFilterBase * self, int status,
    const gchar * what)
{
  if (G_LIKELY (status == CF_OK))
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("CUDA failure while %s: %s.", what, cf_status_name (status)),
      ("status %d", status));
  return FALSE;
}

/* Controllable properties of every element (sigma, gain, mix, radius, ...)
 * follow the timeline: their values for this buffer's stream time. */
static void
gst_cuda_filter_base_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer)
{
  GstClockTime stream_time = gst_segment_to_stream_time (&trans->segment,
      GST_FORMAT_TIME, GST_BUFFER_TIMESTAMP (buffer));

  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (trans), stream_time);
}

gboolean
gst_cuda_filter_base_ensure_device (GstCudaFilterBase * self,
    GstCudaDeviceBuffer * buf, gsize size)
{
  int status;

  if (buf->ptr && buf->size >= size)
    return TRUE;
  gst_cuda_filter_base_free_device (buf);
  status = cf_gpu_malloc (&buf->ptr, size);
  if (status != CF_OK) {
    buf->ptr = NULL;
    return gst_cuda_filter_base_check (self, status,
        "allocating device memory");
  }
  buf->size = size;
  return TRUE;
}

gboolean
gst_cuda_filter_base_ensure_device_ordered (GstCudaFilterBase * self,
    GstCudaDeviceBuffer * buf, gsize size, cf_stream stream)
{
  int status;

  if (buf->ptr && buf->size >= size)
    return TRUE;
  gst_cuda_filter_base_free_device (buf);
  status = cf_gpu_malloc_async (&buf->ptr, size, stream);
  if (status != CF_OK) {
    buf->ptr = NULL;
    return gst_cuda_filter_base_check (self, status,
        "allocating device memory");
  }
  buf->size = size;
  buf->freed_on = PRIV (self)->streams.compute;
  return TRUE;
}

void
gst_cuda_filter_base_free_device (GstCudaDeviceBuffer * buf)
{
  if (buf->ptr && buf->freed_on)
    cf_gpu_free_async (buf->ptr, buf->freed_on);
  else if (buf->ptr)
    cf_gpu_free (buf->ptr);
  buf->ptr = NULL;
  buf->size = 0;
  buf->freed_on = NULL;
}

/* Waits for the copies and, when `kernels`, for the element's kernels:
 * through an event, not the whole compute stream, which other elements of
 * the context may have queued more work on since. */
static gboolean
wait_for (GstCudaFilterBase * self, gboolean kernels)
{
  GstCudaFilterBasePrivate *priv = PRIV (self);
  const GstCudaStreams *s = &priv->streams;
  int status = cf_gpu_stream_sync (s->upload), st;

  /* every wait runs even after one failed: the buffers are unmapped next */
  if (kernels) {
    st = cf_gpu_event_record (priv->computed, s->compute);
    if (st == CF_OK)
      st = cf_gpu_event_sync (priv->computed);
    /* the event failed: the whole stream, then */
    if (st != CF_OK)
      cf_gpu_stream_sync (s->compute);
    status = status != CF_OK ? status : st;
  }
  st = cf_gpu_stream_sync (s->download);
  status = status != CF_OK ? status : st;
  return gst_cuda_filter_base_check (self, status, "processing a buffer");
}

gboolean
gst_cuda_filter_base_sync (GstCudaFilterBase * self)
{
  return wait_for (self, TRUE);
}

gboolean
gst_cuda_filter_base_order_before (GstCudaFilterBase * self,
    GstBuffer * buffer, gboolean write)
{
  GstCudaFilterBasePrivate *priv = PRIV (self);

  return gst_cuda_filter_base_check (self,
      gst_cuda_filter_memory_order_before (buffer, write,
          priv->streams.compute, priv->handoff), "waiting for a frame");
}

gboolean
gst_cuda_filter_base_finish (GstCudaFilterBase * self, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaFilterBasePrivate *priv = PRIV (self);
  gboolean in_device = gst_cuda_filter_base_is_device_buffer (self, inbuf);
  gboolean out_device = gst_cuda_filter_base_is_device_buffer (self, outbuf);
  gboolean in_streamed = FALSE, out_streamed = FALSE, handed_on_device;
  int status = CF_OK;

  /* 1.24+: the memories' streams wait for our kernels on the GPU; when
   * both frames carry streams, their users order themselves after ours */
  if (in_device)
    status = gst_cuda_filter_memory_order_after (inbuf, priv->streams.compute,
        priv->handoff, &in_streamed);
  if (outbuf == inbuf)
    out_streamed = in_streamed;
  else if (status == CF_OK && out_device)
    status = gst_cuda_filter_memory_order_after (outbuf,
        priv->streams.compute, priv->handoff, &out_streamed);
  if (!gst_cuda_filter_base_check (self, status, "handing a frame on")) {
    /* the buffers are unmapped next: nothing queued may still touch them */
    wait_for (self, TRUE);
    return FALSE;
  }
  /* Otherwise (1.22's rules) the kernels may still be queued only inside a
   * chain of ours: the input came from an element of ours on the same
   * stream (whose pool rewrites it only through work queued after ours;
   * any other writer, such as cudaupload, may rewrite it as soon as we
   * return) and the output goes to one. A host input was uploaded into a
   * scratch plane that the next frame's upload overwrites: also waited
   * for. */
  handed_on_device = in_device && out_device && ((in_streamed && out_streamed)
      || (priv->downstream_shares_stream
          && gst_cuda_filter_base_peer_shares
          (GST_BASE_TRANSFORM_SINK_PAD (self), priv->device)));
  return wait_for (self, !handed_on_device);
}
