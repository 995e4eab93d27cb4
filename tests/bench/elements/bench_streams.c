/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Many streams on one GPU: N independent pipelines in one process, each a
 * 1080p NV12 stream at 30 frames/s, as a server filtering many cameras
 * runs them:
 *
 *   cuda    appsrc ! cudaupload ! cudaconv2d ! cudadownload ! fakesink
 *   system  appsrc ! cudaconv2d ! fakesink
 *   copies  appsrc ! cudaupload ! identity ! cudadownload ! fakesink
 *           (GStreamer's copies alone: what limits the first form
 *           without cudaconv2d)
 *
 * cudaconv2d with its defaults (preset=gaussian, sigma 1.2: a 9x9 mask on
 * both planes). One thread feeds every source a frame each 1/30 s (the
 * same picture in a new buffer each time, with its own timestamps), the
 * streams' frames spread over the period as cameras that run on clocks of
 * their own send them ("spread"), or all at the same moment ("at once":
 * every stream's copies queue behind the others', the worst case); each
 * sink notes when its frames arrive. The pipelines share one CUDA context,
 * as an application sets it. For each N:
 *
 *   real time   every frame of the timed span reached its sink, none
 *               later than one frame period after it was pushed
 *   latency     from the push into appsrc to the sink (the filter's, plus
 *               the copies up and down in the first form): median, 99th
 *               percentile and largest over all streams' frames; and
 *               cudaconv2d's own, from its sink pad to its source pad
 *   GPU busy    the share of time the GPU ran a kernel (NVML, sampled
 *               every 100 ms over the span; "n/a" without NVML)
 *   CPU         the process's CPU time over the run's, in cores: where it
 *               nears the machine's, the host is the limit
 *
 * Spread, N goes 16, 64, 96, 128, then up by 64 while the streams hold
 * real time, up to --max (256); at once, 64 streams. Target: 64 streams in real time,
 * p99 under 2 ms.
 *
 *   bench_streams [--quick] [--max N] [--form cuda|system|copies]
 *                 [--no-gpu: refused, GPU only]
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#include "bench_cpu.h"
#include "bench_gpu.h"

#define WIDTH 1920
#define HEIGHT 1080
#define FPS 30
#define PERIOD_US (G_USEC_PER_SEC / FPS)
#define WARMUP_FRAMES FPS       /* a second, left out */

/* Times a frame (0: not yet), read once the pipelines are stopped. */
enum
{ PUSHED, FILTER_IN, FILTER_OUT, ARRIVED, STAMPS };

typedef struct
{
  GstElement *pipe, *src;
  gint64 *at[STAMPS];
  gint total;
} Stream;

typedef struct
{
  Stream *stream;
  gint stamp;
} Probe;

/* Notes the time of the frame (its index from its timestamp). */
static GstPadProbeReturn
stamp (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Probe *p = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gint64 now = g_get_monotonic_time ();
  guint64 k = gst_util_uint64_scale_round (GST_BUFFER_PTS (buf), FPS,
      GST_SECOND);

  (void) pad;
  if (GST_BUFFER_PTS_IS_VALID (buf) && k < (guint64) p->stream->total)
    p->stream->at[p->stamp][k] = now;
  return GST_PAD_PROBE_OK;
}

static void
add_stamp (Stream * s, const gchar * element, const gchar * pad_name,
    gint which)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (s->pipe), element);
  GstPad *pad = gst_element_get_static_pad (e, pad_name);
  Probe *p = g_new (Probe, 1);

  p->stream = s;
  p->stamp = which;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, stamp, p, g_free);
  gst_object_unref (pad);
  gst_object_unref (e);
}

static gboolean
stream_start (Stream * s, const gchar * middle, GstCaps * caps,
    GstContext * context, gint total)
{
  gchar *desc = g_strdup_printf ("appsrc name=src is-live=true format=time "
      "max-buffers=3 max-bytes=0 max-time=0 leaky-type=upstream ! %s "
      "! fakesink name=sink "
      "sync=false async=false", middle);
  GError *error = NULL;

  s->pipe = gst_parse_launch (desc, &error);
  g_free (desc);
  if (!s->pipe) {
    fprintf (stderr, "bench_streams: %s\n", error->message);
    g_clear_error (&error);
    return FALSE;
  }
  gst_element_set_context (s->pipe, context);
  s->src = gst_bin_get_by_name (GST_BIN (s->pipe), "src");
  g_object_set (s->src, "caps", caps, NULL);
  s->total = total;
  for (gint k = 0; k < STAMPS; k++)
    s->at[k] = g_new0 (gint64, total);
  add_stamp (s, "filter", "sink", FILTER_IN);
  add_stamp (s, "filter", "src", FILTER_OUT);
  add_stamp (s, "sink", "sink", ARRIVED);
  if (gst_element_set_state (s->pipe, GST_STATE_PLAYING)
      == GST_STATE_CHANGE_FAILURE) {
    fprintf (stderr, "bench_streams: a pipeline did not start\n");
    return FALSE;
  }
  return TRUE;
}

/* The first error a pipeline posted, or NULL. */
static gchar *
stream_error (Stream * s)
{
  GstBus *bus = gst_element_get_bus (s->pipe);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gchar *text = NULL;

  if (msg) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    g_clear_error (&err);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return text;
}

static void
stream_halt (Stream * s)
{
  if (s->pipe)
    gst_element_set_state (s->pipe, GST_STATE_NULL);
}

static void
stream_free (Stream * s)
{
  if (s->pipe)
    gst_object_unref (s->pipe);
  if (s->src)
    gst_object_unref (s->src);
  for (gint k = 0; k < STAMPS; k++)
    g_free (s->at[k]);
}

/* ---- the GPU's busy share, from NVML where the driver has it ------------ */

typedef struct
{
  unsigned int gpu, memory;
} NvmlUtilization;

typedef struct
{
  int (*get) (void *device, NvmlUtilization * u);
  void *device;
  volatile gint running;
  gdouble sum;
  gint samples;
} Busy;

static gboolean
busy_open (Busy * b)
{
  void *lib = dlopen ("libnvidia-ml.so.1", RTLD_NOW);
  int (*init) (void);
  int (*handle) (unsigned int, void **);

  memset (b, 0, sizeof (*b));
  if (!lib)
    return FALSE;
  init = (int (*)(void)) dlsym (lib, "nvmlInit_v2");
  handle = (int (*)(unsigned int, void **)) dlsym (lib,
      "nvmlDeviceGetHandleByIndex_v2");
  b->get = (int (*)(void *, NvmlUtilization *)) dlsym (lib,
      "nvmlDeviceGetUtilizationRates");
  return init && handle && b->get && init () == 0
      && handle (0, &b->device) == 0;
}

static gpointer
busy_sample (gpointer data)
{
  Busy *b = data;

  while (g_atomic_int_get (&b->running)) {
    NvmlUtilization u;
    if (b->get (b->device, &u) == 0) {
      b->sum += u.gpu;
      b->samples++;
    }
    g_usleep (100000);
  }
  return NULL;
}

/* ---- one run of N streams ---------------------------------------------- */

typedef struct
{
  gdouble median, p99, max;     /* ms */
} Spread;

typedef struct
{
  gboolean ok, real_time;
  gint lost, late;
  gdouble slowest_fps, busy, cores;
  Spread total, filter;
} Result;

static int
compare (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return (x > y) - (x < y);
}

/* Sleeps until `due` (g_get_monotonic_time's clock, CLOCK_MONOTONIC on
 * Linux), to the clock's own precision: a relative sleep of a few
 * microseconds oversleeps by tens, which at hundreds of streams a period
 * would push frames late and then in bursts. */
static void
sleep_until (gint64 due)
{
  struct timespec at = { due / G_USEC_PER_SEC, (due % G_USEC_PER_SEC) * 1000 };

  if (due > g_get_monotonic_time ())
    while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL)
        == EINTR);
}

/* Feeds every stream a frame each period, `total` frames: stream i's at
 * i / n of the period (spread), or all at its start. */
static gboolean
feed (Stream * streams, gint n, GstBuffer * frame, gint total,
    gboolean spread)
{
  gint64 t0 = g_get_monotonic_time ();

  for (gint k = 0; k < total; k++) {
    for (gint i = 0; i < n; i++) {
      gint64 due = t0 + (gint64) k * PERIOD_US + (spread ? (gint64) i
          * PERIOD_US / n : 0);
      GstBuffer *buf;
      GstFlowReturn ret;
      sleep_until (due);
      buf = gst_buffer_copy (frame);
      GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (k, GST_SECOND, FPS);
      GST_BUFFER_DURATION (buf) = GST_SECOND / FPS;
      streams[i].at[PUSHED][k] = g_get_monotonic_time ();
      ret = gst_app_src_push_buffer (GST_APP_SRC (streams[i].src), buf);
      /* (a frame dropped from a full queue, 3 frames behind, says EOS: it
       * never arrives, and counts as lost) */
      if (ret != GST_FLOW_OK && ret != GST_FLOW_EOS) {
        fprintf (stderr, "bench_streams: stream %d refused frame %d: %s\n",
            i, k, gst_flow_get_name (ret));
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* The spread of `count` times (µs), sorted here. */
static Spread
spread_of (gint64 * us, gint count)
{
  Spread s = { 0 };

  if (count > 0) {
    qsort (us, count, sizeof (gint64), compare);
    s.median = us[count / 2] / 1e3;
    s.p99 = us[(gsize) ((count - 1) * 0.99)] / 1e3;
    s.max = us[count - 1] / 1e3;
  }
  return s;
}

static Result
run (const gchar * middle, GstCaps * caps, GstContext * context,
    GstBuffer * frame, gint n, gint timed, gboolean spread)
{
  gint total = WARMUP_FRAMES + timed;
  Stream *streams = g_new0 (Stream, n);
  gint64 *latency = g_new (gint64, (gsize) n * timed);
  gint64 *in_filter = g_new (gint64, (gsize) n * timed);
  Result r = { 0 };
  Busy busy;
  GThread *sampler = NULL;
  gboolean nvml = busy_open (&busy);
  gint count = 0;
  gdouble cpu0;
  gint64 t0;

  r.ok = TRUE;
  for (gint i = 0; i < n && r.ok; i++)
    r.ok = stream_start (&streams[i], middle, caps, context, total);
  if (r.ok && nvml) {
    g_atomic_int_set (&busy.running, 1);
    sampler = g_thread_new ("nvml", busy_sample, &busy);
  }
  cpu0 = bench_cpu_seconds ();
  t0 = g_get_monotonic_time ();
  r.ok = r.ok && feed (streams, n, frame, total, spread);
  r.cores = (bench_cpu_seconds () - cpu0) * 1e6 / (g_get_monotonic_time () - t0);
  /* the last frames' time to arrive: a period, and more for what is late */
  g_usleep (4 * PERIOD_US);
  if (sampler) {
    g_atomic_int_set (&busy.running, 0);
    g_thread_join (sampler);
  }
  r.busy = busy.samples ? busy.sum / busy.samples : -1.0;
  /* errors first (stopping a pipeline drops its bus's messages), then
   * every pipeline stopped before the arrival times are read */
  for (gint i = 0; i < n; i++) {
    gchar *err = streams[i].pipe ? stream_error (&streams[i]) : NULL;
    if (err) {
      fprintf (stderr, "bench_streams: stream %d: %s\n", i, err);
      g_free (err);
      r.ok = FALSE;
    }
  }
  for (gint i = 0; i < n; i++)
    stream_halt (&streams[i]);
  r.slowest_fps = FPS;
  for (gint i = 0; i < n; i++) {
    Stream *s = &streams[i];
    gint got = 0;
    for (gint k = WARMUP_FRAMES; s->at[ARRIVED] && k < total; k++) {
      gint64 at = s->at[ARRIVED][k];
      if (!at || !s->at[FILTER_IN][k] || !s->at[FILTER_OUT][k]) {
        r.lost++;
        continue;
      }
      got++;
      in_filter[count] = s->at[FILTER_OUT][k] - s->at[FILTER_IN][k];
      latency[count++] = at - s->at[PUSHED][k];
      r.late += at - s->at[PUSHED][k] > PERIOD_US;
    }
    r.slowest_fps = MIN (r.slowest_fps, (gdouble) got * FPS / timed);
  }
  r.total = spread_of (latency, count);
  r.filter = spread_of (in_filter, count);
  r.real_time = r.ok && r.lost == 0 && r.late == 0;
  for (gint i = 0; i < n; i++)
    stream_free (&streams[i]);
  g_free (streams);
  g_free (latency);
  g_free (in_filter);
  return r;
}

static void
print_row (const gchar * memory, gboolean spread, gint n, const Result * r)
{
  gchar busy[16];

  if (r->busy < 0)
    g_strlcpy (busy, "n/a", sizeof (busy));
  else
    g_snprintf (busy, sizeof (busy), "%.0f%%", r->busy);
  printf ("%-7s %-7s %7d %9s %8.1f %6d %6d %6.2f %6.2f %7.2f %6.2f %6.2f "
      "%7.2f %5s %5.1f\n", memory, spread ? "spread" : "at once", n, !r->ok ? "failed" : r->real_time ? "yes" : "no",
      r->slowest_fps, r->lost, r->late, r->total.median, r->total.p99,
      r->total.max, r->filter.median, r->filter.p99, r->filter.max, busy,
      r->cores);
}

/* A frame of NV12 with something to blur: a gradient and a checkerboard. */
static GstBuffer *
make_frame (void)
{
  gsize luma = (gsize) WIDTH * HEIGHT;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, luma * 3 / 2, NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gint y = 0; y < HEIGHT; y++)
    for (gint x = 0; x < WIDTH; x++)
      map.data[(gsize) y * WIDTH + x] = (guint8) ((x + y) / 12
          + (((x / 16) ^ (y / 16)) & 1) * 64);
  memset (map.data + luma, 128, luma / 2);
  gst_buffer_unmap (buf, &map);
  return buf;
}

int
main (int argc, char **argv)
{
  static const struct
  {
    const gchar *memory, *middle;
  } forms[] = {
    {"cuda", "cudaupload ! cudaconv2d name=filter ! cudadownload"},
    {"system", "cudaconv2d name=filter"},
    /* GStreamer's copies alone, `identity` in the filter's place (the caps
     * keep the frames in CUDA memory: without them cudaupload would pass
     * system memory through): what the first form costs without
     * cudaconv2d */
    {"copies", "cudaupload ! video/x-raw(memory:CUDAMemory) "
          "! identity name=filter ! cudadownload"},
  };
  gboolean quick, no_gpu;
  gint max = 256, status;
  const gchar *only = NULL;     /* --form NAME: that form alone */
  GstCudaContext *cuda;
  GstContext *context;
  GstCaps *caps;
  GstBuffer *frame;

  gst_init (&argc, &argv);
  for (gint k = 1; k + 1 < argc; k++) {
    if (strcmp (argv[k], "--max") == 0)
      max = MAX (16, atoi (argv[k + 1]));
    if (strcmp (argv[k], "--form") == 0)
      only = argv[k + 1];
  }
  status = bench_start ("bench-streams", "cudaconv2d", argc, argv, &quick,
      &no_gpu);
  if (status)
    return status;
  if (no_gpu) {
    printf ("SKIP bench-streams: the GPU's streams are what it measures\n");
    return 77;
  }
  if (!gst_element_factory_find ("cudaupload")) {
    printf ("SKIP bench-streams: no cudaupload (GStreamer's nvcodec)\n");
    return 77;
  }
  cuda = gst_cuda_load_library () ? gst_cuda_context_new (0) : NULL;
  if (!cuda) {
    printf ("SKIP bench-streams: no CUDA context on device 0\n");
    return 77;
  }
  context = gst_context_new_cuda_context (cuda);
  caps = gst_caps_from_string ("video/x-raw,format=NV12,width=1920,"
      "height=1080,framerate=30/1");
  frame = make_frame ();

  printf ("N streams of 1080p NV12 at %d frames/s, cudaconv2d with its "
      "defaults, %s s timed a run after 1 s\n", FPS, quick ? "2" : "10");
  printf ("%-7s %-7s %7s %9s %8s %6s %6s %6s %6s %7s %6s %6s %7s %5s "
      "%5s\n", "memory", "frames", "streams", "real time", "min fps", "lost",
      "late", "med", "p99", "max", "f med", "f p99", "f max", "GPU", "CPU");
  printf ("(latency in ms, push to sink; f: in cudaconv2d; CPU in cores of "
      "%d)\n", g_get_num_processors ());
  for (guint f = 0; f < G_N_ELEMENTS (forms); f++) {
    gint held = 0, failed = 0, timed = quick ? 2 * FPS : 10 * FPS;
    Result r;
    if (only && strcmp (only, forms[f].memory))
      continue;
    r = run (forms[f].middle, caps, context, frame, 64, timed, FALSE);
    print_row (forms[f].memory, FALSE, 64, &r);
    for (gint n = 16; n <= max;
        n = n < 64 ? 64 : n < 96 ? 96 : n < 128 ? 128 : n + 64) {
      r = run (forms[f].middle, caps, context, frame, n, timed, TRUE);
      print_row (forms[f].memory, TRUE, n, &r);
      if (!r.real_time) {
        failed = n;
        break;
      }
      held = n;
    }
    if (failed)
      printf ("%s, spread: %d streams held real time, %d did not\n",
          forms[f].memory, held, failed);
    else
      printf ("%s, spread: %d streams held real time (the most tried)\n",
          forms[f].memory, held);
  }
  printf ("target: 64 streams in real time with p99 under 2 ms\n");
  gst_buffer_unref (frame);
  gst_caps_unref (caps);
  gst_context_unref (context);
  gst_object_unref (cuda);
  return 0;
}
