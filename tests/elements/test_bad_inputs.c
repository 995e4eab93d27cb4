/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bad-input catalogue: inputs a user can give the three elements by
 * mistake, each run through a whole pipeline as gst-launch-1.0 would, and
 * the behaviour each must have: a clear error from the element (an ERROR
 * message with a text), or its documented behaviour (the stream runs to
 * its end). Never a crash, a CRITICAL or WARNING from GLib or GStreamer, or
 * a hang (30 s). docs/bad-inputs.md lists the same cases.
 *
 *   test_bad_inputs [BACKEND]      (default cpu: the same on every machine)
 */
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>

#include "pipeline_end.h"
#include "test_util.h"

typedef enum
{
  RUNS,                         /* to EOS, no error */
  FAILS,                        /* an ERROR message with a text */
} Expect;

typedef struct
{
  const gchar *what;
  Expect expect;
  const gchar *launch;          /* %B: backend, %D: the folder of files */
  gsize truncate_to;            /* appsrc: push one buffer of this size */
} Case;

#define V(caps) "videotestsrc num-buffers=2 ! video/x-raw," caps
#define A(caps) "audiotestsrc num-buffers=4 ! audio/x-raw," caps
#define A64 A ("format=F32LE,rate=48000,channels=64,channel-mask=(bitmask)0")
#define C2 " ! cudaconv2d backend=%B "
#define C1 " ! cudaconv1d backend=%B "
#define PS " ! cudaprefixsum backend=%B "
#define SINK " ! fakesink"
#define ONES11 "1 1 1 1 1 1 1 1 1 1 1 "
#define ONES33 ONES11 ONES11 ONES11
#define ONES257 ONES33 ONES33 ONES33 ONES33 ONES33 ONES33 ONES33 ONES11 ONES11 ONES11 ONES11 "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 "

static const Case cases[] = {
  /* cudaconv2d: masks */
  {"conv2d empty kernel: the preset", RUNS, V ("format=RGBA") C2 "kernel=\"\"" SINK, 0},
  {"conv2d kernel of even width", FAILS, V ("format=RGBA") C2 "kernel=\"1 2\"" SINK, 0},
  {"conv2d ragged rows", FAILS, V ("format=RGBA") C2 "kernel=\"1 2 3; 4 5\"" SINK, 0},
  {"conv2d NaN tap", FAILS, V ("format=RGBA") C2 "kernel=\"nan 1 1\"" SINK, 0},
  {"conv2d infinite tap", FAILS, V ("format=RGBA") C2 "kernel=\"1 inf 1\"" SINK, 0},
  {"conv2d tap beyond float", FAILS, V ("format=RGBA") C2 "kernel=\"1e40\"" SINK, 0},
  {"conv2d text in kernel", FAILS, V ("format=RGBA") C2 "kernel=\"a b c\"" SINK, 0},
  {"conv2d only separators", FAILS, V ("format=RGBA") C2 "kernel=\";\"" SINK, 0},
  {"conv2d mask 33 x 3: separable, a long mask", RUNS, V ("format=GRAY8") C2 "kernel=\"" ONES33 ";" ONES33 ";" ONES33 "\"" SINK, 0},
  {"conv2d mask 257 x 3 (over 255 and not one row)", FAILS, V ("format=GRAY8") C2 "kernel=\"" ONES257 ";" ONES257 ";" ONES257 "\"" SINK, 0},
  {"conv2d roi-types with an empty name", FAILS, V ("format=RGBA") C2 "roi=true roi-types=\"face,,plate\"" SINK, 0},
  {"conv2d roi on frames without metas: copied as they are", RUNS, V ("format=NV12") C2 "roi=true roi-sigma=0.2 roi-feather=20 planes=all" SINK, 0},
  {"conv2d disc radius 0", FAILS, V ("format=RGBA") C2 "preset=disc radius=0" SINK, 0},
  {"conv2d disc radius 100 on a 3x2 frame: reaches past any frame", RUNS, V ("format=RGBA,width=3,height=2") C2 "preset=disc radius=100 border=mirror" SINK, 0},
  {"conv2d one row of 33: a long mask", RUNS, V ("format=GRAY8") C2 "kernel=\"" ONES33 "\"" SINK, 0},
  {"conv2d unsharp size 33: not separable, over 31", FAILS, V ("format=RGBA") C2 "preset=unsharp size=33" SINK, 0},
  {"conv2d box 1023 on a 1x1 frame: long masks reach past any frame", RUNS, V ("format=RGBA,width=1,height=1") C2 "preset=box size=1023 border=wrap" SINK, 0},
  {"conv2d sigma 170 on GRAY16 3x2", RUNS, V ("format=GRAY16_LE,width=3,height=2") C2 "preset=gaussian sigma=170 border=mirror" SINK, 0},
  {"conv2d box 33 on 70000 rows: long masks take at most 65535", FAILS, V ("format=GRAY8,width=1,height=70000") C2 "preset=box size=33" SINK, 0},
  {"conv2d mask file missing", FAILS, V ("format=RGBA") C2 "mask-location=/nonexistent/mask.pgm" SINK, 0},
  {"conv2d even preset size", FAILS, V ("format=GRAY8") C2 "preset=box size=4" SINK, 0},
  {"conv2d zero-sum mask, divisor 0: divides by 1", RUNS, V ("format=GRAY8") C2 "preset=laplacian" SINK, 0},
  {"conv2d divisor 1e-9: saturates", RUNS, V ("format=GRAY8") C2 "divisor=1e-9" SINK, 0},
  {"conv2d divisor 1e-300: 1 / divisor beyond float", FAILS, V ("format=GRAY8") C2 "divisor=1e-300" SINK, 0},
  /* cudaconv2d: frames */
  {"conv2d 1x1 RGBA, 3x3 mask: larger than the frame", FAILS, V ("format=RGBA,width=1,height=1") C2 "preset=sharpen" SINK, 0},
  {"conv2d 1x1 GRAY8, 1x1 mask", RUNS, V ("format=GRAY8,width=1,height=1") C2 "kernel=2 divisor=3" SINK, 0},
  {"conv2d 16384 wide GRAY8", RUNS, V ("format=GRAY8,width=16384,height=3") C2 "preset=sharpen" SINK, 0},
  {"conv2d 16384 wide RGBA", RUNS, V ("format=RGBA,width=16384,height=3") C2 "preset=emboss border=wrap" SINK, 0},
  {"conv2d I420 2x2, 5x5 mask on the chroma", FAILS, V ("format=I420,width=2,height=2") C2 "preset=box size=5 planes=all" SINK, 0},
  {"conv2d no frames at all", RUNS, "videotestsrc num-buffers=0 ! video/x-raw,format=RGBA" C2 SINK, 0},
  {"conv2d truncated buffer", FAILS, "appsrc name=src caps=video/x-raw,format=RGBA,width=64,height=64,framerate=30/1 format=time" C2 SINK, 100},
  {"conv2d caps changing mid-stream", RUNS, V ("format=RGBA,width=64,height=48") " ! videoscale ! video/x-raw,width=32,height=24" C2 SINK, 0},
  /* cudaconv1d: masks and presets */
  {"conv1d NaN tap", FAILS, A ("format=F32LE") C1 "kernel=\"0.5 nan 0.5\"" SINK, 0},
  {"conv1d text in kernel", FAILS, A ("format=F32LE") C1 "kernel=\"x\"" SINK, 0},
  {"conv1d 3 masks for 2 channels", FAILS, A ("format=F32LE,channels=2") C1 "kernel=\"1; 2; 3\"" SINK, 0},
  {"conv1d even preset length", FAILS, A ("format=F32LE") C1 "preset=low-pass taps=256" SINK, 0},
  {"conv1d cutoff above Nyquist", FAILS, A ("format=F32LE,rate=48000") C1 "preset=low-pass cutoff=30000" SINK, 0},
  {"conv1d cutoff 0", FAILS, A ("format=F32LE") C1 "preset=low-pass cutoff=0" SINK, 0},
  {"conv1d no data, EOS", RUNS, "audiotestsrc num-buffers=0 ! audio/x-raw,format=F32LE" C1 "kernel=\"0.5 0.5\"" SINK, 0},
  {"conv1d 64 channels", RUNS, "audiotestsrc num-buffers=4 ! audio/x-raw,format=F32LE,channels=64,channel-mask=(bitmask)0" C1 "kernel=\"0.25 0.5 0.25\"" SINK, 0},
  {"conv1d 1 Hz stream", RUNS, A ("format=S16LE,rate=1") C1 "kernel=\"1 1\"" SINK, 0},
  {"conv1d latency beyond the mask", FAILS, A ("format=F32LE") C1 "kernel=\"1 1 1\" latency=1000" SINK, 0},
  /* cudaconv1d: impulse-response files */
  {"conv1d IR file missing", FAILS, A ("format=F32LE") C1 "location=%D/missing.wav" SINK, 0},
  {"conv1d IR file empty", FAILS, A ("format=F32LE") C1 "location=%D/empty.wav" SINK, 0},
  {"conv1d IR file of text", FAILS, A ("format=F32LE") C1 "location=%D/text.wav" SINK, 0},
  {"conv1d IR file of 0 frames", FAILS, A ("format=F32LE") C1 "location=%D/zero.wav" SINK, 0},
  {"conv1d IR file of 64 channels, stereo stream", FAILS, A ("format=F32LE,channels=2") C1 "location=%D/ch64.wav" SINK, 0},
  {"conv1d IR at 8 kHz, stream at 48 kHz: resampled", RUNS, A ("format=F32LE,rate=48000") C1 "location=%D/r8k.wav" SINK, 0},
  {"conv1d IR at 384 kHz, stream at 48 kHz: resampled", RUNS, A ("format=F32LE,rate=48000") C1 "location=%D/r384k.wav" SINK, 0},
  {"conv1d IR at 1 Hz: too long once resampled", FAILS, A ("format=F32LE,rate=48000") C1 "location=%D/r1.wav" SINK, 0},
  {"conv1d IR is a directory", FAILS, A ("format=F32LE") C1 "location=%D" SINK, 0},
  {"conv1d IR of 64 x 262400 frames: too many taps in all", FAILS, A64 C1 "location=%D/ch64long.wav" SINK, 0},
  {"conv1d IR of 64 ch at 8 Hz: too many once resampled", FAILS, A64 C1 "location=%D/ch64r8.wav" SINK, 0},
  /* cudaprefixsum */
  {"prefixsum radius beyond the frame: clipped windows", RUNS, V ("format=GRAY8,width=16,height=9") PS "output=box-mean radius=1024" SINK, 0},
  {"prefixsum grid finer than the frame", FAILS, V ("format=GRAY8,width=16,height=9") PS "grid-columns=4096 grid-rows=2" SINK, 0},
  {"prefixsum box-mean on audio", FAILS, A ("format=F32LE") PS "output=box-mean" SINK, 0},
  {"prefixsum interval 1 ns on audio", RUNS, A ("format=S16LE") PS "interval=1" SINK, 0},
  {"prefixsum interval of centuries", RUNS, V ("format=GRAY8") PS "interval=18446744073709551615" SINK, 0},
  {"prefixsum 1x1 GRAY16", RUNS, V ("format=GRAY16_LE,width=1,height=1") PS "grid-columns=1 grid-rows=1" SINK, 0},
  {"prefixsum 16384 wide RGBA threshold", RUNS, V ("format=RGBA,width=16384,height=2") PS "output=adaptive-threshold" SINK, 0},
  {"prefixsum truncated buffer", FAILS, "appsrc name=src caps=video/x-raw,format=GRAY8,width=64,height=64,framerate=30/1 format=time" PS SINK, 10},
  {"conv1d non-interleaved buffer without GstAudioMeta", FAILS, "appsrc name=src caps=audio/x-raw,format=F32LE,rate=48000,channels=2,layout=non-interleaved format=time" C1 SINK, 1024},
  {"prefixsum no frames, EOS", RUNS, "videotestsrc num-buffers=0" PS SINK, 0},
  {"prefixsum 64 audio channels", RUNS, "audiotestsrc num-buffers=4 ! audio/x-raw,format=F32LE,channels=64,channel-mask=(bitmask)0" PS SINK, 0},
  /* channel matrices, loudness */
  {"conv1d matrix naming input channel 5 of 2", FAILS, A ("format=F32LE,channels=2") C1 "kernel=\"1; 1\" matrix=\"0:0:0 5:1:1\"" SINK, 0},
  {"conv1d matrix with a pair given twice", FAILS, A ("format=F32LE,channels=2") C1 "kernel=\"1; 1\" matrix=\"0:0:0 0:0:1\"" SINK, 0},
  {"conv1d 5 responses on a stereo stream", FAILS, A ("format=F32LE,channels=2") C1 "kernel=\"1; 1; 1; 1; 1\"" SINK, 0},
  {"conv1d out-channels=3, downstream takes 2", FAILS, A ("format=F32LE,channels=2") C1 "out-channels=3 kernel=\"1; 1; 1; 1; 1; 1\" ! audio/x-raw,channels=2" SINK, 0},
  {"prefixsum loudness on video: a warning", RUNS, V ("format=GRAY8") PS "loudness=true" SINK, 0},
  {"prefixsum loudness at the longest interval", RUNS, A ("format=F32LE,channels=2") PS "loudness=true interval=18446744073709551615" SINK, 0},
};

/* ---- CRITICALs and WARNINGs from GLib/GStreamer fail the case ---------- */

static gint bad_logs;

static void
count_log (const gchar * domain, GLogLevelFlags level, const gchar * message,
    gpointer user G_GNUC_UNUSED)
{
  bad_logs++;
  printf ("  %s%s%s: %s\n", domain ? domain : "", domain ? "-" : "",
      level & G_LOG_LEVEL_CRITICAL ? "CRITICAL" : "WARNING", message);
}

/* ---- the files the impulse-response cases read ------------------------- */

static gboolean
write_wav (const gchar * path, const gchar * caps, gint buffers)
{
  gchar *desc = g_strdup_printf ("audiotestsrc num-buffers=%d "
      "samplesperbuffer=256 ! audio/x-raw,%s ! wavenc ! filesink "
      "location=%s", buffers, caps, path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *m;
  gboolean ok;

  gst_element_set_state (p, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  ok = m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
  if (m)
    gst_message_unref (m);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (desc);
  return ok;
}

static gboolean
make_files (const gchar * dir)
{
  gchar *path;
  gboolean ok;

  path = g_build_filename (dir, "empty.wav", NULL);
  ok = g_file_set_contents (path, "", 0, NULL);
  g_free (path);
  path = g_build_filename (dir, "text.wav", NULL);
  ok = ok && g_file_set_contents (path, "RIFF? no: a text file\n", -1, NULL);
  g_free (path);
  path = g_build_filename (dir, "zero.wav", NULL);
  ok = ok && write_wav (path, "format=F32LE,channels=1,rate=48000", 0);
  g_free (path);
  path = g_build_filename (dir, "ch64.wav", NULL);
  ok = ok && write_wav (path, "format=S16LE,channels=64,rate=48000,"
      "channel-mask=(bitmask)0", 2);
  g_free (path);
  path = g_build_filename (dir, "r8k.wav", NULL);
  ok = ok && write_wav (path, "format=S16LE,channels=1,rate=8000", 4);
  g_free (path);
  path = g_build_filename (dir, "r1.wav", NULL);
  ok = ok && write_wav (path, "format=S16LE,channels=1,rate=1", 1);
  g_free (path);
  path = g_build_filename (dir, "r384k.wav", NULL);
  ok = ok && write_wav (path, "format=S16LE,channels=1,rate=384000", 8);
  g_free (path);
  /* within the limit a mask has, over the one for all masks together:
   * as read (1025 x 256 frames), and once resampled (256 frames at 8 Hz
   * are 1536000 at 48 kHz) */
  path = g_build_filename (dir, "ch64long.wav", NULL);
  ok = ok && write_wav (path, "format=U8,channels=64,rate=48000,"
      "channel-mask=(bitmask)0", 1025);
  g_free (path);
  path = g_build_filename (dir, "ch64r8.wav", NULL);
  ok = ok && write_wav (path, "format=S16LE,channels=64,rate=8,"
      "channel-mask=(bitmask)0", 1);
  g_free (path);
  return ok;
}

/* ---- one case ------------------------------------------------------------ */

static gchar *
expand (const gchar * launch, const gchar * backend, const gchar * dir)
{
  GString *s = g_string_new (NULL);

  for (const gchar * p = launch; *p; p++) {
    if (p[0] == '%' && p[1] == 'B') {
      g_string_append (s, backend);
      p++;
    } else if (p[0] == '%' && p[1] == 'D') {
      g_string_append (s, dir);
      p++;
    } else {
      g_string_append_c (s, *p);
    }
  }
  return g_string_free (s, FALSE);
}

/* Runs the case; returns what happened: "ran", "error: ...", "hang",
 * "cannot build". */
static gchar *
run_case (const Case * c, const gchar * backend, const gchar * dir)
{
  gchar *desc = expand (c->launch, backend, dir);
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error);
  GstElement *src;
  gchar *result;

  g_free (desc);
  /* a link refused while parsing is gst-launch-1.0's error too (it stops
   * there): the pipeline comes back with the error set */
  if (!pipe || error) {
    result = g_strdup_printf ("cannot build: %s", error->message);
    g_clear_error (&error);
    if (pipe)
      gst_object_unref (pipe);
    return result;
  }
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  if (src) {
    GstBuffer *b = gst_buffer_new_allocate (NULL, c->truncate_to, NULL);
    gst_buffer_memset (b, 0, 0x55, c->truncate_to);
    GST_BUFFER_PTS (b) = 0;
    gst_app_src_push_buffer (GST_APP_SRC (src), b);
    gst_app_src_end_of_stream (GST_APP_SRC (src));
    gst_object_unref (src);
  }
  return pipeline_end (pipe);
}

int
main (int argc, char **argv)
{
  const gchar *backend = argc > 1 ? argv[1] : "cpu";
  gchar *dir = NULL;
  gint errors = 0, ran = 0;

  gst_init (&argc, &argv);
  g_log_set_default_handler (count_log, NULL);
  g_log_set_handler (NULL, G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING,
      count_log, NULL);
  g_log_set_handler ("GLib", G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING,
      count_log, NULL);
  g_log_set_handler ("GLib-GObject", G_LOG_LEVEL_CRITICAL
      | G_LOG_LEVEL_WARNING, count_log, NULL);
  g_log_set_handler ("GStreamer", G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING,
      count_log, NULL);
  if (!gst_element_factory_find ("cudaconv2d"))
    return test_skip ("bad-inputs", "the plugin is not on the plugin path");
  if (strcmp (backend, "cpu") != 0) {
    /* the GPU cases need a GPU: without one they would test only that */
    static const Case probe = { "GPU", RUNS, "videotestsrc num-buffers=1 "
          "! cudaconv2d backend=%B ! fakesink", 0 };
    gchar *got = run_case (&probe, backend, "");
    if (strcmp (got, "ran") != 0) {
      gint rc = test_skip ("bad-inputs", got);
      g_free (got);
      return rc;
    }
    g_free (got);
  }
  dir = g_dir_make_tmp ("cf-bad-inputs-XXXXXX", NULL);
  if (!test_check (dir && make_files (dir), "cannot write the IR files"))
    return test_finish ("bad-inputs");

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    const Case *c = &cases[k];
    gint logs_before = bad_logs;
    gchar *got = run_case (c, backend, dir);
    gboolean failed = g_str_has_prefix (got, "error from ")
        || g_str_has_prefix (got, "cannot build: could not link");
    gboolean ok = c->expect == FAILS ? failed && !strstr (got, "(no text)")
        : strcmp (got, "ran") == 0;

    printf ("%-3u %-52s %s\n", k + 1, c->what, got);
    test_check (ok, "%s: expected %s, got %s", c->what,
        c->expect == FAILS ? "an error with a text" : "the stream to run",
        got);
    test_check (bad_logs == logs_before, "%s: GLib/GStreamer warned",
        c->what);
    errors += failed;
    ran += strcmp (got, "ran") == 0;
    g_free (got);
  }
  printf ("bad inputs: %u tried, %d clear errors, %d ran as documented, "
      "0 crashes\n", (guint) G_N_ELEMENTS (cases), errors, ran);
  {
    GDir *d = g_dir_open (dir, 0, NULL);
    const gchar *name;
    while (d && (name = g_dir_read_name (d))) {
      gchar *p = g_build_filename (dir, name, NULL);
      g_unlink (p);
      g_free (p);
    }
    if (d)
      g_dir_close (d);
    g_rmdir (dir);
  }
  g_free (dir);
  return test_finish ("bad-inputs");
}
