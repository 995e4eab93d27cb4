/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Soak: pushes many buffers through each element and watches memory. Not
 * part of the test suite (it runs for minutes); a benchmark-style program:
 *
 *   soak [--buffers N] [--backend cpu|auto|cuda] [--only I[,J...]]
 *        [--parallel] [--seconds S]
 *
 * --only runs the listed elements of the list below (counted from 0) and
 * no others; --parallel runs
 * them side by side in this process (on the GPU, one context: processes
 * side by side would take turns on the GPU); --seconds stops feeding after
 * S seconds (reported as stopped early, a failure) and samples memory in
 * time rather than in buffers.
 *
 * For each of cudaconv2d, cudaprefixsum (video and audio) and cudaconv1d,
 * N buffers (default 1000000) go from an appsrc, which pushes the same few
 * buffers again and again, through the element into a fakesink. The
 * process's resident memory (and, on the GPU, the device's free memory) is
 * sampled 20 times; after the first fifth (warm-up: pools filling) the
 * least-squares slope per million buffers must stay under 1 MiB (or grow
 * less than 1 MiB in all, in runs shorter than a million), and no error
 * may come. Exit status 0 when every element stays flat. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>

#include "gpu.h"

#define SAMPLES 20
#define FLAT (1 << 20)          /* bytes per million buffers */

static const struct
{
  const gchar *name;
  const gchar *caps;
  const gchar *element;
  gsize size;                   /* of a buffer */
  gint per_second_n, per_second_d;      /* buffers a second, a fraction */
} runs[] = {
  {"cudaconv2d GRAY8 64x48", "video/x-raw,format=GRAY8,width=64,height=48,"
        "framerate=30/1", "cudaconv2d preset=gaussian size=5", 64 * 48, 30, 1},
  {"cudaprefixsum NV12 64x48 grid", "video/x-raw,format=NV12,width=64,"
        "height=48,framerate=30/1", "cudaprefixsum grid-columns=2 "
        "grid-rows=2 interval=1 post-messages=true", 64 * 48 * 3 / 2, 30, 1},
  {"cudaprefixsum audio", "audio/x-raw,format=F32LE,channels=2,rate=48000,"
        "layout=interleaved", "cudaprefixsum interval=10000000", 256 * 8,
      48000, 256},
  {"cudaconv1d F32 stereo 63 taps", "audio/x-raw,format=F32LE,channels=2,"
        "rate=48000,layout=interleaved", "cudaconv1d preset=low-pass taps=63",
      256 * 8, 48000, 256},
};

static gsize
resident_bytes (void)
{
  long pages = 0, resident = 0;
  FILE *f = fopen ("/proc/self/statm", "r");

  if (f) {
    if (fscanf (f, "%ld %ld", &pages, &resident) != 2)
      resident = 0;
    fclose (f);
  }
  return (gsize) resident * (gsize) sysconf (_SC_PAGESIZE);
}

/* Least-squares slope of y over x. */
static gdouble
slope (const gdouble * x, const gdouble * y, gint n)
{
  gdouble mx = 0, my = 0, sxy = 0, sxx = 0;

  for (gint i = 0; i < n; i++) {
    mx += x[i] / n;
    my += y[i] / n;
  }
  for (gint i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxx > 0 ? sxy / sxx : 0;
}

typedef struct
{
  GstBuffer *buffers[4];
  gint per_second_n, per_second_d;
  guint64 pushed, total;
  gint64 start, deadline;       /* monotonic time the feed stops at, or 0 */
  gdouble at[SAMPLES], rss[SAMPLES], device[SAMPLES];
  gint samples;
  gboolean gpu;
} Feed;

static void
need_data (GstAppSrc * src, guint length G_GNUC_UNUSED, gpointer user)
{
  Feed *f = user;
  GstBuffer *b;

  if (f->pushed == f->total
      || (f->deadline && g_get_monotonic_time () > f->deadline)) {
    gst_app_src_end_of_stream (src);
    return;
  }
  if (f->samples < SAMPLES && (f->deadline
          ? g_get_monotonic_time () >= f->start + (f->deadline - f->start)
          * f->samples / SAMPLES : f->pushed % (f->total / SAMPLES) == 0)) {
    size_t free_bytes = 0, total = 0;
    if (f->gpu)
      cf_gpu_mem_info (&free_bytes, &total);
    f->at[f->samples] = f->pushed / 1e6;
    f->rss[f->samples] = resident_bytes ();
    f->device[f->samples] = (gdouble) total - free_bytes;
    f->samples++;
  }
  b = gst_buffer_copy (f->buffers[f->pushed % 4]);     /* shares the memory */
  /* timestamps that follow the content: an audio filter takes a jump for
   * a discontinuity and drains */
  GST_BUFFER_PTS (b) = gst_util_uint64_scale (f->pushed, GST_SECOND
      * f->per_second_d, f->per_second_n);
  GST_BUFFER_DURATION (b) = gst_util_uint64_scale (f->pushed + 1,
      GST_SECOND * f->per_second_d, f->per_second_n) - GST_BUFFER_PTS (b);
  f->pushed++;
  gst_app_src_push_buffer (src, b);
}

/* One element's pipeline and what it measured. */
typedef struct
{
  guint index;
  GstElement *pipe;
  GstBus *bus;
  Feed feed;
  gint64 t0, t1;
  gboolean done, failed;
} Soak;

static void
soak_start (Soak * k, guint r, guint64 n, const gchar * backend,
    gboolean gpu, gint64 deadline)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time caps=\"%s\" "
      "max-buffers=4 ! %s backend=%s ! fakesink sync=false", runs[r].caps,
      runs[r].element, backend);
  GstElement *src;
  GstAppSrcCallbacks cb = { need_data, NULL, NULL, {NULL} };

  memset (k, 0, sizeof (*k));
  k->index = r;
  k->pipe = gst_parse_launch (desc, NULL);
  k->bus = gst_element_get_bus (k->pipe);
  k->feed.total = n;
  k->feed.per_second_n = runs[r].per_second_n;
  k->feed.per_second_d = runs[r].per_second_d;
  k->feed.gpu = gpu;
  k->feed.deadline = deadline;
  k->feed.start = g_get_monotonic_time ();
  for (guint b = 0; b < 4; b++) {
    k->feed.buffers[b] = gst_buffer_new_allocate (NULL, runs[r].size, NULL);
    gst_buffer_memset (k->feed.buffers[b], 0, 37 * (b + 1), runs[r].size);
  }
  src = gst_bin_get_by_name (GST_BIN (k->pipe), "src");
  gst_app_src_set_callbacks (GST_APP_SRC (src), &cb, &k->feed, NULL);
  gst_object_unref (src);
  k->t0 = g_get_monotonic_time ();
  gst_element_set_state (k->pipe, GST_STATE_PLAYING);
  g_free (desc);
}

/* Reads the bus (element messages, the statistics, pile up unless read);
 * TRUE once the stream ended. */
static gboolean
soak_poll (Soak * k, GstClockTime timeout)
{
  GstMessage *m;

  while (!k->done && (m = gst_bus_timed_pop (k->bus, timeout))) {
    GstMessageType t = GST_MESSAGE_TYPE (m);
    gst_message_unref (m);
    if (t == GST_MESSAGE_EOS || t == GST_MESSAGE_ERROR) {
      k->failed = t == GST_MESSAGE_ERROR;
      k->done = TRUE;
      k->t1 = g_get_monotonic_time ();
    }
    timeout = 0;
  }
  return k->done;
}

/* Prints the row; returns 1 when the element failed or did not stay flat. */
static gint
soak_finish (Soak * k)
{
  Feed *f = &k->feed;
  gdouble secs = (k->t1 - k->t0) / 1e6;
  gint skip = SAMPLES / 5;
  gdouble rss_slope = slope (f->at + skip, f->rss + skip, f->samples - skip);
  gdouble dev_slope = f->gpu ? slope (f->at + skip, f->device + skip,
      f->samples - skip) : 0;
  /* the window the slopes span, in millions of buffers: in a short run a
   * page or two of late warm-up is a steep slope but no leak */
  gdouble window = f->samples > skip ? f->at[f->samples - 1] - f->at[skip] : 0;
  gint bad = k->failed || f->pushed != f->total
      || (rss_slope > FLAT && rss_slope * window > FLAT)
      || (dev_slope > FLAT && dev_slope * window > FLAT);

  printf ("%-32s %9.1f %10.0f %10" G_GUINT64_FORMAT " %10.1f %+11.3f MiB/M "
      "%+.3f MiB/M%s\n", runs[k->index].name, secs, f->pushed / secs,
      f->pushed, f->rss[MAX (f->samples - 1, 0)] / 1048576,
      rss_slope / 1048576, dev_slope / 1048576, k->failed ? " (error)"
      : f->pushed == f->total ? "" : " (stopped early)");
  gst_element_set_state (k->pipe, GST_STATE_NULL);
  for (guint b = 0; b < 4; b++)
    gst_buffer_unref (f->buffers[b]);
  gst_object_unref (k->bus);
  gst_object_unref (k->pipe);
  return bad;
}

int
main (int argc, char **argv)
{
  guint64 n = 1000000;
  const gchar *backend = "cpu";
  guint only = ~0u;              /* a bit per element run */
  gboolean parallel = FALSE;
  gint64 deadline = 0;
  gint count = 0, bad = 0;
  Soak soaks[G_N_ELEMENTS (runs)];
  guint batch;

  gst_init (&argc, &argv);
  for (gint i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--parallel"))
      parallel = TRUE;
    else if (i + 1 == argc)
      break;
    else if (!strcmp (argv[i], "--buffers"))
      n = g_ascii_strtoull (argv[++i], NULL, 10);
    else if (!strcmp (argv[i], "--backend"))
      backend = argv[++i];
    else if (!strcmp (argv[i], "--only")) {
      gchar **picked = g_strsplit (argv[++i], ",", -1);
      only = 0;
      for (gchar ** p = picked; *p; p++)
        only |= 1u << (atoi (*p) % G_N_ELEMENTS (runs));
      g_strfreev (picked);
    }
    else if (!strcmp (argv[i], "--seconds"))
      deadline = g_get_monotonic_time ()
          + (gint64) (g_ascii_strtod (argv[++i], NULL) * 1e6);
  }
  n = MAX (n, SAMPLES);
  cf_gpu_device_count (&count);
  printf ("soak: %" G_GUINT64_FORMAT " buffers per element, backend=%s%s\n",
      n, backend, parallel ? ", side by side" : "");
  printf ("%-32s %9s %10s %10s %10s %15s %s\n", "element", "seconds",
      "buffers/s", "buffers", "RSS MiB", "RSS slope", "device slope");
  /* side by side, RSS is the process's: a leak in one element shows in
   * every row; device memory is the device's in any case */
  batch = parallel ? G_N_ELEMENTS (runs) : 1;
  for (guint r = 0; r < G_N_ELEMENTS (runs); r += batch) {
    guint started = 0, left;
    for (guint k = 0; k < batch; k++)
      if (only & (1u << (r + k)))
        soak_start (&soaks[started++], r + k, n, backend,
            strcmp (backend, "cpu") != 0 && count > 0, deadline);
    for (left = started; left > 0;)
      for (guint k = 0; k < started; k++)
        if (!soaks[k].done && soak_poll (&soaks[k], 10 * GST_MSECOND))
          left--;
    for (guint k = 0; k < started; k++)
      bad += soak_finish (&soaks[k]);
  }
  printf ("soak: %s\n", bad ? "FAILED" : "flat");
  return bad ? 1 : 0;
}
