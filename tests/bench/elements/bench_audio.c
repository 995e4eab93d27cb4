/* Whole-pipeline benchmark of cudaconv1d: a 48 kHz, 8-channel F32 stream
 * in 1024-frame buffers through a 16384-tap impulse response,
 *
 *   appsrc ! FILTER ! fakesink
 *
 * for cudaconv1d on the GPU, cudaconv1d on the CPU, and audiofirfilter
 * (same taps) in the same run. Prints, in the steady state (from the 10th
 * output buffer on, so that setting up is left out), the real-time factor
 * (seconds of audio per second of wall time) and the wall time per input
 * buffer; and the time one buffer spends in the filter, from its sink pad
 * to its source pad (median and 99th percentile), for filters that put out
 * one buffer per input buffer (audiofirfilter's FFT mode collects blocks:
 * its per-buffer wall time stands). The source pushes one random buffer
 * again and again, so that generating audio costs nothing.
 *
 *   bench_audio [--quick] [--no-gpu]
 *
 * Exits 77 (skip) when cudaconv1d cannot run on a GPU here, unless
 * --no-gpu asks for the CPU figures alone. */
#include <math.h>

#include <glib/gstdio.h>
#include <gst/app/gstappsrc.h>
#include <gst/audio/audio.h>
#include <gst/gst.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATE 48000
#define CHANNELS 8
#define FRAMES 1024
#define TAPS 16384

typedef struct
{
  GstBuffer *tmpl;
  guint64 pushed, total;
  GstClockTime in_time[1 << 16];        /* by buffer index */
  gdouble busy_us[1 << 16];
  guint n_busy;
  gint64 out_time[1 << 16];     /* by output buffer */
  guint64 out_frames[1 << 16];  /* frames out up to and with it */
  guint n_out;
  guint64 frames_out;
} Run;

static void
need_data (GstAppSrc * src, guint length, Run * r)
{
  (void) length;
  if (r->pushed >= r->total) {
    gst_app_src_end_of_stream (src);
    return;
  }
  GstBuffer *b = gst_buffer_copy (r->tmpl);     /* shares the memory */
  GST_BUFFER_PTS (b) = gst_util_uint64_scale_int (r->pushed * FRAMES,
      GST_SECOND, RATE);
  GST_BUFFER_DURATION (b) = gst_util_uint64_scale_int (FRAMES, GST_SECOND,
      RATE);
  GST_BUFFER_OFFSET (b) = r->pushed;
  r->pushed++;
  gst_app_src_push_buffer (src, b);
}

static GstPadProbeReturn
on_sink (GstPad * pad, GstPadProbeInfo * info, Run * r)
{
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  (void) pad;
  if (GST_BUFFER_OFFSET (b) < G_N_ELEMENTS (r->in_time))
    r->in_time[GST_BUFFER_OFFSET (b)] = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_src (GstPad * pad, GstPadProbeInfo * info, Run * r)
{
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  /* rounded: timestamps are whole nanoseconds, rounded down */
  guint64 index = gst_util_uint64_scale_round (GST_BUFFER_PTS (b), RATE,
      GST_SECOND) / FRAMES;
  gint64 now = g_get_monotonic_time ();

  (void) pad;
  r->frames_out += gst_buffer_get_size (b) / (CHANNELS * 4);
  if (r->n_out < G_N_ELEMENTS (r->out_time)) {
    r->out_time[r->n_out] = now;
    r->out_frames[r->n_out++] = r->frames_out;
  }
  /* the output of input buffer `index`, when it is one buffer */
  if (gst_buffer_get_size (b) == FRAMES * CHANNELS * 4
      && index < G_N_ELEMENTS (r->in_time) && r->in_time[index]
      && r->n_busy < G_N_ELEMENTS (r->busy_us))
    r->busy_us[r->n_busy++] = now - r->in_time[index];
  return GST_PAD_PROBE_OK;
}

static int
compare (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return (x > y) - (x < y);
}

static gfloat *
make_ir (const gchar * path)
{
  SF_INFO info = { 0 };
  SNDFILE *f;
  gfloat *h = g_new (gfloat, TAPS);

  g_random_set_seed (11);
  for (gint k = 0; k < TAPS; k++)
    h[k] = (gfloat) (g_random_double_range (-1, 1) * exp (-k / 3000.0)
        * 0.05);
  info.samplerate = RATE;
  info.channels = 1;
  info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
  f = sf_open (path, SFM_WRITE, &info);
  sf_writef_float (f, h, TAPS);
  sf_close (f);
  return h;
}

/* Runs `filter` on `total` buffers; fills rt (x real time) and wall (µs
 * per input buffer) in the steady state, median and 99th percentile of the
 * time in the filter (µs; -1 when outputs are not one per input). FALSE if
 * it failed. */
static gboolean
run (const gchar * filter, const gfloat * taps, guint64 total,
    gdouble * rt, gdouble * wall, gdouble * med, gdouble * p99)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time "
      "caps=audio/x-raw,format=F32LE,rate=%d,channels=%d,layout=interleaved,"
      "channel-mask=(bitmask)0"
      " ! %s name=filter ! fakesink sync=false", RATE, CHANNELS, filter);
  GError *error = NULL;
  GstElement *p = gst_parse_launch (desc, &error), *src, *f;
  Run *r = g_new0 (Run, 1);
  GstBus *bus;
  GstMessage *msg;
  gint64 t0, t1;
  gboolean ok = FALSE;
  GstMapInfo map;

  g_free (desc);
  if (!p) {
    printf ("  %s: %s\n", filter, error->message);
    g_clear_error (&error);
    g_free (r);
    return FALSE;
  }
  r->total = total;
  r->tmpl = gst_buffer_new_allocate (NULL, FRAMES * CHANNELS * 4, NULL);
  gst_buffer_map (r->tmpl, &map, GST_MAP_WRITE);
  for (gsize k = 0; k < FRAMES * CHANNELS; k++)
    ((gfloat *) map.data)[k] = (gfloat) g_random_double_range (-0.5, 0.5);
  gst_buffer_unmap (r->tmpl, &map);

  src = gst_bin_get_by_name (GST_BIN (p), "src");
  f = gst_bin_get_by_name (GST_BIN (p), "filter");
  g_signal_connect (src, "need-data", G_CALLBACK (need_data), r);
  if (taps) {
    /* audiofirfilter takes its taps as a GValueArray of doubles */
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
    GValueArray *va = g_value_array_new (TAPS);
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_TYPE_DOUBLE);
    for (gint k = 0; k < TAPS; k++) {
      g_value_set_double (&v, taps[k]);
      g_value_array_append (va, &v);
    }
    g_object_set (f, "kernel", va, NULL);
    g_value_array_free (va);
    G_GNUC_END_IGNORE_DEPRECATIONS;
  }
  gst_pad_add_probe (gst_element_get_static_pad (f, "sink"),
      GST_PAD_PROBE_TYPE_BUFFER, (GstPadProbeCallback) on_sink, r, NULL);
  gst_pad_add_probe (gst_element_get_static_pad (f, "src"),
      GST_PAD_PROBE_TYPE_BUFFER, (GstPadProbeCallback) on_src, r, NULL);

  t0 = g_get_monotonic_time ();
  gst_element_set_state (p, GST_STATE_PLAYING);
  bus = gst_element_get_bus (p);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  t1 = g_get_monotonic_time ();
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *dbg;
    gst_message_parse_error (msg, &error, &dbg);
    printf ("  %s failed: %s\n", filter, error->message);
    g_clear_error (&error);
    g_free (dbg);
  } else {
    /* filters that put out large blocks: from the second block on */
    guint first = r->n_out > 40 ? 10 : 1, last = r->n_out - 1;

    *rt = (gdouble) total * FRAMES / RATE / ((t1 - t0) / 1e6);
    *wall = -1;
    if (last > first) {
      gdouble dt = (r->out_time[last] - r->out_time[first]) / 1e6;
      gdouble frames = r->out_frames[last] - r->out_frames[first];
      *rt = frames / RATE / dt;
      *wall = dt * 1e6 / (frames / FRAMES);
    }
    *med = *p99 = -1;
    /* the first buffers set the filter up: leave them out */
    if (r->n_busy > 20 && r->n_busy + 20 >= total) {
      qsort (r->busy_us + 10, r->n_busy - 10, sizeof (gdouble), compare);
      *med = r->busy_us[10 + (r->n_busy - 10) / 2];
      *p99 = r->busy_us[10 + (gsize) ((r->n_busy - 11) * 0.99)];
    }
    ok = TRUE;
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (f);
  gst_object_unref (p);
  gst_buffer_unref (r->tmpl);
  g_free (r);
  return ok;
}

int
main (int argc, char **argv)
{
  gboolean quick = FALSE;
  gchar *dir = g_dir_make_tmp ("bench-audio-XXXXXX", NULL);
  gchar *ir = g_build_filename (dir, "ir.wav", NULL);
  gfloat *taps = make_ir (ir);
  GstElement *probe;
  gchar *gpu, *cpu;
  typedef struct
  {
    const gchar *name;
    gchar *filter;
    const gfloat *taps;
    guint64 buffers;
    gdouble rt, wall, med, p99;
    gboolean ok;
  } Filter;
  Filter runs[3];
  gboolean no_gpu = FALSE;
  gint rc = 0;

  gst_init (&argc, &argv);
  for (gint k = 1; k < argc; k++) {
    quick |= strcmp (argv[k], "--quick") == 0;
    no_gpu |= strcmp (argv[k], "--no-gpu") == 0;
  }
  probe = gst_element_factory_make ("cudaconv1d", NULL);
  if (!probe) {
    printf ("SKIP bench-audio: cudaconv1d not found (GST_PLUGIN_PATH?)\n");
    return 77;
  }
  gst_util_set_object_arg (G_OBJECT (probe), "backend", "cuda");
  if (!no_gpu && gst_element_set_state (probe, GST_STATE_PAUSED)
      == GST_STATE_CHANGE_FAILURE) {
    printf ("SKIP bench-audio: no usable CUDA device\n");
    gst_element_set_state (probe, GST_STATE_NULL);
    gst_object_unref (probe);
    return 77;
  }
  gst_element_set_state (probe, GST_STATE_NULL);
  gst_object_unref (probe);

  gpu = g_strdup_printf ("cudaconv1d backend=cuda location=%s", ir);
  cpu = g_strdup_printf ("cudaconv1d backend=cpu location=%s", ir);
  memset (runs, 0, sizeof (runs));
  runs[0].name = "cudaconv1d (GPU)";
  runs[0].filter = gpu;
  runs[0].buffers = no_gpu ? 0 : quick ? 1000 : 6000;
  runs[1].name = "cudaconv1d (CPU backend)";
  runs[1].filter = cpu;
  runs[1].buffers = quick ? 200 : 1000;
  runs[2].name = "audiofirfilter (CPU)";
  runs[2].filter = g_strdup ("audiofirfilter");
  runs[2].taps = taps;
  runs[2].buffers = quick ? 200 : 1000;

  printf ("8 ch F32 48 kHz, %d-frame buffers, %d-tap impulse response\n",
      FRAMES, TAPS);
  for (guint k = 0; k < G_N_ELEMENTS (runs); k++) {
    if (runs[k].buffers == 0)
      continue;
    runs[k].ok = run (runs[k].filter, runs[k].taps, runs[k].buffers,
        &runs[k].rt, &runs[k].wall, &runs[k].med, &runs[k].p99);
    if (!runs[k].ok)
      rc = 1;
  }
  printf ("\naudio pipeline summary (steady state; in filter: sink pad to "
      "source pad)\n%-26s %10s %12s %14s %14s\n", "filter", "x realtime",
      "us/buffer", "in filter med", "in filter p99");
  for (guint k = 0; k < G_N_ELEMENTS (runs); k++) {
    if (runs[k].ok && runs[k].med >= 0)
      printf ("%-26s %10.0f %12.1f %14.1f %14.1f\n", runs[k].name,
          runs[k].rt, runs[k].wall, runs[k].med, runs[k].p99);
    else if (runs[k].ok)
      printf ("%-26s %10.0f %12.1f %14s %14s\n", runs[k].name, runs[k].rt,
          runs[k].wall, "(in blocks)", "-");
    else if (runs[k].buffers)
      printf ("%-26s %10s\n", runs[k].name, "failed");
    g_free (runs[k].filter);
  }
  printf ("%-26s %10s %12.1f\n", "real time (floor)", "1", 1e6 * FRAMES
      / RATE);
  if (runs[0].ok && runs[2].ok)
    printf ("%-28s %11.0fx\n", "GPU / audiofirfilter", runs[0].rt /
        runs[2].rt);
  g_unlink (ir);
  g_rmdir (dir);
  g_free (ir);
  g_free (dir);
  g_free (taps);
  return rc;
}
