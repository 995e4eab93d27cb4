/* Whole-pipeline benchmark on frames in system memory:
 *
 *   videotestsrc num-buffers=1 ! RGBA WxH ! imagefreeze ! <filter> ! fakesink
 *
 * cudaconv2d: the GPU backend with a 5x5 general mask, the same element
 * with a 1x1 mask (the transfers alone), GStreamer's own `cudaupload !
 * cudadownload`, the CPU backend, and the CPU `gaussianblur`.
 * cudaprefixsum: box means of R, G and B at radius 1, 8 and 64 against
 * cudaconv2d with a box mask of the same size (masks go up to 31 x 31, so
 * radius 64 has no such peer). Frames per second are counted at the sink
 * after a warm-up, so start-up (negotiation, device and pinned
 * allocations) stays out of the figure; a pipeline is stopped after
 * MAX_SECONDS and measured on the frames it made by then.
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

#define MAX_SECONDS 10

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
  msg = gst_bus_timed_pop_filtered (bus, MAX_SECONDS * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg) {
    printf ("  \"%s\": stopped after %d s, %d frames\n", filter,
        MAX_SECONDS, c.count);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    if (c.count > warmup + 1)
      fps = (c.count - warmup - 1) * 1e6 / (gdouble) (c.t_last - c.t_first);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &error, &dbg);
    printf ("  \"%s\" failed: %s (%s)\n", filter, error->message,
        dbg ? dbg : "");
    g_clear_error (&error);
    g_free (dbg);
  } else if (c.count > warmup + 1) {
    fps = (c.count - warmup - 1) * 1e6 / (gdouble) (c.t_last - c.t_first);
  }
  if (msg)
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

/* Box means: cudaprefixsum (cost independent of the radius) against
 * cudaconv2d's box mask (separable: 2(2r+1) multiply-adds a sample). The
 * two are bound by the same transfers and move with the host by up to 10%
 * from run to run: each is run BOX_RUNS times, alternating, and the
 * medians compared. */
#define BOX_RUNS 3

static gdouble
median3 (const gdouble * v)
{
  gdouble a = v[0], b = v[1], c = v[2];
  return MAX (MIN (a, b), MIN (MAX (a, b), c));
}

static void
box_means (gint scale)
{
  static const gint radii[] = { 1, 8, 64 };
  static const gint sizes[][2] = { {1920, 1080}, {3840, 2160} };
  gdouble fps[G_N_ELEMENTS (radii)][2][2];

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint r = 0; r < G_N_ELEMENTS (radii); r++) {
      gint frames = MAX (4, (s == 0 ? 3000 : 1000) / scale);
      gchar *ours = g_strdup_printf ("cudaprefixsum backend=cuda "
          "output=box-mean radius=%d post-messages=false", radii[r]);
      gchar *peer = g_strdup_printf ("cudaconv2d backend=cuda preset=box "
          "size=%d", 2 * radii[r] + 1);
      gboolean has_peer = 2 * radii[r] + 1 <= 31;
      gdouble runs[2][BOX_RUNS];
      for (gint k = 0; k < BOX_RUNS; k++) {
        runs[0][k] = run_pipeline (ours, sizes[s][0], sizes[s][1], frames);
        runs[1][k] = has_peer ? run_pipeline (peer, sizes[s][0],
            sizes[s][1], frames) : -1;
      }
      fps[r][s][0] = median3 (runs[0]);
      fps[r][s][1] = median3 (runs[1]);
      printf ("box mean r=%-3d %4dx%-4d cudaprefixsum %7.1f %7.1f %7.1f "
          "fps, cudaconv2d %7.1f %7.1f %7.1f fps\n", radii[r], sizes[s][0],
          sizes[s][1], runs[0][0], runs[0][1], runs[0][2], runs[1][0],
          runs[1][1], runs[1][2]);
      fflush (stdout);
      g_free (ours);
      g_free (peer);
    }
  printf ("\nbox mean pipeline summary (RGBA, frames/s, median of %d)\n",
      BOX_RUNS);
  printf ("%-8s %14s %14s %8s %14s %14s %8s\n", "radius", "1080p ours",
      "cudaconv2d", "ratio", "4K ours", "cudaconv2d", "ratio");
  for (guint r = 0; r < G_N_ELEMENTS (radii); r++) {
    printf ("%-8d", radii[r]);
    for (guint s = 0; s < 2; s++) {
      if (fps[r][s][1] > 0)
        printf (" %14.1f %14.1f %7.2fx", fps[r][s][0], fps[r][s][1],
            fps[r][s][0] / fps[r][s][1]);
      else
        printf (" %14.1f %14s %8s", fps[r][s][0], "n/a (> 31x31)", "");
    }
    printf ("\n");
  }
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
  box_means (scale);
  return 0;
}
