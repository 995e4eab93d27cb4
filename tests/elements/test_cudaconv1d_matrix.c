/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d with impulse responses that mix channels: true stereo, N x M
 * matrices by the channel counts or by `matrix`, `out-channels` in the
 * caps both ways, and the bad values. Each output is checked sample by
 * sample against a convolution computed here in double from the routes
 * the test itself lists, on random taps and random input in every format
 * and layout, through the direct and the FFT paths, with latency, gain
 * and mix, the tail at EOS included. `--gpu` runs the same on backend=cuda
 * (SKIP without a usable GPU).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

static guint32 seed;
static GRand *rng;

#include "element_check.h"

#define RATE 48000

static const gchar *backend = "cpu";

/* One route, as the test lists it (independently of the element). */
typedef struct
{
  gint in, out, ir;
} Route;

/* A case: channels, responses, the routes they make, and the element's
 * settings. */
typedef struct
{
  const gchar *name;
  gint in, out, responses;
  const gchar *matrix;          /* NULL: by the counts */
  gboolean set_out;             /* out-channels set */
  gint n_routes;
  Route routes[16];
} Layout;

static const Layout layouts[] = {
  {"true stereo", 2, 2, 4, NULL, FALSE, 4,
      {{0, 0, 0}, {0, 1, 1}, {1, 0, 2}, {1, 1, 3}}},
  {"7 into 2", 7, 2, 14, NULL, TRUE, 14,
        {{0, 0, 0}, {0, 1, 1}, {1, 0, 2}, {1, 1, 3}, {2, 0, 4}, {2, 1, 5},
          {3, 0, 6}, {3, 1, 7}, {4, 0, 8}, {4, 1, 9}, {5, 0, 10}, {5, 1, 11},
      {6, 0, 12}, {6, 1, 13}}},
  {"mono into stereo", 1, 2, 2, NULL, TRUE, 2, {{0, 0, 0}, {0, 1, 1}}},
  {"swapped by a matrix", 2, 2, 2, "0:1:0, 1:0:1", FALSE, 2,
      {{0, 1, 0}, {1, 0, 1}}},
  {"2 into 3, some pairs", 2, 3, 3, "1:2:0 0:0:2 1:0:1", TRUE, 3,
      {{1, 2, 0}, {0, 0, 2}, {1, 0, 1}}},
  /* a matrix that is each channel through its own: the plain fast path */
  {"own masks by a matrix", 2, 2, 2, "0:0:0 1:1:1", FALSE, 2,
      {{0, 0, 0}, {1, 1, 1}}},
};

static const GstAudioFormat formats[] = { GST_AUDIO_FORMAT_F32LE,
  GST_AUDIO_FORMAT_F64LE, GST_AUDIO_FORMAT_S16LE, GST_AUDIO_FORMAT_S32LE
};

/* ---- samples ------------------------------------------------------------- */

static gdouble
quantize (GstAudioFormat format, gdouble v)
{
  switch (format) {
    case GST_AUDIO_FORMAT_S16LE:
      return CLAMP (nearbyint (v * 32768.0), -32768, 32767) / 32768.0;
    case GST_AUDIO_FORMAT_S32LE:
      return CLAMP (nearbyint (v * 2147483648.0), -2147483648.0,
          2147483647.0) / 2147483648.0;
    case GST_AUDIO_FORMAT_F32LE:
      return (gfloat) v;
    default:
      return v;
  }
}

static void
put (GstAudioFormat format, guint8 * base, gsize i, gdouble v)
{
  switch (format) {
    case GST_AUDIO_FORMAT_S16LE:
      ((gint16 *) base)[i] = (gint16) nearbyint (v * 32768.0);
      break;
    case GST_AUDIO_FORMAT_S32LE:
      ((gint32 *) base)[i] = (gint32) nearbyint (v * 2147483648.0);
      break;
    case GST_AUDIO_FORMAT_F32LE:
      ((gfloat *) base)[i] = (gfloat) v;
      break;
    default:
      ((gdouble *) base)[i] = v;
      break;
  }
}

static gdouble
get (GstAudioFormat format, const guint8 * base, gsize i)
{
  switch (format) {
    case GST_AUDIO_FORMAT_S16LE:
      return ((const gint16 *) base)[i] / 32768.0;
    case GST_AUDIO_FORMAT_S32LE:
      return ((const gint32 *) base)[i] / 2147483648.0;
    case GST_AUDIO_FORMAT_F32LE:
      return ((const gfloat *) base)[i];
    default:
      return ((const gdouble *) base)[i];
  }
}

/* A buffer of frames [at, at + n) of x (channels planes of `frames`). */
static GstBuffer *
make_buffer (const GstAudioInfo * info, const gdouble * x, gint frames,
    gint at, gint n)
{
  gint channels = GST_AUDIO_INFO_CHANNELS (info);
  gsize bps = GST_AUDIO_INFO_BPS (info);
  gboolean planar = GST_AUDIO_INFO_LAYOUT (info)
      == GST_AUDIO_LAYOUT_NON_INTERLEAVED;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, (gsize) n * channels * bps,
      NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gint c = 0; c < channels; c++)
    for (gint i = 0; i < n; i++)
      put (GST_AUDIO_INFO_FORMAT (info), map.data, planar ? (gsize) c * n + i
          : (gsize) i * channels + c, x[(gsize) c * frames + at + i]);
  gst_buffer_unmap (buf, &map);
  if (planar)
    gst_buffer_add_audio_meta (buf, info, n, NULL);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (at, GST_SECOND, RATE);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int (n, GST_SECOND,
      RATE);
  if (at == 0)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  return buf;
}

/* ---- the reference ------------------------------------------------------- */

/* Output j at output frame i: the dry signal (input j at frame i, if
 * there is an input j) and the wet one (the sum of j's routes at frame
 * i + latency: the latency shifts the filtered signal earlier) weighed. */
static gdouble
expected (const Layout * l, const gdouble * h, gint taps, const gdouble * x,
    gint frames, gint j, gint i, gint latency, gdouble dry, gdouble wet)
{
  gint n = i + latency;
  gdouble sum = 0.0;

  for (gint r = 0; r < l->n_routes; r++) {
    const Route *route = &l->routes[r];
    const gdouble *hr = h + (gsize) route->ir * taps;
    const gdouble *xi = x + (gsize) route->in * frames;
    if (route->out != j)
      continue;
    for (gint k = 0; k < taps; k++)
      if (n - k >= 0 && n - k < frames)
        sum += hr[k] * xi[n - k];
  }
  sum *= wet;
  if (j < l->in && i < frames)
    sum += dry * x[(gsize) j * frames + i];
  return sum;
}

static gchar *
kernel_text (const gdouble * h, gint responses, gint taps)
{
  GString *s = g_string_new (NULL);

  for (gint m = 0; m < responses; m++) {
    for (gint k = 0; k < taps; k++)
      g_string_append_printf (s, "%s%.17g", k ? " " : "", h[(gsize) m * taps
              + k]);
    if (m + 1 < responses)
      g_string_append (s, "; ");
  }
  return g_string_free (s, FALSE);
}

/* ---- running a case ------------------------------------------------------ */

typedef struct
{
  const Layout *layout;
  GstAudioFormat format;
  gboolean planar;
  gint taps;
  const gchar *algorithm;
  guint latency;
  gdouble gain, mix;
  gboolean overlap;             /* outputs by the element's own thread (GPU) */
} Case;

static gchar *
describe (const Case * k)
{
  return g_strdup_printf ("%s, %s %s, %d taps (%s), latency %u, gain %g, "
      "mix %g%s [%s]", k->layout->name, gst_audio_format_to_string (k->format),
      k->planar ? "planar" : "interleaved", k->taps, k->algorithm,
      k->latency, k->gain, k->mix, k->overlap ? ", overlap" : "", backend);
}

static GstHarness *
start (const Case * k, const gdouble * h, GstAudioInfo * in_info)
{
  const Layout *l = k->layout;
  gchar *kernel = kernel_text (h, l->responses, k->taps);
  /* set before the harness starts it: out-channels and latency are
   * fixed while running */
  gchar *line = g_strdup_printf ("cudaconv1d backend=%s algorithm=%s "
      "kernel=\"%s\" latency=%u gain=%.17g mix=%.17g matrix=\"%s\" "
      "out-channels=%d overlap=%s", backend, k->algorithm, kernel,
      k->latency, k->gain, k->mix, l->matrix ? l->matrix : "",
      l->set_out ? l->out : 0, k->overlap ? "true" : "false");
  GstHarness *hn = gst_harness_new_parse (line);
  GstCaps *caps;

  g_free (line);
  gst_audio_info_set_format (in_info, k->format, RATE, l->in, NULL);
  in_info->layout = k->planar ? GST_AUDIO_LAYOUT_NON_INTERLEAVED
      : GST_AUDIO_LAYOUT_INTERLEAVED;
  caps = gst_audio_info_to_caps (in_info);
  gst_harness_set_src_caps (hn, caps);
  g_free (kernel);
  return hn;
}

/* Checks the source caps: the output's channels and positions. */
static void
check_out_caps (GstHarness * hn, const Case * k, GstAudioInfo * out_info,
    const gchar * what)
{
  GstCaps *caps = gst_pad_get_current_caps (hn->sinkpad);
  guint64 mask = 0;

  fail_unless (caps != NULL, "%s: no caps out", what);
  fail_unless (gst_audio_info_from_caps (out_info, caps), "%s: caps %"
      GST_PTR_FORMAT, what, caps);
  fail_unless_equals_int (GST_AUDIO_INFO_CHANNELS (out_info),
      k->layout->out);
  fail_unless (GST_AUDIO_INFO_FORMAT (out_info) == k->format);
  if (k->layout->set_out && k->layout->out > 1) {
    fail_unless (gst_structure_get (gst_caps_get_structure (caps, 0),
            "channel-mask", GST_TYPE_BITMASK, &mask, NULL), "%s: %"
        GST_PTR_FORMAT, what, caps);
    fail_unless (mask == gst_audio_channel_get_fallback_mask (k->layout->out),
        "%s: channel-mask 0x%" G_GINT64_MODIFIER "x", what, mask);
  }
  gst_caps_unref (caps);
}

/* Compares every output sample with the reference; returns the frames. */
static gint
check_outputs (GstHarness * hn, const Case * k, const gdouble * h,
    const gdouble * x, gint frames, const GstAudioInfo * out_info,
    const gchar * what)
{
  const Layout *l = k->layout;
  gdouble dry = 1.0 - k->mix, wet = k->gain * k->mix;
  gdouble hsum = 0.0, tol;
  GstBuffer *buf;
  gint at = 0;

  for (gint i = 0; i < l->responses * k->taps; i++)
    hsum += fabs (h[i]);
  /* float: rounding of the sums (the FFT's among them); doubles: far less;
   * integers: their output rounding */
  tol = k->format == GST_AUDIO_FORMAT_S16LE ? 1.01 / 32768.0
      : k->format == GST_AUDIO_FORMAT_F32LE ? 2e-6 * (hsum + 1.0)
      : 1e-9 * (hsum + 1.0);
  while ((buf = gst_harness_try_pull (hn))) {
    GstAudioBuffer ab;
    gint n;
    fail_unless (gst_audio_buffer_map (&ab, out_info, buf, GST_MAP_READ),
        "%s: cannot map an output", what);
    n = (gint) ab.n_samples;
    for (gint j = 0; j < l->out; j++)
      for (gint i = 0; i < n; i++) {
        gsize idx = k->planar ? (gsize) i : (gsize) i * l->out + j;
        const guint8 *base = ab.planes[k->planar ? j : 0];
        gdouble got = get (k->format, base, idx);
        gdouble want = expected (l, h, k->taps, x, frames, j, at + i,
            (gint) k->latency, dry, wet);
        fail_unless (fabs (got - want) <= tol, "%s: output %d frame %d: "
            "%.9g, expected %.9g", what, j, at + i, got, want);
      }
    gst_audio_buffer_unmap (&ab);
    at += n;
    gst_buffer_unref (buf);
  }
  return at;
}

static void
run_case (const Case * k)
{
  const Layout *l = k->layout;
  gint frames = 2000 + g_rand_int_range (rng, 0, 3000);
  gdouble *h = g_new (gdouble, (gsize) l->responses * k->taps);
  gdouble *x = g_new (gdouble, (gsize) l->in * frames);
  gchar *what = describe (k);
  GstAudioInfo in_info, out_info;
  GstHarness *hn;
  gint out_frames;

  /* taps scaled so no output clips an integer format */
  for (gint i = 0; i < l->responses * k->taps; i++)
    h[i] = g_rand_double_range (rng, -1.0, 1.0) / (k->taps * 2.0);
  for (gint i = 0; i < l->in * frames; i++)
    x[i] = quantize (k->format, g_rand_double_range (rng, -0.4, 0.4));
  hn = start (k, h, &in_info);
  for (gint at = 0; at < frames;) {
    /* (one draw: MIN evaluates its arguments twice) */
    gint cut = g_rand_int_range (rng, 1, 1500), n = MIN (frames - at, cut);
    GstBuffer *in = make_buffer (&in_info, x, frames, at, n);
    fail_unless_equals_int (gst_harness_push (hn, in), GST_FLOW_OK);
    at += n;
  }
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  check_out_caps (hn, k, &out_info, what);
  out_frames = check_outputs (hn, k, h, x, frames, &out_info, what);
  fail_unless_equals_int (out_frames, frames + k->taps - 1 - (gint)
      k->latency);
  gst_harness_teardown (hn);
  g_free (h);
  g_free (x);
  g_free (what);
}

/* ---- tests --------------------------------------------------------------- */

/* Every layout, format and layout of samples, both paths. */
GST_START_TEST (test_routes)
{
  guint runs = 0;

  for (guint li = 0; li < G_N_ELEMENTS (layouts); li++)
    for (guint fi = 0; fi < G_N_ELEMENTS (formats); fi++)
      for (gint planar = 0; planar < 2; planar++)
        for (gint fft = 0; fft < 2; fft++) {
          Case k = { &layouts[li], formats[fi], planar, fft ? 700 : 31,
            fft ? "fft" : "auto", 0, 1.0, 1.0, FALSE
          };
          run_case (&k);
          runs++;
        }
  g_print ("matrix [%s]: %u runs checked\n", backend, runs);
}

GST_END_TEST;

/* latency, gain and mix: the dry signal of output j is input j (none for
 * outputs past the inputs); and outputs pushed by the element's own
 * thread (overlap, which only the GPU backend uses). */
GST_START_TEST (test_properties)
{
  for (guint li = 0; li < G_N_ELEMENTS (layouts); li++)
    for (gint fft = 0; fft < 2; fft++)
      for (gint overlap = 0; overlap < 2; overlap++) {
        Case k = { &layouts[li], overlap ? GST_AUDIO_FORMAT_F32LE
              : GST_AUDIO_FORMAT_F64LE, fft, fft ? 700 : 31,
          fft ? "fft" : "auto", overlap ? 0 : 7, overlap ? 1.0 : 0.5,
          overlap ? 1.0 : 0.7, overlap
        };
        run_case (&k);
      }
}

GST_END_TEST;

/* A new kernel whose routes differ, set between two buffers: the output
 * is the old routes' before, and the new routes' after, with the input
 * history carried into the new filter (exact on the direct path, whose
 * history covers the mask). Both ways: diagonal to true stereo and back. */
GST_START_TEST (test_change_routes)
{
  static const Layout own = { "stereo, own masks", 2, 2, 2, NULL, FALSE, 2,
    {{0, 0, 0}, {1, 1, 1}}
  };
  const gint taps = 31, frames = 6000, n0 = 2500;

  for (gint way = 0; way < 2; way++) {
    const Layout *from = way ? &layouts[0] : &own;
    const Layout *to = way ? &own : &layouts[0];
    gdouble *h[2], *x = g_new (gdouble, 2 * frames);
    Case k = { from, GST_AUDIO_FORMAT_F64LE, FALSE, taps, "auto", 0, 1.0,
      1.0, FALSE
    };
    gchar *kernel, *what = g_strdup_printf ("%s, then %s [%s]", from->name,
        to->name, backend);
    GstAudioInfo in_info, out_info;
    GstHarness *hn;
    GstBuffer *buf;
    gint at = 0;

    for (gint v = 0; v < 2; v++) {
      gint n = (v ? to : from)->responses * taps;
      h[v] = g_new (gdouble, n);
      for (gint i = 0; i < n; i++)
        h[v][i] = g_rand_double_range (rng, -1.0, 1.0) / (2.0 * taps);
    }
    for (gint i = 0; i < 2 * frames; i++)
      x[i] = g_rand_double_range (rng, -0.4, 0.4);
    hn = start (&k, h[0], &in_info);
    /* (not named `first`: check's equality macros declare one) */
    for (gint from_frame = 0; from_frame < frames; from_frame += 500) {
      GstBuffer *in;
      if (from_frame == n0) {
        GstElement *e = gst_harness_find_element (hn, "cudaconv1d");
        kernel = kernel_text (h[1], to->responses, taps);
        g_object_set (e, "kernel", kernel, "crossfade", 0, NULL);
        g_free (kernel);
        wait_prepared (e, what);
        gst_object_unref (e);
      }
      in = make_buffer (&in_info, x, frames, from_frame, 500);
      fail_unless_equals_int (gst_harness_push (hn, in), GST_FLOW_OK);
    }
    fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
    check_out_caps (hn, &k, &out_info, what);
    while ((buf = gst_harness_try_pull (hn))) {
      GstAudioBuffer ab;
      fail_unless (gst_audio_buffer_map (&ab, &out_info, buf, GST_MAP_READ));
      for (gint i = 0; i < (gint) ab.n_samples; i++, at++)
        for (gint j = 0; j < 2; j++) {
          gdouble got = ((const gdouble *) ab.planes[0])[i * 2 + j];
          gboolean after = at >= n0;
          gdouble want = expected (after ? to : from, h[after], taps, x,
              frames, j, at, 0, 0.0, 1.0);
          fail_unless (fabs (got - want) <= 1e-12, "%s: output %d frame %d: "
              "%.12g, expected %.12g", what, j, at, got, want);
        }
      gst_audio_buffer_unmap (&ab);
      gst_buffer_unref (buf);
    }
    fail_unless_equals_int (at, frames + taps - 1);
    gst_harness_teardown (hn);
    g_free (h[0]);
    g_free (h[1]);
    g_free (x);
    g_free (what);
  }
}

GST_END_TEST;

/* An element error (or warning) whose text names `says`. */
static void
expect_refusal (GstBus * bus, GstMessageType type, const gchar * says,
    const gchar * what)
{
  GstMessage *m = gst_bus_pop_filtered (bus, type);
  GError *err = NULL;

  fail_unless (m != NULL, "%s: no %s", what, type == GST_MESSAGE_ERROR
      ? "error" : "warning");
  if (type == GST_MESSAGE_ERROR)
    gst_message_parse_error (m, &err, NULL);
  else
    gst_message_parse_warning (m, &err, NULL);
  fail_unless (strstr (err->message, says) != NULL, "%s: \"%s\" does not "
      "say \"%s\"", what, err->message, says);
  g_print ("%s: %s\n", what, err->message);
  g_error_free (err);
  gst_message_unref (m);
}

/* A buffer of `size` zero bytes at time 0. */
static GstBuffer *
stamped (gsize size)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);

  gst_buffer_memset (buf, 0, 0, size);
  GST_BUFFER_PTS (buf) = 0;
  return buf;
}

/* Settings that fit no stream: each a clear error naming the value. */
GST_START_TEST (test_bad_settings)
{
  static const struct
  {
    gint channels;
    guint out;
    const gchar *kernel, *matrix, *says;
  } bad[] = {
    {2, 0, "1; 1", "0:0:0 2:0:1", "input channel 2"},
    {2, 0, "1; 1", "0:0:0 0:3:1", "output channel 3"},
    {2, 0, "1; 1", "0:0:0 1:1:2", "impulse response channel 2"},
    {2, 0, "1; 1", "0:0:0 0:0:1", "given twice"},
    {2, 0, "1; 1", "0:0", "not in:out:ir"},
    {2, 0, "1; 1; 1", NULL, "has 3 channels"},
    {3, 2, "1; 1; 1; 1; 1", NULL, "has 5 channels"},
  };

  for (guint b = 0; b < G_N_ELEMENTS (bad); b++) {
    GstElement *e = gst_element_factory_make ("cudaconv1d", NULL);
    GstBus *bus = gst_bus_new ();
    gchar *caps = g_strdup_printf ("audio/x-raw,format=F32LE,rate=%d,"
        "channels=%d,layout=interleaved,channel-mask=(bitmask)0x%"
        G_GINT64_MODIFIER "x", RATE, bad[b].channels,
        gst_audio_channel_get_fallback_mask (bad[b].channels));
    GstHarness *hn;
    GstFlowReturn ret;

    /* the settings given before the start, as a launch line gives them */
    gst_element_set_bus (e, bus);
    gst_util_set_object_arg (G_OBJECT (e), "backend", backend);
    g_object_set (e, "kernel", bad[b].kernel, "matrix", bad[b].matrix,
        "out-channels", bad[b].out, NULL);
    /* what needs no stream (the matrix's syntax) fails the start */
    if (gst_element_set_state (e, GST_STATE_PAUSED)
        == GST_STATE_CHANGE_FAILURE) {
      expect_refusal (bus, GST_MESSAGE_ERROR, bad[b].says, bad[b].says);
      gst_element_set_state (e, GST_STATE_NULL);
      /* the messages left hold the element, which holds the bus */
      gst_bus_set_flushing (bus, TRUE);
      gst_element_set_bus (e, NULL);
      gst_object_unref (e);
      gst_object_unref (bus);
      g_free (caps);
      continue;
    }
    gst_element_set_state (e, GST_STATE_NULL);
    hn = gst_harness_new_with_element (e, "sink", "src");
    gst_object_unref (e);
    gst_harness_set_src_caps_str (hn, caps);
    ret = gst_harness_push (hn, stamped (4 * bad[b].channels * 64));
    fail_unless (ret != GST_FLOW_OK, "%s: accepted", bad[b].says);
    expect_refusal (bus, GST_MESSAGE_ERROR, bad[b].says, bad[b].says);
    gst_bus_set_flushing (bus, TRUE);
    gst_harness_teardown (hn);
    gst_object_unref (bus);
    g_free (caps);
  }
}

GST_END_TEST;

/* A bad matrix while playing is refused with a warning; the stream goes
 * on with the routes it had. */
GST_START_TEST (test_bad_change_while_playing)
{
  GstElement *e = gst_element_factory_make ("cudaconv1d", NULL);
  GstBus *bus = gst_bus_new ();
  gchar *matrix = NULL;
  GstHarness *hn;
  GstBuffer *buf;

  gst_util_set_object_arg (G_OBJECT (e), "backend", backend);
  g_object_set (e, "kernel", "1; 0.5; 0.25; 2", NULL);
  gst_element_set_bus (e, bus);
  hn = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (hn, "audio/x-raw,format=F32LE,rate=48000,"
      "channels=2,layout=interleaved,channel-mask=(bitmask)0x3");
  fail_unless_equals_int (gst_harness_push (hn, stamped (8 * 64)),
      GST_FLOW_OK);
  g_object_set (hn->element, "matrix", "0:0:9", NULL);
  expect_refusal (bus, GST_MESSAGE_WARNING, "impulse response channel 9",
      "matrix 0:0:9 while playing");
  g_object_get (hn->element, "matrix", &matrix, NULL);
  fail_unless (matrix == NULL, "the refused matrix stayed: %s", matrix);
  buf = stamped (8 * 64);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (64, GST_SECOND, RATE);
  fail_unless_equals_int (gst_harness_push (hn, buf), GST_FLOW_OK);
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (hn);
  gst_object_unref (bus);
}

GST_END_TEST;

/* Downstream that takes no such count: a negotiation error. */
GST_START_TEST (test_downstream_refuses)
{
  GstElement *e = gst_element_factory_make ("cudaconv1d", NULL);
  GstBus *bus = gst_bus_new ();
  GstHarness *hn;

  gst_element_set_bus (e, bus);
  gst_util_set_object_arg (G_OBJECT (e), "backend", backend);
  g_object_set (e, "kernel", "1; 1; 1; 1; 1; 1", "out-channels", 2, NULL);
  hn = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_sink_caps_str (hn, "audio/x-raw,channels=4");
  gst_harness_set_src_caps_str (hn, "audio/x-raw,format=F32LE,rate=48000,"
      "channels=3,layout=interleaved,channel-mask=(bitmask)0x7");
  fail_unless (gst_harness_push (hn, stamped (12 * 64))
      == GST_FLOW_NOT_NEGOTIATED);
  expect_refusal (bus, GST_MESSAGE_ERROR, "out-channels=2",
      "out-channels=2 against a sink of 4 channels");
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (hn);
  gst_object_unref (bus);
}

GST_END_TEST;

/* out-channels in the caps, both ways: the source pad offers that count
 * (stereo positions for 2), the sink pad any count. */
GST_START_TEST (test_caps_both_ways)
{
  GstElement *e = gst_element_factory_make ("cudaconv1d", NULL);
  GstPad *src = gst_element_get_static_pad (e, "src");
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstCaps *caps, *seven;
  gint channels = 0;
  guint64 mask = 0;

  g_object_set (e, "out-channels", 2, NULL);
  caps = gst_pad_query_caps (src, NULL);
  fail_if (gst_caps_is_empty (caps));
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);
    fail_unless (gst_structure_get_int (s, "channels", &channels)
        && channels == 2, "source caps %" GST_PTR_FORMAT, caps);
    fail_unless (gst_structure_get (s, "channel-mask", GST_TYPE_BITMASK,
            &mask, NULL) && mask == 0x3, "source caps %" GST_PTR_FORMAT,
        caps);
  }
  gst_caps_unref (caps);
  caps = gst_pad_query_caps (sink, NULL);
  seven = gst_caps_from_string ("audio/x-raw,channels=7");
  fail_unless (gst_caps_can_intersect (caps, seven), "sink caps %"
      GST_PTR_FORMAT, caps);
  gst_caps_unref (seven);
  gst_caps_unref (caps);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
matrix_suite (void)
{
  Suite *s = suite_create ("cudaconv1d-matrix");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_routes);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_change_routes);
  tcase_add_test (tc, test_caps_both_ways);
  tcase_add_test (tc, test_bad_settings);
  tcase_add_test (tc, test_bad_change_while_playing);
  tcase_add_test (tc, test_downstream_refuses);
  return s;
}

int
main (int argc, char **argv)
{
  gboolean gpu;
  gint ret;

  if (!element_test_init ("cudaconv1d", &argc, &argv, &gpu))
    return 1;
  if (gpu_or_skip ("cudaconv1d", "cudaconv1d-matrix-gpu", gpu))
    return 77;
  backend = gpu ? "cuda" : "cpu";
  ret = gst_check_run_suite (matrix_suite (), gpu ? "cudaconv1d-matrix-gpu"
      : "cudaconv1d-matrix", __FILE__);
  g_rand_free (rng);
  return ret;
}
