/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Lifecycle tests of the three elements: what state changes, renegotiation
 * and property changes from the application's thread must leave as it was.
 *
 *   test_lifecycle          backend=cpu
 *   test_lifecycle --gpu    backend=cuda, plus the CUDA context checks;
 *                           exits 77 when no GPU is usable
 *
 * contexts (GPU only)      no element leaves a CUDA context current on the
 *                          application's thread, nor changes the one the
 *                          application made current: every state change,
 *                          pulling samples, reading the integral meta
 * context-race (GPU only)  start and stop while other threads offer the
 *                          element a context and ask for its own: no
 *                          crash, a context answered after it, and no
 *                          race under ThreadSanitizer
 * latency-by-state         cudaconv1d's latency and overlap cannot change
 *                          in PAUSED or PLAYING, before the first buffer as
 *                          after it
 * latency-race             latency toggled while the pipeline starts: the
 *                          frames out agree with the latency read back, and
 *                          nothing reads outside the history (ASan)
 * conv1d-same-caps         the same caps again mid-stream (a RECONFIGURE, a
 *                          repeated caps event) change nothing: the output
 *                          equals a clean run sample for sample
 * conv1d-new-caps          new caps drain: the tail in the old caps, then
 *                          the new stream from silence
 * level-same-caps          cudaprefixsum on audio: the same caps again
 *                          lose no level message
 * conv1d-duration          the duration query counts the tail pushed at
 *                          EOS, and the position never passes it
 */
#include <dlfcn.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/audio/audio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "element_check.h"
#include "harness_bytes.h"
#include "gstcudaintegralmeta.h"
#include "watchdog.h"
#include "live_pipelines.h"

#define RATE 48000
#define AUDIO_CAPS "audio/x-raw,format=F32LE,rate=48000,channels=2," \
    "layout=interleaved"

/* the same stream as AUDIO_CAPS: 0x3 is stereo's default mask */
#define SAME_STREAM_CAPS AUDIO_CAPS ",channel-mask=(bitmask)0x3"

static const gchar *backend = "cpu";

/* ---- helpers ------------------------------------------------------------ */

/* Stereo F32 frames, random in [-amp, amp), stamped at frame `first`. */
static GstBuffer *
audio_buffer (GRand * r, gint rate, guint64 first, gint frames, gdouble amp)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, (gsize) frames * 2
      * sizeof (gfloat), NULL);
  GstMapInfo map;
  gfloat *x;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  x = (gfloat *) map.data;
  for (gint k = 0; k < frames * 2; k++)
    x[k] = (gfloat) (amp * g_rand_double_range (r, -1.0, 1.0));
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (first, GST_SECOND, rate);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int (first + frames,
      GST_SECOND, rate) - GST_BUFFER_PTS (buf);
  return buf;
}

static gchar *
random_kernel (GRand * r, gint taps)
{
  GString *s = g_string_new (NULL);

  for (gint k = 0; k < taps; k++)
    g_string_append_printf (s, "%s%.6f", k ? " " : "",
        g_rand_double_range (r, -0.5, 0.5));
  return g_string_free (s, FALSE);
}

static GstHarness *
conv1d_harness (const gchar * kernel, guint64 latency, const gchar * caps)
{
  GstHarness *h = gst_harness_new ("cudaconv1d");

  gst_util_set_object_arg (G_OBJECT (h->element), "backend", backend);
  g_object_set (h->element, "kernel", kernel, "latency", latency, NULL);
  gst_harness_set_src_caps_str (h, caps);
  return h;
}

/* Frames of stereo F32 that differ between `got` and `want`: says where
 * and how, or NULL when they are the same. */
static gchar *
audio_difference (GByteArray * got, GByteArray * want)
{
  guint fg = got->len / 8, fw = want->len / 8;
  const gfloat *g = (const gfloat *) got->data;
  const gfloat *w = (const gfloat *) want->data;

  for (guint k = 0; k < MIN (fg, fw) * 2; k++)
    if (g[k] != w[k])
      return g_strdup_printf ("%u frames out, %u in the clean run; first "
          "difference at frame %u channel %u: %g instead of %g", fg, fw,
          k / 2, k % 2, g[k], w[k]);
  if (fg != fw)
    return g_strdup_printf ("%u frames out, %u in the clean run (the first "
        "%u agree)", fg, fw, MIN (fg, fw));
  return NULL;
}

/* ---- contexts (GPU) ----------------------------------------------------- */

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;

typedef struct
{
  void *lib;
    CUresult (*init) (unsigned int);
    CUresult (*device_get) (CUdevice *, int);
    CUresult (*ctx_create) (CUcontext *, unsigned int, CUdevice);
    CUresult (*ctx_destroy) (CUcontext);
    CUresult (*ctx_get_current) (CUcontext *);
    CUresult (*ctx_set_current) (CUcontext);
} Driver;

static Driver drv;

static gboolean
driver_open (gchar ** why)
{
  if (drv.lib)
    return TRUE;
  drv.lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!drv.lib) {
    *why = g_strdup_printf ("cannot load libcuda.so.1: %s", dlerror ());
    return FALSE;
  }
  drv.init = dlsym (drv.lib, "cuInit");
  drv.device_get = dlsym (drv.lib, "cuDeviceGet");
  /* the _v2 entry points: the ABI every driver since CUDA 4 exports */
  drv.ctx_create = dlsym (drv.lib, "cuCtxCreate_v2");
  drv.ctx_destroy = dlsym (drv.lib, "cuCtxDestroy_v2");
  drv.ctx_get_current = dlsym (drv.lib, "cuCtxGetCurrent");
  drv.ctx_set_current = dlsym (drv.lib, "cuCtxSetCurrent");
  if (!drv.init || !drv.device_get || !drv.ctx_create || !drv.ctx_destroy
      || !drv.ctx_get_current || !drv.ctx_set_current) {
    *why = g_strdup ("libcuda.so.1 lacks a context entry point");
    return FALSE;
  }
  if (drv.init (0) != 0) {
    *why = g_strdup ("cuInit failed");
    return FALSE;
  }
  return TRUE;
}

static CUcontext
current_context (void)
{
  CUcontext c = NULL;

  fail_unless_equals_int (drv.ctx_get_current (&c), 0);
  return c;
}

static void
expect_context (CUcontext want, const gchar * element, const gchar * step)
{
  CUcontext got = current_context ();

  fail_unless (got == want, "%s: after %s the application's thread has "
      "context %p current instead of %s%p: the element left its own "
      "context current", element, step, got, want ? "its own " : "none, ",
      want);
}

static void
state_and_check (GstElement * p, GstState state, CUcontext want,
    const gchar * element)
{
  GstStateChangeReturn ret = gst_element_set_state (p, state);
  gchar *step = g_strdup_printf ("set_state (%s)",
      gst_element_state_get_name (state));

  fail_if (ret == GST_STATE_CHANGE_FAILURE, "%s: %s failed", element, step);
  expect_context (want, element, step);
  if (ret == GST_STATE_CHANGE_ASYNC) {
    ret = gst_element_get_state (p, NULL, NULL, 20 * GST_SECOND);
    fail_unless (ret == GST_STATE_CHANGE_SUCCESS
        || ret == GST_STATE_CHANGE_NO_PREROLL, "%s: %s did not complete",
        element, step);
    expect_context (want, element, "the wait for the state change");
  }
  g_free (step);
}

/* Drives one element NULL -> READY -> PAUSED -> PLAYING (with buffers,
 * pulled and, for cudaprefixsum, their meta's tables read on the host) ->
 * NULL from this thread; `want` must be current after every step. */
static void
drive_element (const gchar * factory, CUcontext want)
{
  gboolean audio = !strcmp (factory, "cudaconv1d");
  gboolean meta = !strcmp (factory, "cudaprefixsum");
  gchar *desc = g_strdup_printf ("appsrc name=src format=time caps=%s ! "
      "%s backend=cuda ! appsink name=sink sync=false", audio ? AUDIO_CAPS
      : "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1",
      factory);
  GstElement *p = track (gst_parse_launch (desc, NULL));
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GRand *r = g_rand_new_with_seed (seed);
  GstSample *sample;
  gint pulled = 0;

  fail_unless (p != NULL, "cannot build %s", desc);
  state_and_check (p, GST_STATE_READY, want, factory);
  fail_if (gst_element_set_state (p, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE, "%s: PAUSED failed", factory);
  expect_context (want, factory, "set_state (PAUSED)");
  for (gint b = 0; b < 4; b++) {
    GstBuffer *buf;
    if (audio) {
      buf = audio_buffer (r, RATE, (guint64) b * 1024, 1024, 0.5);
    } else {
      buf = gst_buffer_new_allocate (NULL, 64 * 48, NULL);
      gst_buffer_memset (buf, 0, (guint8) (b * 40 + 7), 64 * 48);
      GST_BUFFER_PTS (buf) = b * GST_SECOND / 30;
      GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
    }
    gst_app_src_push_buffer (GST_APP_SRC (src), buf);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  state_and_check (p, GST_STATE_PLAYING, want, factory);
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              10 * GST_SECOND))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    pulled++;
    expect_context (want, factory, "pulling a sample");
    if (meta) {
      GstCudaIntegralMeta *m = gst_buffer_get_cuda_integral_meta (buf);
      gdouble mean;
      fail_unless (m != NULL, "%s: no integral meta", factory);
      fail_unless (gst_cuda_integral_meta_rect (m, 0, 0, 0, 64, 48, NULL,
              &mean, NULL), "%s: the tables cannot be read", factory);
      fail_unless (fabs (mean - ((pulled - 1) * 40 + 7)) < 1e-9,
          "%s: frame %d has mean %g", factory, pulled - 1, mean);
      expect_context (want, factory, "reading the integral meta's tables");
    }
    gst_sample_unref (sample);
    if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
      break;
  }
  fail_unless (pulled > 0, "%s: nothing came out", factory);
  state_and_check (p, GST_STATE_PAUSED, want, factory);
  state_and_check (p, GST_STATE_NULL, want, factory);
  g_rand_free (r);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
}

static const gchar *const factories[] = { "cudaconv1d", "cudaconv2d",
  "cudaprefixsum"
};

GST_START_TEST (test_contexts)
{
  CUcontext own = NULL;
  CUdevice dev = 0;
  gchar *why = NULL;

  watchdog_arm (120, "the context checks", seed);
  fail_unless (driver_open (&why), "%s", why);
  fail_unless_equals_int (drv.device_get (&dev, 0), 0);
  /* a context of the test's own, not the device's primary one, which the
   * elements use: one they leave current would show */
  fail_unless_equals_int (drv.ctx_create (&own, 0, dev), 0);
  fail_unless_equals_int (drv.ctx_set_current (own), 0);
  for (guint k = 0; k < G_N_ELEMENTS (factories); k++)
    drive_element (factories[k], own);

  /* and with none current: none must be left */
  fail_unless_equals_int (drv.ctx_set_current (NULL), 0);
  for (guint k = 0; k < G_N_ELEMENTS (factories); k++)
    drive_element (factories[k], NULL);
  fail_unless_equals_int (drv.ctx_destroy (own), 0);
  watchdog_disarm ();
}

GST_END_TEST;

/* ---- a flush on a thread with a context of its own (GPU) ----------------- */

/* An application that uses CUDA itself seeks (a flush on its thread,
 * with its own context current): the flush forgets the filter's history,
 * so the stream after it comes out as a fresh element's would. */
GST_START_TEST (test_flush_own_context)
{
  GRand *r = g_rand_new_with_seed (seed);
  gchar *kernel = random_kernel (r, 63);
  GstBuffer *after = audio_buffer (r, RATE, 0, 2048, 0.5);
  GstHarness *h = conv1d_harness (kernel, 0, AUDIO_CAPS);
  GstHarness *fresh = conv1d_harness (kernel, 0, AUDIO_CAPS);
  GByteArray *got, *want;
  CUcontext own = NULL;
  CUdevice dev = 0;
  gchar *why = NULL;
  GstSegment segment;

  fail_unless (driver_open (&why), "%s", why);
  fail_unless_equals_int (drv.device_get (&dev, 0), 0);
  fail_unless_equals_int (drv.ctx_create (&own, 0, dev), 0);
  for (guint k = 0; k < 4; k++)
    fail_unless_equals_int (gst_harness_push (h, audio_buffer (r, RATE,
                k * 2048, 2048, 0.5)), GST_FLOW_OK);
  g_byte_array_unref (harness_pull_bytes (h));
  /* the seek, from a thread whose own context is current */
  fail_unless_equals_int (drv.ctx_set_current (own), 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  fail_unless_equals_int (drv.ctx_set_current (NULL), 0);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_copy (after)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (fresh, after), GST_FLOW_OK);
  got = harness_pull_bytes (h);
  want = harness_pull_bytes (fresh);
  fail_unless (got->len == want->len && got->len > 0
      && memcmp (got->data, want->data, got->len) == 0, "after a flush on "
      "a thread with its own context current, %u bytes out differ from a "
      "fresh element's %u: the flush did not forget the history", got->len,
      want->len);
  g_byte_array_unref (got);
  g_byte_array_unref (want);
  gst_harness_teardown (h);
  gst_harness_teardown (fresh);
  fail_unless_equals_int (drv.ctx_destroy (own), 0);
  g_free (kernel);
  g_rand_free (r);
}

GST_END_TEST;

/* ---- the CUDA context from other threads (GPU) ----------------------- */

/* While the application's thread starts and stops the element (start
 * finds a context, stop drops it), one thread keeps offering it a context
 * (set_context, as a bin answering need-context does) and another keeps
 * asking for its own (the context query, as a neighbour does). Nothing may
 * crash or leak, and after it all the element still answers with a
 * context of its device; under ThreadSanitizer (a CUDA build of it), no
 * access to the element's context may race. */
typedef struct
{
  GstElement *element;
  GstContext *offer;
  gint stop;
} ContextRace;

static gpointer
offer_contexts (gpointer data)
{
  ContextRace *race = data;

  while (!g_atomic_int_get (&race->stop))
    gst_element_set_context (race->element, race->offer);
  return NULL;
}

static gpointer
ask_for_contexts (gpointer data)
{
  ContextRace *race = data;
  GstPad *pad = gst_element_get_static_pad (race->element, "src");

  while (!g_atomic_int_get (&race->stop)) {
    GstQuery *query = gst_query_new_context ("gst.cuda.context");
    gst_pad_query (pad, query);
    gst_query_unref (query);
  }
  gst_object_unref (pad);
  return NULL;
}

/* The context the element shares when it starts alone (its have-context
 * message). */
static GstContext *
shared_context (GstElement * e, GstBus * bus, const gchar * factory)
{
  GstContext *context = NULL;
  GstMessage *m;

  fail_if (gst_element_set_state (e, GST_STATE_PAUSED)
      == GST_STATE_CHANGE_FAILURE, "%s: PAUSED failed", factory);
  while (!context && (m = gst_bus_pop_filtered (bus,
              GST_MESSAGE_HAVE_CONTEXT))) {
    gst_message_parse_have_context (m, &context);
    gst_message_unref (m);
  }
  fail_unless (context != NULL, "%s: no context shared at start", factory);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_bus_set_flushing (bus, TRUE);
  gst_bus_set_flushing (bus, FALSE);
  return context;
}

GST_START_TEST (test_context_race)
{
  watchdog_arm (120, "the context race", seed);
  for (guint k = 0; k < G_N_ELEMENTS (factories); k++) {
    ContextRace race = { 0 };
    GstBus *bus = gst_bus_new ();
    GThread *offer, *ask;
    GstQuery *query;
    GstPad *pad;
    gint64 end;
    guint cycles = 0;

    race.element = gst_element_factory_make (factories[k], NULL);
    gst_util_set_object_arg (G_OBJECT (race.element), "backend", "cuda");
    gst_element_set_bus (race.element, bus);
    race.offer = shared_context (race.element, bus, factories[k]);
    offer = g_thread_new ("offer", offer_contexts, &race);
    ask = g_thread_new ("ask", ask_for_contexts, &race);
    end = g_get_monotonic_time () + G_TIME_SPAN_SECOND;
    while (g_get_monotonic_time () < end) {
      GstState to = cycles % 3 == 2 ? GST_STATE_NULL : GST_STATE_READY;
      fail_if (gst_element_set_state (race.element, GST_STATE_PAUSED)
          == GST_STATE_CHANGE_FAILURE, "%s: PAUSED failed", factories[k]);
      fail_if (gst_element_set_state (race.element, to)
          == GST_STATE_CHANGE_FAILURE, "%s: %s failed", factories[k],
          gst_element_state_get_name (to));
      /* messages (need-context, have-context) are not kept */
      gst_bus_set_flushing (bus, TRUE);
      gst_bus_set_flushing (bus, FALSE);
      cycles++;
    }
    g_atomic_int_set (&race.stop, 1);
    g_thread_join (offer);
    g_thread_join (ask);

    /* still a context of the device, answered to a neighbour */
    fail_if (gst_element_set_state (race.element, GST_STATE_PAUSED)
        == GST_STATE_CHANGE_FAILURE, "%s: PAUSED failed", factories[k]);
    pad = gst_element_get_static_pad (race.element, "sink");
    query = gst_query_new_context ("gst.cuda.context");
    fail_unless (gst_pad_query (pad, query), "%s: no context answered after "
        "%u start-stop cycles under offers and queries", factories[k],
        cycles);
    g_print ("%s: %u start-stop cycles while other threads offered and "
        "asked for the context\n", factories[k], cycles);
    gst_query_unref (query);
    gst_object_unref (pad);
    gst_element_set_state (race.element, GST_STATE_NULL);
    gst_bus_set_flushing (bus, TRUE);
    gst_context_unref (race.offer);
    gst_object_unref (race.element);
    gst_object_unref (bus);
  }
  watchdog_disarm ();
}

GST_END_TEST;

/* ---- cudaconv1d: latency and overlap by state --------------------------- */

static void
expect_refused (GstHarness * h, const gchar * when)
{
  guint64 latency;
  gboolean overlap;

  g_object_set (h->element, "latency", (guint64) 10, NULL);
  g_object_get (h->element, "latency", &latency, NULL);
  fail_unless (latency == 0, "latency changed to %" G_GUINT64_FORMAT " %s: "
      "it can change only in NULL or READY", latency, when);
  g_object_set (h->element, "overlap", TRUE, NULL);
  g_object_get (h->element, "overlap", &overlap, NULL);
  fail_if (overlap, "overlap changed to true %s: it can change only in "
      "NULL or READY", when);
}

GST_START_TEST (test_latency_by_state)
{
  GRand *r = g_rand_new_with_seed (seed);
  gchar *kernel = random_kernel (r, 31);
  GstState states[] = { GST_STATE_PLAYING, GST_STATE_PAUSED };
  GstBus *bus = gst_bus_new ();

  for (guint k = 0; k < G_N_ELEMENTS (states); k++) {
    GstHarness *h = conv1d_harness (kernel, 0, AUDIO_CAPS);
    const gchar *name = gst_element_state_get_name (states[k]);
    gchar *when;
    guint64 latency;

    gst_element_set_bus (h->element, bus);
    /* READY: allowed (the control) */
    gst_element_set_state (h->element, GST_STATE_READY);
    g_object_set (h->element, "latency", (guint64) 5, NULL);
    g_object_get (h->element, "latency", &latency, NULL);
    fail_unless (latency == 5, "latency refused in READY");
    g_object_set (h->element, "latency", (guint64) 0, NULL);

    /* negotiated, no buffer yet: the source has not pushed */
    gst_element_set_state (h->element, states[k]);
    when = g_strdup_printf ("in %s before the first buffer", name);
    expect_refused (h, when);
    g_free (when);

    /* and once a buffer went through */
    gst_harness_push (h, audio_buffer (r, RATE, 0, 512, 0.5));
    when = g_strdup_printf ("in %s after the first buffer", name);
    expect_refused (h, when);
    g_free (when);
    drain_messages (bus, GST_MESSAGE_WARNING);
    expect_no_message (bus, "latency by state");
    gst_element_set_bus (h->element, NULL);
    gst_harness_teardown (h);
  }
  gst_object_unref (bus);
  g_free (kernel);
  g_rand_free (r);
}

GST_END_TEST;

/* Counts the frames that reach the sink. */
static GstPadProbeReturn
count_frames (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info,
    gpointer data)
{
  guint64 *frames = data;

  /* stereo F32 */
  *frames += gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info)) / 8;
  return GST_PAD_PROBE_OK;
}

/* latency toggled between 0 and 200 from this thread while the pipeline
 * starts, with mix=0.5 (the dry signal read `latency` frames back in the
 * history) and a 4095-tap low-pass. The value read back at the end is the
 * one that held from the start: the frames out agree with it. Under
 * AddressSanitizer, a latency taken after the history was sized reads
 * outside it. */
GST_START_TEST (test_latency_race)
{
  const gint buffers = 40, frames = 1024, taps = 4095;

  watchdog_arm (240, "the latency race", seed);
  for (gint run = 0; run < 16; run++) {
    gchar *desc = g_strdup_printf ("audiotestsrc num-buffers=%d "
        "samplesperbuffer=%d wave=white-noise ! " AUDIO_CAPS " ! "
        "cudaconv1d name=f backend=%s mix=0.5 preset=low-pass taps=%d ! "
        "fakesink name=sink sync=false", buffers, frames, backend, taps);
    GstElement *p = track (gst_parse_launch (desc, NULL));
    GstElement *f = gst_bin_get_by_name (GST_BIN (p), "f");
    GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
    GstPad *pad = gst_element_get_static_pad (sink, "sink");
    GstBus *bus = gst_element_get_bus (p);
    guint64 out = 0, latency, toggles = 0;
    GstMessage *m = NULL;

    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_frames, &out,
        NULL);
    gst_element_set_state (p, GST_STATE_PLAYING);
    while (!(m = gst_bus_pop_filtered (bus, GST_MESSAGE_EOS |
                GST_MESSAGE_ERROR))) {
      g_object_set (f, "latency", (guint64) (toggles++ % 2 ? 200 : 0), NULL);
      if (toggles % 64 == 0)
        g_usleep (100);
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *err = NULL;
      gst_message_parse_error (m, &err, NULL);
      fail ("run %d: error: %s", run, err->message);
    }
    gst_message_unref (m);
    g_object_get (f, "latency", &latency, NULL);
    gst_element_set_state (p, GST_STATE_NULL);
    fail_unless (out == (guint64) buffers * frames + taps - 1 - latency,
        "run %d: %" G_GUINT64_FORMAT " frames out, latency reads %"
        G_GUINT64_FORMAT ": expected %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT
        " toggles)", run, out, latency,
        (guint64) buffers * frames + taps - 1 - latency, toggles);
    gst_object_unref (bus);
    gst_object_unref (pad);
    gst_object_unref (sink);
    gst_object_unref (f);
    gst_object_unref (p);
    g_free (desc);
  }
  watchdog_disarm ();
}

GST_END_TEST;

/* ---- cudaconv1d: caps again mid-stream ---------------------------------- */

#define PART 6                  /* buffers before the event, and after */
#define FRAMES 1000

/* Pushes buffers [first, first + n) of the seeded stream at `rate`. */
static void
push_part (GstHarness * h, guint32 s, gint first, gint n, gint rate)
{
  GRand *r = g_rand_new_with_seed (s);

  for (gint b = 0; b < first + n; b++) {
    GstBuffer *buf = audio_buffer (r, rate, (guint64) b * FRAMES, FRAMES,
        0.8);
    if (b < first) {
      gst_buffer_unref (buf);
      continue;
    }
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  g_rand_free (r);
}

/* A clean run of buffers [first, first + n) then EOS. */
static GByteArray *
clean_run (const gchar * kernel, guint64 latency, const gchar * caps,
    gint first, gint n, gint rate)
{
  GstHarness *h = conv1d_harness (kernel, latency, caps);
  GByteArray *out = g_byte_array_new ();

  push_part (h, seed, first, n, rate);
  gst_harness_push_event (h, gst_event_new_eos ());
  harness_collect (h, out);
  gst_harness_teardown (h);
  return out;
}

GST_START_TEST (test_conv1d_same_caps)
{
  GRand *r = g_rand_new_with_seed (seed);
  gchar *kernel = random_kernel (r, 63);
  GByteArray *want = clean_run (kernel, 10, AUDIO_CAPS, 0, 2 * PART, RATE);
  /* GstBaseTransform itself drops a caps event identical to the current
   * caps (GStreamer 1.22), not one that only spells the same stream
   * differently: the element must see they describe the same stream */
  const gchar *ways[] = { "a RECONFIGURE from downstream",
    "a caps event equal to the current caps",
    "caps describing the same stream (the stereo channel-mask spelt out)"
  };

  for (guint k = 0; k < G_N_ELEMENTS (ways); k++) {
    GstHarness *h = conv1d_harness (kernel, 10, AUDIO_CAPS);
    GByteArray *got = g_byte_array_new ();
    gchar *diff;

    push_part (h, seed, 0, PART, RATE);
    if (k == 0) {
      gst_harness_push_upstream_event (h, gst_event_new_reconfigure ());
    } else {
      GstCaps *caps = gst_caps_from_string (k == 1 ? AUDIO_CAPS
          : SAME_STREAM_CAPS);
      gst_harness_push_event (h, gst_event_new_caps (caps));
      gst_caps_unref (caps);
    }
    push_part (h, seed, PART, PART, RATE);
    gst_harness_push_event (h, gst_event_new_eos ());
    harness_collect (h, got);
    diff = audio_difference (got, want);
    fail_unless (diff == NULL, "cudaconv1d, %s mid-stream: %s (the element "
        "drained: it pushed a tail and restarted the filter from silence)",
        ways[k], diff);
    gst_harness_teardown (h);
    g_byte_array_unref (got);
  }
  g_byte_array_unref (want);
  g_free (kernel);
  g_rand_free (r);
}

GST_END_TEST;

/* Different caps mid-stream still drain, as documented: the tail of the
 * first stream in its caps, then the second from silence. */
GST_START_TEST (test_conv1d_new_caps)
{
  GRand *r = g_rand_new_with_seed (seed);
  gchar *kernel = random_kernel (r, 63);
  const gchar *caps_b = "audio/x-raw,format=F32LE,rate=44100,channels=2,"
      "layout=interleaved";
  GByteArray *want1 = clean_run (kernel, 10, AUDIO_CAPS, 0, PART, RATE);
  GByteArray *want2 = clean_run (kernel, 10, caps_b, PART, PART, 44100);
  GstHarness *h = conv1d_harness (kernel, 10, AUDIO_CAPS);
  GByteArray *got1 = g_byte_array_new (), *got2 = g_byte_array_new ();
  GstCaps *caps = gst_caps_from_string (caps_b);
  gchar *diff;

  push_part (h, seed, 0, PART, RATE);
  gst_harness_push_event (h, gst_event_new_caps (caps));
  harness_collect (h, got1);
  diff = audio_difference (got1, want1);
  fail_unless (diff == NULL, "new caps: the first stream and its tail: %s",
      diff);
  /* the second stream's timestamps go on from the first's; at 44.1 kHz
   * they are where push_part puts them at that rate */
  push_part (h, seed, PART, PART, 44100);
  gst_harness_push_event (h, gst_event_new_eos ());
  harness_collect (h, got2);
  diff = audio_difference (got2, want2);
  fail_unless (diff == NULL, "new caps: the second stream: %s", diff);
  gst_harness_teardown (h);
  gst_caps_unref (caps);
  g_byte_array_unref (got1);
  g_byte_array_unref (got2);
  g_byte_array_unref (want1);
  g_byte_array_unref (want2);
  g_free (kernel);
  g_rand_free (r);
}

GST_END_TEST;

/* ---- cudaprefixsum: level messages across the same caps ----------------- */

static GPtrArray *
level_run (gint same_caps_at, const gchar * again)
{
  GstHarness *h = gst_harness_new ("cudaprefixsum");
  GstBus *bus = gst_bus_new ();
  GPtrArray *msgs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  GRand *r = g_rand_new_with_seed (seed);
  GstMessage *m;

  gst_util_set_object_arg (G_OBJECT (h->element), "backend", backend);
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, AUDIO_CAPS);
  for (gint b = 0; b < 20; b++) {
    if (b == same_caps_at) {
      GstCaps *caps = gst_caps_from_string (again);
      gst_harness_push_event (h, gst_event_new_caps (caps));
      gst_caps_unref (caps);
    }
    /* loudness changes, so that each message differs */
    gst_harness_push (h, audio_buffer (r, RATE, (guint64) b * FRAMES,
            FRAMES, 0.05 + 0.9 * g_rand_double (r)));
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (m);
    if (gst_structure_has_name (s, "level"))
      g_ptr_array_add (msgs, gst_structure_copy (s));
    gst_message_unref (m);
  }
  expect_no_message (bus, "level run");
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  g_rand_free (r);
  return msgs;
}

static void
same_level (const GstStructure * got, const GstStructure * want, guint m)
{
  const gchar *times[] = { "timestamp", "stream-time", "running-time",
    "duration", "endtime"
  };
  const gchar *dbs[] = { "rms", "peak", "decay" };

  for (guint k = 0; k < G_N_ELEMENTS (times); k++) {
    guint64 a = 0, b = 0;
    gst_structure_get_uint64 (got, times[k], &a);
    gst_structure_get_uint64 (want, times[k], &b);
    if (!gst_structure_get_uint64 (got, times[k], &a))
      gst_structure_get_clock_time (got, times[k], &a);
    if (!gst_structure_get_uint64 (want, times[k], &b))
      gst_structure_get_clock_time (want, times[k], &b);
    fail_unless (a == b, "level message %u: %s %" G_GUINT64_FORMAT
        " instead of %" G_GUINT64_FORMAT " (a clean run's)", m, times[k], a,
        b);
  }
  for (guint k = 0; k < G_N_ELEMENTS (dbs); k++) {
    const GValue *va = gst_structure_get_value (got, dbs[k]);
    const GValue *vb = gst_structure_get_value (want, dbs[k]);
    GValueArray *a = va ? g_value_get_boxed (va) : NULL;
    GValueArray *b = vb ? g_value_get_boxed (vb) : NULL;
    fail_unless (a && b && a->n_values == b->n_values,
        "level message %u: no %s, or not per channel", m, dbs[k]);
    for (guint c = 0; c < a->n_values; c++) {
      gdouble x, y;
      /* level's message format: GValueArray */
      G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
      x = g_value_get_double (g_value_array_get_nth (a, c));
      y = g_value_get_double (g_value_array_get_nth (b, c));
      G_GNUC_END_IGNORE_DEPRECATIONS;
      fail_unless (fabs (x - y) <= 1e-9, "level message %u: %s of channel "
          "%u is %.9f dB instead of %.9f", m, dbs[k], c, x, y);
    }
  }
}

GST_START_TEST (test_level_same_caps)
{
  GPtrArray *want = level_run (-1, NULL);
  const gchar *again[] = { AUDIO_CAPS, SAME_STREAM_CAPS };

  fail_unless (want->len > 3, "only %u level messages", want->len);
  for (guint k = 0; k < G_N_ELEMENTS (again); k++) {
    GPtrArray *got = level_run (7, again[k]);
    fail_unless (got->len == want->len, "cudaprefixsum on audio, %s "
        "mid-stream: %u level messages instead of %u (a clean run's): the "
        "message being gathered was lost", k ? "caps describing the same "
        "stream (the stereo channel-mask spelt out)" : "the same caps again",
        got->len, want->len);
    for (guint m = 0; m < want->len; m++)
      same_level (g_ptr_array_index (got, m), g_ptr_array_index (want, m),
          m);
    g_ptr_array_unref (got);
  }
  g_ptr_array_unref (want);
}

GST_END_TEST;

/* ---- cudaconv1d: duration and position ---------------------------------- */

/* A WAV file of stereo 16-bit frames. */
static gchar *
write_wav (gint frames)
{
  gchar *path = g_build_filename (g_get_tmp_dir (), "cf-lifecycle-XXXXXX.wav",
      NULL);
  gint fd = g_mkstemp (path);
  guint32 data = (guint32) frames * 4;
  guint8 head[44];
  GRand *r = g_rand_new_with_seed (seed);
  FILE *f;

  fail_unless (fd >= 0, "cannot write %s", path);
  f = fdopen (fd, "wb");
  memcpy (head, "RIFF", 4);
  GST_WRITE_UINT32_LE (head + 4, 36 + data);
  memcpy (head + 8, "WAVEfmt ", 8);
  GST_WRITE_UINT32_LE (head + 16, 16);
  GST_WRITE_UINT16_LE (head + 20, 1);   /* PCM */
  GST_WRITE_UINT16_LE (head + 22, 2);
  GST_WRITE_UINT32_LE (head + 24, RATE);
  GST_WRITE_UINT32_LE (head + 28, RATE * 4);
  GST_WRITE_UINT16_LE (head + 32, 4);
  GST_WRITE_UINT16_LE (head + 34, 16);
  memcpy (head + 36, "data", 4);
  GST_WRITE_UINT32_LE (head + 40, data);
  fwrite (head, 1, sizeof (head), f);
  for (gint k = 0; k < frames * 2; k++) {
    guint8 s[2];
    GST_WRITE_UINT16_LE (s, (guint16) g_rand_int_range (r, -20000, 20000));
    fwrite (s, 1, 2, f);
  }
  fclose (f);
  g_rand_free (r);
  return path;
}

static GstPadProbeReturn
count_s16 (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info, gpointer data)
{
  *(guint64 *) data += gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info))
      / 4;
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_conv1d_duration)
{
  const gint frames = 24000, taps = 255;
  const guint64 latencies[] = { 0, 127 };
  GString *problems = g_string_new (NULL);

  watchdog_arm (120, "the duration test", seed);
  for (guint k = 0; k < G_N_ELEMENTS (latencies); k++) {
    guint64 latency = latencies[k];
    gchar *wav = write_wav (frames);
    gchar *desc = g_strdup_printf ("filesrc location=%s ! wavparse ! "
        "cudaconv1d backend=%s preset=low-pass taps=%d latency=%"
        G_GUINT64_FORMAT " ! fakesink name=sink sync=true", wav, backend,
        taps, latency);
    GstElement *p = track (gst_parse_launch (desc, NULL));
    GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
    GstPad *pad = gst_element_get_static_pad (sink, "sink");
    GstBus *bus = gst_element_get_bus (p);
    guint64 tail = taps - 1 - latency, out = 0;
    GstClockTime upstream = gst_util_uint64_scale_int (frames, GST_SECOND,
        RATE);
    GstClockTime want = upstream + gst_util_uint64_scale_int (tail,
        GST_SECOND, RATE);
    /* rounding of each part to the nanosecond */
    const GstClockTime slack = 2;
    gint64 dur = -1, pos = -1;
    guint queries = 0, past = 0;
    GstMessage *m;

    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_s16, &out,
        NULL);
    fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
        GST_STATE_CHANGE_FAILURE);
    fail_unless (gst_element_get_state (p, NULL, NULL, 10 * GST_SECOND) ==
        GST_STATE_CHANGE_SUCCESS, "the pipeline does not preroll");
    fail_unless (gst_element_query_duration (p, GST_FORMAT_TIME, &dur),
        "no duration");
    /* every problem is gathered, then reported together */
    if ((GstClockTime) dur + slack < want || (GstClockTime) dur > want + slack)
      g_string_append_printf (problems, "\n  latency %" G_GUINT64_FORMAT
          ": the duration is %" GST_TIME_FORMAT ", expected %" GST_TIME_FORMAT
          " (the upstream %" GST_TIME_FORMAT " plus the %" G_GUINT64_FORMAT
          "-frame tail pushed at EOS)", latency, GST_TIME_ARGS (dur),
          GST_TIME_ARGS (want), GST_TIME_ARGS (upstream), tail);
    gst_element_set_state (p, GST_STATE_PLAYING);
    while (!(m = gst_bus_timed_pop_filtered (bus, 20 * GST_MSECOND,
                GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
      if (gst_element_query_position (p, GST_FORMAT_TIME, &pos)
          && gst_element_query_duration (p, GST_FORMAT_TIME, &dur)) {
        queries++;
        if (pos > dur + (gint64) slack && past++ == 0)
          g_string_append_printf (problems, "\n  latency %" G_GUINT64_FORMAT
              ": position %" GST_TIME_FORMAT " is past the duration %"
              GST_TIME_FORMAT " while playing", latency, GST_TIME_ARGS (pos),
              GST_TIME_ARGS (dur));
      }
    }
    fail_unless (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS, "error");
    gst_message_unref (m);
    /* at EOS the position is the end of the last output */
    fail_unless (gst_element_query_position (p, GST_FORMAT_TIME, &pos));
    fail_unless (gst_element_query_duration (p, GST_FORMAT_TIME, &dur));
    if (pos > dur + (gint64) slack)
      g_string_append_printf (problems, "\n  latency %" G_GUINT64_FORMAT
          ": at EOS the position %" GST_TIME_FORMAT " is past the duration %"
          GST_TIME_FORMAT, latency, GST_TIME_ARGS (pos), GST_TIME_ARGS (dur));
    if (out != frames + tail)
      g_string_append_printf (problems, "\n  latency %" G_GUINT64_FORMAT
          ": %" G_GUINT64_FORMAT " frames out of %d, expected %"
          G_GUINT64_FORMAT " (taps - 1 - latency more)", latency, out, frames,
          frames + tail);
    g_print ("duration, latency %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT
        " frames out, duration %" GST_TIME_FORMAT ", %u position queries\n",
        latency, out, GST_TIME_ARGS (dur), queries);
    gst_element_set_state (p, GST_STATE_NULL);
    g_unlink (wav);
    gst_object_unref (bus);
    gst_object_unref (pad);
    gst_object_unref (sink);
    gst_object_unref (p);
    g_free (desc);
    g_free (wav);
  }
  watchdog_disarm ();
  fail_unless (problems->len == 0, "cudaconv1d, duration and position:%s",
      problems->str);
  g_string_free (problems, TRUE);
}

GST_END_TEST;

/* ---- suite -------------------------------------------------------------- */

static Suite *
lifecycle_suite (gboolean gpu)
{
  Suite *s = suite_create (gpu ? "lifecycle-gpu" : "lifecycle");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  tcase_add_checked_fixture (tc, live_setup, live_teardown);
  suite_add_tcase (s, tc);
  if (gpu) {
    tcase_add_test (tc, test_contexts);
    tcase_add_test (tc, test_flush_own_context);
    tcase_add_test (tc, test_context_race);
  } else
    g_print ("SKIP contexts, flush-own-context, context-race: GPU tests "
        "(run with --gpu where a GPU is usable)\n");
  tcase_add_test (tc, test_latency_by_state);
  tcase_add_test (tc, test_latency_race);
  tcase_add_test (tc, test_conv1d_same_caps);
  tcase_add_test (tc, test_conv1d_new_caps);
  tcase_add_test (tc, test_level_same_caps);
  tcase_add_test (tc, test_conv1d_duration);
  return s;
}

int
main (int argc, char **argv)
{
  gboolean gpu;
  const gchar *name;
  gint ret;

  if (!element_test_init ("cudaconv1d", &argc, &argv, &gpu))
    return 1;
  name = gpu ? "lifecycle-gpu" : "lifecycle";
  if (gpu) {
    for (guint k = 0; k < G_N_ELEMENTS (factories); k++) {
      gchar *why = cuda_unusable_reason (factories[k]);
      if (why) {
        g_print ("SKIP %s: %s: %s\n", name, factories[k], why);
        g_free (why);
        return 77;
      }
    }
    backend = "cuda";
  }
  ret = gst_check_run_suite (lifecycle_suite (gpu), name, __FILE__);
  watchdog_stop ();
  g_clear_pointer (&live, g_ptr_array_unref);
  g_rand_free (rng);
  return ret;
}
