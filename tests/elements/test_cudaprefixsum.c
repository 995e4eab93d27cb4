/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests of cudaprefixsum (video), through GstHarness and appsink.
 *
 *   test_cudaprefixsum          every behaviour, backend=cpu and auto
 *   test_cudaprefixsum --gpu    backend=cuda against backend=cpu; exits 77
 *                               when no GPU is usable
 *
 * References are computed here from the frames, sample by sample: the
 * statistics (mean, population variance, min, max of each measured
 * channel: grey, luma, or R, G, B), the grid's region means and variances,
 * the box means and thresholds, and the sums of rectangles read through
 * GstCudaIntegralMeta as an application reads them. The statistics are
 * also checked against videoanalyse on the same frames in one pipeline.
 * Frames are random (CF_TEST_SEED replays a run), of odd sizes. */
#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "element_check.h"
#include "gstcudaintegralmeta.h"

static const gchar *const formats[] = { "GRAY8", "GRAY16_LE", "RGBA", "BGRA",
  "RGBx", "BGRx", "ARGB", "ABGR", "xRGB", "xBGR", "I420", "YV12", "NV12",
  "Y444", "Y42B"
};

static const gchar *const backends[] = { "cpu", "auto" };
static guint64 frames_checked;

/* ---- frames and what the element measures in them --------------------- */

static GstBuffer *
random_frame (GstVideoInfo * info, const gchar * format, gint w, gint h)
{
  GstBuffer *buf;
  GstMapInfo map;

  gst_video_info_set_format (info, gst_video_format_from_string (format), w,
      h);
  GST_VIDEO_INFO_FPS_N (info) = 30;
  GST_VIDEO_INFO_FPS_D (info) = 1;
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gsize k = 0; k < map.size; k++)
    map.data[k] = (guint8) g_rand_int (rng);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

/* The measured channels: R, G, B of packed RGB, else component 0. */
static guint
n_channels (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_IS_RGB (info) ? 3 : 1;
}

static guint
sample_at (const GstVideoFrame * f, guint c, gint x, gint y)
{
  const guint8 *p = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, c)
      + (gsize) y * GST_VIDEO_FRAME_COMP_STRIDE (f, c)
      + (gsize) x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);
  return GST_VIDEO_FRAME_COMP_DEPTH (f, c) > 8 ? GST_READ_UINT16_LE (p) : *p;
}

typedef struct
{
  gdouble sum, squares, min, max, n;
} Region;

static Region
region (const GstVideoFrame * f, guint c, gint x0, gint y0, gint x1, gint y1)
{
  Region r = { 0, 0, G_MAXDOUBLE, -G_MAXDOUBLE, 0 };

  for (gint y = y0; y < y1; y++)
    for (gint x = x0; x < x1; x++) {
      gdouble v = sample_at (f, c, x, y);
      r.sum += v;
      r.squares += v * v;
      r.min = MIN (r.min, v);
      r.max = MAX (r.max, v);
      r.n++;
    }
  return r;
}

static gdouble
region_variance (const Region * r)
{
  gdouble mu = r->sum / r->n, v = r->squares / r->n - mu * mu;
  return v > 0 ? v : 0;
}

/* ---- running the element ------------------------------------------------- */

typedef struct
{
  GstHarness *h;
  GstBus *bus;
} Run;

static GstElement *
make_element (const gchar * backend, const gchar * settings)
{
  GstElement *e = gst_element_factory_make ("cudaprefixsum", NULL);
  gchar **pairs;

  fail_unless (e != NULL, "no cudaprefixsum element");
  gst_util_set_object_arg (G_OBJECT (e), "backend", backend);
  pairs = g_strsplit (settings ? settings : "", " ", -1);
  for (guint k = 0; pairs[k]; k++) {
    gchar **kv = g_strsplit (pairs[k], "=", 2);
    if (kv[0] && kv[1])
      gst_util_set_object_arg (G_OBJECT (e), kv[0], kv[1]);
    g_strfreev (kv);
  }
  g_strfreev (pairs);
  return e;
}

static void
run_start (Run * r, GstElement * e, const GstVideoInfo * info)
{
  r->bus = gst_bus_new ();
  gst_element_set_bus (e, r->bus);
  r->h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps (r->h, gst_video_info_to_caps (info));
}

static void
run_stop (Run * r, const gchar * what)
{
  expect_no_message (r->bus, what);
  gst_harness_teardown (r->h);
  /* queued messages (the CUDA context ones among them) hold the element,
   * which holds the bus: dropped, or the element and its context leak */
  gst_bus_set_flushing (r->bus, TRUE);
  gst_object_unref (r->bus);
}

/* Pushes a copy of `in` (kept by the caller) and returns the output. */
static GstBuffer *
push (Run * r, GstBuffer * in, GstClockTime pts, const gchar * what)
{
  GstBuffer *copy = gst_buffer_copy_deep (in), *out;

  GstFlowReturn ret;

  GST_BUFFER_PTS (copy) = pts;
  ret = gst_harness_push (r->h, copy);
  if (ret != GST_FLOW_OK) {
    /* say why */
    GstMessage *msg = gst_bus_pop_filtered (r->bus, GST_MESSAGE_ERROR);
    GError *err = NULL;
    gchar *debug = NULL;
    if (msg)
      gst_message_parse_error (msg, &err, &debug);
    fail ("%s: flow %s: %s (%s)", what, gst_flow_get_name (ret),
        err ? err->message : "no error message", debug ? debug : "");
  }
  out = gst_harness_try_pull (r->h);
  fail_unless (out != NULL, "%s: no output", what);
  return out;
}

/* The next element message named "cudaprefixsum", or NULL. */
static GstStructure *
next_stats (GstBus * bus)
{
  GstMessage *msg;

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (msg);
    if (gst_structure_has_name (s, "cudaprefixsum")) {
      GstStructure *copy = gst_structure_copy (s);
      gst_message_unref (msg);
      return copy;
    }
    gst_message_unref (msg);
  }
  return NULL;
}

static gdouble
array_at (const GstStructure * s, const gchar * field, guint i)
{
  const GValue *a = gst_structure_get_value (s, field);
  GValueArray *va;

  fail_unless (a != NULL, "no field %s", field);
  va = g_value_get_boxed (a);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  fail_unless (i < va->n_values, "%s has %u values", field, va->n_values);
  return g_value_get_double (g_value_array_get_nth (va, i));
  G_GNUC_END_IGNORE_DEPRECATIONS;
}

/* ---- 1. passthrough, the meta, the statistics ----------------------------- */

static void
check_stats (const GstStructure * s, const GstVideoFrame * f, gint columns,
    gint rows, const gchar * what)
{
  gint w = GST_VIDEO_FRAME_WIDTH (f), h = GST_VIDEO_FRAME_HEIGHT (f);
  guint nc = n_channels (&f->info);
  gint got_channels = 0;

  fail_unless (gst_structure_get_int (s, "channels", &got_channels)
      && got_channels == (gint) nc, "%s: channels %d", what, got_channels);
  for (guint c = 0; c < nc; c++) {
    Region r = region (f, c, 0, 0, w, h);
    gdouble mean = r.sum / r.n, var = region_variance (&r);
    fail_unless (fabs (array_at (s, "mean", c) - mean) <= 1e-9 * (1 + mean),
        "%s: channel %u mean %.12g, expected %.12g", what, c,
        array_at (s, "mean", c), mean);
    fail_unless (fabs (array_at (s, "variance", c) - var) <= 1e-6
        * (1 + var), "%s: channel %u variance %.12g, expected %.12g", what,
        c, array_at (s, "variance", c), var);
    fail_unless (array_at (s, "min", c) == r.min && array_at (s, "max", c)
        == r.max, "%s: channel %u min/max %g/%g, expected %g/%g", what, c,
        array_at (s, "min", c), array_at (s, "max", c), r.min, r.max);
  }
  if (columns > 0) {
    for (gint gy = 0; gy < rows; gy++)
      for (gint gx = 0; gx < columns; gx++)
        for (guint c = 0; c < nc; c++) {
          gint x0 = (gint) ((gint64) gx * w / columns);
          gint x1 = (gint) ((gint64) (gx + 1) * w / columns);
          gint y0 = (gint) ((gint64) gy * h / rows);
          gint y1 = (gint) ((gint64) (gy + 1) * h / rows);
          Region r = region (f, c, x0, y0, x1, y1);
          guint i = (guint) ((gy * columns + gx) * nc + c);
          gdouble m = r.sum / r.n, v = region_variance (&r);
          fail_unless (fabs (array_at (s, "grid-mean", i) - m) <= 1e-9
              * (1 + m) && fabs (array_at (s, "grid-variance", i) - v)
              <= 1e-6 * (1 + v), "%s: region (%d, %d) channel %u: mean "
              "%.9g variance %.9g, expected %.9g %.9g", what, gx, gy, c,
              array_at (s, "grid-mean", i), array_at (s, "grid-variance", i),
              m, v);
        }
  }
}

/* Rectangles read through the meta, as an application does, against sums
 * taken here. */
static void
check_meta (GstBuffer * out, const GstVideoFrame * f, const gchar * what)
{
  GstCudaIntegralMeta *m = gst_buffer_get_cuda_integral_meta (out);
  gint w = GST_VIDEO_FRAME_WIDTH (f), h = GST_VIDEO_FRAME_HEIGHT (f);
  gdouble sum, mean, var;

  fail_unless (m != NULL, "%s: no GstCudaIntegralMeta", what);
  fail_unless (m->width == (guint) w && m->height == (guint) h
      && m->n_channels == n_channels (&f->info), "%s: meta of %ux%u x %u",
      what, m->width, m->height, m->n_channels);
  for (gint k = 0; k < 40; k++)
    for (guint c = 0; c < m->n_channels; c++) {
      gint x0 = g_rand_int_range (rng, 0, w), y0 = g_rand_int_range (rng, 0,
          h);
      gint x1 = g_rand_int_range (rng, x0 + 1, w + 1);
      gint y1 = g_rand_int_range (rng, y0 + 1, h + 1);
      Region r;
      if (k == 0) {
        x0 = y0 = 0;
        x1 = w;
        y1 = h;
      }
      r = region (f, c, x0, y0, x1, y1);
      fail_unless (gst_cuda_integral_meta_rect (m, c, x0, y0, x1 - x0,
              y1 - y0, &sum, &mean, &var), "%s: rectangle refused", what);
      fail_unless (sum == r.sum && fabs (mean - r.sum / r.n) <= 1e-9 * (1
              + mean) && fabs (var - region_variance (&r)) <= 1e-6 * (1
              + var), "%s: channel %u [%d,%d)x[%d,%d): sum %.17g mean %.9g "
          "variance %.9g, expected %.17g %.9g %.9g", what, c, x0, x1, y0, y1,
          sum, mean, var, r.sum, r.sum / r.n, region_variance (&r));
    }
  /* outside the frame, empty, or a channel that is not there */
  fail_if (gst_cuda_integral_meta_rect (m, 0, 0, 0, w + 1, 1, NULL, NULL,
          NULL));
  fail_if (gst_cuda_integral_meta_rect (m, 0, 1, 1, 0, 1, NULL, NULL, NULL));
  fail_if (gst_cuda_integral_meta_rect (m, m->n_channels, 0, 0, 1, 1, NULL,
          NULL, NULL));
}

GST_START_TEST (test_passthrough)
{
  const gchar *backend = backends[__i__];

  for (guint k = 0; k < G_N_ELEMENTS (formats); k++) {
    gint w = g_rand_int_range (rng, 16, 180);
    gint h = 2 * g_rand_int_range (rng, 8, 60) + 1;
    gint columns = 1 + k % 5, rows = 1 + k % 3;
    GstVideoInfo info;
    GstBuffer *in = random_frame (&info, formats[k], w, h), *out;
    gchar *what = g_strdup_printf ("passthrough %s %dx%d [%s]", formats[k],
        w, h, backend);
    gchar *settings = g_strdup_printf ("grid-columns=%d grid-rows=%d",
        columns, rows);
    GstVideoFrame f;
    GstStructure *s;
    GstMapInfo a, b;
    Run r;

    run_start (&r, make_element (backend, settings), &info);
    out = push (&r, in, 0, what);
    /* unchanged */
    gst_buffer_map (in, &a, GST_MAP_READ);
    gst_buffer_map (out, &b, GST_MAP_READ);
    fail_unless (a.size == b.size && memcmp (a.data, b.data, a.size) == 0,
        "%s: the frame changed", what);
    gst_buffer_unmap (in, &a);
    gst_buffer_unmap (out, &b);
    gst_video_frame_map (&f, &info, in, GST_MAP_READ);
    check_meta (out, &f, what);
    s = next_stats (r.bus);
    fail_unless (s != NULL, "%s: no statistics message", what);
    check_stats (s, &f, columns, rows, what);
    gst_structure_free (s);
    gst_video_frame_unmap (&f);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    run_stop (&r, what);
    frames_checked++;
    g_free (what);
    g_free (settings);
  }
}

GST_END_TEST;

/* ---- 2. box mean and adaptive threshold ---------------------------------- */

static void
check_box (const GstVideoFrame * in, const GstVideoFrame * out, gint radius,
    gboolean threshold, gdouble offset, const gchar * what)
{
  gint w = GST_VIDEO_FRAME_WIDTH (in), h = GST_VIDEO_FRAME_HEIGHT (in);
  guint nc = n_channels (&in->info);

  for (guint c = 0; c < nc; c++)
    for (gint y = 0; y < h; y++)
      for (gint x = 0; x < w; x++) {
        Region r = region (in, c, MAX (0, x - radius), MAX (0, y - radius),
            MIN (w, x + radius + 1), MIN (h, y + radius + 1));
        guint depth_max = GST_VIDEO_FRAME_COMP_DEPTH (in, c) > 8 ? 65535 : 255;
        guint want = threshold ? (sample_at (in, c, x, y) > r.sum / r.n
            - offset ? depth_max : 0) : (guint) ((2 * (guint64) r.sum
                + (guint64) r.n) / (2 * (guint64) r.n));
        guint got = sample_at (out, c, x, y);
        if (got != want)
          fail ("%s: channel %u (%d, %d): got %u, expected %u", what, c, x,
              y, got, want);
      }
  /* what is not measured (alpha, chroma) as it came */
  for (guint c = nc; c < GST_VIDEO_FRAME_N_COMPONENTS (in); c++)
    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (in, c); y++)
      for (gint x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (in, c); x++)
        if (sample_at (in, c, x, y) != sample_at (out, c, x, y))
          fail ("%s: component %u (%d, %d) changed", what, c, x, y);
}

GST_START_TEST (test_box_and_threshold)
{
  const gchar *backend = backends[__i__];
  static const gint radii[] = { 1, 2, 8, 64, 1024 };

  for (guint k = 0; k < G_N_ELEMENTS (formats); k++)
    for (gint threshold = 0; threshold < 2; threshold++) {
      gint w = g_rand_int_range (rng, 8, 80);
      gint h = 2 * g_rand_int_range (rng, 4, 30) + 1;
      gint radius = radii[(k + threshold) % G_N_ELEMENTS (radii)];
      gdouble offset = threshold ? g_rand_double_range (rng, -5, 10) : 0;
      GstVideoInfo info;
      GstBuffer *in = random_frame (&info, formats[k], w, h), *out;
      gchar *settings = g_strdup_printf ("output=%s radius=%d offset=%.17g",
          threshold ? "adaptive-threshold" : "box-mean", radius, offset);
      gchar *what = g_strdup_printf ("%s %s %dx%d [%s]", settings,
          formats[k], w, h, backend);
      GstVideoFrame fi, fo;
      Run r;

      run_start (&r, make_element (backend, settings), &info);
      out = push (&r, in, 0, what);
      gst_video_frame_map (&fi, &info, in, GST_MAP_READ);
      gst_video_frame_map (&fo, &info, out, GST_MAP_READ);
      check_box (&fi, &fo, radius, threshold, offset, what);
      gst_video_frame_unmap (&fi);
      gst_video_frame_unmap (&fo);
      drain_messages (r.bus, GST_MESSAGE_ELEMENT);
      gst_buffer_unref (out);
      gst_buffer_unref (in);
      run_stop (&r, what);
      frames_checked++;
      g_free (settings);
      g_free (what);
    }
}

GST_END_TEST;

/* ---- 3. messages: interval, off, and videoanalyse ------------------------- */

GST_START_TEST (test_interval)
{
  const gchar *backend = backends[__i__];
  GstVideoInfo info;
  GstBuffer *in = random_frame (&info, "GRAY8", 31, 17);
  static const struct
  {
    const gchar *settings;
    gint expected;              /* of 10 frames 33.3 ms apart */
  } cases[] = {
    {"", 4}, {"interval=1", 10}, {"interval=50000000", 5},
    {"interval=1000000000", 1},
    {"post-messages=false", 0},
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    Run r;
    gint n = 0;
    GstStructure *s;

    run_start (&r, make_element (backend, cases[k].settings), &info);
    for (gint f = 0; f < 10; f++)
      gst_buffer_unref (push (&r, in, f * GST_SECOND / 30, "interval"));
    while ((s = next_stats (r.bus))) {
      n++;
      gst_structure_free (s);
    }
    fail_unless_equals_int (n, cases[k].expected);
    run_stop (&r, cases[k].settings);
  }
  gst_buffer_unref (in);
}

GST_END_TEST;

/* The same frames through cudaprefixsum and videoanalyse in one pipeline:
 * videoanalyse's luma average is ours over 255, its variance ours over
 * 255^2 once measured about the integer part of the mean as it does (ours
 * are checked exactly against the frames elsewhere). */
GST_START_TEST (test_same_as_videoanalyse)
{
  const gchar *backend = backends[__i__];
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=6 pattern=snow "
      "! video/x-raw,format=I420,width=161,height=91 ! cudaprefixsum "
      "interval=1 backend=%s ! videoanalyse ! fakesink", backend);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstBus *bus;
  GstMessage *msg;
  GHashTable *ours = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, g_free);
  gint compared = 0;

  fail_unless (p != NULL, "cannot build %s", desc);
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
    const GstStructure *s = gst_message_get_structure (msg);
    guint64 ts;
    if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT) {
      fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
          "the pipeline failed");
      gst_message_unref (msg);
      break;
    }
    gst_structure_get_uint64 (s, "timestamp", &ts);
    if (gst_structure_has_name (s, "cudaprefixsum")) {
      gint64 *key = g_new (gint64, 1);
      gdouble *v = g_new (gdouble, 2);
      *key = (gint64) ts;
      v[0] = array_at (s, "mean", 0);
      v[1] = array_at (s, "variance", 0);
      g_hash_table_insert (ours, key, v);
    } else if (gst_structure_has_name (s, "GstVideoAnalyse")) {
      gint64 key = (gint64) ts;
      gdouble *v = g_hash_table_lookup (ours, &key), avg, var;
      fail_unless (v != NULL, "videoanalyse measured a frame we did not");
      gst_structure_get_double (s, "luma-average", &avg);
      gst_structure_get_double (s, "luma-variance", &var);
      /* videoanalyse takes the spread about the integer part of the mean
       * (measured: its variance exceeds ours by (mean - floor (mean))^2) */
      {
        gdouble about_floor = v[1] + (v[0] - floor (v[0])) * (v[0]
            - floor (v[0]));
        fail_unless (fabs (v[0] / 255.0 - avg) < 1e-9
            && fabs (about_floor / (255.0 * 255.0) - var) < 1e-9, "frame at %"
            G_GUINT64_FORMAT ": ours mean %.9g variance %.9g (about the "
            "integer mean %.9g), videoanalyse %.9g %.9g (x 255, x 255^2)",
            ts, v[0], v[1], about_floor, avg * 255.0, var * 255.0 * 255.0);
      }
      compared++;
    }
    gst_message_unref (msg);
  }
  fail_unless_equals_int (compared, 6);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_hash_table_unref (ours);
  g_free (desc);
}

GST_END_TEST;

/* ---- 4. an application through appsink ----------------------------------- */

GST_START_TEST (test_application)
{
  const gchar *backend = backends[__i__];
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=3 pattern=snow "
      "! video/x-raw,format=RGBA,width=203,height=77 ! cudaprefixsum "
      "backend=%s ! appsink name=sink sync=false", backend);
  GstElement *p = gst_parse_launch (desc, NULL), *sink;
  gint samples = 0;

  fail_unless (p != NULL);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (;;) {
    GstSample *sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
    GstVideoInfo info;
    GstVideoFrame f;
    if (!sample)
      break;
    gst_video_info_from_caps (&info, gst_sample_get_caps (sample));
    gst_video_frame_map (&f, &info, gst_sample_get_buffer (sample),
        GST_MAP_READ);
    check_meta (gst_sample_get_buffer (sample), &f, "appsink");
    gst_video_frame_unmap (&f);
    gst_sample_unref (sample);
    samples++;
  }
  fail_unless_equals_int (samples, 3);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
}

GST_END_TEST;

/* ---- 5. bad input and properties -------------------------------------------- */

GST_START_TEST (test_bad_input)
{
  const gchar *backend = backends[__i__];
  GstVideoInfo info;
  GstBuffer *in = random_frame (&info, "GRAY8", 20, 10), *out;
  GObjectClass *k;
  GstElement *e;
  gchar *text;
  Run r;

  /* ranges that refuse nonsense */
  e = make_element (backend, NULL);
  k = G_OBJECT_GET_CLASS (e);
  fail_unless (G_PARAM_SPEC_INT (g_object_class_find_property (k,
              "radius"))->minimum == 1);
  fail_unless (G_PARAM_SPEC_INT (g_object_class_find_property (k,
              "radius"))->maximum == 1024);
  fail_unless (G_PARAM_SPEC_UINT64 (g_object_class_find_property (k,
              "interval"))->minimum == 1);
  gst_object_unref (e);

  /* a grid larger than the frame: not negotiated, saying why */
  run_start (&r, make_element (backend, "grid-columns=21 grid-rows=2"),
      &info);
  fail_unless_equals_int (gst_harness_push (r.h, gst_buffer_ref (in)),
      GST_FLOW_NOT_NEGOTIATED);
  text = expect_message (r.bus, GST_MESSAGE_ERROR, GST_CORE_ERROR,
      GST_CORE_ERROR_NEGOTIATION, "larger than the", "grid 21 x 2");
  g_free (text);
  drain_messages (r.bus, GST_MESSAGE_ANY);
  run_stop (&r, "grid too large");

  /* while playing: refused with a warning, the old grid stays */
  run_start (&r, make_element (backend, "grid-columns=2 grid-rows=2"), &info);
  gst_buffer_unref (push (&r, in, 0, "grid"));
  g_object_set (r.h->element, "grid-rows", 11, NULL);
  g_free (expect_message (r.bus, GST_MESSAGE_WARNING, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_SETTINGS, "grid-rows", "grid while playing"));
  {
    gint rows;
    g_object_get (r.h->element, "grid-rows", &rows, NULL);
    fail_unless_equals_int (rows, 2);
  }
  out = push (&r, in, GST_SECOND, "grid");
  gst_buffer_unref (out);
  drain_messages (r.bus, GST_MESSAGE_ELEMENT);
  run_stop (&r, "grid while playing");

  /* unsupported caps */
  e = make_element (backend, NULL);
  {
    GstPad *sink = gst_element_get_static_pad (e, "sink");
    GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGB,width=8,"
        "height=8,framerate=30/1");
    fail_if (gst_pad_query_accept_caps (sink, caps));
    gst_caps_unref (caps);
    gst_object_unref (sink);
  }
  gst_object_unref (e);
  gst_buffer_unref (in);
}

GST_END_TEST;

GST_START_TEST (test_cuda_without_gpu)
{
  check_cuda_without_gpu ("cudaprefixsum");
}

GST_END_TEST;

/* ---- the GPU suite ------------------------------------------------------------ */

/* backend=cuda gives what backend=cpu gives: frames, meta, messages. */
GST_START_TEST (test_gpu_matches_cpu)
{
  static const gchar *const settings[] = { "grid-columns=3 grid-rows=2",
    "output=box-mean radius=5", "output=adaptive-threshold radius=9 "
        "offset=2.5", "output=box-mean radius=300",
    /* the rows scanned by each scan variant: the same tables */
    "algorithm=kogge-stone grid-columns=2 grid-rows=3",
    "algorithm=brent-kung grid-columns=2 grid-rows=3",
    "algorithm=warp output=box-mean radius=4",
    "algorithm=decoupled grid-columns=1 grid-rows=1",
    "algorithm=cub output=box-mean radius=2",
  };

  for (guint k = 0; k < G_N_ELEMENTS (formats); k++)
    for (guint s = 0; s < G_N_ELEMENTS (settings); s++) {
      /* odd and even widths: tables of odd widths + 1 need padding */
      gint w = k % 3 == 0 ? 1920 : k % 3 == 1 ? 1921
          : g_rand_int_range (rng, 20, 400);
      gint h = k % 3 == 0 ? 1080 : k % 3 == 1 ? 1081
          : g_rand_int_range (rng, 20, 240);
      GstVideoInfo info;
      GstBuffer *in = random_frame (&info, formats[k], w, h), *out[2];
      GstStructure *st[2];
      gchar *what = g_strdup_printf ("%s %s %dx%d", settings[s], formats[k],
          w, h);

      for (gint g = 0; g < 2; g++) {
        Run r;
        run_start (&r, make_element (g ? "cuda" : "cpu", settings[s]), &info);
        out[g] = push (&r, in, 0, what);
        st[g] = next_stats (r.bus);
        run_stop (&r, what);
      }
      /* every visible sample (row padding is nobody's) */
      {
        GstVideoFrame fa, fb;
        gst_video_frame_map (&fa, &info, out[0], GST_MAP_READ);
        gst_video_frame_map (&fb, &info, out[1], GST_MAP_READ);
        for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (&fa); c++)
          for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, c); y++)
            for (gint x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&fa, c); x++)
              if (sample_at (&fa, c, x, y) != sample_at (&fb, c, x, y))
                fail ("%s: component %u (%d, %d): GPU %u, CPU %u", what, c,
                    x, y, sample_at (&fb, c, x, y), sample_at (&fa, c, x,
                        y));
        gst_video_frame_unmap (&fa);
        gst_video_frame_unmap (&fb);
      }
      fail_unless (st[0] && st[1] && gst_structure_is_equal (st[0], st[1]),
          "%s: messages differ:\n%" GST_PTR_FORMAT "\n%" GST_PTR_FORMAT,
          what, st[0], st[1]);
      if (strstr (settings[s], "grid")) {
        GstCudaIntegralMeta *m0 = gst_buffer_get_cuda_integral_meta (out[0]);
        GstCudaIntegralMeta *m1 = gst_buffer_get_cuda_integral_meta (out[1]);
        fail_unless (m0 && m1, "%s: a meta is missing", what);
        /* every entry (row padding is nobody's) */
        for (guint c = 0; c < m0->n_channels; c++)
          for (guint y = 0; y <= m0->height; y++) {
            gsize sum_bytes = (m0->width + 1) * (gsize) m0->sum_bytes;
            const guint8 *a = m0->sums[c] + y * m0->sums_stride;
            const guint8 *b = m1->sums[c] + y * m1->sums_stride;
            const guint8 *qa = m0->squares[c] + y * m0->squares_stride;
            const guint8 *qb = m1->squares[c] + y * m1->squares_stride;
            fail_unless (memcmp (a, b, sum_bytes) == 0, "%s: the GPU's sums "
                "differ in channel %u, row %u", what, c, y);
            fail_unless (memcmp (qa, qb, (m0->width + 1) * (gsize) 8) == 0,
                "%s: the GPU's squares differ in channel %u, row %u", what, c,
                y);
          }
      }
      for (gint g = 0; g < 2; g++) {
        gst_structure_free (st[g]);
        gst_buffer_unref (out[g]);
      }
      gst_buffer_unref (in);
      frames_checked++;
      g_free (what);
    }
}

GST_END_TEST;

static Suite *
cudaprefixsum_suite (void)
{
  Suite *s = suite_create ("cudaprefixsum");
  TCase *tc = tcase_create ("general");
  gint n = G_N_ELEMENTS (backends);

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_cuda_without_gpu);
  tcase_add_loop_test (tc, test_passthrough, 0, n);
  tcase_add_loop_test (tc, test_box_and_threshold, 0, n);
  tcase_add_loop_test (tc, test_interval, 0, n);
  tcase_add_loop_test (tc, test_same_as_videoanalyse, 0, n);
  tcase_add_loop_test (tc, test_application, 0, n);
  tcase_add_loop_test (tc, test_bad_input, 0, n);
  return s;
}

static Suite *
cudaprefixsum_gpu_suite (void)
{
  Suite *s = suite_create ("cudaprefixsum-gpu");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_gpu_matches_cpu);
  return s;
}

int
main (int argc, char **argv)
{
  gboolean gpu;
  const gchar *name;
  gint ret;
  Suite *s;

  if (!element_test_init ("cudaprefixsum", &argc, &argv, &gpu))
    return 1;
  name = gpu ? "cudaprefixsum-gpu" : "cudaprefixsum";
  if (gpu) {
    gchar *why = cuda_unusable_reason ("cudaprefixsum");
    if (why) {
      g_print ("SKIP %s: %s\n", name, why);
      g_free (why);
      return 77;
    }
    s = cudaprefixsum_gpu_suite ();
  } else {
    s = cudaprefixsum_suite ();
  }
  ret = gst_check_run_suite (s, name, __FILE__);
  g_print ("%s: %" G_GUINT64_FORMAT " frames checked (seed %u)\n", name,
      frames_checked, seed);
  g_rand_free (rng);
  return ret;
}
