/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Injected CUDA failures (kernels/runtime/cf_fault.h): for each element and memory
 * type, each kind of CUDA call (allocation, copy, wait, kernel launch)
 * made to fail at its first and at a later call. Each case runs in a
 * process of its own (the fault is read from CF_FAULT at start) and must:
 * post an ERROR naming the CUDA error, reach NULL without a hang, leave no
 * device memory behind (cudaMemGetInfo before and after), and run the same
 * pipeline cleanly afterwards in the same process.
 *
 * Then the GPU lost mid-stream (CF_FAULT=lost:N: every CUDA call fails from
 * the Nth on and no device is left) under backend=auto, for each element on
 * system memory. What the element does, and what is checked: the stream
 * ends with an ERROR naming the CUDA error (auto chooses at start: the
 * filter's state lives on the GPU, so it does not switch mid-stream); the
 * pipeline reaches NULL; started again in the same process, backend=auto
 * runs on the CPU to the end, and backend=cuda refuses to start, naming
 * the missing device.
 *
 *   test_faults              all cases, one process each; 77 without a GPU
 *   test_faults --case N     case N in this process (CF_FAULT set)
 */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>
#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "pipeline_end.h"
#include "test_util.h"

static const struct
{
  const gchar *name;
  const gchar *launch;
} pipelines[] = {
  {"cudaconv2d, system memory", "videotestsrc num-buffers=6 ! "
        "video/x-raw,format=RGBA,width=320,height=240 ! cudaconv2d "
        "backend=cuda preset=gaussian size=7 ! fakesink"},
  {"cudaconv2d ! cudaprefixsum, CUDA memory", "videotestsrc num-buffers=6 ! "
        "video/x-raw,format=NV12,width=320,height=240 ! cudaupload ! "
        "cudaconv2d backend=cuda planes=all ! cudaprefixsum backend=cuda "
        "output=box-mean ! cudaprefixsum backend=cuda grid-columns=2 "
        "grid-rows=2 ! cudadownload ! fakesink"},
  {"cudaprefixsum, system memory", "videotestsrc num-buffers=6 ! "
        "video/x-raw,format=GRAY8,width=320,height=240 ! cudaprefixsum "
        "backend=cuda grid-columns=3 grid-rows=3 ! cudaprefixsum backend=cuda "
        "output=adaptive-threshold ! fakesink"},
  {"cudaprefixsum, audio", "audiotestsrc num-buffers=10 ! "
        "audio/x-raw,format=S16LE,channels=2 ! cudaprefixsum backend=cuda "
        "interval=10000000 ! fakesink"},
  {"cudaconv1d, direct", "audiotestsrc num-buffers=10 ! "
        "audio/x-raw,format=F32LE,channels=2,rate=48000 ! cudaconv1d "
        "backend=cuda preset=low-pass taps=255 ! fakesink"},
  {"cudaconv1d, FFT", "audiotestsrc num-buffers=10 samplesperbuffer=1024 ! "
        "audio/x-raw,format=F32LE,channels=2,rate=48000 ! cudaconv1d "
        "backend=cuda preset=low-pass taps=16383 ! fakesink"},
  {"cudaprefixsum, loudness", "audiotestsrc num-buffers=30 "
        "samplesperbuffer=4800 ! audio/x-raw,format=F32LE,channels=2,"
        "rate=48000 ! cudaprefixsum backend=cuda loudness=true "
        "interval=100000000 ! fakesink"},
  {"cudaconv2d, long and spectral masks", "videotestsrc num-buffers=6 ! "
        "video/x-raw,format=RGBA,width=320,height=240 ! cudaconv2d "
        "backend=cuda preset=gaussian sigma=12 ! cudaconv2d backend=cuda "
        "preset=disc radius=20 ! fakesink"},
};

static const gchar *const kinds[] = { "alloc", "copy", "sync", "launch" };
static const gint nths[] = { 1, 3 };

#define N_CASES (G_N_ELEMENTS (pipelines) * G_N_ELEMENTS (kinds) \
    * G_N_ELEMENTS (nths))

/* the GPU lost: the pipelines on system memory, at the Nth call */
static const guint lost_pipelines[] = { 0, 2, 3, 4, 5, 6, 7 };
#define LOST_AT 12
#define N_LOST G_N_ELEMENTS (lost_pipelines)

/* Device memory slack: allocations are counted in 2 MiB pages. */
#define SLACK (8u << 20)

static size_t
free_device_memory (void)
{
  size_t free_bytes = 0, total = 0;

  cudaMemGetInfo (&free_bytes, &total);
  return free_bytes;
}

/* Runs `launch` to its end; "ran", "error from ...: TEXT", or "hang". */
static gchar *
run (const gchar * launch)
{
  GstElement *pipe = gst_parse_launch (launch, NULL);

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  return pipeline_end (pipe);
}

/* One case in this process. Exit status: 0 handled, 2 the fault was not
 * reached (fewer calls of that kind), 1 mishandled. Device memory may drop
 * by what the same runs without a fault keep (CF_FAULT_BASELINE bytes: the
 * libraries' code loaded into the context, such as cuFFT's), no more. */
static int
run_case (guint n)
{
  guint p = n / (G_N_ELEMENTS (kinds) * G_N_ELEMENTS (nths));
  const gchar *env = g_getenv ("CF_FAULT_BASELINE");
  size_t kept = env ? (size_t) g_ascii_strtoull (env, NULL, 10) : 0;
  size_t before, after_fault, after_clean;
  gchar *first, *second;
  int status = 0;

  cudaSetDevice (0);
  before = free_device_memory ();
  /* the Nth call may come in the second run of the pipeline */
  first = run (pipelines[p].launch);
  if (!strcmp (first, "ran")) {
    g_free (first);
    first = run (pipelines[p].launch);
  }
  after_fault = free_device_memory ();
  second = run (pipelines[p].launch);
  after_clean = free_device_memory ();

  printf ("%s, CF_FAULT=%s: %s; then: %s; device memory %+.1f MiB, %+.1f "
      "MiB\n", pipelines[p].name, g_getenv ("CF_FAULT"), first, second,
      ((double) after_fault - before) / (1 << 20),
      ((double) after_clean - before) / (1 << 20));
  if (!strcmp (first, "ran"))
    status = 2;
  else if (!g_str_has_prefix (first, "error from ") || !strstr (first,
          "cudaError"))
    status = 1;                 /* a hang, or an error not naming CUDA's */
  if (strcmp (second, "ran") != 0)
    status = 1;
  printf ("kept=%" G_GSIZE_FORMAT "\n", before > after_clean
      ? before - after_clean : 0);
  if (after_fault + kept + SLACK < before
      || after_clean + kept + SLACK < before)
    status = 1;
  g_free (first);
  g_free (second);
  return status;
}

static gchar *
with_backend (const gchar * launch, const gchar * backend)
{
  gchar **parts = g_strsplit (launch, "backend=cuda", -1);
  gchar *joined = g_strjoinv (backend, parts);

  g_strfreev (parts);
  return joined;
}

/* The GPU lost under backend=auto: 0 as described at the top, 1 not. */
/* The tail at EOS failing: cudaconv1d on planar audio copies each plane in
 * and out per buffer (ten buffers of 1000 frames: 40 copies), so the 41st
 * copy is the first of the tail it filters at EOS. The stream before it
 * comes out whole; then an ERROR, and no EOS after it: a drain that failed
 * does not end the stream as if it had not (its buffers are waited for
 * before they are unmapped). */
#define TAIL_BUFFERS 10
#define TAIL_FRAMES 1000
#define TAIL_FAULT "copy:41"
static const gchar tail_launch[] = "audiotestsrc num-buffers=10 "
    "samplesperbuffer=1000 ! audio/x-raw,format=F32LE,channels=2,"
    "rate=48000,layout=non-interleaved ! cudaconv1d backend=cuda "
    "preset=low-pass taps=255 ! fakesink name=sink";

static GstPadProbeReturn
count_frames (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info,
    gpointer data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstAudioMeta *meta = gst_buffer_get_audio_meta (buf);

  *(guint64 *) data += meta ? meta->samples
      : gst_buffer_get_size (buf) / (2 * sizeof (gfloat));
  return GST_PAD_PROBE_OK;
}

static int
run_tail_case (void)
{
  GstElement *pipe = gst_parse_launch (tail_launch, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m, *after = NULL;
  guint64 frames = 0;
  int status;

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_frames, &frames,
      NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
    after = gst_bus_timed_pop_filtered (bus, GST_SECOND, GST_MESSAGE_EOS);
  if (frames != TAIL_BUFFERS * TAIL_FRAMES || !m) {
    /* the fault struck elsewhere, or nothing ended: not this case */
    printf ("tail, CF_FAULT=%s: %" G_GUINT64_FORMAT " frames out before "
        "the end (%s)\n", TAIL_FAULT, frames, m ? "reached elsewhere"
        : "hang");
    status = m ? 2 : 1;
  } else {
    status = GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR && !after ? 0 : 1;
    printf ("tail, CF_FAULT=%s: the stream whole, then %s%s\n", TAIL_FAULT,
        GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR ? "an ERROR" : "an EOS "
        "(no error: the fault was not reached)", after ? ", then an EOS "
        "as if the tail had gone out" : ", no EOS");
  }
  g_clear_pointer (&m, gst_message_unref);
  g_clear_pointer (&after, gst_message_unref);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return status;
}

static int
run_lost_case (guint n)
{
  const gchar *launch = pipelines[lost_pipelines[n]].launch;
  gchar *on_auto = with_backend (launch, "backend=auto");
  gchar *first, *second, *third;
  int status = 0;

  first = run (on_auto);
  second = run (on_auto);
  third = run (launch);
  printf ("%s, backend=auto, CF_FAULT=%s: %s; again: %s; backend=cuda: %s\n",
      pipelines[lost_pipelines[n]].name, g_getenv ("CF_FAULT"), first, second,
      third);
  if (!g_str_has_prefix (first, "error from ")
      || !strstr (first, "cudaErrorDevicesUnavailable"))
    status = 1;
  if (strcmp (second, "ran") != 0)
    status = 1;
  if (!g_str_has_prefix (third, "error from ")
      || !strstr (third, "No usable CUDA device"))
    status = 1;
  g_free (on_auto);
  g_free (first);
  g_free (second);
  g_free (third);
  return status;
}

int
main (int argc, char **argv)
{
  int count = 0;
  gint handled = 0, unreached = 0, lost_handled = 0;
  guint64 baseline[G_N_ELEMENTS (pipelines)] = { 0 };
  gchar *self_path;

  gst_init (&argc, &argv);
  if (argc == 3 && !strcmp (argv[1], "--case"))
    return run_case ((guint) atoi (argv[2]));
  if (argc == 3 && !strcmp (argv[1], "--lost"))
    return run_lost_case ((guint) atoi (argv[2]));
  if (argc == 2 && !strcmp (argv[1], "--tail"))
    return run_tail_case ();

  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0)
    return test_skip ("faults", "no CUDA device");
  /* the children are this program, however it was started */
  self_path = g_file_read_link ("/proc/self/exe", NULL);
  if (self_path)
    argv[0] = self_path;
  /* what each pipeline keeps without a fault */
  for (guint p = 0; p < G_N_ELEMENTS (pipelines); p++) {
    gchar *index = g_strdup_printf ("%u", p * (guint) (G_N_ELEMENTS (kinds)
            * G_N_ELEMENTS (nths)));
    gchar *args[] = { argv[0], (gchar *) "--case", index, NULL };
    gchar **env = g_environ_unsetenv (g_get_environ (), "CF_FAULT");
    gchar *out = NULL, *line;

    if (g_spawn_sync (NULL, args, env, G_SPAWN_DEFAULT, NULL, NULL, &out,
            NULL, NULL, NULL) && (line = strstr (out, "kept=")))
      baseline[p] = g_ascii_strtoull (line + 5, NULL, 10);
    printf ("%s without a fault keeps %.1f MiB of device memory\n",
        pipelines[p].name, baseline[p] / 1048576.0);
    g_free (out);
    g_strfreev (env);
    g_free (index);
  }
  for (guint n = 0; n < N_CASES; n++) {
    guint p = n / (G_N_ELEMENTS (kinds) * G_N_ELEMENTS (nths));
    guint k = n / G_N_ELEMENTS (nths) % G_N_ELEMENTS (kinds);
    gchar *fault = g_strdup_printf ("%s:%d", kinds[k], nths[n
            % G_N_ELEMENTS (nths)]);
    gchar *index = g_strdup_printf ("%u", n);
    gchar *args[] = { argv[0], (gchar *) "--case", index, NULL };
    gchar *kept = g_strdup_printf ("%" G_GUINT64_FORMAT, baseline[p]);
    gchar **env = g_environ_setenv (g_environ_setenv (g_get_environ (),
            "CF_FAULT", fault, TRUE), "CF_FAULT_BASELINE", kept, TRUE);
    gchar *out = NULL;
    gint wait_status = 0;
    GError *error = NULL;
    gboolean spawned = g_spawn_sync (NULL, args, env, G_SPAWN_DEFAULT, NULL,
        NULL, &out, NULL, &wait_status, &error);
    gint code = spawned && WIFEXITED (wait_status)
        ? WEXITSTATUS (wait_status) : -1;

    printf ("%s", out ? out : "");
    test_check (spawned && (code == 0 || code == 2), "%s, %s: %s",
        pipelines[p].name, fault, spawned ? (code == -1 ? "crashed"
            : "mishandled") : error->message);
    handled += code == 0;
    unreached += code == 2;
    g_clear_error (&error);
    g_free (out);
    g_strfreev (env);
    g_free (index);
    g_free (fault);
    g_free (kept);
  }
  for (guint n = 0; n < N_LOST; n++) {
    gchar *index = g_strdup_printf ("%u", n);
    gchar *args[] = { argv[0], (gchar *) "--lost", index, NULL };
    gchar *fault = g_strdup_printf ("lost:%d", LOST_AT);
    gchar **env = g_environ_setenv (g_get_environ (), "CF_FAULT", fault,
        TRUE);
    gchar *out = NULL;
    gint wait_status = 0;
    gboolean spawned = g_spawn_sync (NULL, args, env, G_SPAWN_DEFAULT, NULL,
        NULL, &out, NULL, &wait_status, NULL);

    printf ("%s", out ? out : "");
    lost_handled += test_check (spawned && WIFEXITED (wait_status)
        && WEXITSTATUS (wait_status) == 0, "GPU lost, %s: mishandled",
        pipelines[lost_pipelines[n]].name);
    g_free (out);
    g_strfreev (env);
    g_free (fault);
    g_free (index);
  }
  {
    gchar *args[] = { argv[0], (gchar *) "--tail", NULL };
    gchar **env = g_environ_setenv (g_get_environ (), "CF_FAULT",
        TAIL_FAULT, TRUE);
    gchar *out = NULL;
    gint wait_status = 0;
    gboolean spawned = g_spawn_sync (NULL, args, env, G_SPAWN_DEFAULT, NULL,
        NULL, &out, NULL, &wait_status, NULL);

    printf ("%s", out ? out : "");
    test_check (spawned && WIFEXITED (wait_status)
        && WEXITSTATUS (wait_status) == 0, "cudaconv1d's tail failing at "
        "EOS: mishandled (see above)");
    g_free (out);
    g_strfreev (env);
  }
  printf ("faults: %u cases, %d handled, %d not reached (the element made "
      "fewer calls of that kind); GPU lost under backend=auto: %u cases, "
      "%d handled\n", (guint) N_CASES, handled, unreached, (guint) N_LOST,
      lost_handled);
  test_check (handled >= (gint) (N_CASES / 2), "only %d faults were reached",
      handled);
  g_free (self_path);
  return test_finish ("faults");
}
