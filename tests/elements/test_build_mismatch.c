/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A driver too old for the build, or a GPU the build has no code for, as a
 * user meets them, through each element:
 *
 * - backend=auto posts a WARNING that names the versions and the remedy,
 *   then filters on the CPU: its output is the same, byte for byte, as
 *   backend=cpu's;
 * - backend=cuda fails to start with an ERROR carrying the same words;
 * - neither crashes, and the pipeline reaches NULL.
 *
 * The driver and the missing code are simulated through the fault layer
 * (kernels/runtime/cf_fault.h), which makes the calls fail as they do on
 * such a machine:
 *
 *   test_build_mismatch driver   CF_FAULT=driver:N (N below the build's
 *                                CUDA version): runs with or without a GPU
 *   test_build_mismatch image    CF_FAULT=image:1: needs a GPU (77 without)
 */
#include <string.h>

#include <gst/gst.h>

#include "gpu.h"
#include "test_util.h"

static const struct
{
  const gchar *name;
  const gchar *launch;          /* %s: the backend */
} pipelines[] = {
  {"cudaconv2d", "videotestsrc num-buffers=3 pattern=ball ! "
        "video/x-raw,format=RGBA,width=64,height=48 ! cudaconv2d name=f "
        "backend=%s preset=gaussian size=5 ! appsink name=out sync=false"},
  {"cudaconv1d", "audiotestsrc num-buffers=3 samplesperbuffer=256 "
        "wave=saw ! audio/x-raw,format=F32LE,channels=2,rate=48000 ! "
        "cudaconv1d name=f backend=%s preset=low-pass taps=63 ! "
        "appsink name=out sync=false"},
  {"cudaprefixsum", "videotestsrc num-buffers=3 ! "
        "video/x-raw,format=GRAY8,width=64,height=48 ! cudaprefixsum name=f "
        "backend=%s output=box-mean radius=3 ! appsink name=out sync=false"},
};

typedef struct
{
  gchar *warning;               /* the element's first WARNING text */
  gchar *error;                 /* the first ERROR text */
  gboolean eos;
  GByteArray *output;           /* every output buffer, in order */
} Run;

static GstFlowReturn
on_sample (GstElement * sink, gpointer data)
{
  GByteArray *output = data;
  GstSample *sample = NULL;
  GstMapInfo map;

  g_signal_emit_by_name (sink, "pull-sample", &sample);
  if (!sample)
    return GST_FLOW_ERROR;
  if (gst_buffer_map (gst_sample_get_buffer (sample), &map, GST_MAP_READ)) {
    g_byte_array_append (output, map.data, (guint) map.size);
    gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
  }
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

static Run
run (const gchar * launch_fmt, const gchar * backend)
{
  gchar *launch = g_strdup_printf (launch_fmt, backend);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  GstBus *bus = gst_element_get_bus (pipe);
  Run r = { NULL, NULL, FALSE, g_byte_array_new () };

  g_object_set (sink, "emit-signals", TRUE, NULL);
  g_signal_connect (sink, "new-sample", G_CALLBACK (on_sample), r.output);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while (!r.eos && !r.error) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    GError *err = NULL;

    if (!m) {
      r.error = g_strdup ("hang");
      break;
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
      r.eos = TRUE;
    } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (m, &err, NULL);
      r.error = g_strdup (err->message);
    } else if (!r.warning) {
      gst_message_parse_warning (m, &err, NULL);
      r.warning = g_strdup (err->message);
    }
    g_clear_error (&err);
    gst_message_unref (m);
  }
  test_check (gst_element_set_state (pipe, GST_STATE_NULL)
      == GST_STATE_CHANGE_SUCCESS, "%s: reaches NULL", launch);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
  return r;
}

static void
run_clear (Run * r)
{
  g_free (r->warning);
  g_free (r->error);
  g_byte_array_unref (r->output);
}

static void
expect_words (const gchar * what, const gchar * text,
    const gchar * const *words)
{
  for (const gchar * const *w = words; *w; w++)
    test_check (text && strstr (text, *w) != NULL, "%s: \"%s\" not in "
        "\"%s\"", what, *w, text ? text : "(none)");
}

int
main (int argc, char **argv)
{
  static const gchar *const driver_words[] = { "the NVIDIA driver supports "
        "CUDA up to", "this plugin was built with CUDA", "install a newer "
        "NVIDIA driver", NULL
  };
  static const gchar *const image_words[] = { "compute capability",
    "this plugin has machine code only for", "rebuild the plugin with "
        "-Dgpu_archs=", NULL
  };
  const gchar *const *words;
  gboolean image;
  int count = 0;

  gst_init (&argc, &argv);
  if (argc < 2 || (strcmp (argv[1], "driver") && strcmp (argv[1], "image"))) {
    printf ("usage: test_build_mismatch driver|image\n");
    return 1;
  }
  if (!cf_gpu_built_with_cuda ())
    return test_skip ("build-mismatch", "the plugin is built without CUDA");
  image = !strcmp (argv[1], "image");
  words = image ? image_words : driver_words;
  if (image && (cf_gpu_device_count (&count) != CF_OK || count == 0))
    return test_skip ("build-mismatch image", "no CUDA device");
  printf ("CF_FAULT=%s\n", g_getenv ("CF_FAULT"));

  for (guint p = 0; p < G_N_ELEMENTS (pipelines); p++) {
    Run on_auto = run (pipelines[p].launch, "auto");
    Run on_cpu = run (pipelines[p].launch, "cpu");
    Run on_cuda = run (pipelines[p].launch, "cuda");
    gchar *what = g_strdup_printf ("%s, backend=auto", pipelines[p].name);

    printf ("%s: auto: %s, warning \"%s\"; cuda: error \"%s\"\n",
        pipelines[p].name, on_auto.eos ? "ran" : on_auto.error,
        on_auto.warning, on_cuda.error);
    test_check (on_auto.eos && !on_auto.error, "%s: runs to the end", what);
    expect_words (what, on_auto.warning, words);
    test_check (strstr (on_auto.warning ? on_auto.warning : "",
            "processing on the CPU") != NULL, "%s: says the CPU runs", what);
    test_check (on_cpu.eos && on_cpu.output->len > 0,
        "%s, backend=cpu: runs", pipelines[p].name);
    test_check (on_auto.output->len == on_cpu.output->len
        && memcmp (on_auto.output->data, on_cpu.output->data,
            on_cpu.output->len) == 0, "%s: the output of backend=cpu "
        "(%u and %u bytes)", what, on_auto.output->len, on_cpu.output->len);
    g_free (what);
    what = g_strdup_printf ("%s, backend=cuda", pipelines[p].name);
    test_check (!on_cuda.eos && on_cuda.error != NULL, "%s: fails", what);
    expect_words (what, on_cuda.error, words);
    test_check (strstr (on_cuda.error ? on_cuda.error : "",
            "No usable CUDA device") != NULL, "%s: no usable device", what);
    g_free (what);
    run_clear (&on_auto);
    run_clear (&on_cpu);
    run_clear (&on_cuda);
  }
  return test_finish (image ? "build-mismatch image"
      : "build-mismatch driver");
}
