/* Whole-pipeline benchmark of the audio elements:
 *
 *   appsrc ! FILTER ! fakesink
 *
 * - cudaconv1d: a 48 kHz, 8-channel stream in 1024-frame buffers through a
 *   16384-tap impulse response, on the GPU (F32, and F64 computed in
 *   double), on the CPU backend, and audiofirfilter (same taps); and the
 *   same on the GPU and audiofirfilter in 4096-frame buffers; and the GPU
 *   runs again with overlap=true (outputs pushed by the element's own
 *   thread while the next buffer comes in);
 * - cudaprefixsum's level statistics on the GPU against level, 8 channels
 *   in 1024-frame buffers; and its EBU R128 loudness (loudness=true) on
 *   the GPU and the CPU backend against libebur128 called directly on the
 *   same buffers (true peak included, as ours measures it);
 * - 16 cudaconv1d instances in one process (16 stereo stems, each through
 *   its own reverb, 16 pipelines side by side) against one alone.
 *
 * Prints, in the steady state (from the 10th output buffer on, so that
 * setting up is left out), the real-time factor (seconds of audio per
 * second of wall time) and the wall time per input buffer; and the time one
 * buffer spends in the filter, from its sink pad to its source pad (median
 * and 99th percentile), for filters that put out one buffer per input
 * buffer (audiofirfilter's FFT mode collects blocks: its per-buffer wall
 * time stands). The source pushes one random buffer again and again, so that
 * generating audio costs nothing. The side-by-side figure is the audio of
 * all instances over the wall time from start to the last EOS.
 *
 *   bench_audio [--quick] [--no-gpu]
 *
 * Exits 77 (skip) when cudaconv1d cannot run on a GPU here, unless
 * --no-gpu asks for the CPU figures alone. */
#include <math.h>
#ifdef HAVE_EBUR128
#include <ebur128.h>
#endif

#include <glib/gstdio.h>
#include <gst/app/gstappsrc.h>
#include <gst/audio/audio.h>
#include <gst/gst.h>

#include "bench_cpu.h"
#include "bench_gpu.h"
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATE 48000
#define TAPS 16384
#define INSTANCES 16

/* One pipeline to measure. */
typedef struct
{
  const gchar *name;
  const gchar *filter;          /* the element and its properties */
  const gchar *format;          /* F32LE or F64LE */
  gint channels, frames;        /* frames per buffer */
  const gfloat *taps;           /* audiofirfilter's kernel, or NULL */
  guint64 buffers;
  /* results */
  gboolean ok;
  gdouble rt, wall, med, p99;
} Spec;

typedef struct
{
  const Spec *spec;
  gsize bpf;                    /* bytes per frame */
  GstBuffer *tmpl;
  guint64 pushed;
  GstClockTime in_time[1 << 16];        /* by buffer index */
  gdouble busy_us[1 << 16];
  guint n_busy;
  gint64 out_time[1 << 16];     /* by output buffer */
  guint64 out_frames[1 << 16];  /* frames out up to and with it */
  guint n_out;
  guint64 frames_out;
  GstElement *pipeline;
} Run;

static void
need_data (GstAppSrc * src, guint length, Run * r)
{
  gint frames = r->spec->frames;

  (void) length;
  if (r->pushed >= r->spec->buffers) {
    gst_app_src_end_of_stream (src);
    return;
  }
  GstBuffer *b = gst_buffer_copy (r->tmpl);     /* shares the memory */
  GST_BUFFER_PTS (b) = gst_util_uint64_scale_int (r->pushed * frames,
      GST_SECOND, RATE);
  GST_BUFFER_DURATION (b) = gst_util_uint64_scale_int (frames, GST_SECOND,
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
  gint frames = r->spec->frames;
  /* rounded: timestamps are whole nanoseconds, rounded down */
  guint64 index = gst_util_uint64_scale_round (GST_BUFFER_PTS (b), RATE,
      GST_SECOND) / frames;
  gint64 now = g_get_monotonic_time ();

  (void) pad;
  r->frames_out += gst_buffer_get_size (b) / r->bpf;
  if (r->n_out < G_N_ELEMENTS (r->out_time)) {
    r->out_time[r->n_out] = now;
    r->out_frames[r->n_out++] = r->frames_out;
  }
  /* the output of input buffer `index`, when it is one buffer */
  if (gst_buffer_get_size (b) == frames * r->bpf
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
make_ir (const gchar * path, gint channels)
{
  SF_INFO info = { 0 };
  SNDFILE *f;
  gfloat *h = g_new (gfloat, (gsize) TAPS * channels);

  g_random_set_seed (11);
  for (gsize k = 0; k < (gsize) TAPS * channels; k++)
    h[k] = (gfloat) (g_random_double_range (-1, 1)
        * exp (-(gdouble) (k / channels) / 3000.0) * 0.05);
  info.samplerate = RATE;
  info.channels = channels;
  info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
  f = sf_open (path, SFM_WRITE, &info);
  sf_writef_float (f, h, TAPS);
  sf_close (f);
  return h;
}

/* audiofirfilter takes its taps as a GValueArray of doubles. */
static void
set_fir_kernel (GstElement * f, const gfloat * taps)
{
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

/* A pipeline for `spec`, its source feeding and its filter probed; NULL
 * (after saying why) if it cannot be built. */
static Run *
run_new (const Spec * spec)
{
  gboolean f64 = strcmp (spec->format, "F64LE") == 0;
  gchar *desc = g_strdup_printf ("appsrc name=src format=time "
      "caps=audio/x-raw,format=%s,rate=%d,channels=%d,layout=interleaved,"
      "channel-mask=(bitmask)0 ! %s name=filter ! fakesink sync=false",
      spec->format, RATE, spec->channels, spec->filter);
  GError *error = NULL;
  GstElement *p = gst_parse_launch (desc, &error), *src, *f;
  Run *r;
  GstMapInfo map;
  GstPad *pad;

  g_free (desc);
  if (!p) {
    printf ("  %s: %s\n", spec->filter, error->message);
    g_clear_error (&error);
    return NULL;
  }
  r = g_new0 (Run, 1);
  r->spec = spec;
  r->pipeline = p;
  r->bpf = (gsize) spec->channels * (f64 ? 8 : 4);
  r->tmpl = gst_buffer_new_allocate (NULL, spec->frames * r->bpf, NULL);
  gst_buffer_map (r->tmpl, &map, GST_MAP_WRITE);
  for (gsize k = 0; k < (gsize) spec->frames * spec->channels; k++) {
    gdouble v = g_random_double_range (-0.5, 0.5);
    if (f64)
      ((gdouble *) map.data)[k] = v;
    else
      ((gfloat *) map.data)[k] = (gfloat) v;
  }
  gst_buffer_unmap (r->tmpl, &map);

  src = gst_bin_get_by_name (GST_BIN (p), "src");
  f = gst_bin_get_by_name (GST_BIN (p), "filter");
  g_signal_connect (src, "need-data", G_CALLBACK (need_data), r);
  if (spec->taps)
    set_fir_kernel (f, spec->taps);
  pad = gst_element_get_static_pad (f, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
      (GstPadProbeCallback) on_sink, r, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (f, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
      (GstPadProbeCallback) on_src, r, NULL);
  gst_object_unref (pad);
  gst_object_unref (src);
  gst_object_unref (f);
  return r;
}

/* Waits for EOS or an error; TRUE on EOS. */
static gboolean
run_wait (Run * r)
{
  GstBus *bus = gst_element_get_bus (r->pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gboolean ok = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;

  if (!ok) {
    GError *error = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &error, &dbg);
    printf ("  %s failed: %s\n", r->spec->filter, error->message);
    g_clear_error (&error);
    g_free (dbg);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  return ok;
}

static void
run_free (Run * r)
{
  gst_element_set_state (r->pipeline, GST_STATE_NULL);
  gst_object_unref (r->pipeline);
  gst_buffer_unref (r->tmpl);
  g_free (r);
}

/* Runs `spec` alone and fills its results: rt (x real time) and wall (µs
 * per input buffer) in the steady state, median and 99th percentile of the
 * time in the filter (µs; -1 when outputs are not one per input). */
static void
measure (Spec * spec)
{
  Run *r = run_new (spec);
  gint64 t0, t1;

  spec->ok = FALSE;
  if (!r)
    return;
  t0 = g_get_monotonic_time ();
  gst_element_set_state (r->pipeline, GST_STATE_PLAYING);
  spec->ok = run_wait (r);
  t1 = g_get_monotonic_time ();
  if (spec->ok) {
    /* filters that put out large blocks: from the second block on */
    guint first = r->n_out > 40 ? 10 : 1, last = r->n_out - 1;
    gint frames = spec->frames;

    spec->rt = (gdouble) spec->buffers * frames / RATE / ((t1 - t0) / 1e6);
    spec->wall = -1;
    if (last > first) {
      gdouble dt = (r->out_time[last] - r->out_time[first]) / 1e6;
      gdouble n = r->out_frames[last] - r->out_frames[first];
      spec->rt = n / RATE / dt;
      spec->wall = dt * 1e6 / (n / frames);
    }
    spec->med = spec->p99 = -1;
    /* the first buffers set the filter up: leave them out */
    if (r->n_busy > 20 && r->n_busy + 20 >= spec->buffers) {
      qsort (r->busy_us + 10, r->n_busy - 10, sizeof (gdouble), compare);
      spec->med = r->busy_us[10 + (r->n_busy - 10) / 2];
      spec->p99 = r->busy_us[10 + (gsize) ((r->n_busy - 11) * 0.99)];
    }
  }
  run_free (r);
}

/* `n` pipelines of `spec` side by side; returns the real-time factor of
 * all their audio together over the wall time to the last EOS (0 on
 * failure), and in *cpu_us the CPU time the process spent per buffer. */
static gdouble
measure_side_by_side (const Spec * spec, gint n, gdouble * cpu_us)
{
  Run **runs = g_new0 (Run *, n);
  gboolean ok = TRUE;
  gint64 t0, t1;
  gdouble c0;

  for (gint k = 0; k < n && ok; k++)
    ok = (runs[k] = run_new (spec)) != NULL;
  /* set up first (filters are built on the first buffer: that part is
   * left in, and small against the run) */
  for (gint k = 0; k < n && ok; k++)
    ok = gst_element_set_state (runs[k]->pipeline, GST_STATE_PAUSED)
        != GST_STATE_CHANGE_FAILURE;
  t0 = g_get_monotonic_time ();
  c0 = bench_cpu_seconds ();
  for (gint k = 0; k < n && ok; k++)
    gst_element_set_state (runs[k]->pipeline, GST_STATE_PLAYING);
  for (gint k = 0; k < n && ok; k++)
    ok = run_wait (runs[k]);
  t1 = g_get_monotonic_time ();
  *cpu_us = (bench_cpu_seconds () - c0) * 1e6 / ((gdouble) n * spec->buffers);
  for (gint k = 0; k < n; k++)
    if (runs[k])
      run_free (runs[k]);
  g_free (runs);
  return ok ? n * (gdouble) spec->buffers * spec->frames / RATE
      / ((t1 - t0) / 1e6) : 0.0;
}

static Spec
spec (const gchar * name, const gchar * filter, const gchar * format,
    gint channels, gint frames, const gfloat * taps, guint64 buffers)
{
  Spec s = { 0 };

  s.name = name;
  s.filter = filter;
  s.format = format;
  s.channels = channels;
  s.frames = frames;
  s.taps = taps;
  s.buffers = buffers;
  return s;
}

/* The real-time factor of `ours` over the peer's, when both ran. */
static void
print_ratio (const char *label, const Spec * ours, const Spec * peer)
{
  if (ours->ok && peer->ok)
    printf ("%-40s %11.1fx\n", label, ours->rt / peer->rt);
}

/* libebur128 on 8 channels of F32 in 1024-frame buffers, every mode the
 * element measures: seconds of audio a second. */
static gdouble
libebur128_realtime (gint buffers)
{
#ifdef HAVE_EBUR128
  ebur128_state *st = ebur128_init (8, RATE, EBUR128_MODE_M | EBUR128_MODE_S
      | EBUR128_MODE_I | EBUR128_MODE_LRA | EBUR128_MODE_SAMPLE_PEAK
      | EBUR128_MODE_TRUE_PEAK);
  gfloat *x = g_new (gfloat, 8 * 1024);
  GRand *r = g_rand_new_with_seed (5);
  gint64 t0;
  gdouble seconds;

  for (gint k = 0; k < 8 * 1024; k++)
    x[k] = (gfloat) g_rand_double_range (r, -0.5, 0.5);
  t0 = g_get_monotonic_time ();
  for (gint b = 0; b < buffers; b++)
    ebur128_add_frames_float (st, x, 1024);
  seconds = (g_get_monotonic_time () - t0) / 1e6;
  ebur128_destroy (&st);
  g_free (x);
  g_rand_free (r);
  return (gdouble) buffers * 1024 / RATE / seconds;
#else
  (void) buffers;
  return 0.0;
#endif
}

static void
print_row (const Spec * s)
{
  gchar what[64];

  g_snprintf (what, sizeof (what), "%s %.3s %d", s->name, s->format,
      s->frames);
  if (s->ok && s->med >= 0)
    printf ("%-40s %10.0f %12.1f %14.1f %14.1f\n", what, s->rt, s->wall,
        s->med, s->p99);
  else if (s->ok)
    printf ("%-40s %10.0f %12.1f %14s %14s\n", what, s->rt, s->wall,
        "(in blocks)", "-");
  else if (s->buffers)
    printf ("%-40s %10s\n", what, "failed");
}

int
main (int argc, char **argv)
{
  gboolean quick = FALSE, no_gpu = FALSE;
  gchar *dir = g_dir_make_tmp ("bench-audio-XXXXXX", NULL);
  gchar *ir = g_build_filename (dir, "ir.wav", NULL);
  gchar *ir2 = g_build_filename (dir, "ir-stereo.wav", NULL);
  gfloat *taps = make_ir (ir, 1), *taps2 = make_ir (ir2, 2);
  gint rc = 0;
  guint64 many, cpu_buffers;

  gst_init (&argc, &argv);
  if (bench_start ("bench-audio", "cudaconv1d", argc, argv, &quick, &no_gpu))
    return 77;
  many = no_gpu ? 0 : quick ? 1000 : 6000;
  cpu_buffers = quick ? 200 : 1000;

  gchar *gpu = g_strdup_printf ("cudaconv1d backend=cuda location=%s", ir);
  gchar *cpu = g_strdup_printf ("cudaconv1d backend=cpu location=%s", ir);
  gchar *gpu2 = g_strdup_printf ("cudaconv1d backend=cuda location=%s", ir2);
  gchar *gpu_overlap = g_strdup_printf ("cudaconv1d backend=cuda "
      "overlap=true location=%s", ir);
  Spec runs[] = {
    spec ("cudaconv1d (GPU)", gpu, "F32LE", 8, 1024, NULL, many),
    spec ("cudaconv1d (GPU)", gpu, "F64LE", 8, 1024, NULL, many),
    spec ("cudaconv1d (CPU backend)", cpu, "F32LE", 8, 1024, NULL,
        cpu_buffers),
    spec ("audiofirfilter (CPU)", "audiofirfilter", "F32LE", 8, 1024, taps,
        cpu_buffers),
    spec ("cudaconv1d (GPU)", gpu, "F32LE", 8, 4096, NULL, many / 2),
    spec ("audiofirfilter (CPU)", "audiofirfilter", "F32LE", 8, 4096, taps,
        cpu_buffers / 2),
    spec ("cudaprefixsum levels (GPU)", "cudaprefixsum backend=cuda",
        "F32LE", 8, 1024, NULL, many),
    spec ("level (CPU)", "level", "F32LE", 8, 1024, NULL, many),
    spec ("cudaconv1d overlap=true (GPU)", gpu_overlap, "F32LE", 8, 1024,
        NULL, many),
    spec ("cudaconv1d overlap=true (GPU)", gpu_overlap, "F32LE", 8, 4096,
        NULL, many / 2),
    spec ("cudaconv1d overlap=true (GPU)", gpu_overlap, "F64LE", 8, 1024,
        NULL, many),
    spec ("cudaprefixsum loudness (GPU)", "cudaprefixsum backend=cuda "
        "loudness=true", "F32LE", 8, 1024, NULL, many),
    spec ("cudaprefixsum loudness (CPU backend)", "cudaprefixsum "
        "backend=cpu loudness=true", "F32LE", 8, 1024, NULL, cpu_buffers),
  };
  gdouble ebur128_rt;
  Spec stem = spec ("cudaconv1d (GPU)", gpu2, "F32LE", 2, 1024, NULL,
      quick ? 500 : 3000);
  gdouble one = 0.0, all = 0.0, one_cpu = 0.0, all_cpu = 0.0;

  printf ("48 kHz, %d-tap impulse response\n", TAPS);
  for (guint k = 0; k < G_N_ELEMENTS (runs); k++) {
    if (runs[k].buffers == 0)
      continue;
    measure (&runs[k]);
    if (!runs[k].ok)
      rc = 1;
  }
  if (!no_gpu) {
    one = measure_side_by_side (&stem, 1, &one_cpu);
    all = measure_side_by_side (&stem, INSTANCES, &all_cpu);
    if (one <= 0 || all <= 0)
      rc = 1;
  }

  printf ("\naudio pipeline summary (8 channels; steady state; in filter: "
      "sink pad to source pad)\n%-40s %10s %12s %14s %14s\n",
      "filter, format, frames a buffer", "x realtime", "us/buffer",
      "in filter med", "in filter p99");
  for (guint k = 0; k < G_N_ELEMENTS (runs); k++)
    print_row (&runs[k]);
  printf ("%-40s %10s %12.1f\n", "real time at 1024 frames (floor)", "1",
      1e6 * 1024 / RATE);
  print_ratio ("GPU / audiofirfilter, 1024 frames", &runs[0], &runs[3]);
  print_ratio ("GPU / audiofirfilter, 4096 frames", &runs[4], &runs[5]);
  print_ratio ("GPU overlap / audiofirfilter, 1024", &runs[8], &runs[3]);
  print_ratio ("GPU overlap / audiofirfilter, 4096", &runs[9], &runs[5]);
  print_ratio ("cudaprefixsum / level, 1024 frames", &runs[6], &runs[7]);
  ebur128_rt = libebur128_realtime (cpu_buffers);
  if (ebur128_rt > 0) {
    printf ("%-40s %10.0f %12.1f\n", "libebur128 (CPU, direct) F32 1024",
        ebur128_rt, 1e6 * 1024 / RATE / ebur128_rt);
    if (runs[11].ok)
      printf ("%-40s %11.1fx\n", "loudness GPU / libebur128, 1024",
          runs[11].rt / ebur128_rt);
    if (runs[12].ok)
      printf ("%-40s %11.1fx\n", "loudness CPU backend / libebur128",
          runs[12].rt / ebur128_rt);
  } else
    printf ("libebur128: not found by the build, no loudness peer\n");
  if (one > 0 && all > 0) {
    printf ("stereo stems through a %d-tap reverb, 1024 frames: 1 instance "
        "%.0fx real time; %d side by side %.0fx in all (%.0fx each, %.2f "
        "times one alone)\n", TAPS, one, INSTANCES, all, all / INSTANCES,
        all / one);
    printf ("  wall per buffer: %.1f us alone, %.1f us side by side (all "
        "instances' buffers); CPU time per buffer: %.1f us alone, %.1f us "
        "side by side\n", 1e6 * 1024 / RATE / one, 1e6 * 1024 / RATE / all,
        one_cpu, all_cpu);
  }
  g_free (gpu);
  g_free (cpu);
  g_free (gpu2);
  g_free (gpu_overlap);
  g_unlink (ir);
  g_unlink (ir2);
  g_rmdir (dir);
  g_free (ir);
  g_free (ir2);
  g_free (dir);
  g_free (taps);
  g_free (taps2);
  return rc;
}
