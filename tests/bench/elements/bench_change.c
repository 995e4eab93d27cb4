/* What a response change while playing costs the stream: cudaconv1d
 * filters stereo F32 at 48 kHz in 1024-frame buffers through a 1 s
 * impulse response (appsrc ! cudaconv1d ! fakesink, as fast as it goes);
 * the application's thread sets `location` to a 10 s response (480000
 * taps) three times, each once the last has taken over and played as
 * long as the first did. Each buffer's time in the element (sink pad to
 * source pad) is sorted by when it passed: the steady state of the
 * response playing, while the new response is prepared (off the streaming
 * thread), and from its take-over to the end of its crossfade (both
 * responses filter: the new one unheard until the input it did not see
 * is out of its reach, then the crossfade), as the take-over message's
 * offset and crossfade say.
 *
 * Prints, per backend and change: the steady state's median, 99th
 * percentile and largest for the response playing when the change was
 * set (the 1 s one for the first change, a 10 s one for the others), the
 * largest time of a buffer while the new response was prepared and during
 * its crossfade, and the bound a buffer must keep while preparing: that
 * steady p99 plus one normal (median) buffer; then when the slowest
 * buffer while preparing left, after its change was set, and how many
 * went over the bound.
 *
 *   bench_change [--quick] [--no-gpu]
 *
 * Exits 77 (skip) when cudaconv1d cannot run on a GPU here, unless
 * --no-gpu asks for the CPU figures alone. */
#include <glib/gstdio.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#include "bench_gpu.h"
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATE 48000
#define FRAMES 1024
#define CHANGES 3
#define MAX_BUFFERS (1 << 17)

typedef enum
{
  STEADY, PREPARING, CROSSFADING, AFTER
} Phase;

typedef struct
{
  GstBuffer *tmpl;
  guint64 pushed;
  gpointer buffers;             /* where the source stops (a count) */
  gint64 in_time;               /* the buffer in the element now */
  gdouble us[MAX_BUFFERS];
  Phase phase[MAX_BUFFERS];
  guint8 change[MAX_BUFFERS];   /* changes set before it left */
  gint64 at[MAX_BUFFERS];       /* when it left, monotonic µs */
  gint64 asked[CHANGES];        /* when each change was set */
  guint n;
  /* set by the application's thread and the bus handler */
  volatile gint phase_now;
  volatile gint changes_set;
  volatile gint fade_end;       /* the stream's frame where the new
                                 * response plays alone */
  gint takeovers;
} Run;

static void
need_data (GstAppSrc * src, guint length G_GNUC_UNUSED, Run * r)
{
  GstBuffer *b;

  if (r->pushed >= (guint64) g_atomic_pointer_get (&r->buffers)) {
    gst_app_src_end_of_stream (src);
    return;
  }
  b = gst_buffer_copy (r->tmpl);
  GST_BUFFER_PTS (b) = gst_util_uint64_scale_int (r->pushed * FRAMES,
      GST_SECOND, RATE);
  GST_BUFFER_DURATION (b) = gst_util_uint64_scale_int (FRAMES, GST_SECOND,
      RATE);
  r->pushed++;
  gst_app_src_push_buffer (src, b);
}

static GstPadProbeReturn
on_sink (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info G_GNUC_UNUSED,
    Run * r)
{
  r->in_time = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_src (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info, Run * r)
{
  gint64 now = g_get_monotonic_time ();
  gint phase = g_atomic_int_get (&r->phase_now);
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  gint64 start = (gint64) gst_util_uint64_scale_int_round (GST_BUFFER_PTS (b),
      RATE, GST_SECOND);

  /* a buffer that starts where the new response plays alone */
  if (phase == CROSSFADING
      && start >= (gint64) g_atomic_int_get (&r->fade_end))
    g_atomic_int_set (&r->phase_now, phase = AFTER);
  if (r->n < MAX_BUFFERS) {
    r->us[r->n] = (gdouble) (now - r->in_time);
    r->phase[r->n] = (Phase) phase;
    r->change[r->n] = (guint8) g_atomic_int_get (&r->changes_set);
    r->at[r->n] = now;
    r->n++;
  }
  return GST_PAD_PROBE_OK;
}

/* The take-over message: the crossfade runs from here. */
static GstBusSyncReply
on_message (GstBus * bus G_GNUC_UNUSED, GstMessage * m, Run * r)
{
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT
      && gst_structure_has_name (gst_message_get_structure (m),
          "cudaconv1d-response")) {
    const GstStructure *s = gst_message_get_structure (m);
    guint64 fade = 0, offset = 0;
    gst_structure_get_uint64 (s, "crossfade", &fade);
    gst_structure_get_uint64 (s, "offset", &offset);
    /* both responses filter from here: the new one unheard until the
     * input it did not see is out of its reach (it is first heard at
     * `offset`), then the crossfade */
    g_atomic_int_set (&r->fade_end, (gint) (offset
            + gst_util_uint64_scale_int (fade, RATE, GST_SECOND)));
    g_atomic_int_set (&r->phase_now, CROSSFADING);
    g_atomic_int_inc (&r->takeovers);
  }
  return GST_BUS_PASS;
}

static void
write_ir (const gchar * path, gint frames, guint32 seed)
{
  SF_INFO info = { 0 };
  gfloat *h = g_new (gfloat, (gsize) frames * 2);
  GRand *r = g_rand_new_with_seed (seed);
  SNDFILE *f;

  for (gsize k = 0; k < (gsize) frames * 2; k++)
    h[k] = (gfloat) (g_rand_double_range (r, -1, 1) * exp (-(gdouble) (k
                / 2) / (0.3 * frames)) * 0.01);
  info.samplerate = RATE;
  info.channels = 2;
  info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
  f = sf_open (path, SFM_WRITE, &info);
  sf_writef_float (f, h, frames);
  sf_close (f);
  g_free (h);
  g_rand_free (r);
}

static int
compare (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return (x > y) - (x < y);
}

/* Change c's row: the steady state of the response playing when it was
 * set (the buffers that left before it, since the last crossfade ended),
 * the buffers while the new one was prepared, and its crossfade. FALSE
 * when a buffer while preparing went over the bound. */
static gboolean
report_change (const Run * r, const gchar * backend, gint c)
{
  gdouble *steady = g_new (gdouble, r->n), med, p99;
  gdouble worst_prep = 0, worst_fade = 0;
  guint n_steady = 0, n_prep = 0, n_fade = 0, worst_at = 0, over = 0;
  Phase before = c == 0 ? STEADY : AFTER;

  /* the first buffers set the filter up: left out */
  for (guint k = 10; k < r->n; k++) {
    if (r->change[k] == c && r->phase[k] == before)
      steady[n_steady++] = r->us[k];
    if (r->change[k] != c + 1)
      continue;
    if (r->phase[k] == PREPARING) {
      if (r->us[k] > worst_prep)
        worst_at = k;
      worst_prep = MAX (worst_prep, r->us[k]);
      n_prep++;
    } else if (r->phase[k] == CROSSFADING) {
      worst_fade = MAX (worst_fade, r->us[k]);
      n_fade++;
    }
  }
  qsort (steady, n_steady, sizeof (gdouble), compare);
  med = n_steady ? steady[n_steady / 2] : -1;
  p99 = n_steady ? steady[(gsize) ((n_steady - 1) * 0.99)] : -1;
  for (guint k = 10; k < r->n; k++)
    over += r->change[k] == c + 1 && r->phase[k] == PREPARING
        && r->us[k] > p99 + med;
  printf ("%-6s %6d %8.1f %8.1f %8.1f %10.1f (%4u) %10.1f (%4u) %8.1f  "
      "%-6s %7.1f %5u\n", backend, c + 1, med, p99,
      n_steady ? steady[n_steady - 1] : -1, worst_prep, n_prep, worst_fade,
      n_fade, p99 + med, n_steady > 0 && worst_prep <= p99 + med
      ? "within" : "BEYOND", n_prep ? (r->at[worst_at] - r->asked[c])
      / 1000.0 : -1.0, over);
  g_free (steady);
  return n_steady > 0 && over == 0;
}

/* Runs one backend; prints a row per change; FALSE when it failed or the
 * bound was broken. */
static gboolean
run_backend (const gchar * backend, const gchar * ir1, gchar ** ir10,
    guint64 buffers)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time "
      "caps=audio/x-raw,format=F32LE,rate=%d,channels=2,layout=interleaved,"
      "channel-mask=(bitmask)0x3 ! cudaconv1d name=f backend=%s location=%s "
      "! fakesink sync=false", RATE, backend, ir1);
  GstElement *p = gst_parse_launch (desc, NULL), *src, *f;
  Run *r = g_new0 (Run, 1);
  GstBus *bus = gst_element_get_bus (p);
  GstMapInfo map;
  GstMessage *m;
  GstPad *pad;
  gboolean ok;

  /* no end until the changes are done */
  g_atomic_pointer_set (&r->buffers, GSIZE_TO_POINTER (G_MAXSIZE));
  r->tmpl = gst_buffer_new_allocate (NULL, FRAMES * 2 * sizeof (gfloat),
      NULL);
  gst_buffer_map (r->tmpl, &map, GST_MAP_WRITE);
  for (gsize k = 0; k < FRAMES * 2; k++)
    ((gfloat *) map.data)[k] = (gfloat) g_random_double_range (-0.5, 0.5);
  gst_buffer_unmap (r->tmpl, &map);
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  f = gst_bin_get_by_name (GST_BIN (p), "f");
  g_signal_connect (src, "need-data", G_CALLBACK (need_data), r);
  pad = gst_element_get_static_pad (f, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
      (GstPadProbeCallback) on_sink, r, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (f, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
      (GstPadProbeCallback) on_src, r, NULL);
  gst_object_unref (pad);
  gst_bus_set_sync_handler (bus, (GstBusSyncHandler) on_message, r, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);

  /* the steady state first (`buffers` of them), then each change once
   * the last took over and its crossfade passed, then as many again */
  while (r->n < buffers)
    g_usleep (1000);
  for (gint c = 0; c < CHANGES; c++) {
    gint before = g_atomic_int_get (&r->takeovers);
    gint64 give_up = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
    guint played;
    /* the count first: a buffer tagged PREPARING has its change's */
    g_atomic_int_set (&r->changes_set, c + 1);
    g_atomic_int_set (&r->phase_now, PREPARING);
    r->asked[c] = g_get_monotonic_time ();
    g_object_set (f, "location", ir10[c % 2], NULL);
    while (g_atomic_int_get (&r->takeovers) == before
        && g_get_monotonic_time () < give_up)
      g_usleep (1000);
    while (g_atomic_int_get (&r->phase_now) == CROSSFADING)
      g_usleep (1000);
    /* the new response's own steady state, as long as the first's, for
     * the next change */
    played = r->n;
    while (c + 1 < CHANGES && r->n < played + buffers
        && g_get_monotonic_time () < give_up)
      g_usleep (1000);
  }
  g_atomic_pointer_set (&r->buffers, GSIZE_TO_POINTER (r->pushed + 100));
  m = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  ok = GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS
      && g_atomic_int_get (&r->takeovers) == CHANGES;
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *error = NULL;
    gst_message_parse_error (m, &error, NULL);
    printf ("  %s failed: %s\n", backend, error->message);
    g_clear_error (&error);
  } else if (!ok) {
    printf ("  %s: %d of %d changes took over within a minute each\n",
        backend, g_atomic_int_get (&r->takeovers), CHANGES);
  }
  gst_message_unref (m);
  gst_element_set_state (p, GST_STATE_NULL);

  for (gint c = 0; c < CHANGES; c++)
    ok &= report_change (r, backend, c);
  gst_object_unref (src);
  gst_object_unref (f);
  gst_object_unref (bus);
  gst_object_unref (p);
  gst_buffer_unref (r->tmpl);
  g_free (desc);
  g_free (r);
  return ok;
}

int
main (int argc, char **argv)
{
  gboolean quick = FALSE, no_gpu = FALSE, ok = TRUE;
  gchar *dir = g_dir_make_tmp ("bench-change-XXXXXX", NULL);
  gchar *ir1 = g_build_filename (dir, "1s.wav", NULL);
  gchar *ir10[2] = { g_build_filename (dir, "10s-a.wav", NULL),
    g_build_filename (dir, "10s-b.wav", NULL)
  };

  gst_init (&argc, &argv);
  if (bench_start ("bench-change", "cudaconv1d", argc, argv, &quick, &no_gpu))
    return 77;
  write_ir (ir1, RATE, 1);
  write_ir (ir10[0], 10 * RATE, 2);
  write_ir (ir10[1], 10 * RATE, 3);
  printf ("response changes while playing: stereo F32 48 kHz, %d-frame "
      "buffers, a 1 s response, then 10 s ones (480000 taps) set %d times; "
      "time a buffer spends in the element, us (buffers)\n%-6s %6s %8s %8s "
      "%8s %17s %17s %8s  %-6s %7s %5s\n", FRAMES, CHANGES, "", "change",
      "median", "p99", "max", "max preparing", "max crossfading", "bound",
      "", "at ms", "over");
  if (!no_gpu)
    ok &= run_backend ("cuda", ir1, ir10, quick ? 5000 : 20000);
  ok &= run_backend ("cpu", ir1, ir10, quick ? 500 : 2000);
  printf ("median, p99, max: the steady state of the response playing "
      "when the change was set; bound: its p99 plus its median; at ms: "
      "when the slowest buffer while preparing left, after the change was "
      "set; over: buffers over the bound while preparing\n");
  g_unlink (ir1);
  g_unlink (ir10[0]);
  g_unlink (ir10[1]);
  g_rmdir (dir);
  g_free (ir1);
  g_free (ir10[0]);
  g_free (ir10[1]);
  g_free (dir);
  return ok ? 0 : 1;
}
