/* Benchmark of cudaconv1d's channel matrices against the graph of stock
 * elements that does the same on the CPU:
 *
 * - true stereo: a stereo stream through a 4-channel impulse response of
 *   4 s (192000 taps at 48 kHz; L->L, L->R, R->L, R->R);
 * - 7 into 2: a 7-channel stream through 14 responses of 16384 taps into
 *   2 outputs (binaural virtualisation of 7 speakers).
 *
 * Both in 1024-frame F32 buffers. Ours: appsrc ! cudaconv1d ! fakesink on
 * the GPU (overlap off and on) and on the CPU backend. The peer:
 * deinterleave, a tee per input, one audiofirfilter per route (the same
 * taps), an audiomixer per output summing its routes, and interleave.
 *
 * The figure is the real-time factor in the steady state: seconds of audio
 * out over the wall time from the 10th output buffer to the last. The
 * floor is real time (1x).
 *
 *   bench_matrix [--quick] [--no-gpu] [--gpu-only] [--layout N]
 *
 * --gpu-only leaves out the CPU rows (for a profiler); --layout N runs the
 * Nth layout alone (0: true stereo, 1: 7 into 2).
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

typedef struct
{
  const gchar *name;
  gint in, out, taps;
  gchar *ir_path;
  gfloat *h;                    /* responses x taps, input-major */
} Layout;

typedef struct
{
  gint channels;
  GstBuffer *tmpl;
  guint64 pushed, buffers;
  guint64 frames_out;
  gint64 t_first, t_last;       /* the 10th output buffer's time, the last */
  guint n_out;
} Feed;

static void
need_data (GstAppSrc * src, guint length G_GNUC_UNUSED, Feed * f)
{
  GstBuffer *b;

  if (f->pushed == f->buffers) {
    gst_app_src_end_of_stream (src);
    return;
  }
  b = gst_buffer_copy (f->tmpl);
  GST_BUFFER_PTS (b) = gst_util_uint64_scale_int (f->pushed * FRAMES,
      GST_SECOND, RATE);
  GST_BUFFER_DURATION (b) = gst_util_uint64_scale_int (FRAMES, GST_SECOND,
      RATE);
  f->pushed++;
  gst_app_src_push_buffer (src, b);
}

/* Output buffers at the sink: frames counted from the 10th on. */
static GstPadProbeReturn
on_out (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info, Feed * f)
{
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  gint64 now = g_get_monotonic_time ();
  gsize frames = gst_buffer_get_size (b) / (sizeof (gfloat) * 2);

  if (++f->n_out == 10)
    f->t_first = now;
  else if (f->n_out > 10)
    f->frames_out += frames;
  f->t_last = now;
  return GST_PAD_PROBE_OK;
}

/* audiofirfilter takes its taps as a GValueArray of doubles. */
static void
set_kernel (GstElement * fir, const gfloat * h, gint taps)
{
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  GValueArray *va = g_value_array_new (taps);
  GValue v = G_VALUE_INIT;
  g_value_init (&v, G_TYPE_DOUBLE);
  for (gint k = 0; k < taps; k++) {
    g_value_set_double (&v, h[k]);
    g_value_array_append (va, &v);
  }
  g_object_set (fir, "kernel", va, NULL);
  g_value_array_free (va);
  G_GNUC_END_IGNORE_DEPRECATIONS;
}

/* Runs `desc` (appsrc name=src ... fakesink name=sink) on `buffers` input
 * buffers of `l->in` channels; routes' audiofirfilters named fir<k> get
 * response k. Returns the real-time factor, or -1 after saying why. */
static gdouble
run (const gchar * desc, const Layout * l, guint64 buffers)
{
  GError *error = NULL;
  GstElement *p = gst_parse_launch (desc, &error), *e;
  Feed f = { 0 };
  GstMapInfo map;
  GstMessage *msg;
  GstBus *bus;
  GstPad *pad;
  gdouble rt = -1;

  if (!p) {
    printf ("  cannot build: %s\n", error->message);
    g_clear_error (&error);
    return -1;
  }
  f.channels = l->in;
  f.buffers = buffers;
  f.tmpl = gst_buffer_new_allocate (NULL, sizeof (gfloat) * FRAMES * l->in,
      NULL);
  gst_buffer_map (f.tmpl, &map, GST_MAP_WRITE);
  for (gsize k = 0; k < (gsize) FRAMES * l->in; k++)
    ((gfloat *) map.data)[k] = (gfloat) g_random_double_range (-0.5, 0.5);
  gst_buffer_unmap (f.tmpl, &map);
  for (gint k = 0; k < l->in * l->out; k++) {
    gchar name[16];
    g_snprintf (name, sizeof (name), "fir%d", k);
    if ((e = gst_bin_get_by_name (GST_BIN (p), name))) {
      set_kernel (e, l->h + (gsize) k * l->taps, l->taps);
      gst_object_unref (e);
    }
  }
  e = gst_bin_get_by_name (GST_BIN (p), "src");
  g_signal_connect (e, "need-data", G_CALLBACK (need_data), &f);
  gst_object_unref (e);
  e = gst_bin_get_by_name (GST_BIN (p), "sink");
  pad = gst_element_get_static_pad (e, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
      (GstPadProbeCallback) on_out, &f, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);

  gst_element_set_state (p, GST_STATE_PLAYING);
  bus = gst_element_get_bus (p);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &error, NULL);
    printf ("  failed: %s\n", error->message);
    g_clear_error (&error);
  } else if (f.t_last > f.t_first && f.frames_out > 0) {
    rt = (gdouble) f.frames_out / RATE / ((f.t_last - f.t_first) / 1e6);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  gst_buffer_unref (f.tmpl);
  return rt;
}

static gchar *
caps_of (gint channels)
{
  return g_strdup_printf ("audio/x-raw,format=F32LE,rate=%d,channels=%d,"
      "layout=interleaved,channel-mask=(bitmask)0x%" G_GINT64_MODIFIER "x",
      RATE, channels, channels == 2 ? (guint64) 0x3 : (guint64) 0);
}

static gchar *
ours (const Layout * l, const gchar * settings)
{
  gchar *caps = caps_of (l->in);
  gchar *desc = g_strdup_printf ("appsrc name=src format=time caps=%s ! "
      "cudaconv1d %s location=%s out-channels=%d ! fakesink name=sink "
      "sync=false", caps, settings, l->ir_path, l->out);
  g_free (caps);
  return desc;
}

/* deinterleave, a tee per input, an audiofirfilter per route, an
 * audiomixer per output, interleave. */
static gchar *
peer (const Layout * l)
{
  gchar *caps = caps_of (l->in);
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "appsrc name=src format=time caps=%s ! "
      "deinterleave name=d interleave name=i ! fakesink name=sink "
      "sync=false", caps);
  for (gint j = 0; j < l->out; j++)
    g_string_append_printf (s, " audiomixer name=m%d ! queue ! i.sink_%d",
        j, j);
  for (gint c = 0; c < l->in; c++) {
    g_string_append_printf (s, " d.src_%d ! tee name=t%d", c, c);
    for (gint j = 0; j < l->out; j++)
      g_string_append_printf (s, " t%d. ! queue ! audiofirfilter name=fir%d "
          "! m%d.", c, c * l->out + j, j);
  }
  g_free (caps);
  return g_string_free (s, FALSE);
}

static void
make_layout (Layout * l, const gchar * dir)
{
  gint n = l->in * l->out;
  SF_INFO info = { 0 };
  gfloat *frames = g_new (gfloat, (gsize) n * l->taps);
  SNDFILE *f;

  l->ir_path = g_strdup_printf ("%s/%dx%d.wav", dir, l->in, l->out);
  l->h = g_new (gfloat, (gsize) n * l->taps);
  for (gint k = 0; k < n; k++)
    for (gint t = 0; t < l->taps; t++) {
      gfloat v = (gfloat) (g_random_double_range (-1, 1) * exp (-t
              / (0.3 * l->taps)) * 0.02);
      l->h[(gsize) k * l->taps + t] = v;
      frames[(gsize) t * n + k] = v;
    }
  info.samplerate = RATE;
  info.channels = n;
  info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
  f = sf_open (l->ir_path, SFM_WRITE, &info);
  sf_writef_float (f, frames, l->taps);
  sf_close (f);
  g_free (frames);
}

int
main (int argc, char **argv)
{
  gboolean quick = FALSE, no_gpu = FALSE, gpu_only = FALSE;
  gint only = -1;
  gchar *dir = g_dir_make_tmp ("bench-matrix-XXXXXX", NULL);
  Layout layouts[] = {
    {"true stereo, 4 s (192000 taps)", 2, 2, 192000, NULL, NULL},
    {"7 into 2, 14 x 16384 taps", 7, 2, 16384, NULL, NULL},
  };
  gint rc = 0;

  gst_init (&argc, &argv);
  if (bench_start ("bench-matrix", "cudaconv1d", argc, argv, &quick, &no_gpu))
    return 77;
  for (gint k = 1; k < argc; k++) {
    gpu_only |= strcmp (argv[k], "--gpu-only") == 0;
    if (strcmp (argv[k], "--layout") == 0 && k + 1 < argc)
      only = atoi (argv[++k]);
  }
  g_random_set_seed (3);
  printf ("48 kHz F32, %d-frame buffers; x real time from the 10th output "
      "buffer (floor: 1x)\n%-34s %-26s %12s\n", FRAMES, "layout", "filter",
      "x realtime");
  for (guint li = 0; li < G_N_ELEMENTS (layouts); li++) {
    Layout *l = &layouts[li];
    guint64 gpu_buffers = quick ? 2000 : 10000;
    guint64 cpu_buffers = quick ? 600 : 1500;
    gchar *d_gpu, *d_overlap, *d_cpu, *d_peer;
    gdouble gpu = -1, overlap = -1, cpu = -1, peer_rt = -1;

    if (only >= 0 && (guint) only != li)
      continue;
    make_layout (l, dir);
    d_gpu = ours (l, "backend=cuda");
    d_overlap = ours (l, "backend=cuda overlap=true");
    d_cpu = ours (l, "backend=cpu");
    d_peer = peer (l);
    if (!no_gpu) {
      gpu = run (d_gpu, l, gpu_buffers);
      overlap = run (d_overlap, l, gpu_buffers);
    }
    if (!gpu_only) {
      cpu = run (d_cpu, l, cpu_buffers);
      peer_rt = run (d_peer, l, cpu_buffers);
    }
    printf ("%-34s %-26s %12.0f\n", l->name, "cudaconv1d (GPU)", gpu);
    printf ("%-34s %-26s %12.0f\n", l->name, "cudaconv1d overlap (GPU)",
        overlap);
    printf ("%-34s %-26s %12.1f\n", l->name, "cudaconv1d (CPU backend)",
        cpu);
    printf ("%-34s %-26s %12.1f\n", l->name, "audiofirfilter graph (CPU)",
        peer_rt);
    if (peer_rt > 0 && gpu > 0)
      printf ("%-34s %-26s %11.1fx %11.1fx (overlap)\n", l->name,
          "GPU / peer", gpu / peer_rt, overlap / peer_rt);
    if ((!no_gpu && (gpu <= 0 || overlap <= 0)) || (!gpu_only && (cpu <= 0
                || peer_rt <= 0)))
      rc = 1;
    g_unlink (l->ir_path);
    g_free (l->ir_path);
    g_free (l->h);
    g_free (d_gpu);
    g_free (d_overlap);
    g_free (d_cpu);
    g_free (d_peer);
  }
  g_rmdir (dir);
  g_free (dir);
  return rc;
}
