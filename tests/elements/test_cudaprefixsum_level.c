/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests of cudaprefixsum on audio: level statistics.
 *
 *   test_cudaprefixsum_level          backend=cpu and auto
 *   test_cudaprefixsum_level --gpu    backend=cuda; exits 77 when no GPU is
 *                                     usable
 *
 * Each case runs one pipeline,
 *
 *   appsrc ! cudaprefixsum name=ps ! level name=lv ! fakesink
 *
 * with the same interval, peak-ttl and peak-falloff on both, fed random
 * buffers of random sizes and loudness (some silent, some flagged GAP and
 * holding garbage the statistics must ignore). Every message of ours must
 * match level's, time fields exactly and rms, peak and decay within
 * 1e-6 dB (the promise is 0.01 dB), and the rms and peak must match sums
 * taken here over the frames each message covers. */
#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/audio/audio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "element_check.h"

#define DB_TOLERANCE 1e-6

static const gchar *const backends[] = { "cpu", "auto" };
static const gchar *backend_under_test;
static guint64 messages_checked;

typedef struct
{
  const gchar *format;
  gint channels, rate;
  const gchar *settings;        /* for both elements */
  guint64 interval;             /* ns, as in settings */
  gint max_buffer;              /* frames */
  gboolean gaps;
} Case;

static const Case cases[] = {
  {"F32LE", 2, 48000, "", GST_SECOND / 10, 3000, FALSE},
  {"F64LE", 1, 44100, "interval=10000000", 10000000, 900, FALSE},
  {"S16LE", 5, 48000, "interval=50000000 peak-ttl=50000000 "
        "peak-falloff=40", 50000000, 4000, TRUE},
  {"S32LE", 3, 22050, "interval=7000000 peak-ttl=0 peak-falloff=100",
      7000000, 1500, FALSE},
  /* more blocks per buffer than the GPU takes at once */
  {"F32LE", 8, 96000, "interval=1000000 peak-ttl=20000000", 1000000, 3000,
      TRUE},
  {"S16LE", 1, 8000, "interval=1", 1, 40, FALSE},
  /* tens of buffers an interval: on the GPU more than are queued at once
   * (GST_CUDA_LEVEL_QUEUE), GAP buffers among them */
  {"F32LE", 8, 48000, "interval=20000000 peak-ttl=5000000 peak-falloff=60",
      20000000, 64, TRUE},
  {"S32LE", 2, 48000, "interval=30000000", 30000000, 50, FALSE},
};

/* ---- the signal ----------------------------------------------------------- */

/* The samples as the statistics see them: full scale 1, GAP frames 0. */
typedef struct
{
  GArray *values;               /* gdouble, interleaved */
  gint channels;
} Signal;

static GstBuffer *
random_buffer (const GstAudioInfo * info, guint frames, gboolean gap,
    Signal * signal)
{
  gint ch = GST_AUDIO_INFO_CHANNELS (info);
  gsize n = (gsize) frames * ch;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n
      * GST_AUDIO_INFO_WIDTH (info) / 8, NULL);
  /* loudness per buffer, silence now and then, so the decaying peak both
   * holds and falls */
  gdouble amp = g_rand_int_range (rng, 0, 5) == 0 ? 0.0
      : pow (10.0, g_rand_double_range (rng, -3.0, 0.0));
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gsize k = 0; k < n; k++) {
    gdouble x = amp * g_rand_double_range (rng, -1.0, 1.0), seen;
    if (gap)
      x = g_rand_double_range (rng, -1.0, 1.0);   /* garbage */
    switch (GST_AUDIO_INFO_FORMAT (info)) {
      case GST_AUDIO_FORMAT_F32LE:
        ((gfloat *) map.data)[k] = (gfloat) x;
        seen = (gfloat) x;
        break;
      case GST_AUDIO_FORMAT_F64LE:
        ((gdouble *) map.data)[k] = x;
        seen = x;
        break;
      case GST_AUDIO_FORMAT_S16LE:
        ((gint16 *) map.data)[k] = (gint16) lrint (x * 32767.0);
        seen = ((gint16 *) map.data)[k] / 32768.0;
        break;
      default:
        ((gint32 *) map.data)[k] = (gint32) lrint (x * 2147483647.0);
        seen = ((gint32 *) map.data)[k] / 2147483648.0;
        break;
    }
    if (gap)
      seen = 0.0;
    g_array_append_val (signal->values, seen);
  }
  gst_buffer_unmap (buf, &map);
  if (gap)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_GAP);
  return buf;
}

/* ---- one pipeline ----------------------------------------------------------- */

typedef struct
{
  GPtrArray *ours, *levels;     /* GstStructure */
  Signal signal;
} Result;

static void
result_clear (Result * r)
{
  g_ptr_array_unref (r->ours);
  g_ptr_array_unref (r->levels);
  g_array_unref (r->signal.values);
}

typedef struct
{
  GstElement *ps, *lv;
  gint count, at;
  const gchar *property, *value;
} Change;

/* In the streaming thread, before cudaprefixsum sees buffer `at`: both
 * elements take the new setting at the same point of the stream. */
static GstPadProbeReturn
change_setting (GstPad * pad, GstPadProbeInfo * info, Change * ch)
{
  (void) pad;
  (void) info;
  if (ch->count++ == ch->at) {
    gst_util_set_object_arg (G_OBJECT (ch->ps), ch->property, ch->value);
    gst_util_set_object_arg (G_OBJECT (ch->lv), ch->property, ch->value);
  }
  return GST_PAD_PROBE_OK;
}

/* Feeds `buffers` random buffers; `change` ("property=value", or NULL) is
 * set on both elements halfway. Collects the messages until EOS. */
static void
run_case (const Case * c, const gchar * backend, const gchar * extra,
    const gchar * change, gint buffers, Result * r, const gchar * what)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! "
      "audio/x-raw,format=%s,channels=%d,rate=%d,layout=interleaved%s ! "
      "cudaprefixsum name=ps backend=%s %s %s ! level name=lv %s ! "
      "fakesink sync=false", c->format, c->channels, c->rate,
      /* more than two channels need a layout: none */
      c->channels > 2 ? ",channel-mask=(bitmask)0" : "", backend,
      c->settings, extra, c->settings);
  GstElement *p = gst_parse_launch (desc, NULL), *src;
  gchar **setting = change ? g_strsplit (change, "=", 2) : NULL;
  Change ch = { NULL, NULL, 0, buffers / 2, setting ? setting[0] : NULL,
    setting ? setting[1] : NULL
  };
  GstAudioInfo info;
  GstClockTime pts = 0;
  guint64 frames_in = 0;
  GstMessage *msg;
  GstBus *bus;

  fail_unless (p != NULL, "%s: cannot build %s", what, desc);
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  gst_audio_info_set_format (&info, gst_audio_format_from_string (c->format),
      c->rate, c->channels, NULL);
  r->ours = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  r->levels = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  r->signal.values = g_array_new (FALSE, FALSE, sizeof (gdouble));
  r->signal.channels = c->channels;
  bus = gst_element_get_bus (p);
  ch.ps = gst_bin_get_by_name (GST_BIN (p), "ps");
  ch.lv = gst_bin_get_by_name (GST_BIN (p), "lv");
  if (change) {
    GstPad *pad = gst_element_get_static_pad (ch.ps, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
        (GstPadProbeCallback) change_setting, &ch, NULL);
    gst_object_unref (pad);
  }
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (gint b = 0; b < buffers; b++) {
    guint frames = (guint) g_rand_int_range (rng, 1, c->max_buffer + 1);
    gboolean gap = c->gaps && g_rand_int_range (rng, 0, 6) == 0;
    GstBuffer *buf = random_buffer (&info, frames, gap, &r->signal);
    frames_in += frames;
    GST_BUFFER_PTS (buf) = pts;
    pts = gst_util_uint64_scale_round (frames_in, GST_SECOND, c->rate);
    GST_BUFFER_DURATION (buf) = pts - GST_BUFFER_PTS (buf);
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), buf),
        GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  while ((msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT) {
      const GstStructure *s = gst_message_get_structure (msg);
      gboolean ours = !strcmp (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), "ps");
      if (gst_structure_has_name (s, "level"))
        g_ptr_array_add (ours ? r->ours : r->levels, gst_structure_copy (s));
      gst_message_unref (msg);
      continue;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err = NULL;
      gst_message_parse_error (msg, &err, NULL);
      gst_element_set_state (p, GST_STATE_NULL);
      fail ("%s: error: %s", what, err->message);
    }
    gst_message_unref (msg);
    break;
  }
  fail_unless (msg != NULL, "%s: no EOS", what);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (ch.ps);
  gst_object_unref (ch.lv);
  gst_object_unref (p);
  g_free (desc);
  g_strfreev (setting);
}

/* ---- comparing --------------------------------------------------------------- */

static gdouble
array_at (const GstStructure * s, const gchar * field, guint i)
{
  const GValue *a = gst_structure_get_value (s, field);
  GValueArray *va;
  gdouble v;

  fail_unless (a != NULL, "no field %s", field);
  va = g_value_get_boxed (a);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  fail_unless (i < va->n_values, "%s has %u values", field, va->n_values);
  v = g_value_get_double (g_value_array_get_nth (va, i));
  G_GNUC_END_IGNORE_DEPRECATIONS;
  return v;
}

static guint64
time_field (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, field, &v) || (!strcmp (field,
              "endtime") && gst_structure_get_clock_time (s, field, &v)),
      "no field %s in %" GST_PTR_FORMAT, field, s);
  return v;
}

static void
check_db (gdouble got, gdouble want, const gchar * what, guint m,
    const gchar * field, guint c)
{
  fail_unless (fabs (got - want) <= DB_TOLERANCE, "%s: message %u %s[%u] = "
      "%.9f dB, expected %.9f", what, m, field, c, got, want);
}

/* Ours against level's, field by field, and rms and peak against the frames
 * each message covers (messages are consecutive, each as long as its
 * duration says). */
static void
compare (const Case * c, const Result * r, const gchar * what)
{
  static const gchar *const times[] = { "endtime", "timestamp",
    "stream-time", "running-time", "duration"
  };
  const gdouble *x = (const gdouble *) r->signal.values->data;
  guint64 total = r->signal.values->len / c->channels, first = 0;

  /* where the stream ends on an interval's end, level posts one more
   * message at EOS, of no frames (duration 0, rms NaN); ours does not */
  if (r->levels->len == r->ours->len + 1) {
    const GstStructure *extra = g_ptr_array_index (r->levels,
        r->levels->len - 1);
    fail_unless (time_field (extra, "duration") == 0, "%s: level posted "
        "one more message, of %" G_GUINT64_FORMAT " ns", what,
        time_field (extra, "duration"));
    g_ptr_array_remove_index (r->levels, r->levels->len - 1);
  }
  fail_unless (r->ours->len == r->levels->len, "%s: %u messages, level "
      "posted %u", what, r->ours->len, r->levels->len);
  fail_unless (r->ours->len > 0, "%s: no messages", what);
  for (guint m = 0; m < r->ours->len; m++) {
    const GstStructure *a = g_ptr_array_index (r->ours, m);
    const GstStructure *b = g_ptr_array_index (r->levels, m);
    guint64 end = first + gst_util_uint64_scale_round (time_field (a,
            "duration"), c->rate, GST_SECOND);
    for (guint t = 0; t < G_N_ELEMENTS (times); t++)
      fail_unless (time_field (a, times[t]) == time_field (b, times[t]),
          "%s: message %u: %s %" G_GUINT64_FORMAT ", level's %"
          G_GUINT64_FORMAT, what, m, times[t], time_field (a, times[t]),
          time_field (b, times[t]));
    fail_unless (end > first && end <= total, "%s: message %u covers frames "
        "%" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT, what, m, first, end);
    for (gint ch = 0; ch < c->channels; ch++) {
      gdouble squares = 0, peak = 0;
      for (guint64 f = first; f < end; f++) {
        gdouble v = x[f * c->channels + ch];
        squares += v * v;
        peak = MAX (peak, v * v);
      }
      check_db (array_at (a, "rms", ch), array_at (b, "rms", ch), what, m,
          "rms", ch);
      check_db (array_at (a, "peak", ch), array_at (b, "peak", ch), what, m,
          "peak", ch);
      check_db (array_at (a, "decay", ch), array_at (b, "decay", ch), what, m,
          "decay", ch);
      check_db (array_at (a, "rms", ch), 20 * log10 (sqrt (squares / (end
                  - first)) + 1e-35), what, m, "rms (from the samples)", ch);
      check_db (array_at (a, "peak", ch), 10 * log10 (peak + 1e-35), what, m,
          "peak (from the samples)", ch);
    }
    first = end;
    messages_checked++;
  }
  fail_unless (first == total, "%s: the messages cover %" G_GUINT64_FORMAT
      " of %" G_GUINT64_FORMAT " frames", what, first, total);
}

/* ---- tests ------------------------------------------------------------------- */

GST_START_TEST (test_same_as_level)
{
  const gchar *backend = backend_under_test ? backend_under_test
      : backends[__i__];

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    gchar *what = g_strdup_printf ("%s %d ch %d Hz [%s] [%s]",
        cases[k].format, cases[k].channels, cases[k].rate, cases[k].settings,
        backend);
    Result r;
    run_case (&cases[k], backend, "", NULL, 60, &r, what);
    compare (&cases[k], &r, what);
    result_clear (&r);
    g_free (what);
  }
}

GST_END_TEST;

/* A longer interval set on both while playing. */
GST_START_TEST (test_interval_change)
{
  const gchar *backend = backend_under_test ? backend_under_test
      : backends[__i__];
  Result r;

  run_case (&cases[1], backend, "", "interval=30000000", 80, &r,
      "interval 10 -> 30 ms");
  compare (&cases[1], &r, "interval 10 -> 30 ms");
  fail_unless (r.ours->len > 0);
  {
    /* the later messages are 30 ms long */
    const GstStructure *last = g_ptr_array_index (r.ours, r.ours->len - 2);
    fail_unless_equals_uint64 (time_field (last, "duration"), 30000000);
  }
  result_clear (&r);
}

GST_END_TEST;

/* Settings changed while tens of buffers of one interval are measured:
 * a shorter interval, a new peak falloff. */
GST_START_TEST (test_change_inside_interval)
{
  const gchar *backend = backend_under_test ? backend_under_test
      : backends[__i__];
  static const gchar *const changes[] = { "interval=5000000",
    "peak-falloff=15", "peak-ttl=0"
  };

  for (guint k = 0; k < G_N_ELEMENTS (changes); k++) {
    gchar *what = g_strdup_printf ("%s halfway [%s]", changes[k], backend);
    Result r;
    run_case (&cases[6], backend, "", changes[k], 200, &r, what);
    compare (&cases[6], &r, what);
    result_clear (&r);
    g_free (what);
  }
}

GST_END_TEST;

/* ---- restarts: a flush, new caps ---------------------------------------------- */

typedef struct
{
  GstHarness *h;
  GstBus *bus;
  GstClockTime pts;
} Feed;

/* A harness around cudaprefixsum on `backend`, or around level when
 * `backend` is NULL, with messages every 20 ms. */
static void
feed_start (Feed * f, const gchar * backend, const gchar * caps)
{
  GstElement *e = gst_element_factory_make (backend ? "cudaprefixsum"
      : "level", NULL);

  fail_unless (e != NULL);
  if (backend)
    gst_util_set_object_arg (G_OBJECT (e), "backend", backend);
  g_object_set (e, "interval", (guint64) 20000000, NULL);
  f->bus = gst_bus_new ();
  gst_element_set_bus (e, f->bus);
  f->h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (f->h, caps);
  f->pts = 0;
}

/* `n` buffers of 100 frames (48 kHz, F32) of noise `amp` loud, from a
 * generator seeded with `seed` (the same seed, the same samples). */
static void
feed (Feed * f, const gchar * caps, gint n, gdouble amp, guint32 seed)
{
  GstCaps *c = gst_caps_from_string (caps);
  GRand *g = g_rand_new_with_seed (seed);
  GstAudioInfo info;

  gst_audio_info_from_caps (&info, c);
  gst_caps_unref (c);
  for (gint b = 0; b < n; b++) {
    gint samples = 100 * GST_AUDIO_INFO_CHANNELS (&info);
    GstBuffer *buf = gst_buffer_new_allocate (NULL, samples * 4, NULL);
    GstMapInfo map;
    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    for (gint k = 0; k < samples; k++)
      ((gfloat *) map.data)[k] = (gfloat) (amp * g_rand_double_range (g,
              -1.0, 1.0));
    gst_buffer_unmap (buf, &map);
    GST_BUFFER_PTS (buf) = f->pts;
    GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (100, GST_SECOND,
        48000);
    f->pts += GST_BUFFER_DURATION (buf);
    fail_unless_equals_int (gst_harness_push (f->h, buf), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (f->h));
  }
  g_rand_free (g);
}

/* The level messages posted so far. */
static GPtrArray *
feed_messages (Feed * f)
{
  GPtrArray *all = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  GstMessage *msg;

  while ((msg = gst_bus_pop_filtered (f->bus, GST_MESSAGE_ELEMENT
              | GST_MESSAGE_ERROR))) {
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "an error");
    if (gst_structure_has_name (gst_message_get_structure (msg), "level"))
      g_ptr_array_add (all, gst_structure_copy (gst_message_get_structure
              (msg)));
    gst_message_unref (msg);
  }
  return all;
}

static void
feed_stop (Feed * f)
{
  gst_harness_teardown (f->h);
  gst_bus_set_flushing (f->bus, TRUE);
  gst_object_unref (f->bus);
}

/* The messages of `after` (taken after a restart) against those of a fresh
 * element given the same buffers; the decaying peak too when `decay`. */
static void
same_messages (GPtrArray * after, GPtrArray * fresh, gint channels,
    gboolean decay, const gchar * what)
{
  static const gchar *const fields[] = { "rms", "peak", "decay" };

  fail_unless (after->len == fresh->len && fresh->len >= 2, "%s: %u "
      "messages, a fresh element %u", what, after->len, fresh->len);
  for (guint m = 0; m < fresh->len; m++) {
    const GstStructure *a = g_ptr_array_index (after, m);
    const GstStructure *b = g_ptr_array_index (fresh, m);
    fail_unless (time_field (a, "duration") == time_field (b, "duration"),
        "%s: message %u lasts %" G_GUINT64_FORMAT " ns", what, m,
        time_field (a, "duration"));
    for (guint k = 0; k < (decay ? 3u : 2u); k++)
      for (gint c = 0; c < channels; c++)
        check_db (array_at (a, fields[k], c), array_at (b, fields[k], c),
            what, m, fields[k], c);
  }
}

/* The interval shortened, between two buffers, to exactly the frames
 * counted since the last message: level posts them at once, before it
 * reads the next buffer, and so must cudaprefixsum (it once counted the
 * next buffer in too). */
GST_START_TEST (test_interval_shortened_to_the_count)
{
  const gchar *backend = backend_under_test ? backend_under_test
      : backends[__i__];
  const gchar *caps = "audio/x-raw,format=F32LE,channels=2,rate=48000,"
      "layout=interleaved";
  guint32 before = g_rand_int (rng), after = g_rand_int (rng);
  GPtrArray *got[2];

  for (gint k = 0; k < 2; k++) {
    Feed f;
    feed_start (&f, k ? NULL : backend, caps);
    /* 1200 frames: a message at 960, then 240 counted */
    feed (&f, caps, 12, 0.5, before);
    g_object_set (f.h->element, "interval", (guint64) 5000000, NULL);
    feed (&f, caps, 6, 0.25, after);
    got[k] = feed_messages (&f);
    feed_stop (&f);
  }
  /* 20 ms, then 5 ms of the 240 frames before the change, then 5 ms at a
   * time */
  fail_unless (got[1]->len >= 3 && time_field (g_ptr_array_index (got[1], 1),
          "duration") == 5000000, "level posted %u messages", got[1]->len);
  same_messages (got[0], got[1], 2, TRUE, "interval shortened to the count");
  messages_checked += got[1]->len;
  g_ptr_array_unref (got[0]);
  g_ptr_array_unref (got[1]);
}

GST_END_TEST;

/* Loud buffers inside an interval (on the GPU, queued), then a flush or
 * new caps: what follows is measured as by a fresh element, nothing of
 * the loud part in it. */
GST_START_TEST (test_restart_inside_interval)
{
  const gchar *backend = backend_under_test ? backend_under_test
      : backends[__i__];
  const gchar *caps2 = "audio/x-raw,format=F32LE,channels=2,rate=48000,"
      "layout=interleaved";
  const gchar *caps8 = "audio/x-raw,format=F32LE,channels=8,rate=48000,"
      "layout=interleaved,channel-mask=(bitmask)0";
  guint32 quiet = g_rand_int (rng);

  for (gint flush = 0; flush < 2; flush++) {
    const gchar *what = flush ? "after a flush" : "after new caps";
    const gchar *then = flush ? caps2 : caps8;
    gint channels = flush ? 2 : 8;
    GPtrArray *after, *fresh;
    Feed f;

    feed_start (&f, backend, caps2);
    feed (&f, caps2, 7, 1.0, g_rand_int (rng));   /* 700 of 960 frames */
    if (flush) {
      GstSegment seg;
      fail_unless (gst_harness_push_event (f.h, gst_event_new_flush_start ()));
      fail_unless (gst_harness_push_event (f.h,
              gst_event_new_flush_stop (TRUE)));
      gst_segment_init (&seg, GST_FORMAT_TIME);
      fail_unless (gst_harness_push_event (f.h, gst_event_new_segment (&seg)));
    } else {
      gst_harness_set_src_caps_str (f.h, caps8);
    }
    g_ptr_array_unref (feed_messages (&f));
    f.pts = 0;
    feed (&f, then, 40, 0.01, quiet);
    after = feed_messages (&f);
    feed_stop (&f);

    feed_start (&f, backend, then);
    feed (&f, then, 40, 0.01, quiet);
    fresh = feed_messages (&f);
    feed_stop (&f);

    /* a flush forgets the interval, not the decaying peak; new caps
     * forget both */
    same_messages (after, fresh, channels, !flush, what);
    messages_checked += fresh->len;
    g_ptr_array_unref (after);
    g_ptr_array_unref (fresh);
  }
}

GST_END_TEST;

GST_START_TEST (test_post_messages_off)
{
  const gchar *backend = backends[__i__];
  Result r;

  run_case (&cases[0], backend, "post-messages=false", NULL, 20, &r,
      "post-messages=false");
  fail_unless_equals_int (r.ours->len, 0);
  fail_unless (r.levels->len > 0);
  result_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_bad_input)
{
  const gchar *backend = backends[__i__];
  static const gchar *const refused[] = {
    "audio/x-raw,format=S8,channels=1,rate=8000,layout=interleaved",
    "audio/x-raw,format=U16LE,channels=1,rate=8000,layout=interleaved",
    "audio/x-raw,format=F32LE,channels=2,rate=8000,layout=non-interleaved",
    "audio/x-raw,format=F32BE,channels=2,rate=8000,layout=interleaved",
  };
  GstElement *e = gst_element_factory_make ("cudaprefixsum", NULL);
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  gchar *desc;
  GstElement *p;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;

  for (guint k = 0; k < G_N_ELEMENTS (refused); k++) {
    GstCaps *caps = gst_caps_from_string (refused[k]);
    fail_if (gst_pad_query_accept_caps (sink, caps), "accepted %s",
        refused[k]);
    gst_caps_unref (caps);
  }
  gst_object_unref (sink);
  gst_object_unref (e);

  /* video outputs on audio: an error saying why */
  desc = g_strdup_printf ("audiotestsrc num-buffers=2 ! cudaprefixsum "
      "backend=%s output=box-mean ! fakesink", backend);
  p = gst_parse_launch (desc, NULL);
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
      "output=box-mean on audio ran");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "video only") != NULL, "error: %s",
      err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (desc);
}

GST_END_TEST;

static Suite *
level_suite (gboolean gpu)
{
  Suite *s = suite_create (gpu ? "cudaprefixsum-level-gpu" :
      "cudaprefixsum-level");
  TCase *tc = tcase_create ("general");
  gint n = gpu ? 1 : G_N_ELEMENTS (backends);

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_loop_test (tc, test_same_as_level, 0, n);
  tcase_add_loop_test (tc, test_interval_change, 0, n);
  tcase_add_loop_test (tc, test_change_inside_interval, 0, n);
  tcase_add_loop_test (tc, test_interval_shortened_to_the_count, 0, n);
  tcase_add_loop_test (tc, test_restart_inside_interval, 0, n);
  if (!gpu) {
    tcase_add_loop_test (tc, test_post_messages_off, 0, n);
    tcase_add_loop_test (tc, test_bad_input, 0, n);
  }
  return s;
}

int
main (int argc, char **argv)
{
  gboolean gpu;
  gint ret;

  if (!element_test_init ("cudaprefixsum", &argc, &argv, &gpu))
    return 1;
  if (gpu) {
    gchar *why = cuda_unusable_reason ("cudaprefixsum");
    if (why) {
      g_print ("SKIP cudaprefixsum-level-gpu: %s\n", why);
      g_free (why);
      return 77;
    }
    backend_under_test = "cuda";
  }
  ret = gst_check_run_suite (level_suite (gpu), gpu ?
      "cudaprefixsum-level-gpu" : "cudaprefixsum-level", __FILE__);
  g_print ("cudaprefixsum-level: %" G_GUINT64_FORMAT " messages checked "
      "(seed %u)\n", messages_checked, seed);
  g_rand_free (rng);
  return ret;
}
