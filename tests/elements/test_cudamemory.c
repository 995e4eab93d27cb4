/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv2d and cudaprefixsum on frames in CUDA memory, through whole
 * pipelines as an application builds them:
 *
 * - the same random frames through the system-memory path and through
 *   cudaupload ! ... ! cudadownload give the same bytes, for every format
 *   GstCudaMemory has, odd sizes, every border mode, single elements and a
 *   chain, and with the memory type changing inside our element;
 * - CUDA memory is negotiated between two of our elements;
 * - passthrough keeps the same CUDA buffer; the integral meta's device
 *   tables equal its host tables, which equal sums computed here;
 * - every element of a pipeline holds the same CUDA context;
 * - no host<->device copy inside a chain of ours (CUPTI counts them);
 * - an H.264 clip decoded by nvh264dec (NV12 in CUDA memory) through the
 *   chain gives the frames of the same clip decoded on the CPU through the
 *   system-memory path.
 *
 *   test_cudamemory [MEDIA_DIR]
 *
 * Exits 77 (skip) without a GPU or without GStreamer's CUDA elements. */
#include <dlfcn.h>
#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>

#include "gpu.h"
#include "gstcudaintegralmeta.h"
#include "have_element.h"
#include "test_util.h"

#define NAME "cudamemory"
#define N_FRAMES 3

static const gchar *const cuda_formats[] = {
  "RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR", "RGB", "BGR",
  "I420", "YV12", "NV12", "Y444", "Y42B",
};

static const gchar *const borders[] = { "clamp", "mirror", "wrap",
  "constant"
};

/* ---- running a pipeline ------------------------------------------------ */

typedef void (*BufferHook) (GstBuffer * buffer, guint index, gpointer user);

/* A frame's visible bytes, plane after plane, row after row: strides (which
 * differ between pools) left out. */
static GBytes *
pack_frame (GstBuffer * buffer, GstCaps * caps)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  GByteArray *bytes = g_byte_array_new ();

  if (!gst_video_info_from_caps (&info, caps)
      || !gst_video_frame_map (&frame, &info, buffer, GST_MAP_READ))
    return g_byte_array_free_to_bytes (bytes);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
    gsize row;

    gst_video_format_info_component (info.finfo, p, comp);
    row = (gsize) GST_VIDEO_INFO_COMP_WIDTH (&info, comp[0])
        * GST_VIDEO_INFO_COMP_PSTRIDE (&info, comp[0]);
    for (gint y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT (&info, comp[0]); y++)
      g_byte_array_append (bytes, data + (gsize) y * stride, (guint) row);
  }
  gst_video_frame_unmap (&frame);
  return g_byte_array_free_to_bytes (bytes);
}

/* Pushes copies of `frames` into appsrc `src`, the first at frame `first`
 * of 1/30 s; returns the frame after the last. */
static guint
push_frames (GstElement * src, GPtrArray * frames, guint first)
{
  for (guint k = 0; k < frames->len; k++) {
    GstBuffer *b = gst_buffer_copy (g_ptr_array_index (frames, k));
    GST_BUFFER_PTS (b) = (first + k) * GST_SECOND / 30;
    GST_BUFFER_DURATION (b) = GST_SECOND / 30;
    gst_app_src_push_buffer (GST_APP_SRC (src), b);
  }
  return first + frames->len;
}

typedef struct
{
  BufferHook hook;              /* on the src pad of element "probe" */
  gpointer user;
  guint seen;
} Probe;

static GstPadProbeReturn
probe_buffer (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info,
    gpointer user)
{
  Probe *probe = user;

  probe->hook (GST_PAD_PROBE_INFO_BUFFER (info), probe->seen++, probe->user);
  return GST_PAD_PROBE_OK;
}

/* Runs `desc` (an appsrc named src when `inputs` is given, an appsink
 * named sink) to EOS; returns the packed output frames, NULL when the
 * pipeline failed. `cuda_links`: elements whose src caps must carry
 * memory:CUDAMemory. The pipeline is left in *keep (PAUSED) when asked. */
static GPtrArray *
run_pipeline (const gchar * desc, GPtrArray * inputs, const gchar * caps,
    const gchar * const *cuda_links, const gchar * what, Probe * probe,
    GstElement ** keep)
{
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error), *src, *sink;
  GPtrArray *out = g_ptr_array_new_with_free_func
      ((GDestroyNotify) g_bytes_unref);
  gboolean ok = TRUE;
  GstSample *sample;

  if (!pipe) {
    test_check (0, "%s: %s: %s", what, desc, error->message);
    g_clear_error (&error);
    g_ptr_array_unref (out);
    return NULL;
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  if (probe) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), "probe");
    GstPad *pad = gst_element_get_static_pad (e, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, probe_buffer, probe,
        NULL);
    gst_object_unref (pad);
    gst_object_unref (e);
  }
  if (src) {
    GstCaps *c = gst_caps_from_string (caps);
    g_object_set (src, "caps", c, "format", GST_FORMAT_TIME, NULL);
    gst_caps_unref (c);
  }
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  if (src) {
    push_frames (src, inputs, 0);
    gst_app_src_end_of_stream (GST_APP_SRC (src));
  }
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              20 * GST_SECOND))) {
    g_ptr_array_add (out, pack_frame (gst_sample_get_buffer (sample),
            gst_sample_get_caps (sample)));
    gst_sample_unref (sample);
  }
  {
    GstBus *bus = gst_element_get_bus (pipe);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      GError *err = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error (msg, &err, &dbg);
      ok = test_check (0, "%s: %s: error from %s: %s (%s)", what, desc,
          GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message, dbg);
      g_clear_error (&err);
      g_free (dbg);
      gst_message_unref (msg);
    }
    gst_object_unref (bus);
  }
  for (guint k = 0; ok && cuda_links && cuda_links[k]; k++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), cuda_links[k]);
    GstPad *pad = e ? gst_element_get_static_pad (e, "src") : NULL;
    GstCaps *c = pad ? gst_pad_get_current_caps (pad) : NULL;
    GstCapsFeatures *f = c ? gst_caps_get_features (c, 0) : NULL;
    gchar *str = c ? gst_caps_to_string (c) : g_strdup ("no caps");
    test_check (f && gst_caps_features_contains (f,
            GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY),
        "%s: %s leaves in %s, not CUDA memory", what, cuda_links[k], str);
    g_free (str);
    gst_clear_caps (&c);
    gst_clear_object (&pad);
    gst_clear_object (&e);
  }
  gst_clear_object (&src);
  gst_clear_object (&sink);
  if (keep && ok) {
    gst_element_set_state (pipe, GST_STATE_PAUSED);
    *keep = pipe;
  } else {
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
  }
  if (!ok) {
    g_ptr_array_unref (out);
    return NULL;
  }
  return out;
}

static GPtrArray *
random_frames (const GstVideoInfo * info, guint n)
{
  GPtrArray *frames = g_ptr_array_new_with_free_func
      ((GDestroyNotify) gst_buffer_unref);

  for (guint k = 0; k < n; k++) {
    GstBuffer *b = gst_buffer_new_allocate (NULL, info->size, NULL);
    GstMapInfo map;
    gst_buffer_map (b, &map, GST_MAP_WRITE);
    for (gsize i = 0; i < map.size; i++)
      map.data[i] = (guint8) test_rand ();
    gst_buffer_unmap (b, &map);
    g_ptr_array_add (frames, b);
  }
  return frames;
}

/* Checks that `b` holds the frames of `a`, byte for byte. */
static void
compare_outputs (GPtrArray * a, GPtrArray * b, const gchar * what)
{
  if (!a || !b)
    return;                     /* the failure was reported */
  if (!test_check (a->len == b->len && a->len > 0, "%s: %u frames, "
          "%u expected", what, b->len, a->len))
    return;
  for (guint k = 0; k < a->len; k++) {
    gsize na, nb;
    const guint8 *x = g_bytes_get_data (g_ptr_array_index (a, k), &na);
    const guint8 *y = g_bytes_get_data (g_ptr_array_index (b, k), &nb);
    gsize i = 0;

    while (i < MIN (na, nb) && x[i] == y[i])
      i++;
    test_check (na == nb && i == na, "%s: frame %u differs at byte %"
        G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " (%d, expected %d)", what, k,
        i, nb, i < nb ? y[i] : -1, i < na ? x[i] : -1);
  }
}

/* ---- regions (roi) in every memory ------------------------------------ */

typedef struct
{
  guint added, kept;            /* frames given metas here, frames that had them */
} RegionHook;

/* Three rectangles, two overlapping, on a frame that has none yet (those
 * given to appsrc may or may not pass cudaupload). */
static void
add_regions (GstBuffer * b, guint index G_GNUC_UNUSED, gpointer user)
{
  RegionHook *h = user;

  if (gst_buffer_get_video_region_of_interest_meta (b)) {
    h->kept++;
    return;
  }
  if (!gst_buffer_is_writable (b))
    return;
  gst_buffer_add_video_region_of_interest_meta (b, "face", 8, 6, 20, 14);
  gst_buffer_add_video_region_of_interest_meta (b, "face", 20, 10, 15, 15);
  gst_buffer_add_video_region_of_interest_meta (b, "license-plate", 30, 20,
      25, 10);
  h->added++;
}

/* Checks that `b` holds the frames of `a` within 1 level (the backends'
 * float sums, and the feather's weights, may round apart). */
static void
compare_close (GPtrArray * a, GPtrArray * b, const gchar * what)
{
  if (!a || !b)
    return;
  if (!test_check (a->len == b->len && a->len > 0, "%s: %u frames, "
          "%u expected", what, b->len, a->len))
    return;
  for (guint k = 0; k < a->len; k++) {
    gsize na, nb, i = 0;
    const guint8 *x = g_bytes_get_data (g_ptr_array_index (a, k), &na);
    const guint8 *y = g_bytes_get_data (g_ptr_array_index (b, k), &nb);
    while (i < MIN (na, nb) && ABS ((gint) x[i] - (gint) y[i]) <= 1)
      i++;
    test_check (na == nb && i == na, "%s: frame %u differs at byte %"
        G_GSIZE_FORMAT " (%d, expected %d)", what, k, i,
        i < nb ? y[i] : -1, i < na ? x[i] : -1);
  }
}

/* `roi` with frames in CUDA memory in, out, both and neither, filtered in
 * place and copied, against the CPU backend; the filter must have changed
 * the frames. */
static void
test_regions (void)
{
  static const gchar *const formats[] = { "RGBA", "NV12" };
  static const gchar *const forms[] = {
    "cudaupload ! identity name=probe ! cudaconv2d name=c1 %s ! "
        "cudadownload",
    "cudaupload ! identity name=probe ! cudaconv2d %s ! video/x-raw",
    "identity name=probe ! cudaconv2d name=c1 %s ! "
        "video/x-raw(memory:CUDAMemory) ! cudadownload",
    "identity name=probe ! cudaconv2d backend=cuda %s",
    /* a frame held by two branches is not written: copied, then filtered */
    "cudaupload ! identity name=probe ! tee name=t t. ! queue ! fakesink "
        "sync=false t. ! queue ! cudaconv2d %s ! cudadownload",
  };
  static const gchar *const names[] = { "CUDA in and out (in place)",
    "CUDA in", "CUDA out", "system memory", "CUDA in and out, held twice"
  };
  /* a 13x13 Gaussian: the mask fits NV12's 32x18 chroma planes */
  const gchar *settings = "roi=true roi-grow=2 roi-feather=4 "
      "preset=gaussian sigma=2 border=mirror planes=all";

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=64,"
        "height=36,framerate=30/1", formats[f]);
    GstVideoInfo info;
    GPtrArray *in, *ref, *unfiltered;
    RegionHook h = { 0, 0 };
    Probe probe = { add_regions, &h, 0 };
    gchar *desc;

    GstCaps *parsed = gst_caps_from_string (caps);
    gst_video_info_from_caps (&info, parsed);
    gst_caps_unref (parsed);
    in = random_frames (&info, N_FRAMES);
    /* the metas come with the frames; the probe adds them where an
     * element before it dropped them */
    for (guint k = 0; k < in->len; k++)
      add_regions (g_ptr_array_index (in, k), k, &h);
    h.added = 0;
    desc = g_strdup_printf ("appsrc name=src ! identity name=probe ! "
        "cudaconv2d backend=cpu %s ! appsink name=sink sync=false",
        settings);
    ref = run_pipeline (desc, in, caps, NULL, "regions reference", &probe,
        NULL);
    g_free (desc);
    desc = g_strdup ("appsrc name=src ! identity ! appsink name=sink "
        "sync=false");
    unfiltered = run_pipeline (desc, in, caps, NULL, "regions input", NULL,
        NULL);
    g_free (desc);
    if (ref && unfiltered && ref->len > 0 && unfiltered->len == ref->len)
      test_check (!g_bytes_equal (g_ptr_array_index (ref, 0),
              g_ptr_array_index (unfiltered, 0)), "regions %s: the "
          "reference left the frame as it came", formats[f]);
    for (guint k = 0; k < G_N_ELEMENTS (forms); k++) {
      gchar *middle = g_strdup_printf (forms[k], settings);
      gchar *what = g_strdup_printf ("regions %s, %s", formats[f], names[k]);
      const gchar *one[] = { "c1", NULL };
      GPtrArray *got;
      desc = g_strdup_printf ("appsrc name=src ! %s ! appsink name=sink "
          "sync=false", middle);
      probe.seen = 0;
      got = run_pipeline (desc, in, caps, strstr (middle, "name=c1")
          && k == 2 ? one : NULL, what, &probe, NULL);
      compare_close (ref, got, what);
      g_clear_pointer (&got, g_ptr_array_unref);
      g_free (desc);
      g_free (middle);
      g_free (what);
    }
    printf ("regions %s: of the frames the probe saw, %u came with their "
        "metas and %u without (dropped on the way)\n", formats[f], h.kept,
        h.added);
    g_clear_pointer (&ref, g_ptr_array_unref);
    g_clear_pointer (&unfiltered, g_ptr_array_unref);
    g_ptr_array_unref (in);
    g_free (caps);
  }
}

/* ---- the same frames through both memory types ------------------------- */

static gboolean
prefixsum_has_cuda (const gchar * format)
{
  return strcmp (format, "RGB") != 0 && strcmp (format, "BGR") != 0;
}

static void
test_paths (void)
{
  static const gint sizes[][2] = { {37, 23}, {64, 36}, {17, 9} };

  for (guint f = 0; f < G_N_ELEMENTS (cuda_formats); f++) {
    for (guint b = 0; b < G_N_ELEMENTS (borders); b++) {
      const gchar *format = cuda_formats[f];
      const gint *size = sizes[(f + b) % G_N_ELEMENTS (sizes)];
      gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
          "height=%d,framerate=30/1", format, size[0], size[1]);
      gchar *p1 = g_strdup_printf ("preset=gaussian size=5 planes=all "
          "border=%s", borders[b]);
      gchar *p2 = g_strdup_printf ("kernel=\"0 -1 0; -1 5 -1; 0 -1 0\" "
          "border=%s", borders[(b + 1) % G_N_ELEMENTS (borders)]);
      GstVideoInfo info;
      GPtrArray *in, *ref, *got;
      gchar *desc, *what;
      /* GStreamer 1.22's CUDA memory cannot hold I420/YV12 of odd height
       * (overlapping chroma planes): those stay in system memory */
      gboolean holds = !((!strcmp (format, "I420") || !strcmp (format,
                  "YV12")) && size[1] % 2 == 1);
      const gchar *one_[] = { "c1", NULL }, **one = holds ? one_ : NULL;
      const gchar *chain_[] = { "c1", "c2", "p", NULL };
      const gchar **chain = holds ? chain_ : NULL;

      gst_video_info_from_caps (&info, gst_caps_from_string (caps));
      in = random_frames (&info, N_FRAMES);

      /* one element */
      desc = g_strdup_printf ("appsrc name=src ! cudaconv2d %s ! "
          "appsink name=sink sync=false", p1);
      ref = run_pipeline (desc, in, caps, NULL, "reference", NULL, NULL);
      g_free (desc);
      desc = g_strdup_printf ("appsrc name=src ! cudaupload ! cudaconv2d "
          "name=c1 %s ! cudadownload ! appsink name=sink sync=false", p1);
      what = g_strdup_printf ("%s %dx%d %s, CUDA in and out", format,
          size[0], size[1], p1);
      got = run_pipeline (desc, in, caps, one, what, NULL, NULL);
      compare_outputs (ref, got, what);
      g_clear_pointer (&got, g_ptr_array_unref);
      g_free (desc);
      g_free (what);

      /* the memory type changes inside the element, both ways */
      desc = !holds ? NULL : g_strdup_printf ("appsrc name=src ! cudaconv2d name=c1 %s ! "
          "video/x-raw(memory:CUDAMemory) ! cudadownload ! appsink "
          "name=sink sync=false", p1);
      what = g_strdup_printf ("%s %s, system in, CUDA out", format, p1);
      got = desc ? run_pipeline (desc, in, caps, one, what, NULL, NULL)
          : NULL;
      compare_outputs (ref, got, what);
      g_clear_pointer (&got, g_ptr_array_unref);
      g_free (desc);
      g_free (what);
      desc = g_strdup_printf ("appsrc name=src ! cudaupload name=u ! "
          "cudaconv2d %s ! video/x-raw ! appsink name=sink sync=false", p1);
      what = g_strdup_printf ("%s %s, CUDA in, system out", format, p1);
      {
        const gchar *up[] = { "u", NULL };
        got = run_pipeline (desc, in, caps, holds ? up : NULL, what, NULL,
            NULL);
      }
      compare_outputs (ref, got, what);
      g_clear_pointer (&got, g_ptr_array_unref);
      g_clear_pointer (&ref, g_ptr_array_unref);
      g_free (desc);
      g_free (what);

      /* a chain */
      if (prefixsum_has_cuda (format)) {
        const gchar *ps = "output=box-mean radius=3";
        /* system memory forced between the elements */
        desc = g_strdup_printf ("appsrc name=src ! cudaconv2d %s ! "
            "video/x-raw ! cudaconv2d %s ! video/x-raw ! cudaprefixsum %s ! "
            "video/x-raw ! appsink name=sink sync=false", p1, p2, ps);
        ref = run_pipeline (desc, in, caps, NULL, "reference", NULL, NULL);
        g_free (desc);
        desc = g_strdup_printf ("appsrc name=src ! cudaupload ! cudaconv2d "
            "name=c1 %s ! cudaconv2d name=c2 %s ! cudaprefixsum name=p %s ! "
            "cudadownload ! appsink name=sink sync=false", p1, p2, ps);
        what = g_strdup_printf ("%s %dx%d chain (%s; %s; %s)", format,
            size[0], size[1], p1, p2, ps);
        got = run_pipeline (desc, in, caps, chain, what, NULL, NULL);
        compare_outputs (ref, got, what);
        g_clear_pointer (&got, g_ptr_array_unref);
        g_clear_pointer (&ref, g_ptr_array_unref);
        g_free (desc);
        g_free (what);
      }
      g_ptr_array_unref (in);
      g_free (caps);
      g_free (p1);
      g_free (p2);
    }
  }
}

/* ---- caps changing mid-stream ---------------------------------------------- */

/* Pushes frames of two sizes and formats through `middle`; returns them. */
static GPtrArray *
run_two_caps (const gchar * middle, GPtrArray * in1, const gchar * caps1,
    GPtrArray * in2, const gchar * caps2)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! %s ! "
      "appsink name=sink sync=false", middle);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GPtrArray *out = g_ptr_array_new_with_free_func
      ((GDestroyNotify) g_bytes_unref);
  GPtrArray *ins[2] = { in1, in2 };
  const gchar *caps[2] = { caps1, caps2 };
  GstSample *sample;
  guint pushed = 0;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (guint c = 0; c < 2; c++) {
    GstCaps *cc = gst_caps_from_string (caps[c]);
    gst_app_src_set_caps (GST_APP_SRC (src), cc);
    gst_caps_unref (cc);
    pushed = push_frames (src, ins[c], pushed);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              20 * GST_SECOND))) {
    g_ptr_array_add (out, pack_frame (gst_sample_get_buffer (sample),
            gst_sample_get_caps (sample)));
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  return out;
}

static void
test_caps_change (void)
{
  const gchar *caps1 = "video/x-raw,format=NV12,width=64,height=36,"
      "framerate=30/1";
  const gchar *caps2 = "video/x-raw,format=RGBA,width=41,height=29,"
      "framerate=30/1";
  const gchar *chain = "cudaconv2d preset=gaussian size=7 planes=all ! "
      "cudaprefixsum output=box-mean radius=2";
  GstVideoInfo i1, i2;
  GPtrArray *in1, *in2, *ref, *got;
  gchar *desc;

  gst_video_info_from_caps (&i1, gst_caps_from_string (caps1));
  gst_video_info_from_caps (&i2, gst_caps_from_string (caps2));
  in1 = random_frames (&i1, N_FRAMES);
  in2 = random_frames (&i2, N_FRAMES);
  ref = run_two_caps (chain, in1, caps1, in2, caps2);
  desc = g_strdup_printf ("cudaupload ! %s ! cudadownload", chain);
  got = run_two_caps (desc, in1, caps1, in2, caps2);
  compare_outputs (ref, got, "caps changed mid-stream in CUDA memory");
  test_check (ref->len == 2 * N_FRAMES, "caps change: %u frames of %d",
      ref->len, 2 * N_FRAMES);
  g_ptr_array_unref (ref);
  g_ptr_array_unref (got);
  g_ptr_array_unref (in1);
  g_ptr_array_unref (in2);
  g_free (desc);
}

/* ---- passthrough and the meta ------------------------------------------- */

/* The input frame a buffer comes from: its timestamp in frames of 1/30 s. */
static guint
frame_index (GstBuffer * b)
{
  return (guint) gst_util_uint64_scale_round (GST_BUFFER_PTS (b), 30,
      GST_SECOND);
}

typedef struct
{
  GstMemory *memory[N_FRAMES];
  GstBuffer *buffer[N_FRAMES];
} Seen;

static GstPadProbeReturn
remember_input (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info,
    gpointer user)
{
  Seen *seen = user;
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  guint k = frame_index (b);

  if (k < N_FRAMES) {
    seen->memory[k] = gst_buffer_peek_memory (b, 0);
    seen->buffer[k] = b;
  }
  return GST_PAD_PROBE_OK;
}

typedef struct
{
  Seen *seen;
  gboolean same_buffer;         /* else the same memory */
} SameCheck;

static void
check_same (GstBuffer * b, guint index, gpointer user)
{
  SameCheck *c = user;
  guint k = frame_index (b);

  if (k >= N_FRAMES)
    return;
  if (c->same_buffer)
    test_check (c->seen->buffer[k] == b, "passthrough: frame %u is another "
        "buffer", index);
  test_check (c->seen->memory[k] == gst_buffer_peek_memory (b, 0),
      "passthrough: frame %u is in another memory", index);
}

/* Runs `in` through cudaupload ! <desc, whose measured element is named
 * probe> ! cudadownload with the input of "probe" remembered in `seen` and
 * its output given to `hook`. Returns the frames out. */
static guint
run_probed (const gchar * middle, const gchar * caps, GPtrArray * in,
    Seen * seen, Probe * probe, GstCudaContext ** context)
{
  gchar *desc = g_strdup_printf ("appsrc name=src ! cudaupload ! %s ! "
      "cudadownload ! appsink name=sink sync=false", middle);
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error);
  GstElement *measured = gst_bin_get_by_name (GST_BIN (pipe), "probe");
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstPad *in_pad = gst_element_get_static_pad (measured, "sink");
  GstPad *out_pad = gst_element_get_static_pad (measured, "src");
  GstCaps *c = gst_caps_from_string (caps), *cur;
  GstSample *sample;
  guint n = 0;

  g_assert_no_error (error);
  gst_pad_add_probe (in_pad, GST_PAD_PROBE_TYPE_BUFFER, remember_input,
      seen, NULL);
  gst_pad_add_probe (out_pad, GST_PAD_PROBE_TYPE_BUFFER, probe_buffer,
      probe, NULL);
  g_object_set (src, "caps", c, "format", GST_FORMAT_TIME, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  push_frames (src, in, 0);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              20 * GST_SECOND))) {
    n++;
    gst_sample_unref (sample);
  }
  cur = gst_pad_get_current_caps (out_pad);
  {
    gchar *str = cur ? gst_caps_to_string (cur) : g_strdup ("no caps");
    test_check (cur && gst_caps_features_contains (gst_caps_get_features
            (cur, 0), GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY), "%s: output in "
        "%s", middle, str);
    g_free (str);
  }
  gst_clear_caps (&cur);
  if (context)
    *context = NULL;
  if (context) {
    GstQuery *q = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
    GstContext *ctx = NULL;
    if (gst_element_query (measured, q)) {
      gst_query_parse_context (q, &ctx);
      if (ctx)
        gst_structure_get (gst_context_get_structure (ctx), GST_CUDA_CONTEXT_TYPE,
            GST_TYPE_CUDA_CONTEXT, context, NULL);
    }
    gst_query_unref (q);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_caps_unref (c);
  gst_object_unref (in_pad);
  gst_object_unref (out_pad);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (measured);
  gst_object_unref (pipe);
  g_free (desc);
  return n;
}

static void
test_passthrough (void)
{
  const gchar *caps = "video/x-raw,format=NV12,width=64,height=48,"
      "framerate=30/1";
  GstVideoInfo info;
  GPtrArray *in;

  gst_video_info_from_caps (&info, gst_caps_from_string (caps));
  in = random_frames (&info, N_FRAMES);
  for (gint attach = 0; attach < 2; attach++) {
    Seen seen = { {0}, {0} };
    SameCheck check = { &seen, !attach };
    Probe probe = { check_same, &check, 0 };
    gchar *middle = g_strdup_printf ("cudaprefixsum name=probe "
        "attach-meta=%s", attach ? "true" : "false");
    guint n = run_probed (middle, caps, in, &seen, &probe, NULL);

    test_check (n == N_FRAMES && probe.seen == N_FRAMES, "%s: %u frames "
        "out, %u seen", middle, n, probe.seen);
    g_free (middle);
  }
  g_ptr_array_unref (in);
}

/* The meta of every frame: device tables equal to the host tables, which
 * hold the sums of the input computed here. */
typedef struct
{
  GPtrArray *inputs;
  GstVideoInfo info;
  guint channels;
  gint checked;
  gpointer context;             /* the meta's */
} MetaCheck;

static guint64
brute_sum (MetaCheck * m, guint k, guint c, guint x0, guint y0, guint w,
    guint h, gboolean squares)
{
  GstBuffer *b = g_ptr_array_index (m->inputs, k);
  GstMapInfo map;
  gsize stride = GST_VIDEO_INFO_PLANE_STRIDE (&m->info, 0);
  gint step = GST_VIDEO_INFO_COMP_PSTRIDE (&m->info, 0);
  gint offset = GST_VIDEO_INFO_COMP_POFFSET (&m->info, c);
  guint64 s = 0;

  gst_buffer_map (b, &map, GST_MAP_READ);
  for (guint y = y0; y < y0 + h; y++)
    for (guint x = x0; x < x0 + w; x++) {
      guint64 v = map.data[y * stride + x * step + offset];
      s += squares ? v * v : v;
    }
  gst_buffer_unmap (b, &map);
  return s;
}

static void
check_meta (GstBuffer * b, guint index, gpointer user)
{
  MetaCheck *m = user;
  GstCudaIntegralMeta *meta = gst_buffer_get_cuda_integral_meta (b);
  guint k = frame_index (b);
  gsize rows;

  if (!test_check (meta && k < m->inputs->len, "frame %u: no meta", index))
    return;
  test_check (meta->n_channels == m->channels && meta->device_sums[0] != 0
      && meta->cuda_event != NULL && meta->cuda_context != NULL
      && !g_atomic_int_get (&meta->host_ready) && !meta->sums[0],
      "frame %u: the meta's tables are not on the device only", index);
  if (!test_check (gst_cuda_integral_meta_map_host (meta), "frame %u: no "
          "host tables", index))
    return;
  {
    const guint8 *first = meta->sums[0];
    test_check (gst_cuda_integral_meta_map_host (meta)
        && meta->sums[0] == first, "frame %u: a second host copy", index);
  }
  rows = meta->height + 1;
  for (guint c = 0; c < meta->n_channels; c++) {
    /* the device tables, copied here */
    guint8 *dev = g_malloc (meta->sums_stride * rows);
    guint8 *dev_sq = g_malloc (meta->squares_stride * rows);
    int st;

    gst_cuda_context_push (meta->cuda_context);
    st = cf_gpu_event_sync (meta->cuda_event);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (dev, meta->sums_stride,
          (gconstpointer) (guintptr) meta->device_sums[c], meta->sums_stride,
          meta->sums_stride, rows, CF_COPY_DEVICE_TO_HOST, NULL);
    if (st == CF_OK)
      st = cf_gpu_copy_2d (dev_sq, meta->squares_stride,
          (gconstpointer) (guintptr) meta->device_squares[c],
          meta->squares_stride, meta->squares_stride, rows,
          CF_COPY_DEVICE_TO_HOST, NULL);
    if (st == CF_OK)
      st = cf_gpu_stream_sync (NULL);
    gst_cuda_context_pop (NULL);
    test_check (st == CF_OK && memcmp (dev, meta->sums[c],
            meta->sums_stride * rows) == 0 && memcmp (dev_sq,
            meta->squares[c], meta->squares_stride * rows) == 0,
        "frame %u channel %u: device tables differ from host tables (%s)",
        index, c, cf_status_name (st));
    g_free (dev);
    g_free (dev_sq);
    for (gint r = 0; r < 4; r++) {
      guint w = 1 + test_rand_int (meta->width), h =
          1 + test_rand_int (meta->height);
      guint x = test_rand_int (meta->width - w + 1), y =
          test_rand_int (meta->height - h + 1);
      gdouble sum = -1, var = -1, n = (gdouble) w * h;
      guint64 s = brute_sum (m, k, c, x, y, w, h, FALSE);
      guint64 q = brute_sum (m, k, c, x, y, w, h, TRUE);
      gdouble mu = s / n, v = q / n - mu * mu;

      gst_cuda_integral_meta_rect (meta, c, x, y, w, h, &sum, NULL, &var);
      test_check (sum == (gdouble) s && fabs (var - (v > 0 ? v : 0)) < 1e-6
          * (1 + v), "frame %u channel %u rect %ux%u at %u,%u: sum %.0f "
          "variance %g, expected %" G_GUINT64_FORMAT " %g", index, c, w, h,
          x, y, sum, var, s, v);
    }
  }
  /* a copy of the buffer carries host tables of its own */
  {
    GstBuffer *copy = gst_buffer_copy (b);
    GstCudaIntegralMeta *cm = gst_buffer_get_cuda_integral_meta (copy);
    test_check (cm && g_atomic_int_get (&cm->host_ready) && cm->sums[0]
        != meta->sums[0] && memcmp (cm->sums[0], meta->sums[0],
            meta->sums_stride * rows) == 0, "frame %u: the meta of a copy",
        index);
    gst_buffer_unref (copy);
  }
  m->context = meta->cuda_context;
  m->checked++;
}

static void
test_meta (void)
{
  static const struct
  {
    const gchar *format;
    guint channels;
    gint w, h;
  } cases[] = { {"RGBA", 3, 41, 29}, {"I420", 1, 33, 18}, {"BGRx", 3, 64,
          36}
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
        "height=%d,framerate=30/1", cases[i].format, cases[i].w, cases[i].h);
    MetaCheck m = { 0 };
    Seen seen = { {0}, {0} };
    Probe probe = { check_meta, &m, 0 };
    GstCudaContext *context = NULL;
    guint n;

    gst_video_info_from_caps (&m.info, gst_caps_from_string (caps));
    m.inputs = random_frames (&m.info, N_FRAMES);
    m.channels = cases[i].channels;
    n = run_probed ("cudaprefixsum name=probe attach-meta=true", caps,
        m.inputs, &seen, &probe, &context);
    test_check (n == N_FRAMES && m.checked == N_FRAMES, "meta %s: %d of %u "
        "frames checked", cases[i].format, m.checked, n);
    gst_clear_object (&context);
    g_ptr_array_unref (m.inputs);
    g_free (caps);
  }
}

/* ---- one context --------------------------------------------------------- */

/* The GstCudaContext `element` answers a context query with. */
static GstCudaContext *
context_of (GstElement * element)
{
  GstQuery *q = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *context = NULL;
  GstContext *ctx = NULL;

  if (gst_element_query (element, q)) {
    gst_query_parse_context (q, &ctx);
    if (ctx)
      gst_structure_get (gst_context_get_structure (ctx), GST_CUDA_CONTEXT_TYPE,
          GST_TYPE_CUDA_CONTEXT, &context, NULL);
  }
  gst_query_unref (q);
  return context;
}

/* Every named element of `pipe` holds the same context; returns it. */
static GstCudaContext *
check_one_context (GstElement * pipe, const gchar * const *names,
    const gchar * what)
{
  GstCudaContext *first = NULL;

  for (guint k = 0; names[k]; k++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), names[k]);
    GstCudaContext *c = e ? context_of (e) : NULL;

    test_check (c != NULL, "%s: %s holds no CUDA context", what, names[k]);
    if (c && !first)
      first = gst_object_ref (c);
    else if (c)
      test_check (c == first && gst_cuda_context_get_handle (c)
          == gst_cuda_context_get_handle (first), "%s: %s holds context %p "
          "(CUcontext %p), %s holds %p (%p)", what, names[k], c,
          gst_cuda_context_get_handle (c), names[0], first,
          gst_cuda_context_get_handle (first));
    gst_clear_object (&c);
    gst_clear_object (&e);
  }
  return first;
}

static void
test_context (void)
{
  static const gchar *const names[] = { "u", "c", "p", "d", NULL };
  static const gchar *const devices[] = { "-1", "0" };

  for (guint k = 0; k < G_N_ELEMENTS (devices); k++) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=3 ! "
        "video/x-raw,format=NV12,width=64,height=48 ! cudaupload name=u ! "
        "cudaconv2d name=c cuda-device-id=%s ! cudaprefixsum name=p "
        "cuda-device-id=%s ! cudadownload name=d ! appsink name=sink "
        "sync=false", devices[k], devices[k]);
    gchar *what = g_strdup_printf ("cuda-device-id=%s", devices[k]);
    GstElement *pipe = NULL;
    GPtrArray *out = run_pipeline (desc, NULL, NULL, NULL, what, NULL,
        &pipe);

    test_check (out && out->len == 3, "%s: %u frames", what, out ? out->len
        : 0);
    if (pipe) {
      GstCudaContext *c = check_one_context (pipe, names, what);
      gst_clear_object (&c);
      gst_element_set_state (pipe, GST_STATE_NULL);
      gst_object_unref (pipe);
    }
    if (out)
      g_ptr_array_unref (out);
    g_free (desc);
    g_free (what);
  }
}

/* ---- two GPUs ------------------------------------------------------------- */

/* The device of the context `element` holds, -1 when none. */
static gint
device_of (GstElement * pipe, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  GstCudaContext *c = e ? context_of (e) : NULL;
  gint id = -1;

  if (c)
    g_object_get (c, "cuda-device-id", &id, NULL);
  gst_clear_object (&c);
  gst_clear_object (&e);
  return id;
}

/* Elements naming devices 0 and 1 compute there, and the frames that cross
 * from one to the other come out as on one GPU. */
static void
test_two_gpus (gint count)
{
  const gchar *caps = "video/x-raw,format=NV12,width=96,height=54,"
      "framerate=30/1";
  const gchar *chain = "cudaconv2d name=a cuda-device-id=%d preset=gaussian "
      "size=5 planes=all ! cudaconv2d name=b cuda-device-id=%d preset=sharpen "
      "! cudaprefixsum name=p cuda-device-id=%d output=box-mean radius=2";
  GstVideoInfo info;
  GPtrArray *in, *one, *two;
  gchar *mid, *desc;
  GstElement *pipe = NULL;

  if (count < 2) {
    printf ("two-GPU test not run: %d CUDA device\n", count);
    return;
  }
  gst_video_info_from_caps (&info, gst_caps_from_string (caps));
  in = random_frames (&info, N_FRAMES);
  mid = g_strdup_printf (chain, 0, 0, 0);
  desc = g_strdup_printf ("appsrc name=src ! cudaupload ! %s ! cudadownload "
      "! appsink name=sink sync=false", mid);
  one = run_pipeline (desc, in, caps, NULL, "one GPU", NULL, NULL);
  g_free (mid);
  g_free (desc);
  mid = g_strdup_printf (chain, 0, 1, 1);
  desc = g_strdup_printf ("appsrc name=src ! cudaupload ! %s ! cudadownload "
      "! appsink name=sink sync=false", mid);
  two = run_pipeline (desc, in, caps, NULL, "two GPUs", NULL, &pipe);
  compare_outputs (one, two, "devices 0, 1, 1 against one GPU");
  if (pipe) {
    test_check (device_of (pipe, "a") == 0 && device_of (pipe, "b") == 1
        && device_of (pipe, "p") == 1, "two GPUs: the elements hold "
        "contexts of devices %d, %d, %d, not 0, 1, 1", device_of (pipe, "a"),
        device_of (pipe, "b"), device_of (pipe, "p"));
    printf ("two GPUs: %u frames through devices 0, 1, 1 equal to one GPU's\n",
        two ? two->len : 0);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
  }
  g_clear_pointer (&one, g_ptr_array_unref);
  g_clear_pointer (&two, g_ptr_array_unref);
  g_ptr_array_unref (in);
  g_free (mid);
  g_free (desc);
}

/* ---- copies counted by CUPTI ------------------------------------------------ */

/* The few CUPTI entry points used, declared here so that the test needs
 * the library only on the GPU machine (loaded with dlopen). A memcpy
 * activity record starts with these fields in every CUPTI version. */
typedef struct
{
  guint32 kind;
  guint8 copy_kind, src_kind, dst_kind, flags;
  guint64 bytes;
} MemcpyRecord;

#define CUPTI_ACTIVITY_KIND_MEMCPY 1
#define CUPTI_COPY_HTOD 1
#define CUPTI_COPY_DTOH 2

typedef struct
{
  int (*enable) (int kind);
  int (*disable) (int kind);
  int (*register_callbacks) (void (*requested) (guint8 **, size_t *,
          size_t *), void (*completed) (void *, guint32, guint8 *, size_t,
          size_t));
  int (*next_record) (guint8 * buffer, size_t valid, void **record);
  int (*flush) (guint32 flags);
} Cupti;

static Cupti cupti;
/* copies seen since the counters were cleared, and their bytes */
static guint64 copies[3], copied_bytes[3];
static GMutex copies_lock;

static void
buffer_requested (guint8 ** buffer, size_t * size, size_t * max_records)
{
  *size = 1 << 20;
  *buffer = g_malloc (*size);   /* 16-byte aligned, more than CUPTI's 8 */
  *max_records = 0;
}

static void
buffer_completed (void *context G_GNUC_UNUSED, guint32 stream G_GNUC_UNUSED,
    guint8 * buffer, size_t size G_GNUC_UNUSED, size_t valid)
{
  void *record = NULL;

  g_mutex_lock (&copies_lock);
  while (cupti.next_record (buffer, valid, &record) == 0) {
    MemcpyRecord *r = record;
    if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY && (r->copy_kind
            == CUPTI_COPY_HTOD || r->copy_kind == CUPTI_COPY_DTOH)) {
      copies[r->copy_kind]++;
      copied_bytes[r->copy_kind] += r->bytes;
    }
  }
  g_mutex_unlock (&copies_lock);
  g_free (buffer);
}

static const gchar *
load_cupti (void)
{
  static const gchar *const paths[] = { "libcupti.so",
    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
    "/usr/local/cuda/lib64/libcupti.so",
  };
  void *lib = NULL;

  for (guint k = 0; !lib && k < G_N_ELEMENTS (paths); k++)
    lib = dlopen (paths[k], RTLD_NOW);
  if (!lib)
    return "libcupti.so not found";
  cupti.enable = dlsym (lib, "cuptiActivityEnable");
  cupti.disable = dlsym (lib, "cuptiActivityDisable");
  cupti.register_callbacks = dlsym (lib, "cuptiActivityRegisterCallbacks");
  cupti.next_record = dlsym (lib, "cuptiActivityGetNextRecord");
  cupti.flush = dlsym (lib, "cuptiActivityFlushAll");
  if (!cupti.enable || !cupti.disable || !cupti.register_callbacks
      || !cupti.next_record || !cupti.flush)
    return "libcupti.so lacks the activity API";
  if (cupti.register_callbacks (buffer_requested, buffer_completed) != 0
      || cupti.enable (CUPTI_ACTIVITY_KIND_MEMCPY) != 0)
    return "CUPTI refused to record copies";
  return NULL;
}

/* Host<->device copies of a pipeline, flushed once it has run. */
static void
count_copies (const gchar * desc, GPtrArray * in, const gchar * caps,
    guint64 * htod, guint64 * htod_bytes, guint64 * dtoh,
    guint64 * dtoh_bytes)
{
  GPtrArray *out;

  cupti.flush (0);
  g_mutex_lock (&copies_lock);
  memset (copies, 0, sizeof (copies));
  memset (copied_bytes, 0, sizeof (copied_bytes));
  g_mutex_unlock (&copies_lock);
  out = run_pipeline (desc, in, caps, NULL, desc, NULL, NULL);
  cupti.flush (1);              /* CUPTI_ACTIVITY_FLAG_FLUSH_FORCED */
  g_mutex_lock (&copies_lock);
  *htod = copies[CUPTI_COPY_HTOD];
  *htod_bytes = copied_bytes[CUPTI_COPY_HTOD];
  *dtoh = copies[CUPTI_COPY_DTOH];
  *dtoh_bytes = copied_bytes[CUPTI_COPY_DTOH];
  g_mutex_unlock (&copies_lock);
  test_check (out && out->len == in->len, "%s: %u frames", desc,
      out ? out->len : 0);
  if (out)
    g_ptr_array_unref (out);
}

static void
test_copies (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=640,height=360,"
      "framerate=30/1";
  const gchar *chain = "cudaconv2d preset=gaussian size=5 ! cudaconv2d "
      "preset=sharpen ! cudaprefixsum output=box-mean post-messages=false";
  const guint n = 8;
  GstVideoInfo info;
  GPtrArray *in;
  guint64 htod, htod_bytes, dtoh, dtoh_bytes, frame;
  const gchar *why = load_cupti ();
  gchar *desc;

  if (why) {
    printf ("copies not counted: %s\n", why);
    return;
  }
  gst_video_info_from_caps (&info, gst_caps_from_string (caps));
  frame = info.size;
  in = random_frames (&info, n);

  /* in CUDA memory: cudaupload's and cudadownload's copies only */
  desc = g_strdup_printf ("appsrc name=src ! cudaupload ! %s ! "
      "cudadownload ! appsink name=sink sync=false", chain);
  count_copies (desc, in, caps, &htod, &htod_bytes, &dtoh, &dtoh_bytes);
  printf ("CUDA memory chain, %u frames of %" G_GUINT64_FORMAT " bytes: %"
      G_GUINT64_FORMAT " host->device copies (%" G_GUINT64_FORMAT " bytes), %"
      G_GUINT64_FORMAT " device->host (%" G_GUINT64_FORMAT " bytes)\n", n,
      frame, htod, htod_bytes, dtoh, dtoh_bytes);
  test_check (htod_bytes == n * frame && dtoh_bytes == n * frame,
      "CUDA memory chain: %" G_GUINT64_FORMAT " bytes up and %"
      G_GUINT64_FORMAT " down, expected %" G_GUINT64_FORMAT " each (the "
      "edges only)", htod_bytes, dtoh_bytes, n * frame);
  g_free (desc);

  /* between system-memory edges the elements still hand frames over in
   * CUDA memory: the first uploads, the last downloads */
  desc = g_strdup_printf ("appsrc name=src ! %s ! video/x-raw ! appsink "
      "name=sink sync=false", chain);
  count_copies (desc, in, caps, &htod, &htod_bytes, &dtoh, &dtoh_bytes);
  printf ("system memory edges: %" G_GUINT64_FORMAT " host->device copies (%"
      G_GUINT64_FORMAT " bytes), %" G_GUINT64_FORMAT " device->host (%"
      G_GUINT64_FORMAT " bytes)\n", htod, htod_bytes, dtoh, dtoh_bytes);
  test_check (htod_bytes == n * frame && dtoh_bytes == n * frame,
      "system memory edges: %" G_GUINT64_FORMAT " bytes up and %"
      G_GUINT64_FORMAT " down, expected %" G_GUINT64_FORMAT " each",
      htod_bytes, dtoh_bytes, n * frame);
  g_free (desc);

  /* system memory forced between the elements: each copies up and down,
   * which shows that the counting sees the elements' own copies */
  desc = g_strdup ("appsrc name=src ! cudaconv2d preset=gaussian size=5 ! "
      "video/x-raw ! cudaconv2d preset=sharpen ! video/x-raw ! cudaprefixsum "
      "output=box-mean post-messages=false ! video/x-raw ! appsink name=sink "
      "sync=false");
  count_copies (desc, in, caps, &htod, &htod_bytes, &dtoh, &dtoh_bytes);
  printf ("system memory between the elements: %" G_GUINT64_FORMAT
      " host->device copies (%" G_GUINT64_FORMAT " bytes), %"
      G_GUINT64_FORMAT " device->host (%" G_GUINT64_FORMAT " bytes)\n",
      htod, htod_bytes, dtoh, dtoh_bytes);
  test_check (htod_bytes >= 3 * n * frame && dtoh_bytes >= 3 * n * frame,
      "system memory between the elements: %" G_GUINT64_FORMAT " bytes up, %"
      G_GUINT64_FORMAT " down: the copies are not counted", htod_bytes,
      dtoh_bytes);
  g_free (desc);
  cupti.disable (CUPTI_ACTIVITY_KIND_MEMCPY);
  g_ptr_array_unref (in);
}

/* ---- a real decoder -------------------------------------------------------- */

static void
test_decoder (const gchar * media_dir)
{
  static const gchar *const names[] = { "dec", "c", "p", NULL };
  gchar *clip = g_build_filename (media_dir, "clip.h264", NULL);
  const gchar *cpu_dec = have_element ("avdec_h264") ? "avdec_h264"
      : "openh264dec";
  const gchar *chain = "cudaconv2d name=c preset=gaussian size=7 "
      "planes=all ! cudaprefixsum name=p output=box-mean radius=4";
  const gchar *links[] = { "dec", "c", "p", NULL };
  gchar *desc;
  GPtrArray *cpu, *gpu;
  GstElement *pipe = NULL;

  if (!g_file_test (clip, G_FILE_TEST_EXISTS)) {
    test_check (0, "%s is missing", clip);
    g_free (clip);
    return;
  }
  if (!have_element ("nvh264dec") || !have_element (cpu_dec)) {
    printf ("decoder test not run: nvh264dec%s missing\n",
        have_element (cpu_dec) ? "" : " or a CPU H.264 decoder");
    g_free (clip);
    return;
  }
  desc = g_strdup_printf ("filesrc location=%s ! h264parse ! %s ! "
      "videoconvert ! video/x-raw,format=NV12 ! %s ! appsink name=sink "
      "sync=false", clip,
      cpu_dec, chain);
  cpu = run_pipeline (desc, NULL, NULL, NULL, "CPU decoder", NULL, NULL);
  g_free (desc);
  desc = g_strdup_printf ("filesrc location=%s ! h264parse ! nvh264dec "
      "name=dec ! %s ! cudadownload ! appsink name=sink sync=false", clip,
      chain);
  gpu = run_pipeline (desc, NULL, NULL, links, "nvh264dec", NULL, &pipe);
  compare_outputs (cpu, gpu, "nvh264dec ! chain against the CPU decoder");
  if (cpu)
    printf ("%u frames of %s decoded by nvh264dec and %s compared\n",
        cpu->len, clip, cpu_dec);
  if (pipe) {
    GstCudaContext *c = check_one_context (pipe, names, "nvh264dec");
    gst_clear_object (&c);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
  }
  if (cpu)
    g_ptr_array_unref (cpu);
  if (gpu)
    g_ptr_array_unref (gpu);
  g_free (desc);
  g_free (clip);
}

/* ---- CPU fallback ------------------------------------------------------------ */

/* backend=cpu neither takes nor gives CUDA memory. */
static void
test_cpu_refuses (void)
{
  GstElement *e = gst_element_factory_make ("cudaconv2d", NULL);
  GstCaps *caps = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),"
      "format=RGBA,width=16,height=16,framerate=0/1");
  GstPad *sink;

  if (!test_check (e != NULL, "cudaconv2d is not installed"))
    return;
  sink = gst_element_get_static_pad (e, "sink");
  g_object_set (e, "backend", 2 /* cpu */ , NULL);
  test_check (!gst_pad_query_accept_caps (sink, caps), "backend=cpu accepts "
      "CUDA memory");
  gst_object_unref (sink);
  gst_caps_unref (caps);
  gst_object_unref (e);
}

int
main (int argc, char **argv)
{
  const gchar *media = argc > 1 ? argv[1] : "tests/media";
  const gchar *env = g_getenv ("CF_TEST_SEED");
  guint64 seed = env ? g_ascii_strtoull (env, NULL, 10) : (guint64) time (NULL);
  int count = 0, st;

  gst_init (&argc, &argv);
  printf ("%s: seed %" G_GUINT64_FORMAT " (set CF_TEST_SEED to replay)\n",
      NAME, seed);
  test_seed (seed);
  test_cpu_refuses ();
  st = cf_gpu_device_count (&count);
  if (count == 0)
    return test_skip (NAME, st == CF_OK ? "no CUDA device"
        : cf_status_name (st));
  if (!have_element ("cudaupload") || !have_element ("cudadownload"))
    return test_skip (NAME, "GStreamer's cudaupload/cudadownload (nvcodec) "
        "are not installed");
  test_copies ();               /* first: CUPTI must start before CUDA does */
  test_paths ();
  test_passthrough ();
  test_caps_change ();
  test_meta ();
  test_regions ();
  test_context ();
  test_decoder (media);
  test_two_gpus (count);
  return test_finish (NAME);
}
