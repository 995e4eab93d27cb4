/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Frames per second of cudaconv2d and cudaprefixsum on frames already in
 * CUDA memory, and what the element adds to its kernels:
 *
 *   cuda      appsrc (pooled CUDA buffers, pushed without a copy)
 *             ! element ! fakesink
 *   kernel    the same GPU work launched alone, back to back (GPU time),
 *             and frame by frame with the host waiting for each (the
 *             floor of any element that hands finished frames on)
 *   system    appsrc (pooled system memory) ! element ! fakesink
 *   up/down   appsrc (system memory) ! cudaupload ! CUDA memory
 *             ! cudadownload ! fakesink
 *   empty     appsrc (CUDA buffers) ! fakesink: the source's and sink's
 *             share of a frame
 *   shared    (GStreamer 1.24+) CUDA buffers whose memories carry the
 *             element's own stream, as from nvh264dec or cudaconvertscale,
 *             which adopt the stream of the pool the element proposes
 *   other     (1.24+) CUDA buffers of another stream, flagged as just
 *             written (NEED_SYNC), as from an element that keeps its own
 *             stream: the element waits for it on the GPU
 *
 * For RGBA and NV12 (every plane filtered), 1080p and 4K: cudaconv2d with a
 * general 5x5 mask and a 15x15 Gaussian, cudaprefixsum output=box-mean
 * radius=8; on RGBA also cudaprefixsum's box means of radius 1 and 8
 * beside cudaconv2d with the same boxes as masks (3x3 and 17x17 taps of 1
 * divided by their count), the mask path they are to beat.
 * The element's overhead is its pipeline's time per frame minus the
 * kernels' and minus the empty pipeline's.
 *
 * Regions: 4K RGBA frames carrying 8 region-of-interest metas of 256 x 256
 * through cudaconv2d roi=true, against the whole frame filtered with the
 * same mask (a 15x15 Gaussian, a Gaussian of sigma 16, a disc of radius
 * 20), in CUDA and in system memory; the target is at most 20% of the
 * whole frame's time.
 *
 *   bench_cudamemory [--quick]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#include "boxmean.h"
#include "conv2d.h"
#include "integral.h"
#ifdef HAVE_GST_CUDA_STREAM
#include "proposed_stream.h"
#endif

#define WARMUP_FRAMES 50
#define POOL_BUFFERS 6

static gdouble run_seconds = 1.0;
/* metas of this many 256 x 256 regions on each frame the source pushes */
static guint region_count;

/* ---- a source of frames that are already there ------------------------ */

/* Where the frames come from. */
typedef enum
{
  SOURCE_SYSTEM,                /* system memory */
  SOURCE_CUDA,                  /* CUDA memory with no stream: 1.22's rules */
  SOURCE_SHARED_STREAM,         /* memories on the element's stream */
  SOURCE_OTHER_STREAM,          /* memories on a stream of their own */
} SourceKind;

typedef struct
{
  GstBufferPool *pool;          /* CUDA or system memory */
  gboolean flag_written;        /* set NEED_SYNC on each frame pushed */
  guint pushed;
  gint64 start, deadline;
  /* at the sink */
  guint arrived;
  gint64 first, last;           /* after the warm-up */
} Source;

static void
need_data (GstAppSrc * src, guint length G_GNUC_UNUSED, gpointer user)
{
  Source *s = user;
  GstBuffer *buf = NULL;

  if (s->pushed > WARMUP_FRAMES && g_get_monotonic_time () > s->deadline) {
    gst_app_src_end_of_stream (src);
    return;
  }
  /* a frame of the source's own, as a decoder gives it: writable */
  if (gst_buffer_pool_acquire_buffer (s->pool, &buf, NULL) != GST_FLOW_OK) {
    gst_app_src_end_of_stream (src);
    return;
  }
#ifdef HAVE_GST_CUDA_STREAM
  /* as a writer of 1.24+ leaves a frame it has just queued */
  if (s->flag_written)
    GST_MINI_OBJECT_FLAG_SET (gst_buffer_peek_memory (buf, 0),
        GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
#endif
  if (region_count) {
    buf = gst_buffer_make_writable (buf);
    for (guint k = 0; k < region_count; k++)
      gst_buffer_add_video_region_of_interest_meta (buf, "face",
          200 + 430 * k, 300 + 420 * (k % 4), 256, 256);
  }
  GST_BUFFER_PTS (buf) = s->pushed * GST_SECOND / 30;
  s->pushed++;
  gst_app_src_push_buffer (src, buf);
}

static GstPadProbeReturn
arrived (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info G_GNUC_UNUSED,
    gpointer user)
{
  Source *s = user;

  s->arrived++;
  if (s->arrived == WARMUP_FRAMES)
    s->first = g_get_monotonic_time ();
  s->last = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

static void
fill_random (guint8 * data, gsize size, guint32 seed)
{
  for (gsize i = 0; i < size; i++) {
    seed = seed * 1664525u + 1013904223u;
    data[i] = (guint8) (seed >> 24);
  }
}

/* The buffers of `pool` (CUDA memory: `context` given; else system
 * memory), written once (CUDA ones uploaded at their first use); from
 * 1.24 CUDA memories carry `stream` when given. */
static GstBufferPool *
make_pool (GstCudaContext * context, GstCaps * caps, gpointer stream)
{
  GstBufferPool *pool;
  GstStructure *config;
  GstBuffer *held[POOL_BUFFERS];
  GstVideoInfo info;

  if (context) {
    gst_cuda_memory_init_once ();
    pool = gst_cuda_buffer_pool_new (context);
  } else {
    pool = gst_video_buffer_pool_new ();
  }
  config = gst_buffer_pool_get_config (pool);

  gst_video_info_from_caps (&info, caps);
  gst_buffer_pool_config_set_params (config, caps, (guint) info.size,
      POOL_BUFFERS, POOL_BUFFERS);
  gst_buffer_pool_config_add_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_META);
#ifdef HAVE_GST_CUDA_STREAM
  if (stream)
    gst_buffer_pool_config_set_cuda_stream (config, stream);
#else
  (void) stream;
#endif
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE)) {
    fprintf (stderr, "cannot start a buffer pool\n");
    exit (1);
  }
  for (guint k = 0; k < POOL_BUFFERS; k++) {
    GstMapInfo map;
    if (gst_buffer_pool_acquire_buffer (pool, &held[k], NULL) != GST_FLOW_OK) {
      fprintf (stderr, "cannot take a buffer from the pool\n");
      exit (1);
    }
    gst_buffer_map (held[k], &map, GST_MAP_WRITE);
    fill_random (map.data, map.size, k + 1);
    gst_buffer_unmap (held[k], &map);
  }
  for (guint k = 0; k < POOL_BUFFERS; k++)
    gst_buffer_unref (held[k]);
  return pool;
}

/* Frames per second through `middle` (NULL: the source straight into the
 * sink, what a frame costs without the element), measured at the sink
 * after a warm-up. */
static gdouble
run_pipeline (const gchar * middle, GstCaps * caps, GstCudaContext * context,
    SourceKind kind)
{
  gboolean cuda_input = kind != SOURCE_SYSTEM;
  gpointer stream = NULL;
  GstElement *keep = NULL;
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! %s%s"
      "fakesink name=sink sync=false", middle ? middle : "",
      middle ? " ! " : "");
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error), *src, *sink;
  GstCaps *src_caps = gst_caps_copy (caps);
  Source s = { 0 };
  GstAppSrcCallbacks callbacks = { need_data, NULL, NULL, {NULL} };
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  GstVideoInfo info;
  gdouble fps = 0;

  if (!pipe) {
    fprintf (stderr, "%s: %s\n", desc, error->message);
    g_clear_error (&error);
    g_free (desc);
    return 0;
  }
  gst_video_info_from_caps (&info, caps);
  if (cuda_input) {
    gst_caps_set_features (src_caps, 0,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
#ifdef HAVE_GST_CUDA_STREAM
    if (kind == SOURCE_SHARED_STREAM)
      stream = proposed_stream (context, middle, src_caps, &keep);
    else if (kind == SOURCE_OTHER_STREAM)
      stream = gst_cuda_stream_new (context);
    s.flag_written = stream != NULL;
    if (kind != SOURCE_CUDA && !stream) {
      fprintf (stderr, "%s: no stream for the source\n", desc);
      if (keep) {
        gst_element_set_state (keep, GST_STATE_NULL);
        gst_object_unref (keep);
      }
      gst_object_unref (pipe);
      gst_caps_unref (src_caps);
      g_free (desc);
      return 0;
    }
#endif
    s.pool = make_pool (context, src_caps, stream);
  } else {
    s.pool = make_pool (NULL, src_caps, NULL);
  }
  /* one context for the whole pipeline, as a decoder would share it */
  {
    GstContext *c = gst_context_new_cuda_context (context);
    gst_element_set_context (pipe, c);
    gst_context_unref (c);
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  g_object_set (src, "caps", src_caps, "max-buffers", (guint64) 2, NULL);
  gst_app_src_set_callbacks (GST_APP_SRC (src), &callbacks, &s, NULL);
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, arrived, &s, NULL);
  gst_object_unref (pad);

  s.start = g_get_monotonic_time ();
  s.deadline = s.start + (gint64) (run_seconds * G_USEC_PER_SEC);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipe);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    if (msg)
      gst_message_parse_error (msg, &err, NULL);
    fprintf (stderr, "%s: %s\n", desc, err ? err->message : "timed out");
    g_clear_error (&err);
  } else if (s.arrived > WARMUP_FRAMES && s.last > s.first) {
    /* frames handed on without a wait may still be queued on the GPU when
     * they reach the sink (CUDA queues about a thousand launches): the
     * last one counts once the GPU is done */
    gst_cuda_context_push (context);
    cudaDeviceSynchronize ();
    gst_cuda_context_pop (NULL);
    s.last = g_get_monotonic_time ();
    fps = (s.arrived - WARMUP_FRAMES) * 1e6 / (gdouble) (s.last - s.first);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_buffer_pool_set_active (s.pool, FALSE);
  gst_object_unref (s.pool);
#ifdef HAVE_GST_CUDA_STREAM
  if (stream)
    gst_cuda_stream_unref (stream);
#endif
  if (keep) {
    gst_element_set_state (keep, GST_STATE_NULL);
    gst_object_unref (keep);
  }
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  gst_caps_unref (src_caps);
  g_free (desc);
  return fps;
}

/* ---- the kernels alone ---------------------------------------------------- */

typedef struct
{
  const char *name;
  int size;                     /* mask size; 0: box-mean */
  int kind;                     /* mask: 0 general, 1 Gaussian, 2 box */
  int radius;                   /* box-mean */
  int rgba_only;
} Job;

/* A plane of the frame as the element sees it. */
typedef struct
{
  cf_plane_format format;
  size_t pitch, offset;
} Plane;

static int
frame_planes (const GstVideoInfo * info, Plane * planes)
{
  size_t offset = 0;
  int n = GST_VIDEO_INFO_N_PLANES (info);

  for (int p = 0; p < n; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info->finfo, p, comp);
    planes[p].format.width = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]);
    planes[p].format.height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    planes[p].format.channels = GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    planes[p].format.sample = CF_SAMPLE_U8;
    planes[p].format.keep_channel = planes[p].format.channels == 4 ? 3 : -1;
    planes[p].pitch = (planes[p].format.width * planes[p].format.channels
        + 511) / 512 * 512;
    planes[p].offset = offset;
    offset += planes[p].pitch * planes[p].format.height;
  }
  return n;
}

static void
make_taps (const Job * job, float *taps, double *divisor)
{
  int n = job->size, r = n / 2;
  double sum = 0, g[CF_CONV2D_MAX_SIZE], sigma = 2.5;
  guint32 seed = 12345;

  for (int i = 0; i < n; i++)
    g[i] = exp (-(double) (i - r) * (i - r) / (2 * sigma * sigma));
  for (int k = 0; k < n * n; k++) {
    if (job->kind == 2) {
      taps[k] = 1.0f;
    } else if (job->kind == 1) {
      taps[k] = (float) (g[k / n] * g[k % n]);
    } else {
      seed = seed * 1664525u + 1013904223u;
      taps[k] = (float) ((gint) (seed >> 28) - 7);     /* -7..8, rank > 1 */
    }
    sum += taps[k];
  }
  *divisor = sum != 0 ? sum : 1;
}

/* The mask as the element's `kernel` property. */
static gchar *
kernel_string (const float *taps, int n)
{
  GString *s = g_string_new (NULL);

  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++)
      g_string_append_printf (s, "%s%.9g", i ? " " : "", taps[j * n + i]);
    if (j + 1 < n)
      g_string_append (s, "; ");
  }
  return g_string_free (s, FALSE);
}

/* µs per frame of the GPU work the element does on one frame in CUDA
 * memory, launched back to back on one stream (GPU time), or, `synced`,
 * with the host waiting for each frame as an element does before a frame
 * leaves it (host time: launches and the wait included). */
static double
kernels_alone (const Job * job, const GstVideoInfo * info,
    const cf_conv2d_plan * plan, int radius, gboolean synced)
{
  gint64 wall0 = 0;
  Plane planes[GST_VIDEO_MAX_PLANES];
  int n_planes = frame_planes (info, planes), reps = 200;
  size_t bytes = planes[n_planes - 1].offset + planes[n_planes - 1].pitch
      * planes[n_planes - 1].format.height, sum_pitch, per_channel;
  unsigned char *in, *out, *tables;
  cudaStream_t stream;
  cudaEvent_t t0, t1;
  float ms = 0;
  int st = CF_OK;
  cf_integral_layout l = { 0 };
  int channels = planes[0].format.channels == 4 ? 3 : 1;

  l.type = CF_INTEGRAL_U8;
  l.width = planes[0].format.width;
  l.height = planes[0].format.height;
  l.in_pitch = planes[0].pitch;
  l.in_step = planes[0].format.channels;
  sum_pitch = ((size_t) l.width + 1) * 4;
  sum_pitch = (sum_pitch + 7) / 8 * 8;
  l.sum_pitch = sum_pitch;
  l.squares_pitch = ((size_t) l.width + 1) * 8;
  per_channel = (sum_pitch + l.squares_pitch) * ((size_t) l.height + 1);

  cudaMalloc ((void **) &in, bytes);
  cudaMalloc ((void **) &out, bytes);
  cudaMalloc ((void **) &tables, per_channel * 3);
  cudaMemset (in, 77, bytes);
  cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking);
  cudaEventCreate (&t0);
  cudaEventCreate (&t1);
  for (int rep = -10; rep < reps && st == CF_OK; rep++) {
    if (rep == 0) {
      cudaEventRecord (t0, stream);
      wall0 = g_get_monotonic_time ();
    }
    if (synced)
      cudaStreamSynchronize (stream);
    if (job->size) {
      for (int p = 0; p < n_planes && st == CF_OK; p++)
        st = cf_conv2d_cuda (CF_CONV2D_AUTO, plan, &planes[p].format,
            in + planes[p].offset, planes[p].pitch, out + planes[p].offset,
            planes[p].pitch, 0, planes[p].format.height, stream);
    } else {
      cf_box_params bp = { 0 };
      bp.radius = radius;
      bp.out_pitch = planes[0].pitch;
      bp.out_step = planes[0].format.channels;
      if (radius <= CF_BOX_DIRECT_MAX_RADIUS) {
        /* as the element: every channel in one launch from the frame, the
         * samples not measured (alpha) copied by it */
        cf_integral_layout all = l;
        all.channels = channels;
        bp.copy_others = channels < planes[0].format.channels;
        st = cf_box_direct_cuda (&all, in, &bp, out, stream);
      } else {
        /* the samples not measured, then the box means over the tables */
        if (channels == 3)
          st = (int) cudaMemcpy2DAsync (out, planes[0].pitch, in,
              planes[0].pitch, planes[0].format.width * 4, l.height,
              cudaMemcpyDeviceToDevice, stream);
        for (int c = 0; c < channels && st == CF_OK; c++)
          st = cf_integral_cuda (&l, in + c, tables + c * per_channel, NULL,
              stream);
        for (int c = 0; c < channels && st == CF_OK; c++)
          st = cf_box_cuda (&l, in + c, tables + c * per_channel, &bp,
              out + c, stream);
      }
      for (int p = 1; p < n_planes && st == CF_OK; p++)
        st = (int) cudaMemcpy2DAsync (out + planes[p].offset, planes[p].pitch,
            in + planes[p].offset, planes[p].pitch, planes[p].format.width
            * planes[p].format.channels, planes[p].format.height,
            cudaMemcpyDeviceToDevice, stream);
    }
  }
  cudaEventRecord (t1, stream);
  cudaEventSynchronize (t1);
  cudaEventElapsedTime (&ms, t0, t1);
  if (synced)
    ms = (g_get_monotonic_time () - wall0) / 1000.0f;
  cudaEventDestroy (t0);
  cudaEventDestroy (t1);
  cudaStreamDestroy (stream);
  cudaFree (in);
  cudaFree (out);
  cudaFree (tables);
  if (st != CF_OK) {
    fprintf (stderr, "%s: %s\n", job->name, cf_status_name (st));
    return 0;
  }
  return ms * 1000.0 / reps;
}

/* ---- the table ------------------------------------------------------------- */

int
main (int argc, char **argv)
{
  static const Job jobs[] = {
    {"cudaconv2d 5x5 general", 5, 0, 0, 0},
    {"cudaconv2d 15x15 Gaussian", 15, 1, 0, 0},
    {"cudaprefixsum box-mean r=8", 0, 0, 8, 0},
    {"cudaprefixsum box-mean r=1", 0, 0, 1, 1},
    {"cudaconv2d box 3x3", 3, 2, 0, 1},
    {"cudaconv2d box 17x17", 17, 2, 0, 1},
  };
  static const char *formats[] = { "RGBA", "NV12" };
  static const int sizes[][2] = { {1920, 1080}, {3840, 2160} };
  gboolean quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  GstCudaContext *context;
  GString *table = g_string_new (NULL);
  gchar *version = gst_version_string ();

  gst_init (&argc, &argv);
  if (quick)
    run_seconds = 0.3;
  context = gst_cuda_load_library () ? gst_cuda_context_new (0) : NULL;
  if (!context) {
    printf ("SKIP bench_cudamemory: no CUDA context on device 0\n");
    return 77;
  }
  g_string_append_printf (table, "%-28s %-5s %-9s %9s %8s %8s %8s %8s "
      "%8s %9s %9s %7s %9s %8s %9s\n", "element", "fmt", "size", "cuda fps",
      "us/frm", "kern us", "sync us", "empty us", "overhd", "sys fps",
      "up/dn fps", "x sys", "shared us", "+kern", "other us");
  for (guint j = 0; j < G_N_ELEMENTS (jobs); j++)
    for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
      for (guint z = 0; z < G_N_ELEMENTS (sizes); z++) {
        const Job *job = &jobs[j];
        if (job->rgba_only && strcmp (formats[f], "RGBA") != 0)
          continue;
        gchar *caps_str = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
            "height=%d,framerate=30/1", formats[f], sizes[z][0],
            sizes[z][1]);
        GstCaps *caps = gst_caps_from_string (caps_str);
        GstVideoInfo info;
        float taps[CF_CONV2D_MAX_TAPS];
        cf_conv2d_mask mask = { 0 };
        cf_conv2d_plan plan;
        gchar *element, *kernel = NULL, *updown;
        double divisor = 1, kern_us, synced_us, cuda_fps, sys_fps, us,
            empty_us, shared_fps = 0, other_fps = 0;

        gst_video_info_from_caps (&info, caps);
        if (job->size) {
          make_taps (job, taps, &divisor);
          mask.width = mask.height = job->size;
          mask.taps = taps;
          mask.divisor = divisor;
          mask.border = CF_BORDER_CLAMP;
          cf_conv2d_plan_init (&plan, &mask);
          kernel = kernel_string (taps, job->size);
          element = g_strdup_printf ("cudaconv2d kernel=\"%s\" divisor=%.17g "
              "planes=all backend=cuda", kernel, divisor);
        } else {
          element = g_strdup_printf ("cudaprefixsum output=box-mean "
              "radius=%d post-messages=false backend=cuda", job->radius);
        }
        kern_us = kernels_alone (job, &info, &plan, job->radius, FALSE);
        synced_us = kernels_alone (job, &info, &plan, job->radius, TRUE);
        empty_us = 1e6 / run_pipeline (NULL, caps, context, SOURCE_CUDA);
        cuda_fps = run_pipeline (element, caps, context, SOURCE_CUDA);
        sys_fps = run_pipeline (element, caps, context, SOURCE_SYSTEM);
#ifdef HAVE_GST_CUDA_STREAM
        shared_fps = run_pipeline (element, caps, context,
            SOURCE_SHARED_STREAM);
        other_fps = run_pipeline (element, caps, context,
            SOURCE_OTHER_STREAM);
#endif
        updown = j == 0 ? g_strdup_printf ("%.0f", run_pipeline
            ("cudaupload ! video/x-raw(memory:CUDAMemory) ! cudadownload",
                caps, context, SOURCE_SYSTEM))
            : g_strdup ("-");
        us = cuda_fps > 0 ? 1e6 / cuda_fps : 0;
        printf ("%s %s %dx%d: CUDA memory %.0f fps (%.1f us a frame), "
            "kernels alone %.1f us (%.1f us waited for frame by frame), "
            "empty pipeline %.1f us, system memory %.0f fps, cudaupload ! "
            "cudadownload %s fps\n", job->name, formats[f], sizes[z][0],
            sizes[z][1], cuda_fps, us, kern_us, synced_us, empty_us, sys_fps,
            updown);
        if (shared_fps > 0)
          printf ("  memories with streams: on the element's %.1f us a "
              "frame (%.1f beyond the kernels), on another %.1f us\n",
              1e6 / shared_fps, 1e6 / shared_fps - kern_us, other_fps > 0
              ? 1e6 / other_fps : 0);
        g_string_append_printf (table, "%-28s %-5s %4dx%-4d %9.0f %8.1f "
            "%8.1f %8.1f %8.1f %8.1f %9.0f %9s %7.1f %9.1f %8.1f %9.1f\n",
            job->name, formats[f], sizes[z][0], sizes[z][1], cuda_fps, us,
            kern_us, synced_us, empty_us, us - kern_us - empty_us, sys_fps,
            updown, sys_fps > 0 ? cuda_fps / sys_fps : 0,
            shared_fps > 0 ? 1e6 / shared_fps : 0,
            shared_fps > 0 ? 1e6 / shared_fps - kern_us : 0,
            other_fps > 0 ? 1e6 / other_fps : 0);
        g_free (updown);
        g_free (element);
        g_free (kernel);
        g_free (caps_str);
        gst_caps_unref (caps);
      }
  {
    static const char *const masks[] = {
      "preset=gaussian sigma=2.5 size=15", "preset=gaussian sigma=16",
      "preset=disc radius=20"
    };
    GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA,"
        "width=3840,height=2160,framerate=30/1");
    g_string_append_printf (table, "\n%-36s %-7s %10s %12s %8s\n",
        "regions: 8 of 256 x 256 on 4K RGBA", "memory", "whole us",
        "regions us", "ratio");
    for (guint m = 0; m < G_N_ELEMENTS (masks); m++)
      for (guint kind = 0; kind < 2; kind++) {
        SourceKind source = kind ? SOURCE_SYSTEM : SOURCE_CUDA;
        gchar *whole = g_strdup_printf ("cudaconv2d %s backend=cuda",
            masks[m]);
        gchar *regions = g_strdup_printf ("cudaconv2d %s roi=true "
            "backend=cuda", masks[m]);
        double whole_fps, region_fps;
        region_count = 0;
        whole_fps = run_pipeline (whole, caps, context, source);
        region_count = 8;
        region_fps = run_pipeline (regions, caps, context, source);
        region_count = 0;
        printf ("regions %s, %s memory: whole frame %.1f us, 8 regions "
            "%.1f us\n", masks[m], kind ? "system" : "CUDA",
            whole_fps > 0 ? 1e6 / whole_fps : 0,
            region_fps > 0 ? 1e6 / region_fps : 0);
        g_string_append_printf (table, "%-36s %-7s %10.1f %12.1f %8.2f\n",
            masks[m], kind ? "system" : "CUDA", whole_fps > 0 ? 1e6
            / whole_fps : 0, region_fps > 0 ? 1e6 / region_fps : 0,
            whole_fps > 0 && region_fps > 0 ? whole_fps / region_fps : 0);
        g_free (whole);
        g_free (regions);
      }
    g_string_append (table, "(ratio: regions' time over the whole frame's; "
        "target at most 0.20)\n");
    gst_caps_unref (caps);
  }
  printf ("\n== CUDA memory summary, GStreamer %s (targets on the H100: "
      "4K RGBA 5x5 >= 8000 fps, 1080p >= 20000 fps, overhead <= 15 us; "
      "memories on the element's stream, 1.24+: <= 5 us beyond the "
      "kernels; 0: not run)\n%s", version, table->str);
  g_free (version);
  g_string_free (table, TRUE);
  gst_object_unref (context);
  return 0;
}
