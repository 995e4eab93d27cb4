/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests of cudaprefixsum's loudness meter (`loudness=true`).
 *
 *   test_cudaprefixsum_loudness          backend=cpu
 *   test_cudaprefixsum_loudness --gpu    backend=cuda; exits 77 when no
 *                                        GPU is usable
 *
 * ebur128-level messages every 100 ms of a stream pushed in 1024-frame
 * buffers through GstHarness:
 *
 * tech3341           EBU Tech 3341 case 1 (a stereo 1 kHz sine at
 *                    -23 dBFS): momentary, short-term and integrated
 *                    within 0.1 LU of -23, the fields ebur128level has,
 *                    a message at the end of every interval
 * libebur128         random programme material in each sample format,
 *                    stereo and 5.1 (LFE unweighted, rear pair +1.5 dB):
 *                    every message against libebur128 fed the same
 *                    samples (when the build found it)
 * off-by-default     no ebur128-level message unless asked for; level's
 *                    messages as before
 * restarts           a flush, or loudness turned on mid-stream, starts the
 *                    measure again: the messages after it equal a fresh
 *                    element's
 * video              loudness=true on video: a warning naming it
 */
#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "element_check.h"
#ifdef HAVE_EBUR128
#include <ebur128.h>
#endif

#define RATE 48000
#define FRAMES 1024

static const gchar *backend = "cpu";

/* ---- streams ------------------------------------------------------------ */

typedef struct
{
  gint channels, frames;
  gdouble *x;                   /* planar, in [-1, 1) */
} Programme;

/* Noise through a one-pole low-pass, in pieces of random length and level
 * (some below the gates), or a 1 kHz sine when `sine_dbfs` is finite. */
static Programme
programme (GRand * r, gint channels, gdouble seconds, gdouble sine_dbfs)
{
  Programme p = { channels, (gint) (seconds * RATE), NULL };
  gdouble state[8] = { 0 };

  p.x = g_new0 (gdouble, (gsize) channels * p.frames);
  for (gint at = 0; at < p.frames;) {
    gint n = (gint) (RATE * g_rand_double_range (r, 0.2, 3.0));
    gdouble level = pow (10.0, g_rand_double_range (r, -75.0, -6.0) / 20.0);
    for (gint i = at; i < at + n && i < p.frames; i++)
      for (gint c = 0; c < channels; c++) {
        gdouble v;
        if (isfinite (sine_dbfs))
          v = pow (10.0, sine_dbfs / 20.0) * sin (2.0 * G_PI * 1000.0 * i
              / RATE);
        else {
          state[c] = 0.7 * state[c] + 0.3 * g_rand_double_range (r, -1, 1);
          v = level * state[c] * 2.0;
        }
        p.x[(gsize) c * p.frames + i] = v;
      }
    at += n;
  }
  return p;
}

/* Frames [at, at + n) interleaved in `format`; `exact` gets the values the
 * samples hold, as doubles (what a meter reads). */
static GstBuffer *
encode (const Programme * p, const gchar * format, gint at, gint n,
    gdouble * exact)
{
  GstAudioFormat f = gst_audio_format_from_string (format);
  gint bps = GST_AUDIO_FORMAT_INFO_WIDTH (gst_audio_format_get_info (f)) / 8;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, (gsize) n * p->channels
      * bps, NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gint i = 0; i < n; i++)
    for (gint c = 0; c < p->channels; c++) {
      gdouble v = p->x[(gsize) c * p->frames + at + i];
      gsize k = (gsize) i * p->channels + c;
      if (f == GST_AUDIO_FORMAT_S16LE) {
        gint16 s = (gint16) CLAMP (lrint (v * 32768.0), -32768, 32767);
        ((gint16 *) map.data)[k] = s;
        v = s / 32768.0;
      } else if (f == GST_AUDIO_FORMAT_S32LE) {
        gint32 s = (gint32) CLAMP (llrint (v * 2147483648.0), G_MININT32,
            G_MAXINT32);
        ((gint32 *) map.data)[k] = s;
        v = s / 2147483648.0;
      } else if (f == GST_AUDIO_FORMAT_F32LE) {
        ((gfloat *) map.data)[k] = (gfloat) v;
        v = (gfloat) v;
      } else {
        ((gdouble *) map.data)[k] = v;
      }
      if (exact)
        exact[k] = v;
    }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (at, GST_SECOND, RATE);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int (at + n, GST_SECOND,
      RATE) - GST_BUFFER_PTS (buf);
  return buf;
}

/* ---- the element --------------------------------------------------------- */

static GstHarness *
start (const gchar * format, gint channels, const gchar * settings,
    GstBus * bus)
{
  gchar *line = g_strdup_printf ("cudaprefixsum name=m backend=%s "
      "interval=100000000 %s", backend, settings);
  gchar *caps = g_strdup_printf ("audio/x-raw,format=%s,layout=interleaved,"
      "rate=%d,channels=%d%s", format, RATE, channels, channels == 6
      ? ",channel-mask=(bitmask)0x3f" : "");
  GstHarness *h = gst_harness_new_parse (line);

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, caps);
  g_free (line);
  g_free (caps);
  return h;
}

/* The messages named `name` on the bus, in order (the others dropped). */
static GPtrArray *
take_messages (GstBus * bus, const gchar * name)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  GstMessage *m;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (m);
    if (gst_structure_has_name (s, name))
      g_ptr_array_add (out, gst_structure_copy (s));
    gst_message_unref (m);
  }
  return out;
}

static gdouble
field (const GstStructure * s, const gchar * name)
{
  gdouble v = NAN;

  fail_unless (gst_structure_get_double (s, name, &v), "no double %s in %"
      GST_PTR_FORMAT, name, s);
  return v;
}

static gdouble
peak (const GstStructure * s, const gchar * name, guint channel)
{
  const GValue *array = gst_structure_get_value (s, name);

  fail_unless (array && GST_VALUE_HOLDS_ARRAY (array), "no array %s", name);
  return g_value_get_double (gst_value_array_get_value (array, channel));
}

/* Pushes frames [from, to) of `p` in FRAMES-frame buffers. */
static void
push_range (GstHarness * h, const Programme * p, const gchar * format,
    gint from, gint to)
{
  for (gint at = from; at < to; at += FRAMES)
    fail_unless_equals_int (gst_harness_push (h, encode (p, format, at,
                MIN (FRAMES, to - at), NULL)), GST_FLOW_OK);
  while (gst_harness_buffers_in_queue (h))
    gst_buffer_unref (gst_harness_pull (h));
}

/* The harness torn down and the bus with it: the messages still queued
 * hold the element, which holds the bus. */
static void
finish (GstHarness * h, GstBus * bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (h);
  gst_object_unref (bus);
}

/* ---- tests --------------------------------------------------------------- */

GST_START_TEST (test_tech3341)
{
  GRand *r = g_rand_new_with_seed (1);
  Programme p = programme (r, 2, 20.0, -23.0);
  GstBus *bus = gst_bus_new ();
  GstHarness *h = start ("F32LE", 2, "loudness=true", bus);
  GPtrArray *msgs;
  const GstStructure *last;
  const gchar *const fields[] = { "momentary-loudness",
    "shortterm-loudness", "global-loudness"
  };

  push_range (h, &p, "F32LE", 0, p.frames);
  msgs = take_messages (bus, "ebur128-level");
  fail_unless_equals_int (msgs->len, 200);
  for (guint k = 0; k < msgs->len; k++) {
    guint64 ts = 0, rt = 0;
    const GstStructure *s = g_ptr_array_index (msgs, k);
    fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts)
        && gst_structure_get_uint64 (s, "running-time", &rt)
        && gst_structure_has_field (s, "stream-time")
        && gst_structure_has_field (s, "relative-threshold")
        && gst_structure_has_field (s, "loudness-range"), "message %u: %"
        GST_PTR_FORMAT, k, s);
    fail_unless_equals_uint64 (ts, (k + 1) * GST_SECOND / 10);
    fail_unless_equals_uint64 (rt, ts);
  }
  last = g_ptr_array_index (msgs, msgs->len - 1);
  for (guint f = 0; f < G_N_ELEMENTS (fields); f++)
    fail_unless (fabs (field (last, fields[f]) + 23.0) <= 0.1, "%s: %.3f "
        "LUFS, EBU Tech 3341 case 1 wants -23.0 +- 0.1", fields[f],
        field (last, fields[f]));
  for (guint c = 0; c < 2; c++)
    fail_unless (fabs (peak (last, "sample-peak", c) - pow (10.0, -23.0
                / 20.0)) < 1e-6, "sample peak %g", peak (last, "sample-peak",
            c));
  g_print ("tech3341 case 1 [%s]: M %.3f, S %.3f, I %.3f LUFS\n", backend,
      field (last, fields[0]), field (last, fields[1]), field (last,
          fields[2]));
  g_ptr_array_unref (msgs);
  finish (h, bus);
  g_free (p.x);
  g_rand_free (r);
}

GST_END_TEST;

#ifdef HAVE_EBUR128
GST_START_TEST (test_libebur128)
{
  const gchar *const formats[] = { "F32LE", "F64LE", "S16LE", "S32LE" };
  const gint layouts[][2] = { {2, 0}, {6, 1} };
  const int stereo[] = { EBUR128_LEFT, EBUR128_RIGHT };
  const int surround[] = { EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER,
    EBUR128_UNUSED, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND
  };
  GRand *r = g_rand_new_with_seed (4);
  guint checked = 0;

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (guint l = 0; l < G_N_ELEMENTS (layouts); l++) {
      gint channels = layouts[l][0];
      Programme p = programme (r, channels, 6.0, NAN);
      GstBus *bus = gst_bus_new ();
      GstHarness *h = start (formats[f], channels, "loudness=true", bus);
      ebur128_state *ref = ebur128_init ((unsigned) channels, RATE,
          EBUR128_MODE_M | EBUR128_MODE_S | EBUR128_MODE_I
          | EBUR128_MODE_LRA | EBUR128_MODE_SAMPLE_PEAK);
      gdouble *exact = g_new (gdouble, (gsize) FRAMES * channels);
      gint fed = 0, next_message = RATE / 10;

      for (gint c = 0; c < channels; c++)
        ebur128_set_channel (ref, (unsigned) c, layouts[l][1] ? surround[c]
            : stereo[c]);
      for (gint at = 0; at < p.frames; at += FRAMES) {
        gint n = MIN (FRAMES, p.frames - at);
        GPtrArray *msgs;
        GstBuffer *buf = encode (&p, formats[f], at, n, exact);
        fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
        gst_buffer_unref (gst_harness_pull (h));
        msgs = take_messages (bus, "ebur128-level");
        /* libebur128 fed to each message's end, then compared */
        for (guint k = 0; k < msgs->len; k++) {
          const GstStructure *s = g_ptr_array_index (msgs, k);
          gdouble want[5];
          ebur128_add_frames_double (ref, exact + (gsize) (fed - at)
              * channels, (size_t) (next_message - fed));
          fed = next_message;
          next_message += RATE / 10;
          ebur128_loudness_momentary (ref, &want[0]);
          ebur128_loudness_shortterm (ref, &want[1]);
          ebur128_loudness_global (ref, &want[2]);
          ebur128_relative_threshold (ref, &want[3]);
          ebur128_loudness_range (ref, &want[4]);
          {
            const gchar *const names[] = { "momentary-loudness",
              "shortterm-loudness", "global-loudness", "relative-threshold",
              "loudness-range"
            };
            for (guint v = 0; v < 5; v++) {
              gdouble got = field (s, names[v]);
              fail_unless ((isinf (got) && isinf (want[v]))
                  || fabs (got - want[v]) < (v == 4 ? 0.05 : 1e-6),
                  "%s, %d channels, message %u: %s %.9f, libebur128 %.9f",
                  formats[f], channels, checked, names[v], got, want[v]);
            }
          }
          for (gint c = 0; c < channels; c++) {
            gdouble sp;
            ebur128_sample_peak (ref, (unsigned) c, &sp);
            fail_unless (fabs (peak (s, "sample-peak", c) - sp) < 1e-9,
                "%s: sample peak %g, libebur128 %g", formats[f],
                peak (s, "sample-peak", c), sp);
            fail_unless (peak (s, "true-peak", c) >= peak (s, "sample-peak",
                    c), "true peak below the sample peak");
          }
          checked++;
        }
        /* the rest of this buffer */
        ebur128_add_frames_double (ref, exact + (gsize) (fed - at) * channels,
            (size_t) (at + n - fed));
        fed = at + n;
        g_ptr_array_unref (msgs);
      }
      ebur128_destroy (&ref);
      g_free (exact);
      finish (h, bus);
      g_free (p.x);
    }
  g_print ("libebur128 [%s]: %u messages agree (4 formats, stereo and "
      "5.1)\n", backend, checked);
  fail_unless (checked > 400);
  g_rand_free (r);
}

GST_END_TEST;
#endif

GST_START_TEST (test_off_by_default)
{
  GRand *r = g_rand_new_with_seed (2);
  Programme p = programme (r, 2, 1.0, NAN);
  GstBus *bus = gst_bus_new ();
  GstHarness *h = start ("F32LE", 2, "", bus);
  GPtrArray *loud, *level;

  push_range (h, &p, "F32LE", 0, p.frames);
  loud = take_messages (bus, "ebur128-level");
  fail_unless_equals_int (loud->len, 0);
  g_ptr_array_unref (loud);
  /* a new element: level's messages come all the same */
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, FALSE);
  h = start ("F32LE", 2, "", bus);
  push_range (h, &p, "F32LE", 0, p.frames);
  level = take_messages (bus, "level");
  fail_unless (level->len >= 9, "%u level messages", level->len);
  g_ptr_array_unref (level);
  finish (h, bus);
  g_free (p.x);
  g_rand_free (r);
}

GST_END_TEST;

/* The global loudness of the last message after pushing [from, to) to a
 * fresh element. */
static gdouble
fresh_global (const Programme * p, gint from, gint to)
{
  GstBus *bus = gst_bus_new ();
  GstHarness *h = start ("F32LE", 2, "loudness=true", bus);
  GPtrArray *msgs;
  gdouble v;

  push_range (h, p, "F32LE", from, to);
  msgs = take_messages (bus, "ebur128-level");
  fail_unless (msgs->len > 0);
  v = field (g_ptr_array_index (msgs, msgs->len - 1), "global-loudness");
  g_ptr_array_unref (msgs);
  finish (h, bus);
  return v;
}

GST_START_TEST (test_restarts)
{
  GRand *r = g_rand_new_with_seed (3);
  Programme p = programme (r, 2, 8.0, NAN);
  gint half = (p.frames / 2) / FRAMES * FRAMES;
  gdouble want = fresh_global (&p, half, p.frames);

  for (gint how = 0; how < 2; how++) {
    GstBus *bus = gst_bus_new ();
    GstHarness *h = start ("F32LE", 2, how ? "loudness=false"
        : "loudness=true", bus);
    GPtrArray *msgs;
    gdouble got;
    GstSegment segment;

    push_range (h, &p, "F32LE", 0, half);
    if (how) {
      GstElement *m = gst_bin_get_by_name (GST_BIN (h->element), "m");
      g_object_set (m, "loudness", TRUE, NULL);
      gst_object_unref (m);
    } else {
      fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
      fail_unless (gst_harness_push_event (h,
              gst_event_new_flush_stop (TRUE)));
      gst_segment_init (&segment, GST_FORMAT_TIME);
      fail_unless (gst_harness_push_event (h,
              gst_event_new_segment (&segment)));
    }
    g_ptr_array_unref (take_messages (bus, "ebur128-level"));
    /* the second half: its messages must be a fresh meter's */
    for (gint at = half; at < p.frames; at += FRAMES) {
      GstBuffer *buf = encode (&p, "F32LE", at, MIN (FRAMES, p.frames - at),
          NULL);
      fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
      gst_buffer_unref (gst_harness_pull (h));
    }
    msgs = take_messages (bus, "ebur128-level");
    fail_unless (msgs->len > 0);
    got = field (g_ptr_array_index (msgs, msgs->len - 1), "global-loudness");
    fail_unless (got == want, "%s: integrated %.9f, a fresh element's %.9f",
        how ? "turned on mid-stream" : "after a flush", got, want);
    g_ptr_array_unref (msgs);
    finish (h, bus);
  }
  g_free (p.x);
  g_rand_free (r);
}

GST_END_TEST;

/* The largest interval (GST_CLOCK_TIME_NONE's value): no message until
 * EOS, then one for the whole stream. */
GST_START_TEST (test_longest_interval)
{
  GRand *r = g_rand_new_with_seed (5);
  Programme p = programme (r, 2, 2.0, -23.0);
  GstBus *bus = gst_bus_new ();
  gchar *settings = g_strdup_printf ("loudness=true interval=%"
      G_GUINT64_FORMAT, G_MAXUINT64);
  GstHarness *h = start ("F32LE", 2, settings, bus);
  GPtrArray *msgs;
  guint64 ts = 0;

  push_range (h, &p, "F32LE", 0, p.frames);
  msgs = take_messages (bus, "ebur128-level");
  fail_unless_equals_int (msgs->len, 0);
  g_ptr_array_unref (msgs);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  msgs = take_messages (bus, "ebur128-level");
  fail_unless_equals_int (msgs->len, 1);
  fail_unless (gst_structure_get_uint64 (g_ptr_array_index (msgs, 0),
          "timestamp", &ts));
  fail_unless_equals_uint64 (ts, 2 * GST_SECOND);
  g_ptr_array_unref (msgs);
  finish (h, bus);
  g_free (settings);
  g_free (p.x);
  g_rand_free (r);
}

GST_END_TEST;

GST_START_TEST (test_video)
{
  GstBus *bus = gst_bus_new ();
  gchar *line = g_strdup_printf ("cudaprefixsum backend=%s loudness=true",
      backend);
  GstHarness *h = gst_harness_new_parse (line);
  GstMessage *m;
  GError *err = NULL;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=64,"
      "height=48,framerate=30/1");
  gst_harness_push (h, gst_buffer_new_allocate (NULL, 64 * 48, NULL));
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (m != NULL, "no warning for loudness=true on video");
  gst_message_parse_warning (m, &err, NULL);
  fail_unless (strstr (err->message, "loudness=true") != NULL, "%s",
      err->message);
  g_error_free (err);
  gst_message_unref (m);
  finish (h, bus);
  g_free (line);
}

GST_END_TEST;

static Suite *
loudness_suite (void)
{
  Suite *s = suite_create ("cudaprefixsum-loudness");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_tech3341);
#ifdef HAVE_EBUR128
  tcase_add_test (tc, test_libebur128);
#else
  g_print ("SKIP libebur128: the build did not find it\n");
#endif
  tcase_add_test (tc, test_off_by_default);
  tcase_add_test (tc, test_restarts);
  tcase_add_test (tc, test_longest_interval);
  tcase_add_test (tc, test_video);
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
      g_print ("SKIP cudaprefixsum-loudness-gpu: %s\n", why);
      g_free (why);
      g_rand_free (rng);
      return 77;
    }
    backend = "cuda";
  }
  ret = gst_check_run_suite (loudness_suite (), gpu
      ? "cudaprefixsum-loudness-gpu" : "cudaprefixsum-loudness", __FILE__);
  g_rand_free (rng);
  return ret;
}
