/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * CUDA memory with streams (GStreamer 1.24 and newer), as GStreamer's own
 * CUDA elements of 1.26 hand it over:
 *
 * - writer: frames written on a stream of another element (a pool that
 *   carries it), still being written when pushed and flagged
 *   GST_CUDA_MEMORY_TRANSFER_NEED_SYNC: cudaconv2d and cudaprefixsum read
 *   them only once written (their stream waits on the GPU), and the writer
 *   rewriting a buffer after the element let it go (the pool has two) does
 *   not disturb the element's reads;
 * - outputs: the memories carry the element's stream and the flag; the
 *   pool the element proposes upstream carries the same stream, so that a
 *   writer that adopts it (as nvh264dec does) needs no wait; frames written
 *   on that stream come through right;
 * - another context: frames of a second context (as another GPU's would
 *   be), still being written on its stream, are read through the host,
 *   right;
 * - other threads: while one thread pushes such frames, the application's
 *   thread restarts the pipeline and changes the mask again and again;
 *   every frame out is whole and nothing fails;
 * - chain: an H.264 clip repeated 10 times (300 frames, every pool buffer
 *   reused many times) through nvh264dec ! cudaconvertscale ! cudaconv2d !
 *   cudaprefixsum ! cudaconvertscale ! cudadownload gives the frames that
 *   the CPU backend gives for the same converted frames, within one level
 *   (the backends round ties apart), in 10 runs.
 *
 * A control run without the flag (the element, rightly, does not wait)
 * must read frames before their writer finished: the test sees a missing
 * wait.
 *
 *   test_cudastreams MEDIA_DIR       77 without a GPU
 */
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcuda.h>

#include "have_element.h"
#include "proposed_stream.h"
#include "test_util.h"

#define WIDTH 1920
#define HEIGHT 1080
#define N_FRAMES 6
/* How long each frame's writer holds its stream between writing poison
 * and writing the frame: a reader that does not wait for the writer reads
 * poison, every time. */
#define WRITER_STALL_US 30000
#define POISON 0x11
#define CHAIN_RUNS 10
#define CLIP_REPEATS 10

static GstCudaContext *context;

static GstElement *
launch (const gchar * desc)
{
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error);
  GstContext *shared;

  if (!pipe) {
    test_check (0, "%s: %s", desc, error->message);
    g_clear_error (&error);
    return NULL;
  }
  shared = gst_context_new_cuda_context (context);
  gst_element_set_context (pipe, shared);
  gst_context_unref (shared);
  return pipe;
}

/* An error on the bus, reported; TRUE when there was none. */
static gboolean
no_error (GstElement * pipe, const gchar * what)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gboolean ok = TRUE;

  if (msg) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    ok = test_check (0, "%s: error from %s: %s", what,
        GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message);
    g_clear_error (&err);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return ok;
}

static GstCaps *
frame_caps (void)
{
  return gst_caps_from_string ("video/x-raw(memory:CUDAMemory),format=RGBA,"
      "width=" G_STRINGIFY (WIDTH) ",height=" G_STRINGIFY (HEIGHT)
      ",framerate=30/1");
}

/* A pool of CUDA memory of `ctx` whose memories carry `stream`. */
static GstBufferPool *
stream_pool (GstCudaContext * ctx, GstCudaStream * stream)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = frame_caps ();
  GstVideoInfo info;

  gst_video_info_from_caps (&info, caps);
  gst_buffer_pool_config_set_params (config, caps, (guint) info.size, 2, 2);
  gst_buffer_pool_config_set_cuda_stream (config, stream);
  gst_caps_unref (caps);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE)) {
    test_check (0, "a CUDA pool with a stream");
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/* How long the writer holds its stream; the restarts use a shorter stall */
static gulong writer_stall_us = WRITER_STALL_US;

static void CUDART_CB
stall_writer (void *data G_GNUC_UNUSED)
{
  g_usleep (writer_stall_us);
}

/* A frame of `value` in every byte, written on the memory's stream after a
 * write of poison and a stall of the stream, not waited for: as a writer of
 * 1.24+ leaves it (flagged NEED_SYNC by the map). `keep_flag` FALSE clears
 * the flag: a writer breaking the rules, for the control run. */
static GstBuffer *
write_frame (GstBufferPool * pool, guint8 value, gboolean keep_flag)
{
  GstBuffer *buf = NULL;
  GstMemory *mem;
  GstMapInfo map;
  cudaStream_t stream;
  GstCudaContext *writer;

  if (gst_buffer_pool_acquire_buffer (pool, &buf, NULL) != GST_FLOW_OK)
    return NULL;
  mem = gst_buffer_peek_memory (buf, 0);
  writer = GST_CUDA_MEMORY_CAST (mem)->context;
  stream = (cudaStream_t) gst_cuda_stream_get_handle
      (gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST (mem)));
  gst_buffer_map (buf, &map, GST_MAP_WRITE | GST_MAP_CUDA);
  gst_cuda_context_push (writer);
  cudaMemsetAsync (map.data, POISON, map.size, stream);
  cudaLaunchHostFunc (stream, stall_writer, NULL);
  cudaMemsetAsync (map.data, value, map.size, stream);
  gst_cuda_context_pop (NULL);
  gst_buffer_unmap (buf, &map);
  test_check (GST_MEMORY_FLAG_IS_SET (mem,
          GST_CUDA_MEMORY_TRANSFER_NEED_SYNC), "a write on a memory's "
      "stream leaves it flagged NEED_SYNC (GStreamer's rule)");
  if (!keep_flag)
    GST_MEMORY_FLAG_UNSET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
  return buf;
}

typedef struct
{
  guint frames, wrong, checked_streams;
  GstCudaStream *expected;      /* the stream outputs must carry, or NULL */
} Outputs;

/* Every byte of each output is its frame's value; the memories carry a
 * stream and the flag. */
static void
check_output (GstSample * sample, guint8 value, Outputs * o)
{
  GstBuffer *buf = gst_sample_get_buffer (sample);
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GstMapInfo map;
  gsize bad = 0;

  if (gst_is_cuda_memory (mem)) {
    GstCudaStream *s = gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST
        (mem));
    test_check (s != NULL, "output memory carries a stream");
    test_check (!o->expected || s == o->expected, "output memory carries "
        "the stream of the pool the element proposes");
    test_check (GST_MEMORY_FLAG_IS_SET (mem,
            GST_CUDA_MEMORY_TRANSFER_NEED_SYNC), "output memory flagged "
        "NEED_SYNC (the element did not wait for its kernels)");
    o->checked_streams++;
  }
  /* a CPU map downloads on the memory's stream and waits for it */
  gst_buffer_map (buf, &map, GST_MAP_READ);
  for (gsize i = 0; i < map.size; i++)
    bad += map.data[i] != value;
  gst_buffer_unmap (buf, &map);
  o->frames++;
  o->wrong += bad != 0;
  if (bad)
    printf ("  frame of %u: %" G_GSIZE_FORMAT " bytes of %" G_GSIZE_FORMAT
        " wrong\n", value, bad, map.size);
}

/* N_FRAMES frames written by `pool`'s stream into `element`. */
static Outputs
run_written (const gchar * element, GstBufferPool * pool, gboolean flag,
    GstCudaStream * expected)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! %s ! "
      "appsink name=sink sync=false", element);
  GstElement *pipe = launch (desc), *src, *sink;
  GstCaps *caps = frame_caps ();
  Outputs o = { 0, 0, 0, expected };

  if (!pipe) {
    g_free (desc);
    return o;
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  g_object_set (src, "caps", caps, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (guint k = 0; k < N_FRAMES; k++) {
    guint8 value = (guint8) (0x40 + 16 * k);
    GstBuffer *buf = write_frame (pool, value, flag);
    GstSample *sample;

    GST_BUFFER_PTS (buf) = k * GST_SECOND / 30;
    gst_app_src_push_buffer (GST_APP_SRC (src), buf);
    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        10 * GST_SECOND);
    if (!test_check (sample != NULL, "%s: frame %u comes out", element, k))
      break;
    check_output (sample, value, &o);
    gst_sample_unref (sample);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  no_error (pipe, element);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  gst_caps_unref (caps);
  g_free (desc);
  return o;
}

static const gchar *const elements[] = {
  "cudaconv2d backend=cuda preset=box size=3",
  "cudaprefixsum backend=cuda output=box-mean radius=2 post-messages=false",
};

static void
test_writer_on_other_stream (void)
{
  GstCudaStream *theirs = gst_cuda_stream_new (context);
  GstBufferPool *pool = stream_pool (context, theirs);

  for (guint e = 0; pool && e < G_N_ELEMENTS (elements); e++) {
    Outputs flagged = run_written (elements[e], pool, TRUE, NULL);
    Outputs control = run_written (elements[e], pool, FALSE, NULL);

    test_check (flagged.frames == N_FRAMES && flagged.wrong == 0,
        "%s: %u of %u frames written on another stream read before their "
        "writer finished", elements[e], flagged.wrong, flagged.frames);
    test_check (flagged.checked_streams == N_FRAMES, "%s: outputs in CUDA "
        "memory", elements[e]);
    /* the test sees a missing wait: without the flag, frames are read
     * before their writer finished */
    test_check (control.wrong > 0, "%s: control without the flag: no frame "
        "read early", elements[e]);
    printf ("%s, writer on another stream: %u frames right; control "
        "without the flag: %u of %u read before their writer finished\n",
        elements[e], flagged.frames - flagged.wrong, control.wrong,
        control.frames);
  }
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  gst_cuda_stream_unref (theirs);
}

static void
test_shared_stream (void)
{
  for (guint e = 0; e < G_N_ELEMENTS (elements); e++) {
    GstElement *keep = NULL;
    GstCaps *caps = frame_caps ();
    GstCudaStream *ours = proposed_stream (context, elements[e], caps,
        &keep);
    GstBufferPool *pool = ours ? stream_pool (context, ours) : NULL;
    Outputs o;

    gst_caps_unref (caps);
    test_check (ours != NULL, "%s proposes a CUDA pool with a stream",
        elements[e]);

    if (pool) {
      /* a writer that adopted the element's stream, as nvh264dec does */
      o = run_written (elements[e], pool, TRUE, ours);
      test_check (o.frames == N_FRAMES && o.wrong == 0, "%s: %u of %u "
          "frames written on the element's own stream wrong", elements[e],
          o.wrong, o.frames);
      printf ("%s, writer on the element's stream: %u frames right, "
          "outputs on the same stream\n", elements[e], o.frames - o.wrong);
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
    }
    if (ours)
      gst_cuda_stream_unref (ours);
    if (keep) {
      gst_element_set_state (keep, GST_STATE_NULL);
      gst_object_unref (keep);
    }
  }
}

/* Frames in CUDA memory of another context (here on the same GPU, as
 * another GPU's would be), still being written on its stream when pushed:
 * the element reads them through the host, which GStreamer's map orders
 * after the writer, and gets them right. */
static void
test_other_context (void)
{
  GstCudaContext *other = gst_cuda_context_new (0);
  GstCudaStream *theirs = other ? gst_cuda_stream_new (other) : NULL;
  GstBufferPool *pool = theirs ? stream_pool (other, theirs) : NULL;

  if (!test_check (pool != NULL, "a pool of a second context"))
    goto done;
  for (guint e = 0; e < G_N_ELEMENTS (elements); e++) {
    Outputs o = run_written (elements[e], pool, TRUE, NULL);
    test_check (o.frames == N_FRAMES && o.wrong == 0, "%s: %u of %u frames "
        "of another context wrong", elements[e], o.wrong, o.frames);
    printf ("%s, frames of another context: %u of %u right\n", elements[e],
        o.frames - o.wrong, o.frames);
  }
done:
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  if (theirs)
    gst_cuda_stream_unref (theirs);
  gst_clear_object (&other);
}

/* ---- from other threads while frames flow ----------------------------- */

#define RESTARTS 8
#define RESTART_FRAMES 400

typedef struct
{
  GstElement *src;
  GstBufferPool *pool;
  volatile gint stop;
  gint pushed;
} Pusher;

/* Frames written on the pool's stream, pushed as fast as they go. */
static gpointer
push_frames (gpointer data)
{
  Pusher *p = data;

  for (guint k = 0; k < RESTART_FRAMES && !g_atomic_int_get (&p->stop); k++) {
    GstBuffer *buf = write_frame (p->pool, (guint8) (0x40 + 16 * (k % 8)),
        TRUE);
    if (!buf)
      break;
    GST_BUFFER_PTS (buf) = k * GST_SECOND / 30;
    if (gst_app_src_push_buffer (GST_APP_SRC (p->src), buf) == GST_FLOW_OK)
      g_atomic_int_inc (&p->pushed);
    else
      g_usleep (1000);          /* flushing: the pipeline is restarting */
  }
  return NULL;
}

typedef struct
{
  gint frames, wrong;
} Seen;

/* On the streaming thread: each frame one of the values written, whole. */
static GstFlowReturn
check_restarted (GstAppSink * sink, gpointer data)
{
  Seen *seen = data;
  GstSample *sample = gst_app_sink_pull_sample (sink);
  GstMapInfo map;
  gboolean ok;

  if (!sample)
    return GST_FLOW_ERROR;
  gst_buffer_map (gst_sample_get_buffer (sample), &map, GST_MAP_READ);
  ok = map.size > 0 && map.data[0] >= 0x40 && (map.data[0] - 0x40) % 16 == 0;
  for (gsize i = 1; ok && i < map.size; i++)
    ok = map.data[i] == map.data[0];
  gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
  gst_sample_unref (sample);
  g_atomic_int_inc (&seen->frames);
  if (!ok)
    g_atomic_int_inc (&seen->wrong);
  return GST_FLOW_OK;
}

/* While one thread pushes frames of another stream, the application's
 * thread restarts the pipeline (READY and back) and changes the mask (to
 * one that keeps a flat frame flat) again and again: every frame that
 * comes out is whole, nothing fails, and the pipeline ends cleanly. */
static void
test_restarts (void)
{
  static const struct
  {
    const gchar *desc, *property;
    gint a, b;
  } cases[] = {
    {"cudaconv2d name=f backend=cuda preset=box size=3", "size", 3, 5},
    {"cudaprefixsum name=f backend=cuda output=box-mean radius=2 "
          "post-messages=false", "radius", 2, 4},
  };
  GstCudaStream *theirs = gst_cuda_stream_new (context);
  GstBufferPool *pool = stream_pool (context, theirs);

  writer_stall_us = 2000;
  for (guint c = 0; pool && c < G_N_ELEMENTS (cases); c++) {
    gchar *desc = g_strdup_printf ("appsrc name=src format=time max-bytes=0 "
        "! %s ! appsink name=sink sync=false emit-signals=true", cases[c].desc);
    GstElement *pipe = launch (desc), *f, *sink;
    GstCaps *caps = frame_caps ();
    Pusher p = { NULL, pool, 0, 0 };
    Seen seen = { 0, 0 };
    GThread *thread;

    p.src = gst_bin_get_by_name (GST_BIN (pipe), "src");
    f = gst_bin_get_by_name (GST_BIN (pipe), "f");
    sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
    g_object_set (p.src, "caps", caps, NULL);
    g_signal_connect (sink, "new-sample", G_CALLBACK (check_restarted),
        &seen);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    thread = g_thread_new ("pusher", push_frames, &p);
    for (guint r = 0; r < RESTARTS; r++) {
      g_usleep (20000);
      g_object_set (f, cases[c].property, r % 2 ? cases[c].a : cases[c].b,
          NULL);
      g_usleep (20000);
      gst_element_set_state (pipe, GST_STATE_READY);
      gst_element_set_state (pipe, GST_STATE_PLAYING);
    }
    g_atomic_int_set (&p.stop, 1);
    g_thread_join (thread);
    test_check (no_error (pipe, cases[c].desc), "%s: no error while "
        "restarted", cases[c].desc);
    test_check (gst_element_set_state (pipe, GST_STATE_NULL)
        == GST_STATE_CHANGE_SUCCESS, "%s: reaches NULL", cases[c].desc);
    test_check (seen.frames > 0 && seen.wrong == 0, "%s: %d of %d frames "
        "torn or early while restarted", cases[c].desc, seen.wrong,
        seen.frames);
    printf ("%s: %d frames pushed, %d out, %d wrong, %d restarts and mask "
        "changes from another thread\n", cases[c].desc, p.pushed,
        seen.frames, seen.wrong, RESTARTS);
    gst_object_unref (p.src);
    gst_object_unref (f);
    gst_object_unref (sink);
    gst_object_unref (pipe);
    gst_caps_unref (caps);
    g_free (desc);
  }
  writer_stall_us = WRITER_STALL_US;
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  gst_cuda_stream_unref (theirs);
}

/* ---- the chain between GStreamer's CUDA elements ---------------------- */

/* Every frame of `desc` (appsink named sink), in order. */
static GPtrArray *
pull_all (const gchar * desc, const gchar * what)
{
  GstElement *pipe = launch (desc), *sink;
  GPtrArray *frames = g_ptr_array_new_with_free_func
      ((GDestroyNotify) g_bytes_unref);
  GstSample *sample;

  if (!pipe)
    return frames;
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              20 * GST_SECOND))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstMapInfo map;
    gst_buffer_map (buf, &map, GST_MAP_READ);
    g_ptr_array_add (frames, g_bytes_new (map.data, map.size));
    gst_buffer_unmap (buf, &map);
    gst_sample_unref (sample);
  }
  no_error (pipe, what);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return frames;
}

/* Frames of `b` against `a`: how many differ at all, and the largest
 * difference of a byte. */
static void
compare (GPtrArray * a, GPtrArray * b, guint * differing, gint * largest)
{
  *differing = 0;
  *largest = 0;
  for (guint k = 0; k < MIN (a->len, b->len); k++) {
    gsize na, nb;
    const guint8 *x = g_bytes_get_data (g_ptr_array_index (a, k), &na);
    const guint8 *y = g_bytes_get_data (g_ptr_array_index (b, k), &nb);
    gint worst = na == nb ? 0 : 256;

    for (gsize i = 0; i < MIN (na, nb); i++)
      worst = MAX (worst, ABS ((gint) x[i] - (gint) y[i]));
    *differing += worst > 0;
    *largest = MAX (*largest, worst);
  }
}

static void
test_chain (const gchar * media_dir)
{
  static const gchar *const filters =
      "cudaconv2d backend=%s preset=gaussian size=7 ! "
      "cudaprefixsum backend=%s output=box-mean radius=4 post-messages=false";
  gchar *clip = g_build_filename (media_dir, "clip.h264", NULL);
  gchar *contents = NULL, *longer, *head, *gpu_desc, *cpu_desc, *gpu_filters,
      *cpu_filters;
  gsize length = 0;
  GString *repeated = g_string_new (NULL);
  GError *error = NULL;
  GPtrArray *reference;
  gint fd;

  if (!have_element ("nvh264dec") || !have_element ("cudaconvertscale")) {
    printf ("chain not run: %s is not registered here\n",
        have_element ("nvh264dec") ? "cudaconvertscale" : "nvh264dec");
    g_free (clip);
    g_string_free (repeated, TRUE);
    return;
  }
  if (!test_check (g_file_get_contents (clip, &contents, &length, NULL),
          "%s readable", clip)) {
    g_free (clip);
    g_string_free (repeated, TRUE);
    return;
  }
  /* each copy starts with its parameter sets and an IDR picture */
  for (guint k = 0; k < CLIP_REPEATS; k++)
    g_string_append_len (repeated, contents, (gssize) length);
  fd = g_file_open_tmp ("clipXXXXXX.h264", &longer, &error);
  test_check (fd >= 0 && g_file_set_contents (longer, repeated->str,
          (gssize) repeated->len, NULL), "a temporary clip");
  if (fd >= 0)
    close (fd);

  head = g_strdup_printf ("filesrc location=%s ! h264parse ! nvh264dec ! "
      "cudaconvertscale ! video/x-raw(memory:CUDAMemory),format=RGBA,"
      "width=704,height=576", longer);
  gpu_filters = g_strdup_printf (filters, "cuda", "cuda");
  cpu_filters = g_strdup_printf (filters, "cpu", "cpu");
  gpu_desc = g_strdup_printf ("%s ! %s ! cudaconvertscale ! "
      "video/x-raw(memory:CUDAMemory),format=I420,width=352,height=288 ! "
      "cudadownload ! appsink name=sink sync=false", head, gpu_filters);
  cpu_desc = g_strdup_printf ("%s ! cudadownload ! %s ! cudaupload ! "
      "cudaconvertscale ! video/x-raw(memory:CUDAMemory),format=I420,"
      "width=352,height=288 ! cudadownload ! appsink name=sink sync=false",
      head, cpu_filters);
  reference = pull_all (cpu_desc, "chain, CPU backend");
  test_check (reference->len == 30 * CLIP_REPEATS, "CPU backend: %u frames "
      "of %u", reference->len, 30 * CLIP_REPEATS);
  for (guint run = 0; run < CHAIN_RUNS; run++) {
    GPtrArray *frames = pull_all (gpu_desc, "chain, GPU backend");
    guint differing;
    gint largest;

    compare (reference, frames, &differing, &largest);
    printf ("chain run %u: %u frames, %u differ from the CPU backend's, by "
        "%d at most\n", run + 1, frames->len, differing, largest);
    test_check (frames->len == reference->len, "chain run %u: %u frames of "
        "%u", run + 1, frames->len, reference->len);
    test_check (largest <= 1, "chain run %u: a byte %d from the CPU "
        "backend's", run + 1, largest);
    g_ptr_array_unref (frames);
  }
  g_ptr_array_unref (reference);
  g_unlink (longer);
  g_free (longer);
  g_free (head);
  g_free (gpu_filters);
  g_free (cpu_filters);
  g_free (gpu_desc);
  g_free (cpu_desc);
  g_free (contents);
  g_free (clip);
  g_string_free (repeated, TRUE);
}

int
main (int argc, char **argv)
{
  int count = 0;

  gst_init (&argc, &argv);
  if (argc < 2) {
    printf ("usage: test_cudastreams MEDIA_DIR\n");
    return 1;
  }
  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0)
    return test_skip ("cudastreams", "no CUDA device");
  if (!gst_cuda_load_library () || !(context = gst_cuda_context_new (0)))
    return test_skip ("cudastreams", "GStreamer's CUDA library has no "
        "context on device 0");
  gst_cuda_memory_init_once ();
  test_writer_on_other_stream ();
  test_shared_stream ();
  test_other_context ();
  test_restarts ();
  test_chain (argv[1]);
  gst_object_unref (context);
  return test_finish ("cudastreams");
}
