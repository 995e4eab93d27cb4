/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Stress tests of the three elements from the application's thread.
 *
 *   test_stress          backend=cpu
 *   test_stress --gpu    backend=cuda; exits 77 when no GPU is usable
 *
 * Each element runs in
 *
 *   appsrc (seekable, its own streaming thread) ! ELEMENT ! appsink
 *
 * while this thread, for CF_STRESS_SECONDS seconds (default 4), changes
 * every property that may change while playing to random valid values,
 * sends flushing seeks, renegotiates (new caps: another format, rate,
 * channel count or frame size; the same caps again through a RECONFIGURE),
 * and changes state (PLAYING, PAUSED, READY, where the properties of NULL
 * and READY change too). A watchdog fails the test, naming the step, when
 * any step hangs; any error or warning on the bus fails it. Then the
 * settings are fixed, the stream flushed, a known input pushed, and the
 * output (buffers, and cudaprefixsum's messages) must equal that of a
 * fresh pipeline with the same settings, byte for byte.
 *
 * The tee tests feed one source, through a tee, to two instances of the
 * element with different settings; each branch must equal a clean run of
 * one branch alone. CF_TEST_SEED replays a run.
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/audio/audio.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include "element_check.h"
#include "watchdog.h"
#include "live_pipelines.h"

static const gchar *backend = "cpu";
static gboolean gpu_mode;
static gchar *ir_path;          /* an impulse response for cudaconv1d */
static gchar *mask_path;        /* a mask file for cudaconv2d */

/* ---- what each element gets --------------------------------------------- */

typedef struct
{
  const gchar *factory;
  const gchar *message;         /* element messages compared, or NULL */
  GstCaps *(*random_caps) (GRand * r);
  void (*random_property) (GstElement * e, GRand * r);
  void (*ready_properties) (GstElement * e, GRand * r);
  /* "name=value|..." applied on both pipelines before the known input:
   * the NULL/READY ones, then the others (in PLAYING) */
  gchar *fixed_ready, *fixed;
  const gchar *fixed_caps;
  const gchar *initial;         /* on the element's line at the start */
} Kind;

static gint
pick (GRand * r, gint n)
{
  return g_rand_int_range (r, 0, n);
}

static gint
odd_between (GRand * r, gint lo, gint hi)
{
  return lo + 2 * pick (r, (hi - lo) / 2 + 1);
}

static void
set_list (GstElement * e, const gchar * list)
{
  gchar **kv = g_strsplit (list, "|", -1);

  for (gchar ** p = kv; *p; p++) {
    gchar **one = g_strsplit (*p, "=", 2);
    if (!strcmp (one[1], "(null)"))
      g_object_set (e, one[0], NULL, NULL);
    else
      gst_util_set_object_arg (G_OBJECT (e), one[0], one[1]);
    g_strfreev (one);
  }
  g_strfreev (kv);
}

static gchar *
random_taps (GRand * r, gint n, gdouble amp)
{
  GString *s = g_string_new (NULL);

  for (gint k = 0; k < n; k++)
    g_string_append_printf (s, "%s%.5f", k ? " " : "",
        g_rand_double_range (r, -amp, amp));
  return g_string_free (s, FALSE);
}

/* cudaconv1d: the latency set in READY stays below every mask the stress
 * sets (31 taps and more), so no change is refused. */

static GstCaps *
conv1d_caps (GRand * r)
{
  const gchar *formats[] = { "F32LE", "F64LE", "S16LE", "S32LE" };
  const gint rates[] = { 16000, 44100, 48000 };

  return gst_caps_new_simple ("audio/x-raw", "format", G_TYPE_STRING,
      formats[pick (r, 4)], "rate", G_TYPE_INT, rates[pick (r, 3)],
      "channels", G_TYPE_INT, 1 + pick (r, 2), "layout", G_TYPE_STRING,
      "interleaved", NULL);
}

static void
conv1d_property (GstElement * e, GRand * r)
{
  const gchar *presets[] = { "low-pass", "high-pass", "band-pass",
    "band-stop"
  };
  const gchar *windows[] = { "hamming", "hann", "blackman", "rectangular" };
  const gchar *algorithms[] = { "auto", "basic", "tiled", "cached", "fast",
    "fft"
  };
  gchar *taps;

  switch (pick (r, 13)) {
    case 0:
      taps = pick (r, 2) ? random_taps (r, odd_between (r, 31, 63), 0.3)
          : NULL;
      g_object_set (e, "kernel", taps, NULL);
      g_free (taps);
      break;
    case 1:
      g_object_set (e, "location", pick (r, 2) ? ir_path : NULL, NULL);
      break;
    case 2:
      gst_util_set_object_arg (G_OBJECT (e), "preset", presets[pick (r, 4)]);
      break;
    case 3:
      /* below half of the lowest rate with half the band */
      g_object_set (e, "cutoff", g_rand_double_range (r, 1000, 6000), NULL);
      break;
    case 4:
      g_object_set (e, "bandwidth", g_rand_double_range (r, 50, 1500), NULL);
      break;
    case 5:
      g_object_set (e, "taps", odd_between (r, 31, 301), NULL);
      break;
    case 6:
      gst_util_set_object_arg (G_OBJECT (e), "window", windows[pick (r, 4)]);
      break;
    case 7:
      g_object_set (e, "normalize", (gboolean) pick (r, 2), NULL);
      break;
    case 8:
      g_object_set (e, "gain", g_rand_double_range (r, 0, 2), NULL);
      break;
    case 9:
      g_object_set (e, "mix", g_rand_double (r), NULL);
      break;
    case 10:
      g_object_set (e, "crossfade", (guint) pick (r, 60), NULL);
      break;
    case 11:
      /* a route valid for every stream the stress makes (on stereo, the
       * right output silent) */
      g_object_set (e, "matrix", pick (r, 2) ? "0:0:0" : NULL, NULL);
      break;
    default:
      gst_util_set_object_arg (G_OBJECT (e), "algorithm",
          algorithms[pick (r, 6)]);
      break;
  }
}

static void
conv1d_ready (GstElement * e, GRand * r)
{
  g_object_set (e, "latency", (guint64) pick (r, 31), "overlap",
      (gboolean) pick (r, 2), NULL);
}

static GstCaps *
video_caps (GRand * r, const gchar * const *formats, gint n)
{
  const gint sizes[][2] = { {96, 96}, {128, 96}, {160, 120}, {176, 144},
  {97, 75}
  };
  gint s = pick (r, G_N_ELEMENTS (sizes));

  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      formats[pick (r, n)], "width", G_TYPE_INT, sizes[s][0], "height",
      G_TYPE_INT, sizes[s][1], "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
}

static GstCaps *
conv2d_caps (GRand * r)
{
  const gchar *const formats[] = { "GRAY8", "GRAY16_LE", "RGBA", "BGRx",
    "RGB", "I420", "NV12"
  };
  return video_caps (r, formats, G_N_ELEMENTS (formats));
}

/* Masks up to 15 wide (every plane of the frames above is larger),
 * Gaussians of sigma up to 40 (241 taps: the long path, which reads past
 * any frame), and discs up to radius 7 (15 wide) or from 15.5 to 60 (the
 * spectral path, which reads past any frame too). */
static void
conv2d_property (GstElement * e, GRand * r)
{
  const gchar *algorithms[] = { "auto", "basic", "tiled", "cached", "fast" };
  GString *mask;

  switch (pick (r, 13)) {
    case 12:
      /* regions: each frame carries two rectangles (make_buffer), filtered
       * in place */
      switch (pick (r, 5)) {
        case 0:
          g_object_set (e, "roi", (gboolean) pick (r, 2), NULL);
          break;
        case 1:
          g_object_set (e, "roi-types", pick (r, 2) ? "face,plate" : NULL,
              NULL);
          break;
        case 2:
          g_object_set (e, "roi-grow", pick (r, 40), NULL);
          break;
        case 3:
          g_object_set (e, "roi-feather", pick (r, 40), NULL);
          break;
        default:
          g_object_set (e, "roi-sigma", g_rand_double_range (r, 0, 0.5),
              NULL);
          break;
      }
      break;
    case 11:
      g_object_set (e, "radius", pick (r, 2) ? g_rand_double_range (r, 0.5,
              7.4) : g_rand_double_range (r, 15.5, 60), NULL);
      break;
    case 10:
      /* read when set, on this thread; the streaming thread takes the
       * mask at its next frame */
      g_object_set (e, "mask-location", pick (r, 2) ? mask_path : NULL, NULL);
      break;
    case 0:
      if (pick (r, 3) == 0) {
        g_object_set (e, "kernel", NULL, NULL);
        break;
      }
      mask = g_string_new (NULL);
      for (gint y = 0, w = odd_between (r, 1, 7), h = odd_between (r, 1, 7);
          y < h; y++) {
        gchar *row = random_taps (r, w, 4);
        g_string_append_printf (mask, "%s%s", y ? "; " : "", row);
        g_free (row);
      }
      g_object_set (e, "kernel", mask->str, NULL);
      g_string_free (mask, TRUE);
      break;
    case 1:
      g_object_set (e, "preset", pick (r, 11), NULL);
      break;
    case 2:
      g_object_set (e, "size", pick (r, 2) ? 0 : odd_between (r, 1, 15),
          NULL);
      break;
    case 3:
      g_object_set (e, "sigma", pick (r, 3) ? g_rand_double_range (r, 0.3, 4)
          : g_rand_double_range (r, 6, 40), NULL);
      break;
    case 4:
      g_object_set (e, "divisor", pick (r, 2) ? 0.0
          : g_rand_double_range (r, 0.5, 20), NULL);
      break;
    case 5:
      g_object_set (e, "offset", g_rand_double_range (r, -20, 20), NULL);
      break;
    case 6:
      g_object_set (e, "border", pick (r, 4), NULL);
      break;
    case 7:
      g_object_set (e, "planes", pick (r, 2), NULL);
      break;
    case 8:
      g_object_set (e, "qos", (gboolean) pick (r, 2), NULL);
      break;
    default:
      gst_util_set_object_arg (G_OBJECT (e), "algorithm",
          algorithms[pick (r, 5)]);
      break;
  }
}

static GstCaps *
prefixsum_caps (GRand * r)
{
  const gchar *const formats[] = { "GRAY8", "GRAY16_LE", "RGBA", "BGRx",
    "I420", "NV12", "Y444"
  };
  return video_caps (r, formats, G_N_ELEMENTS (formats));
}

static void
prefixsum_property (GstElement * e, GRand * r)
{
  gint side;

  switch (pick (r, 9)) {
    case 0:
      side = pick (r, 3) ? 1 + pick (r, 8) : 0;
      g_object_set (e, "grid-columns", side, "grid-rows",
          side ? 1 + pick (r, 8) : 0, NULL);
      break;
    case 1:
      g_object_set (e, "interval", (guint64) (1 + pick (r, 200000000)), NULL);
      break;
    case 2:
      g_object_set (e, "offset", g_rand_double_range (r, -20, 20), NULL);
      break;
    case 3:
      g_object_set (e, "peak-falloff", g_rand_double_range (r, 0, 50), NULL);
      break;
    case 4:
      g_object_set (e, "peak-ttl", (guint64) pick (r, 1000000000), NULL);
      break;
    case 5:
      g_object_set (e, "post-messages", (gboolean) pick (r, 2), NULL);
      break;
    case 6:
      g_object_set (e, "qos", (gboolean) pick (r, 2), NULL);
      break;
    case 7:
      /* the loudness meter on audio, a warning on video (counted) */
      g_object_set (e, "loudness", (gboolean) pick (r, 2), NULL);
      break;
    default:
      g_object_set (e, "radius", 1 + pick (r, 40), NULL);
      break;
  }
}

static void
prefixsum_ready (GstElement * e, GRand * r)
{
  g_object_set (e, "output", pick (r, 3), "attach-meta", (gboolean) pick (r,
          2), "algorithm", pick (r, 6), NULL);
}

/* ---- the running pipeline ----------------------------------------------- */

typedef struct
{
  const Kind *kind;
  GstElement *pipe, *src, *filter, *sink;
  GMutex lock;
  GCond cond;
  GRand *feed_rng;              /* the streaming thread's */
  GstCaps *caps, *pending;      /* pushed now; to set before the next */
  gboolean idle;                /* the feeder pushes nothing */
  GstClockTime ts;
  guint64 frames;               /* audio: since ts was set */
  GstClockTime ts0;
  GstCaps *settle_caps;
  guint settled, received;
  gboolean collect, eos;
  GPtrArray *buffers;           /* collected GstBuffer */
  GPtrArray *messages;          /* collected GstStructure */
  GPtrArray *problems;          /* error and warning texts */
  guint renegotiation_races;    /* GstBaseTransform's own "not negotiated"
                                 * warnings, and loudness on video (see
                                 * on_message) */
} Run;

static GstBuffer *
make_buffer (GstCaps * caps, GRand * r, gint frames, GstClockTime * dur)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  GstBuffer *buf;
  GstMapInfo map;

  if (gst_structure_has_name (s, "audio/x-raw")) {
    GstAudioInfo info;
    gst_audio_info_from_caps (&info, caps);
    buf = gst_buffer_new_allocate (NULL, (gsize) frames
        * GST_AUDIO_INFO_BPF (&info), NULL);
    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    for (gint k = 0; k < frames * GST_AUDIO_INFO_CHANNELS (&info); k++) {
      gdouble v = g_rand_double_range (r, -0.9, 0.9);
      switch (GST_AUDIO_INFO_FORMAT (&info)) {
        case GST_AUDIO_FORMAT_F32LE:
          ((gfloat *) map.data)[k] = (gfloat) v;
          break;
        case GST_AUDIO_FORMAT_F64LE:
          ((gdouble *) map.data)[k] = v;
          break;
        case GST_AUDIO_FORMAT_S16LE:
          ((gint16 *) map.data)[k] = (gint16) (v * 32767);
          break;
        default:
          ((gint32 *) map.data)[k] = (gint32) (v * 2147483647.0);
          break;
      }
    }
    gst_buffer_unmap (buf, &map);
    *dur = gst_util_uint64_scale_int (frames, GST_SECOND,
        GST_AUDIO_INFO_RATE (&info));
  } else {
    GstVideoInfo info;
    gst_video_info_from_caps (&info, caps);
    buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    for (gsize k = 0; k < map.size; k++)
      map.data[k] = (guint8) g_rand_int (r);
    gst_buffer_unmap (buf, &map);
    /* a detector's rectangles, for cudaconv2d's roi: anywhere, some
     * reaching past the frame */
    for (gint k = 0; k < 2; k++) {
      gint w = GST_VIDEO_INFO_WIDTH (&info), h = GST_VIDEO_INFO_HEIGHT (&info);
      gst_buffer_add_video_region_of_interest_meta (buf, k ? "plate" : "face",
          g_rand_int_range (r, 0, w), g_rand_int_range (r, 0, h),
          g_rand_int_range (r, 1, w / 2 + 2), g_rand_int_range (r, 1,
              h / 2 + 2));
    }
    *dur = GST_SECOND / 30;
  }
  return buf;
}

/* Audio timestamps follow the frame count from the last seek (rates
 * change), video ones the frame duration. */
static void
stamp (Run * run, GstBuffer * buf, gint frames, GstClockTime dur)
{
  GstStructure *s = gst_caps_get_structure (run->caps, 0);

  if (gst_structure_has_name (s, "audio/x-raw")) {
    gint rate;
    gst_structure_get_int (s, "rate", &rate);
    /* a new rate starts a count of its own where the last one ended */
    run->frames += frames;
    GST_BUFFER_PTS (buf) = run->ts;
    run->ts = run->ts0 + gst_util_uint64_scale_int (run->frames, GST_SECOND,
        rate);
    GST_BUFFER_DURATION (buf) = run->ts - GST_BUFFER_PTS (buf);
  } else {
    GST_BUFFER_PTS (buf) = run->ts;
    GST_BUFFER_DURATION (buf) = dur;
    run->ts += dur;
  }
}

static void
need_data (GstAppSrc * src, guint length G_GNUC_UNUSED, gpointer data)
{
  Run *run = data;
  GstClockTime dur;
  GstBuffer *buf;
  gint frames;

  g_mutex_lock (&run->lock);
  if (run->idle) {
    g_mutex_unlock (&run->lock);
    return;
  }
  if (run->pending) {
    gst_caps_take (&run->caps, run->pending);
    run->pending = NULL;
    run->ts0 = run->ts;
    run->frames = 0;
    gst_app_src_set_caps (src, run->caps);
  }
  frames = g_rand_int_range (run->feed_rng, 32, 1500);
  buf = make_buffer (run->caps, run->feed_rng, frames, &dur);
  stamp (run, buf, frames, dur);
  g_mutex_unlock (&run->lock);
  gst_app_src_push_buffer (src, buf);
}

static gboolean
seek_data (GstAppSrc * src G_GNUC_UNUSED, guint64 offset, gpointer data)
{
  Run *run = data;

  g_mutex_lock (&run->lock);
  run->ts = run->ts0 = offset;
  run->frames = 0;
  g_mutex_unlock (&run->lock);
  return TRUE;
}

static GstFlowReturn
new_sample (GstAppSink * sink, gpointer data)
{
  Run *run = data;
  GstSample *sample = gst_app_sink_pull_sample (sink);

  if (!sample)
    return GST_FLOW_OK;
  g_mutex_lock (&run->lock);
  run->received++;
  if (run->settle_caps && gst_caps_is_equal (gst_sample_get_caps (sample),
          run->settle_caps)) {
    run->settled++;
    g_cond_broadcast (&run->cond);
  }
  if (run->collect)
    g_ptr_array_add (run->buffers, gst_buffer_copy_deep
        (gst_sample_get_buffer (sample)));
  g_mutex_unlock (&run->lock);
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

static GstBusSyncReply
on_message (GstBus * bus G_GNUC_UNUSED, GstMessage * m, gpointer data)
{
  Run *run = data;
  GError *err = NULL;

  g_mutex_lock (&run->lock);
  switch (GST_MESSAGE_TYPE (m)) {
    case GST_MESSAGE_WARNING:
      /* GstBaseTransform renegotiates a RECONFIGURE on the next buffer and
       * warns "not negotiated" when that fails; it does when a flushing
       * seek from this thread makes the source pad flush meanwhile (the
       * new caps event cannot go out). The elements' own failures post
       * errors; the output after the stress is still compared. */
      gst_message_parse_warning (m, &err, NULL);
      if ((g_error_matches (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT)
              && !g_strcmp0 (err->message, "not negotiated"))
          /* cudaprefixsum's loudness set while video comes: said, and
           * the frames go on */
          || (g_error_matches (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION)
              && g_str_has_prefix (err->message, "loudness=true"))) {
        run->renegotiation_races++;
        g_clear_error (&err);
        break;
      }
      g_clear_error (&err);
      /* fall through */
    case GST_MESSAGE_ERROR:
      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
        gst_message_parse_error (m, &err, NULL);
      else
        gst_message_parse_warning (m, &err, NULL);
      g_ptr_array_add (run->problems, g_strdup_printf ("%s from %s: %s",
              GST_MESSAGE_TYPE_NAME (m), GST_OBJECT_NAME (GST_MESSAGE_SRC
                  (m)), err->message));
      g_error_free (err);
      break;
    case GST_MESSAGE_ELEMENT:
      if (run->collect && run->kind->message && gst_structure_has_name
          (gst_message_get_structure (m), run->kind->message))
        g_ptr_array_add (run->messages,
            gst_structure_copy (gst_message_get_structure (m)));
      break;
    case GST_MESSAGE_EOS:
      run->eos = TRUE;
      g_cond_broadcast (&run->cond);
      break;
    default:
      break;
  }
  g_mutex_unlock (&run->lock);
  /* a sync handler that drops a message owns it */
  gst_message_unref (m);
  return GST_BUS_DROP;
}

static Run *
run_new (const Kind * kind, gboolean idle)
{
  Run *run = g_new0 (Run, 1);
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! %s name=f "
      "backend=%s %s ! appsink name=sink sync=false", kind->factory, backend,
      kind->initial);
  GstAppSrcCallbacks src_cb = { 0 };
  GstAppSinkCallbacks sink_cb = { 0 };
  GstBus *bus;

  src_cb.need_data = need_data;
  src_cb.seek_data = seek_data;
  sink_cb.new_sample = new_sample;
  run->kind = kind;
  g_mutex_init (&run->lock);
  g_cond_init (&run->cond);
  run->idle = idle;
  run->feed_rng = g_rand_new_with_seed (seed + 1);
  run->buffers = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  run->messages = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  run->problems = g_ptr_array_new_with_free_func (g_free);
  run->pipe = track (gst_parse_launch (desc, NULL));
  fail_unless (run->pipe != NULL, "cannot build %s", desc);
  run->src = gst_bin_get_by_name (GST_BIN (run->pipe), "src");
  run->filter = gst_bin_get_by_name (GST_BIN (run->pipe), "f");
  run->sink = gst_bin_get_by_name (GST_BIN (run->pipe), "sink");
  g_object_set (run->src, "stream-type", GST_APP_STREAM_TYPE_SEEKABLE,
      "max-bytes", (guint64) 100000, NULL);
  gst_app_src_set_callbacks (GST_APP_SRC (run->src), &src_cb, run, NULL);
  gst_app_sink_set_callbacks (GST_APP_SINK (run->sink), &sink_cb, run, NULL);
  bus = gst_element_get_bus (run->pipe);
  gst_bus_set_sync_handler (bus, on_message, run, NULL);
  gst_object_unref (bus);
  g_free (desc);
  return run;
}

static void
run_free (Run * run)
{
  GstBus *bus = gst_element_get_bus (run->pipe);

  gst_element_set_state (run->pipe, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (run->src);
  gst_object_unref (run->filter);
  gst_object_unref (run->sink);
  gst_object_unref (run->pipe);
  gst_clear_caps (&run->caps);
  gst_clear_caps (&run->pending);
  gst_clear_caps (&run->settle_caps);
  g_ptr_array_unref (run->buffers);
  g_ptr_array_unref (run->messages);
  g_ptr_array_unref (run->problems);
  g_rand_free (run->feed_rng);
  g_mutex_clear (&run->lock);
  g_cond_clear (&run->cond);
  g_free (run);
}

static void
expect_no_problem (Run * run, const gchar * step)
{
  g_mutex_lock (&run->lock);
  if (run->problems->len) {
    gchar *first = g_strdup (g_ptr_array_index (run->problems, 0));
    guint n = run->problems->len;
    g_mutex_unlock (&run->lock);
    fail ("%s, %s: %u messages on the bus, the first: %s", run->kind->factory,
        step, n, first);
  }
  g_mutex_unlock (&run->lock);
}

static void
change_state (Run * run, GstState state)
{
  GstStateChangeReturn ret;
  gchar *what = g_strdup_printf ("%s: the change to %s", run->kind->factory,
      gst_element_state_get_name (state));

  watchdog_arm (30, what, seed);
  ret = gst_element_set_state (run->pipe, state);
  fail_if (ret == GST_STATE_CHANGE_FAILURE, "%s failed", what);
  if (state >= GST_STATE_PAUSED)
    ret = gst_element_get_state (run->pipe, NULL, NULL, GST_CLOCK_TIME_NONE);
  fail_if (ret == GST_STATE_CHANGE_FAILURE, "%s failed", what);
  watchdog_disarm ();
  g_free (what);
}

/* Waits (in the lock) until `cond_ok` holds, 20 s at most. */
#define WAIT_FOR(run, cond_ok, what) G_STMT_START {                    \
  gint64 end_ = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;     \
  g_mutex_lock (&(run)->lock);                                         \
  while (!(cond_ok))                                                    \
    if (!g_cond_wait_until (&(run)->cond, &(run)->lock, end_)) break;  \
  if (!(cond_ok)) {                                                     \
    g_mutex_unlock (&(run)->lock);                                      \
    expect_no_problem (run, what);                                      \
    fail ("%s: %s did not happen within 20 s", (run)->kind->factory,    \
        what);                                                          \
  }                                                                     \
  g_mutex_unlock (&(run)->lock);                                        \
} G_STMT_END

/* Pushes the known input (from this thread) and waits for the EOS. */
static void
push_known (Run * run)
{
  GRand *r = g_rand_new_with_seed (seed ^ 0x5eed);
  GstCaps *caps = gst_caps_from_string (run->kind->fixed_caps);
  GstClockTime ts = 0, dur;

  g_mutex_lock (&run->lock);
  run->collect = TRUE;
  run->eos = FALSE;
  g_mutex_unlock (&run->lock);
  gst_app_src_set_caps (GST_APP_SRC (run->src), caps);
  for (gint b = 0; b < 8; b++) {
    GstBuffer *buf = make_buffer (caps, r, 1000, &dur);
    GST_BUFFER_PTS (buf) = ts;
    GST_BUFFER_DURATION (buf) = dur;
    ts += dur;
    gst_app_src_push_buffer (GST_APP_SRC (run->src), buf);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (run->src));
  WAIT_FOR (run, run->eos, "the EOS after the known input");
  gst_caps_unref (caps);
  g_rand_free (r);
}

static void
compare_runs (Run * got, Run * want)
{
  const gchar *name = got->kind->factory;

  fail_unless (want->buffers->len > 0, "%s: the clean run gave nothing",
      name);
  fail_unless (got->buffers->len == want->buffers->len, "%s after the "
      "stress: %u buffers out, %u in a clean run", name, got->buffers->len,
      want->buffers->len);
  for (guint k = 0; k < want->buffers->len; k++) {
    GstBuffer *a = g_ptr_array_index (got->buffers, k);
    GstBuffer *b = g_ptr_array_index (want->buffers, k);
    GstMapInfo ma, mb;
    gsize at = 0;

    fail_unless (GST_BUFFER_PTS (a) == GST_BUFFER_PTS (b), "%s after the "
        "stress: buffer %u at %" GST_TIME_FORMAT ", %" GST_TIME_FORMAT
        " in a clean run", name, k, GST_TIME_ARGS (GST_BUFFER_PTS (a)),
        GST_TIME_ARGS (GST_BUFFER_PTS (b)));
    gst_buffer_map (a, &ma, GST_MAP_READ);
    gst_buffer_map (b, &mb, GST_MAP_READ);
    fail_unless (ma.size == mb.size, "%s after the stress: buffer %u holds "
        "%" G_GSIZE_FORMAT " bytes, %" G_GSIZE_FORMAT " in a clean run", name,
        k, ma.size, mb.size);
    while (at < ma.size && ma.data[at] == mb.data[at])
      at++;
    fail_unless (at == ma.size, "%s after the stress: buffer %u differs "
        "from a clean run's from byte %" G_GSIZE_FORMAT " (0x%02x, not "
        "0x%02x)", name, k, at, ma.data[at], mb.data[at]);
    gst_buffer_unmap (a, &ma);
    gst_buffer_unmap (b, &mb);
  }
  fail_unless (got->messages->len == want->messages->len, "%s after the "
      "stress: %u messages, %u in a clean run", name, got->messages->len,
      want->messages->len);
  for (guint k = 0; k < want->messages->len; k++) {
    GstStructure *a = g_ptr_array_index (got->messages, k);
    GstStructure *b = g_ptr_array_index (want->messages, k);
    if (!gst_structure_is_equal (a, b)) {
      gchar *sa = gst_structure_to_string (a), *sb =
          gst_structure_to_string (b);
      fail ("%s after the stress: message %u is\n  %s\nnot, as in a clean "
          "run,\n  %s", name, k, sa, sb);
    }
  }
}

static gdouble
stress_seconds (void)
{
  const gchar *env = g_getenv ("CF_STRESS_SECONDS");
  gdouble s = env ? g_ascii_strtod (env, NULL) : 4.0;

  return s > 0 ? s : 4.0;
}

static void
stress_element (const Kind * kind)
{
  GRand *r = g_rand_new_with_seed (seed);
  Run *run = run_new (kind, FALSE), *clean;
  gdouble seconds = stress_seconds ();
  gint64 end = g_get_monotonic_time () + (gint64) (seconds * 1e6);
  gint64 no_ready = end - (gint64) (seconds * 0.25e6);
  guint actions[6] = { 0 }, received, races;
  GstPad *sinkpad = gst_element_get_static_pad (run->sink, "sink");
  GstCaps *fixed = gst_caps_from_string (kind->fixed_caps);

  run->caps = kind->random_caps (r);
  gst_app_src_set_caps (GST_APP_SRC (run->src), run->caps);
  change_state (run, GST_STATE_PLAYING);
  while (g_get_monotonic_time () < end) {
    gint a = pick (r, 20);
    gint64 now = g_get_monotonic_time ();

    if (a < 12) {
      kind->random_property (run->filter, r);
      actions[0]++;
    } else if (a < 14) {
      watchdog_arm (30, "a flushing seek", seed);
      gst_element_seek_simple (run->pipe, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, pick (r, 10) * GST_SECOND);
      watchdog_disarm ();
      actions[1]++;
    } else if (a < 16) {
      GstCaps *caps = kind->random_caps (r);
      g_mutex_lock (&run->lock);
      gst_caps_take (&run->pending, caps);
      g_mutex_unlock (&run->lock);
      actions[2]++;
    } else if (a < 17) {
      /* the same caps again, as a RECONFIGURE from downstream makes them */
      gst_pad_push_event (sinkpad, gst_event_new_reconfigure ());
      actions[3]++;
    } else if (a < 18 || now >= no_ready) {
      change_state (run, GST_STATE_PAUSED);
      g_usleep (pick (r, 3000));
      change_state (run, GST_STATE_PLAYING);
      actions[4]++;
    } else {
      change_state (run, GST_STATE_PAUSED);
      change_state (run, GST_STATE_READY);
      if (kind->ready_properties)
        kind->ready_properties (run->filter, r);
      /* a source restarted sends its caps again */
      g_mutex_lock (&run->lock);
      if (!run->pending)
        run->pending = gst_caps_copy (run->caps);
      gst_app_src_set_caps (GST_APP_SRC (run->src), NULL);
      g_mutex_unlock (&run->lock);
      change_state (run, GST_STATE_PLAYING);
      actions[5]++;
    }
    expect_no_problem (run, "during the stress");
    g_usleep (pick (r, 4000));
    /* the last quarter: the NULL/READY settings fixed, no READY again */
    if (now >= no_ready && now - no_ready < 6000) {
      change_state (run, GST_STATE_READY);
      set_list (run->filter, kind->fixed_ready);
      g_mutex_lock (&run->lock);
      if (!run->pending)
        run->pending = gst_caps_copy (run->caps);
      gst_app_src_set_caps (GST_APP_SRC (run->src), NULL);
      g_mutex_unlock (&run->lock);
      change_state (run, GST_STATE_PLAYING);
      no_ready = 0;
    }
  }
  g_mutex_lock (&run->lock);
  received = run->received;
  races = run->renegotiation_races;
  g_mutex_unlock (&run->lock);
  g_print ("%s: %u property changes, %u flushing seeks, %u new caps, %u "
      "RECONFIGUREs, %u PAUSED-PLAYING, %u READY-PLAYING, %u buffers out, "
      "%u expected warnings\n", kind->factory, actions[0],
      actions[1], actions[2], actions[3], actions[4], actions[5], received,
      races);
  if (no_ready != 0) {
    change_state (run, GST_STATE_READY);
    set_list (run->filter, kind->fixed_ready);
    g_mutex_lock (&run->lock);
    run->pending = run->pending ? run->pending : gst_caps_copy (run->caps);
    gst_app_src_set_caps (GST_APP_SRC (run->src), NULL);
    g_mutex_unlock (&run->lock);
    change_state (run, GST_STATE_PLAYING);
  }

  /* fixed settings, while playing; buffers in the fixed caps go through
   * (the first of them takes over a response prepared meanwhile, and the
   * flush below ends its crossfade) */
  set_list (run->filter, kind->fixed);
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (run->filter),
          "preparing"))
    wait_prepared (run->filter, kind->factory);
  g_mutex_lock (&run->lock);
  gst_caps_replace (&run->settle_caps, fixed);
  gst_caps_replace (&run->pending, fixed);
  run->settled = 0;
  g_mutex_unlock (&run->lock);
  WAIT_FOR (run, run->settled >= 3, "buffers in the fixed caps");
  g_mutex_lock (&run->lock);
  run->idle = TRUE;
  g_mutex_unlock (&run->lock);
  watchdog_arm (30, "the flush before the known input", seed);
  fail_unless (gst_element_seek_simple (run->pipe, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, 0), "%s: the flushing seek failed",
      kind->factory);
  watchdog_disarm ();
  /* the pipeline prerolls again on the known input */
  push_known (run);
  expect_no_problem (run, "after the stress");

  clean = run_new (kind, TRUE);
  set_list (clean->filter, kind->fixed_ready);
  set_list (clean->filter, kind->fixed);
  clean->caps = gst_caps_ref (fixed);
  gst_app_src_set_caps (GST_APP_SRC (clean->src), fixed);
  gst_element_set_state (clean->pipe, GST_STATE_PLAYING);
  push_known (clean);
  expect_no_problem (clean, "the clean run");
  compare_runs (run, clean);
  g_print ("%s: after the stress, %u buffers and %u messages as in a clean "
      "run\n", kind->factory, clean->buffers->len, clean->messages->len);

  run_free (clean);
  run_free (run);
  gst_object_unref (sinkpad);
  gst_caps_unref (fixed);
  g_rand_free (r);
}

static Kind conv1d_kind = { "cudaconv1d", NULL, conv1d_caps, conv1d_property,
  conv1d_ready, NULL, NULL,
  "audio/x-raw,format=F32LE,rate=48000,channels=2,layout=interleaved",
  "preset=low-pass taps=63"
};

static Kind conv2d_kind = { "cudaconv2d", NULL, conv2d_caps, conv2d_property,
  NULL, NULL,
  "kernel=1 2 1; 2 5 2; 1 2 1|preset=gaussian|size=0|sigma=1.2|divisor=0|"
      "offset=3|border=mirror|planes=all|algorithm=auto|qos=false|roi=false",
  "video/x-raw,format=I420,width=160,height=120,framerate=30/1", ""
};

static Kind prefixsum_kind = { "cudaprefixsum", "cudaprefixsum",
  prefixsum_caps, prefixsum_property, prefixsum_ready,
  "output=box-mean|attach-meta=true|algorithm=auto",
  "radius=5|offset=4|grid-columns=4|grid-rows=3|interval=1|"
      "post-messages=true|qos=false|loudness=false",
  "video/x-raw,format=RGBA,width=128,height=96,framerate=30/1", ""
};

GST_START_TEST (test_stress_conv1d)
{
  GRand *r = g_rand_new_with_seed (seed ^ 0x1d);
  gchar *taps = random_taps (r, 31, 0.3);

  /* overlap matters on the GPU only; its output is the same */
  conv1d_kind.fixed_ready = g_strdup_printf ("latency=7|overlap=%s",
      gpu_mode ? "true" : "false");
  conv1d_kind.fixed = g_strdup_printf ("kernel=%s|location=(null)|"
      "preset=low-pass|cutoff=1000|bandwidth=500|taps=255|window=hamming|"
      "normalize=false|gain=0.9|mix=0.8|algorithm=auto|matrix=", taps);
  stress_element (&conv1d_kind);
  g_free (conv1d_kind.fixed_ready);
  g_free (conv1d_kind.fixed);
  g_free (taps);
  g_rand_free (r);
}

GST_END_TEST;

GST_START_TEST (test_stress_conv2d)
{
  conv2d_kind.fixed_ready = (gchar *) "qos=false";
  stress_element (&conv2d_kind);
}

GST_END_TEST;

GST_START_TEST (test_stress_prefixsum)
{
  stress_element (&prefixsum_kind);
}

GST_END_TEST;

/* ---- tee ---------------------------------------------------------------- */

/* Everything an appsink of `p` holds at EOS, as one byte array. */
static GByteArray *
sink_bytes (GstElement * p, const gchar * name)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), name);
  GByteArray *out = g_byte_array_new ();
  GstSample *s;

  while ((s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 0))) {
    GstMapInfo map;
    gst_buffer_map (gst_sample_get_buffer (s), &map, GST_MAP_READ);
    g_byte_array_append (out, map.data, (guint) map.size);
    gst_buffer_unmap (gst_sample_get_buffer (s), &map);
    gst_sample_unref (s);
  }
  gst_object_unref (sink);
  return out;
}

static void
play_to_eos (GstElement * p, const gchar * what)
{
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *m;

  watchdog_arm (60, what, seed);
  gst_element_set_state (p, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (bus, 50 * GST_SECOND, GST_MESSAGE_EOS
      | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
  fail_unless (m != NULL, "%s: no EOS", what);
  if (GST_MESSAGE_TYPE (m) != GST_MESSAGE_EOS) {
    GError *err = NULL;
    gst_message_parse_error (m, &err, NULL);
    fail ("%s: %s", what, err ? err->message : "warning");
  }
  gst_message_unref (m);
  watchdog_disarm ();
  gst_object_unref (bus);
}

static void
tee_check (const gchar * source, const gchar * factory, const gchar * one,
    const gchar * two)
{
  const gchar *settings[] = { one, two };
  gchar *desc = g_strdup_printf ("%s ! tee name=t "
      "t. ! queue ! %s backend=%s %s ! appsink name=s0 sync=false "
      "wait-on-eos=false t. ! queue ! %s backend=%s %s ! appsink name=s1 "
      "sync=false wait-on-eos=false",
      source, factory, backend, one, factory, backend, two);
  GstElement *p = track (gst_parse_launch (desc, NULL));

  fail_unless (p != NULL, "cannot build %s", desc);
  play_to_eos (p, desc);
  for (gint b = 0; b < 2; b++) {
    gchar *name = g_strdup_printf ("s%d", b);
    gchar *alone = g_strdup_printf ("%s ! %s backend=%s %s ! appsink "
        "name=s sync=false wait-on-eos=false", source, factory, backend,
        settings[b]);
    GstElement *q = track (gst_parse_launch (alone, NULL));
    GByteArray *got = sink_bytes (p, name), *want;
    guint at = 0;

    play_to_eos (q, alone);
    want = sink_bytes (q, "s");
    fail_unless (want->len > 0, "%s: nothing came out", alone);
    fail_unless (got->len == want->len, "%s, tee branch %d: %u bytes out, "
        "%u alone", factory, b, got->len, want->len);
    while (at < got->len && got->data[at] == want->data[at])
      at++;
    fail_unless (at == got->len, "%s, tee branch %d (%s): differs from the "
        "branch alone from byte %u", factory, b, settings[b], at);
    g_print ("%s, tee branch %d: %u bytes as alone\n", factory, b, got->len);
    gst_element_set_state (q, GST_STATE_NULL);
    gst_object_unref (q);
    g_byte_array_unref (got);
    g_byte_array_unref (want);
    g_free (alone);
    g_free (name);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
}

GST_START_TEST (test_tee_conv2d)
{
  tee_check ("videotestsrc num-buffers=30 pattern=zone-plate kx2=20 ky2=20 "
      "kt=1 ! video/x-raw,format=RGBA,width=320,height=240,framerate=30/1",
      "cudaconv2d", "preset=gaussian sigma=2.5",
      "kernel=\"0 -1 0; -1 5 -1; 0 -1 0\" border=wrap");
  tee_check ("videotestsrc num-buffers=30 pattern=ball ! "
      "video/x-raw,format=I420,width=320,height=240,framerate=30/1",
      "cudaconv2d", "preset=box size=7 planes=all", "preset=sobel divisor=4");
}

GST_END_TEST;

GST_START_TEST (test_tee_conv1d)
{
  tee_check ("audiotestsrc num-buffers=40 samplesperbuffer=1000 wave=saw ! "
      "audio/x-raw,format=F32LE,rate=48000,channels=2,layout=interleaved",
      "cudaconv1d", "preset=low-pass taps=101 cutoff=2000",
      "preset=band-pass taps=2047 latency=1023 mix=0.5");
}

GST_END_TEST;

/* ---- suite -------------------------------------------------------------- */

/* A 5 x 3 PGM mask at `path` (a g_mkstemp template, filled in). */
static gboolean
write_mask (gchar * path)
{
  static const gchar pgm[] = "P2 5 3 9\n1 2 3 2 1\n2 4 9 4 2\n1 2 3 2 1\n";
  gint fd = g_mkstemp (path);
  gboolean ok = fd >= 0 && write (fd, pgm, strlen (pgm))
      == (gssize) strlen (pgm);

  if (fd >= 0)
    close (fd);
  return ok;
}

/* A mono impulse response of 512 frames at 48 kHz, 16-bit WAV. */
static gchar *
write_ir (void)
{
  gchar *path = g_build_filename (g_get_tmp_dir (), "cf-stress-XXXXXX.wav",
      NULL);
  gint fd = g_mkstemp (path), frames = 512;
  guint8 head[44];
  FILE *f;

  if (fd < 0) {
    g_free (path);
    return NULL;
  }
  f = fdopen (fd, "wb");
  memcpy (head, "RIFF", 4);
  GST_WRITE_UINT32_LE (head + 4, 36 + frames * 2);
  memcpy (head + 8, "WAVEfmt ", 8);
  GST_WRITE_UINT32_LE (head + 16, 16);
  GST_WRITE_UINT16_LE (head + 20, 1);
  GST_WRITE_UINT16_LE (head + 22, 1);
  GST_WRITE_UINT32_LE (head + 24, 48000);
  GST_WRITE_UINT32_LE (head + 28, 96000);
  GST_WRITE_UINT16_LE (head + 32, 2);
  GST_WRITE_UINT16_LE (head + 34, 16);
  memcpy (head + 36, "data", 4);
  GST_WRITE_UINT32_LE (head + 40, frames * 2);
  fwrite (head, 1, sizeof (head), f);
  for (gint k = 0; k < frames; k++) {
    guint8 s[2];
    /* a decaying noise, as a small room */
    GST_WRITE_UINT16_LE (s, (guint16) (gint16) (20000 * exp (-k / 80.0)
            * g_rand_double_range (rng, -1, 1)));
    fwrite (s, 1, 2, f);
  }
  fclose (f);
  return path;
}

static Suite *
stress_suite (gboolean gpu)
{
  Suite *s = suite_create (gpu ? "stress-gpu" : "stress");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  tcase_add_checked_fixture (tc, live_setup, live_teardown);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_stress_conv1d);
  tcase_add_test (tc, test_stress_conv2d);
  tcase_add_test (tc, test_stress_prefixsum);
  tcase_add_test (tc, test_tee_conv2d);
  tcase_add_test (tc, test_tee_conv1d);
  return s;
}

int
main (int argc, char **argv)
{
  const gchar *factories[] = { "cudaconv1d", "cudaconv2d", "cudaprefixsum" };
  const gchar *name;
  gint ret;

  if (!element_test_init ("cudaconv2d", &argc, &argv, &gpu_mode))
    return 1;
  name = gpu_mode ? "stress-gpu" : "stress";
  if (gpu_mode) {
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
  ir_path = write_ir ();
  mask_path = g_build_filename (g_get_tmp_dir (), "cf-stress-XXXXXX.pgm",
      NULL);
  if (!ir_path || !write_mask (mask_path)) {
    g_print ("%s: cannot write an impulse response or a mask\n", name);
    return 1;
  }
  g_print ("%s: %.1f s of stress per element (CF_STRESS_SECONDS)\n", name,
      stress_seconds ());
  ret = gst_check_run_suite (stress_suite (gpu_mode), name, __FILE__);
  g_unlink (ir_path);
  g_free (ir_path);
  g_unlink (mask_path);
  g_free (mask_path);
  watchdog_stop ();
  g_clear_pointer (&live, g_ptr_array_unref);
  g_rand_free (rng);
  return ret;
}
