/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's responses changed while playing: prepared off the streaming
 * thread, then taken over with a raised-cosine crossfade. Checked sample
 * by sample against convolutions computed here in double, on random masks
 * and input: the old response's output exactly before the take-over, the
 * weighted sum w(t) = (1 - cos(pi t / T)) / 2 during the crossfade, the
 * new response's exactly after it (its history carried over); the
 * take-over message and its fields; several changes in a row (the last
 * one wins); a missing file while playing (a warning, the old response
 * plays on). `--gpu` runs the same on backend=cuda.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

static guint32 seed;
static GRand *rng;

#include "element_check.h"

#define RATE 48000
#define CHANNELS 2
#define BUFFER 480

static const gchar *backend = "cpu";

typedef struct
{
  gint taps;
  gdouble *h;                   /* CHANNELS masks */
  gchar *text;                  /* as a kernel string */
} Mask;

static Mask
random_mask (gint taps)
{
  Mask m = { taps, g_new (gdouble, CHANNELS * taps), NULL };
  GString *s = g_string_new (NULL);

  for (gint c = 0; c < CHANNELS; c++) {
    for (gint k = 0; k < taps; k++) {
      m.h[c * taps + k] = g_rand_double_range (rng, -1, 1) / (2.0 * taps);
      g_string_append_printf (s, "%s%.17g", k ? " " : "", m.h[c * taps + k]);
    }
    if (c + 1 < CHANNELS)
      g_string_append (s, "; ");
  }
  m.text = g_string_free (s, FALSE);
  return m;
}

static void
mask_clear (Mask * m)
{
  g_free (m->h);
  g_free (m->text);
}

/* Channel c at frame n through mask m, the whole input before it. */
static gdouble
convolve (const Mask * m, const gdouble * x, gint frames, gint c, gint n)
{
  gdouble sum = 0.0;

  for (gint k = 0; k < m->taps; k++)
    if (n - k >= 0 && n - k < frames)
      sum += m->h[c * m->taps + k] * x[(gsize) c * frames + n - k];
  return sum;
}

static GstBuffer *
make_buffer (const gdouble * x, gint frames, gint at, gint n)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, sizeof (gdouble) * n
      * CHANNELS, NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gint i = 0; i < n; i++)
    for (gint c = 0; c < CHANNELS; c++)
      ((gdouble *) map.data)[i * CHANNELS + c] = x[(gsize) c * frames + at
          + i];
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (at, GST_SECOND, RATE);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int (n, GST_SECOND,
      RATE);
  return buf;
}

static GstHarness *
start (const gchar * settings, const gchar * algorithm, GstBus * bus)
{
  GstElement *e = gst_element_factory_make ("cudaconv1d", "conv");
  GstHarness *h;

  gst_util_set_object_arg (G_OBJECT (e), "backend", backend);
  gst_util_set_object_arg (G_OBJECT (e), "algorithm", algorithm);
  gst_util_set_object_arg (G_OBJECT (e), "crossfade", settings);
  gst_element_set_bus (e, bus);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, "audio/x-raw,format=F64LE,rate=48000,"
      "channels=2,layout=interleaved,channel-mask=(bitmask)0x3");
  return h;
}

/* The next cudaconv1d-response message, or NULL. */
static GstStructure *
take_over_message (GstBus * bus)
{
  GstMessage *m;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (m);
    if (gst_structure_has_name (s, "cudaconv1d-response")) {
      GstStructure *copy = gst_structure_copy (s);
      gst_message_unref (m);
      return copy;
    }
    gst_message_unref (m);
  }
  return NULL;
}

/* Output samples pulled, interleaved, appended to `out`. */
static void
pull_all (GstHarness * h, GArray * out)
{
  GstBuffer *buf;

  while ((buf = gst_harness_try_pull (h))) {
    GstMapInfo map;
    gst_buffer_map (buf, &map, GST_MAP_READ);
    g_array_append_vals (out, map.data, map.size / sizeof (gdouble));
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
  }
}

/* From one random mask to another with a crossfade of `ms`, set after the
 * fourth buffer: every sample against the reference. The new mask takes
 * over at the fifth buffer, or `warm_up` frames later where it needs more
 * history than the old filter held (-1: any). */
static void
check_crossfade (gint taps0, gint taps1, guint ms, const gchar * algorithm,
    gint warm_up)
{
  const gint frames = 40 * BUFFER;
  gchar *what = g_strdup_printf ("%d -> %d taps (%s), crossfade %u ms [%s]",
      taps0, taps1, algorithm, ms, backend);
  gchar *fade = g_strdup_printf ("%u", ms);
  Mask m0 = random_mask (taps0), m1 = random_mask (taps1);
  gdouble *x = g_new (gdouble, CHANNELS * frames);
  GstBus *bus = gst_bus_new ();
  GstHarness *h = start (fade, algorithm, bus);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (gdouble));
  GstElement *e = gst_harness_find_element (h, "cudaconv1d");
  GstStructure *msg;
  guint64 offset = 0, length = 0, fade_frames;
  gint name_taps = 0;

  for (gint i = 0; i < CHANNELS * frames; i++)
    x[i] = g_rand_double_range (rng, -0.5, 0.5);
  g_object_set (e, "kernel", m0.text, NULL);
  for (gint at = 0; at < frames; at += BUFFER) {
    if (at == 4 * BUFFER) {
      g_object_set (e, "kernel", m1.text, NULL);
      wait_prepared (e, what);
    }
    fail_unless_equals_int (gst_harness_push (h, make_buffer (x, frames, at,
                BUFFER)), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, out);
  msg = take_over_message (bus);
  fail_unless (msg != NULL, "%s: no cudaconv1d-response message", what);
  fail_unless (gst_structure_get_uint64 (msg, "offset", &offset)
      && gst_structure_get_uint64 (msg, "crossfade", &length)
      && gst_structure_get_int (msg, "taps", &name_taps), "%s: %"
      GST_PTR_FORMAT, what, msg);
  fail_unless_equals_int (name_taps, taps1);
  fail_unless_equals_string (gst_structure_get_string (msg, "name"),
      "kernel");
  /* the buffer after the new one was ready, after any warm-up */
  if (warm_up >= 0)
    fail_unless_equals_uint64 (offset, 4 * BUFFER + warm_up);
  fail_unless (offset >= 4 * BUFFER && offset < frames / 2, "%s: offset %"
      G_GUINT64_FORMAT, what, offset);
  fade_frames = gst_util_uint64_scale_int_round (ms, RATE, 1000);
  fail_unless_equals_uint64 (length, gst_util_uint64_scale_int (fade_frames,
          GST_SECOND, RATE));
  /* the crossfade over by the end: the new mask's tail alone */
  fail_unless_equals_int (out->len, CHANNELS * (frames + taps1 - 1));
  for (gint n = 0; n < (gint) out->len / CHANNELS; n++)
    for (gint c = 0; c < CHANNELS; c++) {
      gdouble got = g_array_index (out, gdouble, n * CHANNELS + c);
      gint64 t = n - (gint64) offset;
      gdouble a = convolve (&m0, x, frames, c, n);
      gdouble b = convolve (&m1, x, frames, c, n);
      gdouble w = t >= (gint64) fade_frames ? 1.0 : t <= 0 ? 0.0
          : (1.0 - cos (G_PI * t / fade_frames)) / 2.0;
      gdouble want = a + w * (b - a);
      fail_unless (fabs (got - want) <= 1e-12, "%s: channel %d frame %d "
          "(t %" G_GINT64_FORMAT " of %" G_GUINT64_FORMAT "): %.15g, "
          "expected %.15g (old %.15g, new %.15g)", what, c, n, t,
          fade_frames, got, want, a, b);
    }
  g_print ("crossfade %s: %u frames checked, take-over at frame %"
      G_GUINT64_FORMAT "\n", what, out->len / CHANNELS, offset);
  gst_structure_free (msg);
  gst_object_unref (e);
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  g_array_unref (out);
  g_free (x);
  mask_clear (&m0);
  mask_clear (&m1);
  g_free (fade);
  g_free (what);
}

GST_START_TEST (test_crossfade)
{
  /* direct path, the new mask no longer than the old (its history is all
   * there): exact; a fade within a buffer, across buffers, none */
  check_crossfade (31, 31, 30, "auto", 0);
  check_crossfade (63, 17, 5, "auto", 0);
  check_crossfade (31, 31, 0, "auto", 0);
  check_crossfade (40, 40, 100, "auto", 0);
  /* a longer new mask: it warms up on the input before it is heard (the
   * old filter held 30 frames of the 199 it needs) */
  check_crossfade (31, 200, 10, "auto", 169);
  check_crossfade (31, 200, 0, "auto", 169);
  /* the FFT path (one partition of history held): warm-up, then exact */
  check_crossfade (2000, 5000, 0, "fft", -1);
  check_crossfade (3000, 3000, 20, "fft", -1);
}

GST_END_TEST;

/* Three changes in a row before the next buffer: only the last one takes
 * over. */
GST_START_TEST (test_last_wins)
{
  GstBus *bus = gst_bus_new ();
  GstHarness *h = start ("0", "auto", bus);
  GstElement *e = gst_harness_find_element (h, "cudaconv1d");
  GstStructure *msg;
  gint taps = 0;
  GstBuffer *buf;

  g_object_set (e, "kernel", "1", NULL);
  buf = gst_buffer_new_allocate (NULL, sizeof (gdouble) * CHANNELS * BUFFER,
      NULL);
  gst_buffer_memset (buf, 0, 0, gst_buffer_get_size (buf));
  GST_BUFFER_PTS (buf) = 0;
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_copy (buf)),
      GST_FLOW_OK);
  g_object_set (e, "kernel", "1 2", NULL);
  g_object_set (e, "kernel", "1 2 3", NULL);
  g_object_set (e, "kernel", "1 2 3 4", NULL);
  wait_prepared (e, "three changes");
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (BUFFER, GST_SECOND,
      RATE);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  msg = take_over_message (bus);
  fail_unless (msg != NULL, "no cudaconv1d-response message");
  fail_unless (gst_structure_get_int (msg, "taps", &taps));
  fail_unless_equals_int (taps, 4);
  gst_structure_free (msg);
  fail_unless (take_over_message (bus) == NULL, "more than one take-over");
  gst_object_unref (e);
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (h);
  gst_object_unref (bus);
}

GST_END_TEST;

/* A missing file while playing: a warning naming it, and the old response
 * plays on (no take-over). */
GST_START_TEST (test_missing_file)
{
  GstBus *bus = gst_bus_new ();
  GstHarness *h = start ("30", "auto", bus);
  GstElement *e = gst_harness_find_element (h, "cudaconv1d");
  GstMessage *m;
  GError *err = NULL;
  GstBuffer *buf;

  g_object_set (e, "kernel", "0.5", NULL);
  buf = gst_buffer_new_allocate (NULL, sizeof (gdouble) * CHANNELS, NULL);
  gst_buffer_memset (buf, 0, 0, gst_buffer_get_size (buf));
  GST_BUFFER_PTS (buf) = 0;
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_copy (buf)),
      GST_FLOW_OK);
  g_object_set (e, "kernel", NULL, "location", "/nonexistent/hall.wav", NULL);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (m != NULL, "no warning for a missing file");
  gst_message_parse_warning (m, &err, NULL);
  fail_unless (strstr (err->message, "/nonexistent/hall.wav") != NULL, "%s",
      err->message);
  g_print ("missing file while playing: %s\n", err->message);
  g_error_free (err);
  gst_message_unref (m);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (1, GST_SECOND, RATE);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  gst_object_unref (e);
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (h);
  gst_object_unref (bus);
}

GST_END_TEST;

static gboolean
count_message (const gchar * domain G_GNUC_UNUSED,
    GLogLevelFlags level G_GNUC_UNUSED, const gchar * message, gpointer count)
{
  g_print ("crossfade out of range: %s\n", message);
  (*(gint *) count)++;
  return TRUE;                  /* expected: not a failure */
}

/* A crossfade over 10 s (seconds given for milliseconds, say): GLib's
 * message naming the value (a WARNING, a CRITICAL from GLib 2.84 on), and
 * the crossfade stays as it was. */
GST_START_TEST (test_crossfade_too_long)
{
  GstElement *e = gst_element_factory_make ("cudaconv1d", NULL);
  GstCheckLogFilter *filter;
  guint ms = 0;
  gint count = 0;

  filter = gst_check_add_log_filter ("GLib-GObject", G_LOG_LEVEL_WARNING
      | G_LOG_LEVEL_CRITICAL, g_regex_new ("\"20000\".*crossfade", 0, 0,
          NULL), count_message, &count, NULL);
  g_object_set (e, "crossfade", 20000, NULL);
  gst_check_remove_log_filter (filter);
  fail_unless_equals_int (count, 1);
  g_object_get (e, "crossfade", &ms, NULL);
  fail_unless_equals_int (ms, 30);
  g_object_set (e, "crossfade", 10000, NULL);
  g_object_get (e, "crossfade", &ms, NULL);
  fail_unless_equals_int (ms, 10000);
  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
change_suite (void)
{
  Suite *s = suite_create ("cudaconv1d-change");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_crossfade);
  tcase_add_test (tc, test_last_wins);
  tcase_add_test (tc, test_missing_file);
  tcase_add_test (tc, test_crossfade_too_long);
  return s;
}

int
main (int argc, char **argv)
{
  gboolean gpu;
  gint ret;

  if (!element_test_init ("cudaconv1d", &argc, &argv, &gpu))
    return 1;
  if (gpu_or_skip ("cudaconv1d", "cudaconv1d-change-gpu", gpu))
    return 77;
  backend = gpu ? "cuda" : "cpu";
  ret = gst_check_run_suite (change_suite (), gpu ? "cudaconv1d-change-gpu"
      : "cudaconv1d-change", __FILE__);
  g_rand_free (rng);
  return ret;
}
