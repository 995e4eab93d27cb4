/* Whole-pipeline benchmark of cudaconv2d on frames in system memory:
 *
 *   videotestsrc num-buffers=1 ! RGBA WxH ! imagefreeze ! <filter> ! fakesink
 *
 * for the GPU backend with a 5x5 general mask, the same element with a 1x1
 * mask (the transfers alone), GStreamer's own `cudaupload ! cudadownload`,
 * the CPU backend, and the CPU `gaussianblur`. Frames per second are
 * counted at the sink after a warm-up, so start-up (negotiation, device
 * and pinned allocations) stays out of the figure.
 *
 *   bench_pipeline [--quick]
 *
 * Exits 77 (skip) when cudaconv2d cannot run on a GPU here. */
#include <gst/gst.h>
#include <stdio.h>
#include <string.h>

/* Non-separable 5x5 mask (rank > 1), as in the kernel benchmark's
 * "general" case. */
#define MASK_5X5 "1 2 3 2 1; 2 -3 4 -3 2; 3 4 9 4 3; 2 -3 4 -3 2; 1 2 3 2 1"

/* PCIe floor with upload and download overlapped: (in + out) / 54 GB/s,
 * the pinned copy speed measured on the reference machine. */
#define PCIE_BYTES_PER_S 54e9

typedef struct
{
  const gchar *name;
  const gchar *filter;          /* between imagefreeze and fakesink */
  gint frames_1080p, frames_4k; /* timed frames per size */
} Case;

typedef struct
{
  gint count, warmup;
  gint64 t_first, t_last;
} Counter;

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, Counter * c)
{
  (void) sink;
  (void) buf;
  (void) pad;
  if (c->count == c->warmup)
    c->t_first = g_get_monotonic_time ();
  c->count++;
  c->t_last = g_get_monotonic_time ();
}

/* Runs one pipeline to its end; returns frames per second over the frames
 * after the warm-up, or a negative value after printing why it failed. */
static gdouble
run_pipeline (const gchar * filter, gint width, gint height, gint frames)
{
  gint warmup = MAX (5, frames / 10);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 pattern=smpte ! "
      "video/x-raw,format=RGBA,width=%d,height=%d,framerate=30/1 ! "
      "imagefreeze num-buffers=%d ! %s ! fakesink name=sink sync=false "
      "signal-handoffs=true", width, height, frames + warmup, filter);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *sink;
  GstBus *bus;
  GstMessage *msg;
  Counter c = { 0, warmup, 0, 0 };
  gdouble fps = -1;

  g_free (desc);
  if (!pipeline) {
    printf ("  cannot build \"%s\": %s\n", filter, error->message);
    g_clear_error (&error);
    return -1;
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &c);
  gst_object_unref (sink);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &error, &dbg);
    printf ("  \"%s\" failed: %s (%s)\n", filter, error->message,
        dbg ? dbg : "");
    g_clear_error (&error);
    g_free (dbg);
  } else if (c.count > warmup + 1) {
    fps = (c.count - warmup - 1) * 1e6 / (gdouble) (c.t_last - c.t_first);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return fps;
}

/* Whether cudaconv2d can start on a GPU here; if not, why. */
static gchar *
gpu_unusable (void)
{
  GstElement *e = gst_element_factory_make ("cudaconv2d", NULL);
  GstStateChangeReturn r;
  gchar *why = NULL;

  if (!e)
    return g_strdup ("cudaconv2d not found (GST_PLUGIN_PATH?)");
  gst_util_set_object_arg (G_OBJECT (e), "backend", "cuda");
  r = gst_element_set_state (e, GST_STATE_PAUSED);
  if (r == GST_STATE_CHANGE_FAILURE)
    why = g_strdup ("no usable CUDA device");
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);
  return why;
}

int
main (int argc, char **argv)
{
  gboolean quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  gint scale = quick ? 4 : 1;
  static const Case cases[] = {
    {"cudaconv2d 5x5 (GPU)", "cudaconv2d backend=cuda kernel=\"" MASK_5X5
          "\"", 6000, 2000},
    {"cudaconv2d 1x1 (GPU, transfers only)",
        "cudaconv2d backend=cuda kernel=1", 6000, 2000},
    {"cudaupload ! cudadownload", "cudaupload ! "
          "video/x-raw(memory:CUDAMemory) ! cudadownload", 2000, 600},
    {"cudaconv2d 5x5 (CPU backend)", "cudaconv2d backend=cpu kernel=\""
          MASK_5X5 "\"", 40, 10},
    {"videoconvert ! gaussianblur (CPU)",
        "videoconvert ! gaussianblur sigma=1.2", 30, 8},
  };
  static const gint sizes[][2] = { {1920, 1080}, {3840, 2160} };
  gdouble fps[G_N_ELEMENTS (cases)][2];
  gchar *why;

  gst_init (&argc, &argv);
  if ((why = gpu_unusable ())) {
    printf ("SKIP bench-pipeline: %s\n", why);
    g_free (why);
    return 77;
  }

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
    for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
      gint frames = s == 0 ? cases[k].frames_1080p : cases[k].frames_4k;
      frames = MAX (4, frames / scale);
      fps[k][s] = run_pipeline (cases[k].filter, sizes[s][0], sizes[s][1],
          frames);
      printf ("%-40s %4dx%-4d %9.1f fps\n", cases[k].name, sizes[s][0],
          sizes[s][1], fps[k][s]);
      fflush (stdout);
    }
  }

  printf ("\npipeline summary (RGBA, system memory, frames/s; "
      "ms/frame in brackets)\n");
  printf ("%-40s %18s %18s\n", "pipeline", "1080p", "4K");
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    printf ("%-40s", cases[k].name);
    for (guint s = 0; s < 2; s++)
      printf (" %9.1f (%5.2f)", fps[k][s], fps[k][s] > 0 ? 1e3 / fps[k][s]
          : 0.0);
    printf ("\n");
  }
  printf ("%-40s", "PCIe floor (in + out at 54 GB/s)");
  for (guint s = 0; s < 2; s++) {
    gdouble bytes = 2.0 * 4 * sizes[s][0] * sizes[s][1];
    printf (" %9.1f (%5.2f)", PCIE_BYTES_PER_S / bytes,
        bytes / PCIE_BYTES_PER_S * 1e3);
  }
  printf ("\n%-40s", "cudaconv2d 5x5 / cudaupload!cudadownload");
  for (guint s = 0; s < 2; s++)
    printf (" %17.2fx", fps[2][s] > 0 ? fps[0][s] / fps[2][s] : 0.0);
  printf ("\n%-40s", "cudaconv2d 5x5 / gaussianblur");
  for (guint s = 0; s < 2; s++)
    printf (" %17.1fx", fps[4][s] > 0 ? fps[0][s] / fps[4][s] : 0.0);
  printf ("\n");
  return 0;
}
