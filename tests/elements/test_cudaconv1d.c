/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests of cudaconv1d, through GstHarness.
 *
 *   test_cudaconv1d          every behaviour, with backend=cpu and
 *                            backend=auto (the GPU where one is usable)
 *   test_cudaconv1d --gpu    backend=cuda against backend=cpu and the
 *                            reference; exits 77 when no GPU is usable
 *
 * Output is checked frame by frame against a double-precision reference
 * written here from the element's documentation: y[n] = sum_k h[k] x[n - k]
 * with silence before the stream, shifted earlier by `latency` frames (the
 * first `latency` frames dropped), mixed as (1 - mix) x + gain mix y,
 * integers rounded and saturated, and the last taps - 1 frames of the
 * convolution pushed before the EOS. Every output buffer's timestamp,
 * duration and offsets are checked against the frame count. Presets are
 * designed here from the windowed-sinc definition and impulse responses
 * are written here with libsndfile into a temporary folder. Inputs are
 * random (CF_TEST_SEED replays a run); output buffers are poisoned before
 * they go back to the element's pool.
 *
 * The plugin is found as GStreamer finds plugins (GST_PLUGIN_PATH_1_0 and
 * friends), so the same binary runs from the build tree and from a packed
 * runtime. CUDA does not survive fork(): the tests run in one process.
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <sndfile.h>

#include "element_check.h"

#define RATE 48000
/* What fills the gaps between the planes of padded input: large values in
 * every format, so that a sample read from a gap shows. */
#define GAP_FILL 0x7F

/* The element's documented limit, GST_CUDA_CONV1D_MAX_TAPS: the longest
 * mask, and the bound of `latency` and `taps`. */
#define MAX_TAPS (1 << 21)

/* Rounding a term: about 2^-23 for float streams, 2^-52 for F64 and S32
 * streams, which are computed in double. */
#define EPS 1.2e-7
#define EPS64 2.3e-16

typedef struct
{
  const gchar *name;
  GstAudioFormat format;
  gdouble scale;                /* integers: full scale; floats: 0 */
} FormatDesc;

static const FormatDesc formats[] = {
  {"F32LE", GST_AUDIO_FORMAT_F32LE, 0.0},
  {"F64LE", GST_AUDIO_FORMAT_F64LE, 0.0},
  {"S16LE", GST_AUDIO_FORMAT_S16LE, 32768.0},
  {"S32LE", GST_AUDIO_FORMAT_S32LE, 2147483648.0},
};

static const gchar *const windows[] = { "hamming", "hann", "blackman",
  "rectangular"
};

static const gchar *const presets[] = { "low-pass", "high-pass",
  "band-pass", "band-stop"
};

static const gchar *const direct_algorithms[] = { "basic", "tiled",
  "cached", "fast"
};

/* Backends of the default run, one per iteration of the loop tests. */
static const gchar *const backends[] = { "cpu", "auto" };

static gchar *tmp_dir;
static guint64 buffers_checked, samples_checked;

static gdouble
format_scale (GstAudioFormat format)
{
  for (guint k = 0; k < G_N_ELEMENTS (formats); k++)
    if (formats[k].format == format)
      return formats[k].scale;
  fail ("the test knows no format %s", gst_audio_format_to_string (format));
  return 0.0;
}

static gint
odd_size (gint max)
{
  return 2 * g_rand_int_range (rng, 0, (max + 1) / 2) + 1;
}

/* ---- masks, written from the documentation ---------------------------- */

typedef struct
{
  gint taps, masks;
  gdouble *h;                   /* masks x taps, h[0] first */
  gdouble *norm;                /* per mask: sqrt (sum h^2), on demand */
} Fir;

static Fir *
fir_new (gint taps, gint masks)
{
  Fir *f = g_new0 (Fir, 1);

  f->taps = taps;
  f->masks = masks;
  f->h = g_new0 (gdouble, (gsize) taps * masks);
  return f;
}

static void
fir_free (Fir * f)
{
  if (!f)
    return;
  g_free (f->h);
  g_free (f->norm);
  g_free (f);
}

static const gdouble *
fir_mask (const Fir * f, gint channel)
{
  return f->h + (gsize) (f->masks == 1 ? 0 : channel) * f->taps;
}

static gdouble
fir_norm (Fir * f, gint channel)
{
  gint m = f->masks == 1 ? 0 : channel;

  if (!f->norm) {
    f->norm = g_new0 (gdouble, f->masks);
    for (gint k = 0; k < f->masks; k++) {
      const gdouble *h = f->h + (gsize) k * f->taps;
      for (gint i = 0; i < f->taps; i++)
        f->norm[k] += h[i] * h[i];
      f->norm[k] = sqrt (f->norm[k]);
    }
  }
  return f->norm[m];
}

/* A valid kernel string: masks split at ';', numbers at spaces, tabs or
 * commas, one empty last mask allowed. */
static Fir *
fir_parse (const gchar * text)
{
  gchar **rows = g_strsplit (text, ";", -1);
  GArray *values = g_array_new (FALSE, FALSE, sizeof (gdouble));
  gint n_rows = 0, width = 0;
  Fir *f;

  for (guint r = 0; rows[r]; r++) {
    gchar **tokens = g_strsplit_set (rows[r], " ,\t", -1);
    gint n = 0;

    for (guint t = 0; tokens[t]; t++) {
      gchar *end;
      gdouble v;

      if (!tokens[t][0])
        continue;
      v = g_ascii_strtod (tokens[t], &end);
      fail_unless (*end == '\0', "test kernel: bad number \"%s\"",
          tokens[t]);
      g_array_append_val (values, v);
      n++;
    }
    g_strfreev (tokens);
    if (n == 0)
      continue;
    fail_unless (n_rows == 0 || n == width, "test kernel is ragged");
    width = n;
    n_rows++;
  }
  g_strfreev (rows);
  fail_unless (n_rows > 0, "test kernel \"%s\" is empty", text);
  f = fir_new (width, n_rows);
  memcpy (f->h, values->data, sizeof (gdouble) * width * n_rows);
  g_array_free (values, TRUE);
  return f;
}

/* `masks` random masks of `taps` taps as a kernel string, scaled by
 * 1.5 / sqrt (taps) so that the output of a full-scale input stays near
 * full scale: integer formats then saturate now and then. */
static gchar *
random_kernel (gint taps, gint masks)
{
  GString *s = g_string_new (NULL);
  gdouble amp = 1.5 / sqrt (taps);

  for (gint m = 0; m < masks; m++) {
    for (gint k = 0; k < taps; k++) {
      gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (buf, sizeof (buf), "%.6g",
          g_rand_double_range (rng, -amp, amp));
      g_string_append_printf (s, "%s%s", k ? " " : "", buf);
    }
    if (m + 1 < masks)
      g_string_append (s, "; ");
  }
  return g_string_free (s, FALSE);
}

/* Taps as a kernel string, exactly (%.17g reads back as the same
 * double). */
static gchar *
fir_to_kernel (const Fir * f)
{
  GString *s = g_string_new (NULL);

  for (gint m = 0; m < f->masks; m++) {
    for (gint k = 0; k < f->taps; k++) {
      gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (buf, sizeof (buf), "%.17g", f->h[m * f->taps + k]);
      g_string_append_printf (s, "%s%s", k ? " " : "", buf);
    }
    if (m + 1 < f->masks)
      g_string_append (s, ";");
  }
  return g_string_free (s, FALSE);
}

/* |H(f)| of mask 0 at f cycles per sample. */
static gdouble
fir_gain_at (const Fir * fir, gdouble f)
{
  gdouble re = 0.0, im = 0.0;

  for (gint k = 0; k < fir->taps; k++) {
    re += fir->h[k] * cos (2.0 * G_PI * f * k);
    im -= fir->h[k] * sin (2.0 * G_PI * f * k);
  }
  return sqrt (re * re + im * im);
}

/* The presets, from the windowed-sinc definition: the ideal low-pass
 * 2 fc sinc (2 fc m) centred on the middle tap, times the window, scaled
 * to unit gain at DC; high-pass = unit impulse - low-pass; band-pass =
 * low-pass (upper edge) - low-pass (lower edge), scaled to unit gain at
 * the centre; band-stop = unit impulse - band-pass. */
static gdouble
window_value (const gchar * window, gint i, gint n)
{
  gdouble a = n > 1 ? 2.0 * G_PI * i / (n - 1) : 0.0;

  if (!strcmp (window, "hamming"))
    return 0.54 - 0.46 * cos (a);
  if (!strcmp (window, "hann"))
    return 0.5 * (1.0 - cos (a));
  if (!strcmp (window, "blackman"))
    return 0.42 - 0.5 * cos (a) + 0.08 * cos (2.0 * a);
  fail_unless (!strcmp (window, "rectangular"), "no window %s", window);
  return 1.0;
}

static void
design_low_pass (gdouble * h, gint n, gdouble fc, const gchar * window)
{
  gdouble sum = 0.0;

  for (gint i = 0; i < n; i++) {
    gdouble m = i - (n - 1) / 2.0, arg = 2.0 * fc * m;
    gdouble sinc = m == 0.0 ? 1.0 : sin (G_PI * arg) / (G_PI * arg);
    h[i] = 2.0 * fc * sinc * window_value (window, i, n);
    sum += h[i];
  }
  for (gint i = 0; i < n; i++)
    h[i] /= sum;
}

static Fir *
design_preset (const gchar * preset, const gchar * window, gint taps,
    gdouble cutoff, gdouble bandwidth, gint rate)
{
  Fir *f = fir_new (taps, 1);
  gint mid = (taps - 1) / 2;

  if (!strcmp (preset, "low-pass") || !strcmp (preset, "high-pass")) {
    design_low_pass (f->h, taps, cutoff / rate, window);
    if (!strcmp (preset, "high-pass")) {
      for (gint i = 0; i < taps; i++)
        f->h[i] = -f->h[i];
      f->h[mid] += 1.0;
    }
  } else {
    gdouble *lower = g_new (gdouble, taps), g;

    design_low_pass (lower, taps, (cutoff - bandwidth / 2) / rate, window);
    design_low_pass (f->h, taps, (cutoff + bandwidth / 2) / rate, window);
    for (gint i = 0; i < taps; i++)
      f->h[i] -= lower[i];
    g = fir_gain_at (f, cutoff / rate);
    for (gint i = 0; i < taps; i++)
      f->h[i] /= g;
    if (!strcmp (preset, "band-stop")) {
      for (gint i = 0; i < taps; i++)
        f->h[i] = -f->h[i];
      f->h[mid] += 1.0;
    }
    g_free (lower);
  }
  return f;
}

/* ---- streams ------------------------------------------------------------ */

/* An input stream: its samples (as the element reads them: integers
 * divided by their full scale) and how it is cut into buffers. */
typedef struct
{
  GstAudioInfo info;
  gint frames;
  gdouble **x;                  /* [channel][frame] */
  GArray *cuts;                 /* frames per buffer */
  GstClockTime start;           /* PTS of frame 0 */
  guint64 offset0;              /* offset of frame 0, or NONE */
} Stream;

static const gchar *
layout_name (const GstAudioInfo * info)
{
  return GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_INTERLEAVED
      ? "interleaved" : "non-interleaved";
}

static void
audio_info (GstAudioInfo * info, GstAudioFormat format, gboolean planar,
    gint channels, gint rate)
{
  gst_audio_info_init (info);
  gst_audio_info_set_format (info, format, rate, channels, NULL);
  info->layout = planar ? GST_AUDIO_LAYOUT_NON_INTERLEAVED
      : GST_AUDIO_LAYOUT_INTERLEAVED;
}

/* `n_buffers` odd sizes of 1 to `max` frames; the second buffer (when
 * there are three or more) is one frame. */
static GArray *
random_cuts (gint n_buffers, gint max)
{
  GArray *cuts = g_array_new (FALSE, FALSE, sizeof (gint));

  for (gint k = 0; k < n_buffers; k++) {
    gint n = n_buffers >= 3 && k == 1 ? 1 : odd_size (max);
    g_array_append_val (cuts, n);
  }
  return cuts;
}

/* A uniform random sample of `format`, never exactly zero throughout:
 * floats in [-1, 1), integers over their whole range. */
static gdouble
random_sample (GstAudioFormat format)
{
  gdouble scale = format_scale (format);

  if (format == GST_AUDIO_FORMAT_F32LE)
    return (gfloat) g_rand_double_range (rng, -1.0, 1.0);
  if (format == GST_AUDIO_FORMAT_F64LE)
    return g_rand_double_range (rng, -1.0, 1.0);
  return g_rand_int_range (rng, -(gint32) (scale / 2), (gint32) (scale / 2))
      * 2.0 / scale + (g_rand_boolean (rng) ? 1.0 / scale : 0.0);
}

/* Takes `cuts`. Samples random; start time and offset random. */
static Stream *
stream_new (GstAudioFormat format, gboolean planar, gint channels,
    gint rate, GArray * cuts)
{
  Stream *s = g_new0 (Stream, 1);

  audio_info (&s->info, format, planar, channels, rate);
  s->cuts = cuts;
  for (guint k = 0; k < cuts->len; k++)
    s->frames += g_array_index (cuts, gint, k);
  s->x = g_new (gdouble *, channels);
  for (gint c = 0; c < channels; c++) {
    s->x[c] = g_new (gdouble, s->frames);
    for (gint n = 0; n < s->frames; n++)
      s->x[c][n] = random_sample (format);
  }
  /* not a whole number of frames from zero, so rounding shows */
  s->start = GST_SECOND + g_rand_int_range (rng, 0, 1000000) * 7;
  s->offset0 = g_rand_boolean (rng) ? GST_BUFFER_OFFSET_NONE
      : (guint64) g_rand_int_range (rng, 0, 100000);
  return s;
}

static void
stream_free (Stream * s)
{
  if (!s)
    return;
  for (gint c = 0; c < GST_AUDIO_INFO_CHANNELS (&s->info); c++)
    g_free (s->x[c]);
  g_free (s->x);
  g_array_free (s->cuts, TRUE);
  g_free (s);
}

static gint
stream_cut_start (const Stream * s, guint buffer)
{
  gint from = 0;

  for (guint k = 0; k < buffer; k++)
    from += g_array_index (s->cuts, gint, k);
  return from;
}

static gdouble
max_abs (const gdouble * v, gint n)
{
  gdouble m = 0.0;

  for (gint k = 0; k < n; k++)
    m = MAX (m, fabs (v[k]));
  return m;
}

static void
put_sample (GstAudioFormat format, gpointer base, gsize i, gdouble v)
{
  switch (format) {
    case GST_AUDIO_FORMAT_F32LE:
      GST_WRITE_FLOAT_LE ((guint8 *) base + 4 * i, (gfloat) v);
      break;
    case GST_AUDIO_FORMAT_F64LE:
      GST_WRITE_DOUBLE_LE ((guint8 *) base + 8 * i, v);
      break;
    case GST_AUDIO_FORMAT_S16LE:
      GST_WRITE_UINT16_LE ((guint8 *) base + 2 * i,
          (guint16) (gint16) lrint (v * 32768.0));
      break;
    default:
      GST_WRITE_UINT32_LE ((guint8 *) base + 4 * i,
          (guint32) (gint32) llrint (v * 2147483648.0));
      break;
  }
}

/* Sample `i` as stored: integers not scaled. */
static gdouble
get_sample (GstAudioFormat format, gconstpointer base, gsize i)
{
  switch (format) {
    case GST_AUDIO_FORMAT_F32LE:
      return GST_READ_FLOAT_LE ((const guint8 *) base + 4 * i);
    case GST_AUDIO_FORMAT_F64LE:
      return GST_READ_DOUBLE_LE ((const guint8 *) base + 8 * i);
    case GST_AUDIO_FORMAT_S16LE:
      return (gint16) GST_READ_UINT16_LE ((const guint8 *) base + 2 * i);
    default:
      return (gint32) GST_READ_UINT32_LE ((const guint8 *) base + 4 * i);
  }
}

/* Buffer `index` of `s`, stamped from the stream's start and offset; with
 * `gap` > 0 the planes of non-interleaved audio lie `gap` frames apart
 * beyond their length (a GstAudioMeta says where). */
static GstBuffer *
stream_buffer (const Stream * s, guint index, gint gap)
{
  const GstAudioInfo *info = &s->info;
  GstAudioFormat format = GST_AUDIO_INFO_FORMAT (info);
  gint channels = GST_AUDIO_INFO_CHANNELS (info);
  gint bps = GST_AUDIO_INFO_BPS (info), rate = GST_AUDIO_INFO_RATE (info);
  gint from = stream_cut_start (s, index);
  gint n = g_array_index (s->cuts, gint, index);
  gboolean planar = GST_AUDIO_INFO_LAYOUT (info)
      == GST_AUDIO_LAYOUT_NON_INTERLEAVED;
  gsize plane = (gsize) (n + gap) * bps;
  gsize size = planar ? plane * channels : (gsize) n * channels * bps;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  memset (map.data, GAP_FILL, map.size);
  for (gint c = 0; c < channels; c++)
    for (gint k = 0; k < n; k++) {
      if (planar)
        put_sample (format, map.data + c * plane, k, s->x[c][from + k]);
      else
        put_sample (format, map.data, (gsize) k * channels + c,
            s->x[c][from + k]);
    }
  gst_buffer_unmap (buf, &map);

  if (planar) {
    gsize *offsets = g_newa (gsize, channels);
    for (gint c = 0; c < channels; c++)
      offsets[c] = c * plane;
    gst_buffer_add_audio_meta (buf, info, n, offsets);
  }
  GST_BUFFER_PTS (buf) = s->start + gst_util_uint64_scale_int (from,
      GST_SECOND, rate);
  GST_BUFFER_DURATION (buf) = s->start + gst_util_uint64_scale_int (from + n,
      GST_SECOND, rate) - GST_BUFFER_PTS (buf);
  if (s->offset0 != GST_BUFFER_OFFSET_NONE) {
    GST_BUFFER_OFFSET (buf) = s->offset0 + from;
    GST_BUFFER_OFFSET_END (buf) = s->offset0 + from + n;
  }
  return buf;
}

/* ---- element and harness -------------------------------------------------- */

static GstElement *
make_conv (const gchar * backend)
{
  GstElement *e = gst_element_factory_make ("cudaconv1d", NULL);

  fail_unless (e != NULL, "no cudaconv1d element: is GST_PLUGIN_PATH_1_0 "
      "set to the folder of libgstcudafilters.so?");
  gst_util_set_object_arg (G_OBJECT (e), "backend", backend);
  return e;
}

/* A started element in a harness, a bus for its messages, and the output
 * buffers not yet checked. */
typedef struct
{
  GstHarness *h;
  GstElement *conv;
  GstBus *bus;
  GQueue out;
} Conv;

/* Takes `e`. */
/* A cudaconv1d for `backend` with `latency`, which can change only in
 * NULL or READY: set before the harness starts it. */
static GstElement *
make_conv_latency (const gchar * backend, guint64 latency)
{
  GstElement *e = make_conv (backend);

  g_object_set (e, "latency", latency, NULL);
  return e;
}

static void
conv_start (Conv * c, GstElement * e)
{
  memset (c, 0, sizeof (*c));
  c->bus = gst_bus_new ();
  gst_element_set_bus (e, c->bus);
  c->h = gst_harness_new_with_element (e, "sink", "src");
  c->conv = c->h->element;
  gst_object_unref (e);
  g_queue_init (&c->out);
}

/* Where the response set while playing was first heard: the input frame
 * its cudaconv1d-response message gives (after any warm-up). */
static gint
heard_from (Conv * c, const gchar * what)
{
  GstMessage *m;
  guint64 offset = 0;
  gboolean found = FALSE;

  while (!found && (m = gst_bus_pop_filtered (c->bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (m);
    found = gst_structure_has_name (s, "cudaconv1d-response")
        && gst_structure_get_uint64 (s, "offset", &offset);
    gst_message_unref (m);
  }
  fail_unless (found, "%s: no cudaconv1d-response message", what);
  return (gint) offset;
}

static void
conv_set_caps (Conv * c, const GstAudioInfo * info)
{
  gst_harness_set_src_caps (c->h, gst_audio_info_to_caps (info));
}





static void
conv_collect (Conv * c)
{
  GstBuffer *buf;

  while ((buf = gst_harness_try_pull (c->h)))
    g_queue_push_tail (&c->out, buf);
}

static void
conv_stop (Conv * c, const gchar * what)
{
  expect_no_message (c->bus, what);
  conv_collect (c);
  g_queue_clear_full (&c->out, (GDestroyNotify) release_output);
  gst_harness_teardown (c->h);
  /* queued messages (the CUDA context ones among them) hold the element,
   * which holds the bus: dropped, or the element and its context leak */
  gst_bus_set_flushing (c->bus, TRUE);
  gst_object_unref (c->bus);
  memset (c, 0, sizeof (*c));
}

static void
push_buffer (Conv * c, GstBuffer * buf, const gchar * what)
{
  GstFlowReturn ret = gst_harness_push (c->h, buf);

  fail_unless (ret == GST_FLOW_OK, "%s: pushing a buffer returned %s", what,
      gst_flow_get_name (ret));
  conv_collect (c);
}

/* Pushes buffers [first, last) of `s`. */
static void
push_range (Conv * c, const Stream * s, guint first, guint last, gint gap,
    const gchar * what)
{
  for (guint k = first; k < last; k++)
    push_buffer (c, stream_buffer (s, k, gap), what);
}

/* A flush, then a new segment from zero. */
static void
push_flush (Conv * c)
{
  GstSegment segment;

  fail_unless (gst_harness_push_event (c->h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (c->h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (c->h,
          gst_event_new_segment (&segment)));
}

static void
push_eos (Conv * c)
{
  fail_unless (gst_harness_push_event (c->h, gst_event_new_eos ()));
  conv_collect (c);
}

/* ---- output --------------------------------------------------------------- */

/* The output of one stream (from one start or discontinuity to the next),
 * and the timestamps its buffers must carry. */
typedef struct
{
  GstAudioInfo info;
  GstClockTime start;
  guint64 offset0;
  gint frames, alloc, buffers;
  gdouble **y;                  /* [channel][frame], as stored */
} Out;

static void
out_init (Out * o, const GstAudioInfo * info, GstClockTime start,
    guint64 offset0)
{
  memset (o, 0, sizeof (*o));
  o->info = *info;
  o->start = start;
  o->offset0 = offset0;
  o->y = g_new0 (gdouble *, GST_AUDIO_INFO_CHANNELS (info));
}

static void
out_init_for (Out * o, const Stream * s)
{
  out_init (o, &s->info, s->start, s->offset0);
}

static void
out_clear (Out * o)
{
  for (gint c = 0; c < GST_AUDIO_INFO_CHANNELS (&o->info); c++)
    g_free (o->y[c]);
  g_free (o->y);
  memset (o, 0, sizeof (*o));
}

/* Appends `buf` (taken) after checking that it follows the buffers
 * before it: PTS at the start plus the frames so far, duration to the next
 * frame's time, offsets counting frames. */
static void
out_take (Out * o, GstBuffer * buf, const gchar * what)
{
  GstAudioFormat format = GST_AUDIO_INFO_FORMAT (&o->info);
  gint channels = GST_AUDIO_INFO_CHANNELS (&o->info);
  gint rate = GST_AUDIO_INFO_RATE (&o->info);
  GstClockTime pts, end;
  GstAudioBuffer ab;
  gint n;

  fail_unless (gst_audio_buffer_map (&ab, &o->info, buf, GST_MAP_READ),
      "%s: output buffer %d cannot be mapped as %s %s audio", what,
      o->buffers, gst_audio_format_to_string (format),
      layout_name (&o->info));
  n = (gint) ab.n_samples;
  fail_unless (n > 0, "%s: output buffer %d is empty", what, o->buffers);
  fail_unless (gst_buffer_get_size (buf) == (gsize) n
      * GST_AUDIO_INFO_BPF (&o->info), "%s: output buffer %d holds %"
      G_GSIZE_FORMAT " bytes for %d frames", what, o->buffers,
      gst_buffer_get_size (buf), n);

  pts = o->start + gst_util_uint64_scale_int (o->frames, GST_SECOND, rate);
  end = o->start + gst_util_uint64_scale_int (o->frames + n, GST_SECOND,
      rate);
  fail_unless (GST_BUFFER_PTS (buf) == pts, "%s: output buffer %d (frames "
      "%d to %d): PTS %" GST_TIME_FORMAT ", expected %" GST_TIME_FORMAT,
      what, o->buffers, o->frames, o->frames + n - 1,
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)), GST_TIME_ARGS (pts));
  fail_unless (GST_BUFFER_DURATION (buf) == end - pts, "%s: output buffer "
      "%d (frames %d to %d): duration %" GST_TIME_FORMAT ", expected %"
      GST_TIME_FORMAT, what, o->buffers, o->frames, o->frames + n - 1,
      GST_TIME_ARGS (GST_BUFFER_DURATION (buf)), GST_TIME_ARGS (end - pts));
  if (o->offset0 == GST_BUFFER_OFFSET_NONE) {
    fail_unless (GST_BUFFER_OFFSET (buf) == GST_BUFFER_OFFSET_NONE,
        "%s: output buffer %d has offset %" G_GUINT64_FORMAT " from input "
        "without offsets", what, o->buffers, GST_BUFFER_OFFSET (buf));
  } else {
    fail_unless (GST_BUFFER_OFFSET (buf) == o->offset0 + o->frames
        && GST_BUFFER_OFFSET_END (buf) == o->offset0 + o->frames + n,
        "%s: output buffer %d: offsets %" G_GUINT64_FORMAT " to %"
        G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT " to %"
        G_GUINT64_FORMAT, what, o->buffers, GST_BUFFER_OFFSET (buf),
        GST_BUFFER_OFFSET_END (buf), o->offset0 + o->frames,
        o->offset0 + o->frames + n);
  }

  if (o->frames + n > o->alloc) {
    o->alloc = MAX (2 * o->alloc, o->frames + n);
    for (gint c = 0; c < channels; c++)
      o->y[c] = g_renew (gdouble, o->y[c], o->alloc);
  }
  for (gint c = 0; c < channels; c++)
    for (gint k = 0; k < n; k++)
      o->y[c][o->frames + k] = ab.n_planes > 1
          ? get_sample (format, ab.planes[c], k)
          : get_sample (format, ab.planes[0], (gsize) k * channels + c);
  gst_audio_buffer_unmap (&ab);
  o->frames += n;
  o->buffers++;
  __atomic_fetch_add (&buffers_checked, 1, __ATOMIC_RELAXED);
  release_output (buf);
}

/* Moves output buffers from `c` into `o` until it holds `frames` frames
 * (all that are queued when `frames` is -1); a buffer must not straddle
 * the end of the stream. */
static void
out_take_from (Out * o, Conv * c, gint frames, const gchar * what)
{
  GstBuffer *buf;

  while ((frames < 0 || o->frames < frames)
      && (buf = g_queue_pop_head (&c->out))) {
    GstAudioBuffer ab;
    if (frames >= 0 && gst_audio_buffer_map (&ab, &o->info, buf,
            GST_MAP_READ)) {
      gint n = (gint) ab.n_samples;
      gst_audio_buffer_unmap (&ab);
      fail_unless (o->frames + n <= frames, "%s: output buffer %d (%d "
          "frames) runs past the end of the stream (frame %d)", what,
          o->buffers, n, frames);
    }
    out_take (o, buf, what);
  }
}

/* Runs the whole of `s` through `e` (taken) and the EOS, into `o`. */
static void
run_stream (GstElement * e, const Stream * s, Out * o, const gchar * what)
{
  Conv c;

  conv_start (&c, e);
  conv_set_caps (&c, &s->info);
  out_init_for (o, s);
  push_range (&c, s, 0, s->cuts->len, 0, what);
  push_eos (&c);
  out_take_from (o, &c, -1, what);
  conv_stop (&c, what);
}

/* ---- the reference ------------------------------------------------------ */

/* What output frame j of a stream must be: (dry[j] x[j] + wet[j] y[j + L])
 * with y the convolution by fir[j], for which input frames before known[j]
 * count as silence (a mask that started mid-stream with part of the
 * history). */
typedef struct
{
  const Stream *s;
  gint latency;
  gint frames;
  Fir **fir;
  gint *known;
  gdouble *dry, *wet;
} Expect;

static void
expect_init (Expect * e, const Stream * s, Fir * fir, gint latency,
    gdouble gain, gdouble mix)
{
  e->s = s;
  e->latency = latency;
  e->frames = s->frames + fir->taps - 1 - latency;
  e->fir = g_new (Fir *, e->frames);
  e->known = g_new0 (gint, e->frames);
  e->dry = g_new (gdouble, e->frames);
  e->wet = g_new (gdouble, e->frames);
  for (gint j = 0; j < e->frames; j++) {
    e->fir[j] = fir;
    e->dry[j] = 1.0 - mix;
    e->wet[j] = gain * mix;
  }
}

static void
expect_clear (Expect * e)
{
  g_free (e->fir);
  g_free (e->known);
  g_free (e->dry);
  g_free (e->wet);
  memset (e, 0, sizeof (*e));
}

/* Output frame j of channel c, in units of full scale, and how far float
 * arithmetic may move it: about 2^-23 per term on the sum of the terms'
 * magnitudes (direct sums), plus a floor from the mask's energy and the
 * input's peak (FFT round-off spreads across a block). */
static gdouble
expect_value (const Expect * e, gint c, gint j, gdouble xmax,
    gdouble * slack)
{
  Fir *f = e->fir[j];
  const gdouble *h = fir_mask (f, c), *x = e->s->x[c];
  gint n = j + e->latency, frames = e->s->frames;
  gint kmin = MAX (0, n - (frames - 1)), kmax = MIN (f->taps - 1,
      n - e->known[j]);
  gdouble wet = 0.0, size = 0.0, dry = j < frames ? x[j] : 0.0;

  for (gint k = kmin; k <= kmax; k++) {
    wet += h[k] * x[n - k];
    size += fabs (h[k] * x[n - k]);
  }
  GstAudioFormat format = GST_AUDIO_INFO_FORMAT (&e->s->info);
  gdouble eps = format == GST_AUDIO_FORMAT_F64LE
      || format == GST_AUDIO_FORMAT_S32LE ? EPS64 : EPS;
  *slack = eps * (16.0 + 2.0 * sqrt (f->taps)) * (fabs (e->wet[j])
      * (size + fir_norm (f, c) * xmax) + fabs (e->dry[j] * dry)) + 1e-30;
  return e->dry[j] * dry + e->wet[j] * wet;
}

/* Checks every sample of `o` against `e`: floats within the slack,
 * integers within one level plus the slack, and saturated where the exact
 * value is out of range. With `twin` (the CPU backend's output of the same
 * stream) also within twice the slack of it. Returns the number of
 * saturated samples. */
static gint
check_output_twin (const gchar * what, const Expect * e, const Out * o,
    const Out * twin)
{
  const GstAudioInfo *info = &e->s->info;
  GstAudioFormat format = GST_AUDIO_INFO_FORMAT (info);
  gint channels = GST_AUDIO_INFO_CHANNELS (info);
  gdouble scale = format_scale (format), unit = scale > 0 ? scale : 1.0;
  gdouble lo = -scale, hi = scale - 1;
  gint bad = 0, saturated = 0;
  gchar first[320] = "";

  fail_unless (o->frames == e->frames, "%s: %d frames out, expected %d (%d "
      "in, %d taps, latency %d)", what, o->frames, e->frames, e->s->frames,
      e->fir[0]->taps, e->latency);
  if (twin)
    fail_unless_equals_int (twin->frames, e->frames);

  for (gint c = 0; c < channels; c++) {
    gdouble xmax = max_abs (e->s->x[c], e->s->frames);
    for (gint j = 0; j < e->frames; j++) {
      gdouble slack, v = expect_value (e, c, j, xmax, &slack) * unit;
      gdouble got = o->y[c][j], expect = v, tol = slack * unit;
      gboolean ok;

      if (scale > 0) {
        expect = CLAMP (v, lo, hi);
        tol += 1.0;
      }
      ok = fabs (got - expect) <= tol;
      if (ok && scale > 0 && (v > hi + tol || v < lo - tol)) {
        /* out of range beyond doubt: exactly the limit */
        ok = got == expect;
        saturated++;
      }
      if (!ok && !bad)
        g_snprintf (first, sizeof (first), "channel %d, frame %d: got %.9g, "
            "expected %.9g +- %.3g", c, j, got, expect, tol);
      if (ok && twin && fabs (got - twin->y[c][j]) > 2 * tol) {
        ok = FALSE;
        if (!bad)
          g_snprintf (first, sizeof (first), "channel %d, frame %d: got "
              "%.9g, the CPU backend %.9g (reference %.9g +- %.3g)", c, j,
              got, twin->y[c][j], expect, tol);
      }
      bad += !ok;
    }
  }
  samples_checked += (guint64) channels * e->frames;
  fail_unless (bad == 0, "%s [%s %s, %d channels, %d Hz]: %d of %d samples "
      "wrong; first at %s", what, gst_audio_format_to_string (format),
      layout_name (info), channels, GST_AUDIO_INFO_RATE (info), bad,
      channels * e->frames, first);
  return saturated;
}

static gint
check_output (const gchar * what, const Expect * e, const Out * o)
{
  return check_output_twin (what, e, o, NULL);
}

/* The whole stream through a mask of `fir`, with constant settings. */
static gint
check_simple (const gchar * what, const Stream * s, Fir * fir, gint latency,
    gdouble gain, gdouble mix, const Out * o)
{
  Expect e;
  gint saturated;

  expect_init (&e, s, fir, latency, gain, mix);
  saturated = check_output (what, &e, o);
  expect_clear (&e);
  return saturated;
}

/* ---- messages and states -------------------------------------------------- */


/* Caps pushed into `c`, expecting refusal: the next buffer push returns
 * not-negotiated, and an error says `part`. */
static void
expect_not_negotiated (Conv * c, const GstAudioInfo * info,
    const gchar * part, const gchar * what)
{
  GstBuffer *in = gst_buffer_new_allocate (NULL, GST_AUDIO_INFO_BPF (info)
      * 64, NULL);
  GstSegment segment;
  GstFlowReturn ret;

  gst_buffer_memset (in, 0, 0, GST_AUDIO_INFO_BPF (info) * 64);
  GST_BUFFER_PTS (in) = 0;
  /* a refused caps event still reads as handled (sticky events are kept
   * for later): the buffer push tells */
  {
    GstCaps *caps = gst_audio_info_to_caps (info);
    gst_harness_push_event (c->h, gst_event_new_caps (caps));
    gst_caps_unref (caps);      /* the event holds its own reference */
  }
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_harness_push_event (c->h, gst_event_new_segment (&segment));
  ret = gst_harness_push (c->h, in);
  fail_unless (ret == GST_FLOW_NOT_NEGOTIATED, "%s: pushing a buffer "
      "returned %s, not not-negotiated", what, gst_flow_get_name (ret));
  fail_unless (gst_harness_try_pull (c->h) == NULL, "%s: a buffer came out",
      what);
  g_free (expect_message (c->bus, GST_MESSAGE_ERROR, GST_CORE_ERROR,
          GST_CORE_ERROR_NEGOTIATION, part, what));
  drain_messages (c->bus, GST_MESSAGE_ANY);
}

/* A log of the element's INFO lines, while capturing. */
static GString *log_lines;
static guint log_default_removed;

static void
capture_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file G_GNUC_UNUSED, const gchar * function G_GNUC_UNUSED,
    gint line G_GNUC_UNUSED, GObject * object G_GNUC_UNUSED,
    GstDebugMessage * message, gpointer user_data G_GNUC_UNUSED)
{
  if (level == GST_LEVEL_INFO
      && g_str_has_prefix (gst_debug_category_get_name (category),
          "cudaconv1d")) {
    g_string_append (log_lines, gst_debug_message_get (message));
    g_string_append_c (log_lines, '\n');
  }
}

/* FALSE when this GStreamer logs nothing (debugging compiled out).
 * Logging is switched on when GST_DEBUG left it off. */
static gboolean
log_start (void)
{
#ifdef GST_DISABLE_GST_DEBUG
  return FALSE;
#else
  gst_debug_set_active (TRUE);
  log_lines = g_string_new (NULL);
  /* the element's category and its filter's (cudaconv1dfilter) */
  gst_debug_set_threshold_for_name ("cudaconv1d*", GST_LEVEL_INFO);
  /* the lines are for the test, not for the terminal */
  log_default_removed = gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (capture_log, NULL, NULL);
  return TRUE;
#endif
}

static gchar *
log_stop (void)
{
  gst_debug_remove_log_function (capture_log);
  if (log_default_removed)
    gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
  gst_debug_unset_threshold_for_name ("cudaconv1d*");
  return g_string_free (log_lines, FALSE);
}

/* ---- impulse response files ------------------------------------------------ */

/* Writes `frames` frames of `channels` (interleaved) to a file of
 * `sf_format` in the test's folder; returns its path. */
static gchar *
write_ir (const gchar * name, gint sf_format, gint channels, gint rate,
    const gfloat * data, gint frames)
{
  gchar *path = g_build_filename (tmp_dir, name, NULL);
  SF_INFO info = { 0 };
  SNDFILE *file;

  info.samplerate = rate;
  info.channels = channels;
  info.format = sf_format;
  fail_unless (sf_format_check (&info), "libsndfile cannot write %s", name);
  file = sf_open (path, SFM_WRITE, &info);
  fail_unless (file != NULL, "cannot write %s: %s", path, sf_strerror (NULL));
  if (frames > 0)
    fail_unless_equals_int (sf_writef_float (file, data, frames), frames);
  sf_close (file);
  return path;
}

/* The impulse response as libsndfile reads it back (lossy and integer
 * files do not hold exactly what was written): one mask per channel. */
static Fir *
read_ir (const gchar * path, gint * rate)
{
  SF_INFO info = { 0 };
  SNDFILE *file = sf_open (path, SFM_READ, &info);
  gfloat *data;
  Fir *f;

  fail_unless (file != NULL, "cannot read back %s", path);
  data = g_new (gfloat, info.frames * info.channels);
  fail_unless_equals_int (sf_readf_float (file, data, info.frames),
      info.frames);
  sf_close (file);
  f = fir_new (info.frames, info.channels);
  for (gint c = 0; c < info.channels; c++)
    for (gint k = 0; k < info.frames; k++)
      f->h[c * info.frames + k] = data[k * info.channels + c];
  g_free (data);
  if (rate)
    *rate = info.samplerate;
  return f;
}

/* A decaying random response, like a small room's: `channels`
 * interleaved, peak below 0.9. */
static gfloat *
random_ir (gint frames, gint channels)
{
  gfloat *data = g_new (gfloat, (gsize) frames * channels);

  for (gint k = 0; k < frames; k++)
    for (gint c = 0; c < channels; c++)
      data[k * channels + c] = (gfloat) (0.9 * exp (-4.0 * k / frames)
          * g_rand_double_range (rng, -1.0, 1.0));
  return data;
}

static gchar *
write_garbage (const gchar * name, gsize size)
{
  gchar *path = g_build_filename (tmp_dir, name, NULL);
  guint8 *bytes = g_malloc (MAX (size, 1));

  for (gsize k = 0; k < size; k++)
    bytes[k] = (guint8) g_rand_int (rng);
  fail_unless (g_file_set_contents (path, (const gchar *) bytes, size,
          NULL));
  g_free (bytes);
  return path;
}

static void
remove_tmp_dir (void)
{
  GDir *dir;
  const gchar *name;

  if (!tmp_dir)
    return;
  dir = g_dir_open (tmp_dir, 0, NULL);
  while (dir && (name = g_dir_read_name (dir))) {
    gchar *path = g_build_filename (tmp_dir, name, NULL);
    g_unlink (path);
    g_free (path);
  }
  if (dir)
    g_dir_close (dir);
  g_rmdir (tmp_dir);
  g_free (tmp_dir);
  tmp_dir = NULL;
}

/* ---- 1. formats, layouts, channels, timestamps ------------------------------ */

GST_START_TEST (test_formats)
{
  const gchar *backend = backends[__i__];
  /* 64 and 65 straddle the CPU's direct/FFT crossover under auto */
  static const gint taps_cycle[] = { 1, 4, 17, 64, 65, 200 };
  static const gint channel_counts[] = { 1, 2, 6 };
  gint saturated[G_N_ELEMENTS (formats)] = { 0 };
  guint k = 0;

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (gint planar = 0; planar < 2; planar++)
      for (guint ch = 0; ch < G_N_ELEMENTS (channel_counts); ch++, k++) {
        gint channels = channel_counts[ch];
        gint taps = taps_cycle[k % G_N_ELEMENTS (taps_cycle)];
        gint masks = channels > 1 && k % 2 ? channels : 1;
        gint latency = g_rand_int_range (rng, 0, taps);
        gint rate = k % 3 ? RATE : 44100;
        Stream *s = stream_new (formats[f].format, planar, channels, rate,
            random_cuts (4, 3000));
        gchar *kernel = random_kernel (taps, masks);
        Fir *fir = fir_parse (kernel);
        GstElement *e = make_conv (backend);
        gchar *what = g_strdup_printf ("%d taps x %d masks, latency %d [%s]",
            taps, masks, latency, backend);
        Out o;

        g_object_set (e, "kernel", kernel, "latency", (guint64) latency,
            NULL);
        run_stream (e, s, &o, what);
        saturated[f] += check_simple (what, s, fir, latency, 1.0, 1.0, &o);
        out_clear (&o);
        fir_free (fir);
        g_free (kernel);
        g_free (what);
        stream_free (s);
      }

  /* full-scale input through masks of gain above one: the saturation
   * check must have run */
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    fail_unless (formats[f].scale == 0.0 || saturated[f] > 0,
        "%s [%s]: no output sample was out of range", formats[f].name,
        backend);
}

GST_END_TEST;

/* Non-interleaved input whose planes lie apart (a GstAudioMeta says
 * where): the element must follow the meta, not the buffer size. */
GST_START_TEST (test_padded_planes)
{
  const gchar *backend = backends[__i__];
  static const GstAudioFormat padded[] = { GST_AUDIO_FORMAT_F32LE,
    GST_AUDIO_FORMAT_S16LE
  };

  for (guint f = 0; f < G_N_ELEMENTS (padded); f++) {
    Stream *s = stream_new (padded[f], TRUE, 2, RATE, random_cuts (3, 999));
    gchar *kernel = random_kernel (7, 2);
    Fir *fir = fir_parse (kernel);
    gchar *what = g_strdup_printf ("planes 5 frames apart [%s]", backend);
    Conv c;
    Out o;

    conv_start (&c, make_conv (backend));
    g_object_set (c.conv, "kernel", kernel, NULL);
    conv_set_caps (&c, &s->info);
    out_init_for (&o, s);
    push_range (&c, s, 0, s->cuts->len, 5, what);
    push_eos (&c);
    out_take_from (&o, &c, -1, what);
    check_simple (what, s, fir, 0, 1.0, 1.0, &o);
    conv_stop (&c, what);
    out_clear (&o);
    fir_free (fir);
    g_free (kernel);
    g_free (what);
    stream_free (s);
  }
}

GST_END_TEST;

/* More channels than a stereo or surround stream: 70, each with its own
 * mask, in both layouts. */
GST_START_TEST (test_many_channels)
{
  const gchar *backend = backends[__i__];

  for (gint planar = 0; planar < 2; planar++) {
    Stream *s = stream_new (GST_AUDIO_FORMAT_F32LE, planar, 70, RATE,
        random_cuts (3, 401));
    gchar *kernel = random_kernel (5, 70);
    Fir *fir = fir_parse (kernel);
    GstElement *e = make_conv (backend);
    gchar *what = g_strdup_printf ("70 channels [%s]", backend);
    Out o;

    g_object_set (e, "kernel", kernel, NULL);
    run_stream (e, s, &o, what);
    check_simple (what, s, fir, 0, 1.0, 1.0, &o);
    out_clear (&o);
    fir_free (fir);
    g_free (kernel);
    g_free (what);
    stream_free (s);
  }
}

GST_END_TEST;

/* ---- 2. kernels, presets, normalize ----------------------------------------- */

GST_START_TEST (test_kernel_masks)
{
  const gchar *backend = backends[__i__];
  static const struct
  {
    gint channels;
    const gchar *kernel;
    gint taps, masks;
  } cases[] = {
    {1, " 0.5, -0.25 ,\t0.125 ", 3, 1},
    {2, "1 0.5 0.25; -0.5 0.25 1", 3, 2},
    /* one trailing ';': still one mask for every channel */
    {3, "0.3 0.2 0.1 -0.05;", 4, 1},
    {2, "0.75", 1, 1},
    {6, NULL, 12, 6},
  };
  static const struct
  {
    gint channels;
    const gchar *kernel;
    const gchar *why;
  } refused[] = {
    {3, "1 2; 3 4", "has 2 channels"},
    {2, "1; 2; 3", "has 3 channels"},
    {1, "1 0; 0 1", "has 2 channels"},
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    gchar *kernel = cases[k].kernel ? g_strdup (cases[k].kernel)
        : random_kernel (cases[k].taps, cases[k].masks);
    Fir *fir = fir_parse (kernel);
    Stream *s = stream_new (GST_AUDIO_FORMAT_F32LE, k % 2, cases[k].channels,
        RATE, random_cuts (3, 3000));
    GstElement *e = make_conv (backend);
    gchar *what = g_strdup_printf ("kernel \"%.40s\" [%s]", kernel, backend);
    Out o;

    fail_unless (fir->taps == cases[k].taps && fir->masks == cases[k].masks,
        "the test reads \"%s\" as %d taps x %d masks", kernel, fir->taps,
        fir->masks);
    g_object_set (e, "kernel", kernel, NULL);
    run_stream (e, s, &o, what);
    check_simple (what, s, fir, 0, 1.0, 1.0, &o);
    out_clear (&o);
    fir_free (fir);
    g_free (kernel);
    g_free (what);
    stream_free (s);
  }

  for (guint k = 0; k < G_N_ELEMENTS (refused); k++) {
    GstAudioInfo info;
    Conv c;
    gchar *what = g_strdup_printf ("kernel \"%s\" on %d channels [%s]",
        refused[k].kernel, refused[k].channels, backend);

    audio_info (&info, GST_AUDIO_FORMAT_F32LE, FALSE, refused[k].channels,
        RATE);
    conv_start (&c, make_conv (backend));
    g_object_set (c.conv, "kernel", refused[k].kernel, NULL);
    expect_not_negotiated (&c, &info, refused[k].why, what);
    conv_stop (&c, what);
    g_free (what);
  }
}

GST_END_TEST;

/* `kernel` wins over `preset`; empty or blank it counts as unset. */
GST_START_TEST (test_kernel_wins)
{
  const gchar *backend = backends[__i__];
  static const gchar *const unset[] = { NULL, "", " \t " };

  for (guint k = 0; k < G_N_ELEMENTS (unset); k++) {
    Stream *s = stream_new (GST_AUDIO_FORMAT_F64LE, FALSE, 1, RATE,
        random_cuts (3, 3000));
    Fir *lp = design_preset ("low-pass", "hamming", 31, 4000, 0, RATE);
    Fir *identity = fir_parse ("1");
    GstElement *e = make_conv (backend);
    gchar *what = g_strdup_printf ("kernel \"%s\" with preset low-pass [%s]",
        unset[k], backend);
    Out o;

    g_object_set (e, "kernel", unset[k], NULL);
    gst_util_set_object_arg (G_OBJECT (e), "preset", "low-pass");
    g_object_set (e, "cutoff", 4000.0, "taps", 31, NULL);
    run_stream (e, s, &o, what);
    check_simple (what, s, lp, 0, 1.0, 1.0, &o);
    out_clear (&o);

    /* no kernel, no location, no preset: a copy */
    e = make_conv (backend);
    g_object_set (e, "kernel", unset[k], NULL);
    run_stream (e, s, &o, "no mask at all");
    check_simple ("no mask at all: a copy", s, identity, 0, 1.0, 1.0, &o);
    out_clear (&o);
    fir_free (identity);
    fir_free (lp);
    g_free (what);
    stream_free (s);
  }
}

GST_END_TEST;

/* Bounds that the taps designed here must meet by window, with the preset
 * cutoff 6 kHz, band 5 to 7 kHz, 101 taps at 48 kHz: ripple of the pass
 * band and gain of the stop band, 4 kHz away from an edge. */
static const struct
{
  gdouble pass, stop;
} window_bounds[] = {
  {0.006, 0.003},               /* hamming */
  {0.003, 0.0005},              /* hann */
  {0.001, 0.0002},              /* blackman */
  {0.1, 0.05},                  /* rectangular */
};

static gboolean
in_pass_band (const gchar * preset, gdouble hz)
{
  if (!strcmp (preset, "low-pass"))
    return hz <= 2000;
  if (!strcmp (preset, "high-pass"))
    return hz >= 10000;
  if (!strcmp (preset, "band-stop"))
    return hz <= 1000 || hz >= 11000;
  return FALSE;
}

static gboolean
in_stop_band (const gchar * preset, gdouble hz)
{
  if (!strcmp (preset, "low-pass"))
    return hz >= 10000;
  if (!strcmp (preset, "high-pass"))
    return hz <= 2000;
  if (!strcmp (preset, "band-pass"))
    return hz <= 1000 || hz >= 11000;
  return FALSE;
}

/* The designed taps have the frequency response their name promises. */
static void
check_design (const gchar * preset, guint w, const Fir * f)
{
  gdouble dc = fir_gain_at (f, 0.0), centre = fir_gain_at (f, 6000.0 / RATE);

  if (!strcmp (preset, "low-pass") || !strcmp (preset, "band-stop"))
    fail_unless (fabs (dc - 1.0) < 1e-9, "%s/%s: DC gain %g, not 1", preset,
        windows[w], dc);
  else
    fail_unless (dc < window_bounds[w].stop + 1e-9, "%s/%s: DC gain %g, not "
        "about 0", preset, windows[w], dc);
  if (!strcmp (preset, "band-pass"))
    fail_unless (fabs (centre - 1.0) < 1e-9, "band-pass/%s: gain %g at the "
        "centre, not 1", windows[w], centre);
  if (!strcmp (preset, "band-stop"))
    fail_unless (centre < 1e-9, "band-stop/%s: gain %g at the centre, not 0",
        windows[w], centre);
  for (gdouble hz = 0; hz <= RATE / 2; hz += 250) {
    gdouble g = fir_gain_at (f, hz / RATE);
    if (in_pass_band (preset, hz))
      fail_unless (fabs (g - 1.0) <= window_bounds[w].pass, "%s/%s: gain %g "
          "at %g Hz in the pass band", preset, windows[w], g, hz);
    if (in_stop_band (preset, hz))
      fail_unless (g <= window_bounds[w].stop, "%s/%s: gain %g at %g Hz in "
          "the stop band", preset, windows[w], g, hz);
  }
}

GST_START_TEST (test_presets)
{
  const gchar *backend = backends[__i__];
  const gint taps = 101, half = 50;

  for (guint p = 0; p < G_N_ELEMENTS (presets); p++)
    for (guint w = 0; w < G_N_ELEMENTS (windows); w++) {
      Fir *fir = design_preset (presets[p], windows[w], taps, 6000, 2000,
          RATE);
      Stream *s = stream_new (GST_AUDIO_FORMAT_F32LE, w % 2, 1, RATE,
          random_cuts (3, 3000));
      Stream *tone = stream_new (GST_AUDIO_FORMAT_F64LE, FALSE, 1, RATE,
          random_cuts (2, 1999));
      gboolean dc_test = !strcmp (presets[p], "low-pass")
          || !strcmp (presets[p], "high-pass");
      gdouble want;
      GstElement *e;
      gchar *what = g_strdup_printf ("preset=%s window=%s [%s]", presets[p],
          windows[w], backend);
      Out o;

      check_design (presets[p], w, fir);

      /* random input against the taps designed here; every other run
       * with the delay compensated */
      e = make_conv (backend);
      gst_util_set_object_arg (G_OBJECT (e), "preset", presets[p]);
      gst_util_set_object_arg (G_OBJECT (e), "window", windows[w]);
      g_object_set (e, "taps", taps, "cutoff", 6000.0, "bandwidth", 2000.0,
          "latency", (guint64) (w % 2 ? half : 0), NULL);
      run_stream (e, s, &o, what);
      check_simple (what, s, fir, w % 2 ? half : 0, 1.0, 1.0, &o);
      out_clear (&o);

      /* the element's own response, whatever the taps: DC through the
       * low- and high-pass, a tone at 6 kHz through the band filters; with
       * the delay compensated, the steady state is the input times the
       * gain at that frequency (1 or 0) */
      for (gint n = 0; n < tone->frames; n++)
        tone->x[0][n] = dc_test ? 0.5 : 0.5 * sin (2 * G_PI * 6000.0 * n
            / RATE + 0.3);
      want = !strcmp (presets[p], "high-pass")
          || !strcmp (presets[p], "band-stop") ? 0.0 : 1.0;
      e = make_conv (backend);
      gst_util_set_object_arg (G_OBJECT (e), "preset", presets[p]);
      gst_util_set_object_arg (G_OBJECT (e), "window", windows[w]);
      g_object_set (e, "taps", taps, "cutoff", 6000.0, "bandwidth", 2000.0,
          "latency", (guint64) half, NULL);
      run_stream (e, tone, &o, what);
      for (gint j = taps; j < tone->frames - taps; j++)
        fail_unless (fabs (o.y[0][j] - want * tone->x[0][j]) < 2e-5,
            "%s: %s at frame %d: got %.7f, expected %.7f (gain %g)", what,
            dc_test ? "DC" : "6 kHz tone", j, o.y[0][j],
            want * tone->x[0][j], want);
      samples_checked += tone->frames - 2 * taps;
      out_clear (&o);

      fir_free (fir);
      g_free (what);
      stream_free (s);
      stream_free (tone);
    }
}

GST_END_TEST;

/* Preset settings that make no filter for the stream are refused at
 * negotiation, naming the setting. */
GST_START_TEST (test_preset_errors)
{
  const gchar *backend = backends[__i__];
  static const struct
  {
    const gchar *preset;
    gint taps;
    gdouble cutoff, bandwidth;
    const gchar *why;
  } cases[] = {
    {"low-pass", 100, 1000, 500, "odd"},
    {"high-pass", 31, 24000, 500, "half the sample rate"},
    {"low-pass", 31, 30000, 500, "half the sample rate"},
    {"band-pass", 31, 1000, 3000, "must lie between"},
    {"band-stop", 31, 23000, 4000, "must lie between"},
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    GstAudioInfo info;
    Conv c;
    gchar *what = g_strdup_printf ("preset=%s taps=%d cutoff=%g "
        "bandwidth=%g at 48 kHz [%s]", cases[k].preset, cases[k].taps,
        cases[k].cutoff, cases[k].bandwidth, backend);

    audio_info (&info, GST_AUDIO_FORMAT_F32LE, FALSE, 1, RATE);
    conv_start (&c, make_conv (backend));
    gst_util_set_object_arg (G_OBJECT (c.conv), "preset", cases[k].preset);
    g_object_set (c.conv, "taps", cases[k].taps, "cutoff", cases[k].cutoff,
        "bandwidth", cases[k].bandwidth, NULL);
    expect_not_negotiated (&c, &info, cases[k].why, what);
    conv_stop (&c, what);
    g_free (what);
  }
}

GST_END_TEST;

/* What `normalize` makes of `f`: each mask divided by the sum of its taps
 * (energy: by the square root of the sum of their squares), masks whose
 * taps cancel out left alone. */
static void
fir_normalize (Fir * f, gboolean energy)
{
  for (gint m = 0; m < f->masks; m++) {
    gdouble *h = f->h + (gsize) m * f->taps, sum = 0.0, size = 0.0;
    for (gint k = 0; k < f->taps; k++) {
      sum += energy ? h[k] * h[k] : h[k];
      size += fabs (h[k]);
    }
    if (fabs (sum) <= 1e-6 * size)
      continue;
    sum = energy ? sqrt (sum) : sum;
    for (gint k = 0; k < f->taps; k++)
      h[k] /= sum;
  }
}

GST_START_TEST (test_normalize)
{
  const gchar *backend = backends[__i__];
  static const struct
  {
    gint channels;
    const gchar *kernel;
    const gchar *preset;
  } cases[] = {
    {1, "1 2 1", NULL},
    {2, "1 2 1; 2 -1 5", NULL},
    {1, "-0.5 -1.5 0.25", NULL},        /* negative sum: the sign flips */
    {1, "1 -1", NULL},          /* taps cancel: left alone */
    {1, "0.1 0.2 -0.3", NULL},  /* cancel as written, not as floats */
    {1, "1 -2 1", NULL},
    {1, NULL, "low-pass"},
    {1, NULL, "high-pass"},     /* cancels out: left alone */
    {1, NULL, "band-pass"},     /* cancels out: left alone */
    {1, NULL, "band-stop"},
  };
  gfloat *ir = random_ir (300, 2);
  gchar *path;

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    Stream *s = stream_new (GST_AUDIO_FORMAT_F32LE, FALSE, cases[k].channels,
        RATE, random_cuts (3, 2001));
    Fir *fir = cases[k].kernel ? fir_parse (cases[k].kernel)
        : design_preset (cases[k].preset, "hann", 101, 6000, 2000, RATE);
    GstElement *e = make_conv (backend);
    gchar *what = g_strdup_printf ("normalize, %s \"%s\" [%s]",
        cases[k].kernel ? "kernel" : "preset",
        cases[k].kernel ? cases[k].kernel : cases[k].preset, backend);
    Out o;

    if (cases[k].kernel) {
      g_object_set (e, "kernel", cases[k].kernel, NULL);
    } else {
      gst_util_set_object_arg (G_OBJECT (e), "preset", cases[k].preset);
      gst_util_set_object_arg (G_OBJECT (e), "window", "hann");
      g_object_set (e, "taps", 101, "cutoff", 6000.0, "bandwidth", 2000.0,
          NULL);
    }
    g_object_set (e, "normalize", TRUE, NULL);
    fir_normalize (fir, FALSE);
    run_stream (e, s, &o, what);
    check_simple (what, s, fir, 0, 1.0, 1.0, &o);
    out_clear (&o);
    fir_free (fir);
    g_free (what);
    stream_free (s);
  }

  /* an impulse response file: unit energy per channel */
  for (gint k = 0; k < 300; k++)
    ir[2 * k + 1] *= 0.25f;
  path = write_ir ("normalize.wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 2, RATE,
      ir, 300);
  {
    Stream *s = stream_new (GST_AUDIO_FORMAT_F32LE, TRUE, 2, RATE,
        random_cuts (3, 2001));
    Fir *fir = read_ir (path, NULL);
    GstElement *e = make_conv (backend);
    gchar *what = g_strdup_printf ("normalize, stereo impulse response [%s]",
        backend);
    Out o;

    g_object_set (e, "location", path, "normalize", TRUE, NULL);
    fir_normalize (fir, TRUE);
    for (gint c = 0; c < 2; c++)
      fail_unless (fabs (fir_norm (fir, c) - 1.0) < 1e-12);
    run_stream (e, s, &o, what);
    check_simple (what, s, fir, 0, 1.0, 1.0, &o);
    out_clear (&o);
    fir_free (fir);
    g_free (what);
    stream_free (s);
  }
  g_free (path);
  g_free (ir);
}

GST_END_TEST;

/* ---- 3. impulse response files ------------------------------------------------ */

static const struct
{
  const gchar *name;
  gint format;
} ir_files[] = {
  {"ir-float.wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT},
  {"ir-16.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16},
  {"ir.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_24},
  {"ir.aiff", SF_FORMAT_AIFF | SF_FORMAT_PCM_16},
  {"ir.ogg", SF_FORMAT_OGG | SF_FORMAT_VORBIS},
};

static gboolean
can_write (gint sf_format, gint channels)
{
  SF_INFO info = { 0 };

  info.samplerate = RATE;
  info.channels = channels;
  info.format = sf_format;
  return sf_format_check (&info);
}

/* A mono response in every container filters both channels of a stereo
 * stream; a stereo one maps channel to channel. */
GST_START_TEST (test_location_formats)
{
  const gchar *backend = backends[__i__];

  for (guint k = 0; k < G_N_ELEMENTS (ir_files); k++)
    for (gint channels = 1; channels <= 2; channels++) {
      gfloat *ir = random_ir (240 + 37 * k, channels);
      gchar *name = g_strdup_printf ("%d-%s", channels, ir_files[k].name);
      gchar *path, *what;
      Stream *s;
      Fir *fir;
      Out o;

      if (!can_write (ir_files[k].format, channels)) {
        g_print ("SKIP %s with %d channels: libsndfile here cannot write "
            "it\n", ir_files[k].name, channels);
        g_free (ir);
        g_free (name);
        continue;
      }
      path = write_ir (name, ir_files[k].format, channels, RATE, ir,
          240 + 37 * k);
      fir = read_ir (path, NULL);
      s = stream_new (k % 2 ? GST_AUDIO_FORMAT_S16LE : GST_AUDIO_FORMAT_F32LE,
          channels == 2, 2, RATE, random_cuts (3, 3000));
      what = g_strdup_printf ("location=%s, %d channel%s on stereo [%s]",
          name, channels, channels == 1 ? "" : "s", backend);
      {
        GstElement *e = make_conv (backend);
        g_object_set (e, "location", path, NULL);
        run_stream (e, s, &o, what);
      }
      check_simple (what, s, fir, 0, 1.0, 1.0, &o);
      out_clear (&o);
      stream_free (s);
      fir_free (fir);
      g_free (what);
      g_free (path);
      g_free (name);
      g_free (ir);
    }
}

GST_END_TEST;

/* A response of three channels on a stereo stream is refused at
 * negotiation, saying why. */
GST_START_TEST (test_location_channels)
{
  const gchar *backend = backends[__i__];
  gfloat *ir = random_ir (100, 3);
  gchar *path = write_ir ("three.wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 3,
      RATE, ir, 100);
  GstAudioInfo info;
  Conv c;

  audio_info (&info, GST_AUDIO_FORMAT_F32LE, FALSE, 2, RATE);
  conv_start (&c, make_conv (backend));
  g_object_set (c.conv, "location", path, NULL);
  expect_not_negotiated (&c, &info, "3 channels",
      "3-channel response on stereo");
  conv_stop (&c, "3-channel response on stereo");
  g_free (path);
  g_free (ir);
}

GST_END_TEST;

/* Files that give no response: path and what the message must say. */
typedef struct
{
  gchar *path;
  const gchar *why;
} BadFile;

static BadFile bad_files[6];

static void
make_bad_files (void)
{
  gfloat *zeros;

  if (bad_files[0].path)
    return;
  bad_files[0].path = g_build_filename (tmp_dir, "missing.wav", NULL);
  bad_files[0].why = "cannot read";
  bad_files[1].path = write_garbage ("garbage.wav", 4000);
  bad_files[1].why = "cannot read";
  bad_files[2].path = write_garbage ("zero-bytes.wav", 0);
  bad_files[2].why = "cannot read";
  bad_files[3].path = write_ir ("no-frames.wav",
      SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, RATE, NULL, 0);
  bad_files[3].why = "empty";
  /* one frame more than the longest mask */
  zeros = g_new0 (gfloat, MAX_TAPS + 1);
  zeros[0] = 1.0f;
  bad_files[4].path = write_ir ("too-long.wav",
      SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, RATE, zeros, MAX_TAPS + 1);
  bad_files[4].why = "at most";
  g_free (zeros);
  /* a response with a NaN */
  {
    gfloat nan_ir[4] = { 0.5f, NAN, 0.25f, 0.0f };
    bad_files[5].path = write_ir ("nan.wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT,
        1, RATE, nan_ir, 4);
    bad_files[5].why = "not a finite number";
  }
}

static void
free_bad_files (void)
{
  for (guint k = 0; k < G_N_ELEMENTS (bad_files); k++)
    g_clear_pointer (&bad_files[k].path, g_free);
}

GST_START_TEST (test_location_errors)
{
  const gchar *backend = backends[__i__];
  gfloat *ir = random_ir (64, 1);
  gchar *good = write_ir ("good.wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1,
      RATE, ir, 64);

  make_bad_files ();
  for (guint k = 0; k < G_N_ELEMENTS (bad_files); k++) {
    GstElement *e = make_conv (backend);
    gchar *what = g_strdup_printf ("location=%s before start [%s]",
        bad_files[k].path, backend);
    gchar *location;

    g_object_set (e, "location", bad_files[k].path, NULL);
    g_object_get (e, "location", &location, NULL);
    fail_unless_equals_string (location, bad_files[k].path);
    g_free (location);
    expect_start_failure (e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        bad_files[k].why, bad_files[k].path, what);

    /* other mask settings made afterwards do not make the file good */
    g_object_set (e, "normalize", TRUE, "latency", (guint64) 0, NULL);
    gst_util_set_object_arg (G_OBJECT (e), "window", "hann");
    expect_start_failure (e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        bad_files[k].why, bad_files[k].path,
        "a bad location, then other settings");

    /* a good file does */
    g_object_set (e, "location", good, NULL);
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
        GST_STATE_CHANGE_SUCCESS);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_object_unref (e);
    g_free (what);
  }
  g_free (good);
  g_free (ir);
}

GST_END_TEST;

/* Refused while playing: a warning naming the property and the file, the
 * property keeps its value, and the stream goes on with the old mask (the
 * whole output is the old mask's). */
GST_START_TEST (test_location_errors_while_playing)
{
  const gchar *backend = backends[__i__];
  gfloat *ir = random_ir (150, 1), *ir3 = random_ir (50, 3);
  gchar *good = write_ir ("playing.wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1,
      RATE, ir, 150);
  gchar *three = write_ir ("three-playing.wav",
      SF_FORMAT_WAV | SF_FORMAT_FLOAT, 3, RATE, ir3, 50);
  Stream *s = stream_new (GST_AUDIO_FORMAT_F32LE, FALSE, 2, RATE,
      random_cuts (G_N_ELEMENTS (bad_files) + 3, 1001));
  Fir *fir = read_ir (good, NULL);
  Conv c;
  Out o;

  make_bad_files ();
  conv_start (&c, make_conv (backend));
  g_object_set (c.conv, "location", good, NULL);
  conv_set_caps (&c, &s->info);
  out_init_for (&o, s);
  push_range (&c, s, 0, 1, 0, "before the bad files");
  for (guint k = 0; k <= G_N_ELEMENTS (bad_files); k++) {
    const gchar *path = k < G_N_ELEMENTS (bad_files) ? bad_files[k].path
        : three;
    const gchar *why = k < G_N_ELEMENTS (bad_files) ? bad_files[k].why
        : "3 channels";
    gchar *what = g_strdup_printf ("location=%s while playing [%s]", path,
        backend);
    gchar *text, *location;

    g_object_set (c.conv, "location", path, NULL);
    text = expect_message (c.bus, GST_MESSAGE_WARNING, GST_LIBRARY_ERROR,
        GST_LIBRARY_ERROR_SETTINGS, why, what);
    fail_unless (strstr (text, "location") && strstr (text, path),
        "%s: the warning \"%s\" does not name the property and the file",
        what, text);
    g_free (text);
    expect_no_message (c.bus, what);
    g_object_get (c.conv, "location", &location, NULL);
    fail_unless (g_strcmp0 (location, good) == 0, "%s: location reads back "
        "\"%s\", not the current file", what, location);
    g_free (location);
    push_range (&c, s, k + 1, k + 2, 0, what);
    g_free (what);
  }
  push_range (&c, s, G_N_ELEMENTS (bad_files) + 2, s->cuts->len, 0,
      "after the bad files");
  push_eos (&c);
  out_take_from (&o, &c, -1, "bad files while playing");
  check_simple ("bad files while playing: the old mask throughout", s, fir, 0,
      1.0, 1.0, &o);
  conv_stop (&c, "bad files while playing");
  out_clear (&o);
  fir_free (fir);
  stream_free (s);
  g_free (good);
  g_free (three);
  g_free (ir);
  g_free (ir3);
}

GST_END_TEST;

/* A two-pulse response defined in continuous time (Gaussian envelopes on
 * 3 kHz and 1.5 kHz carriers: band-limited far below both Nyquist
 * frequencies), t in seconds. */
static gdouble
pulses (gdouble t)
{
  gdouble a = (t - 0.002) / 0.0003, b = (t - 0.009) / 0.0005;

  return 0.8 * exp (-a * a) * cos (2 * G_PI * 3000 * (t - 0.002))
      + 0.4 * exp (-b * b) * cos (2 * G_PI * 1500 * (t - 0.009));
}

/* A response at 44.1 kHz on a 48 kHz stream is resampled: sampled at
 * 44.1 kHz into the file, the element's response (a unit impulse through
 * it) must be the same function sampled at 48 kHz and scaled by
 * 44100 / 48000, the gain-keeping convention documented in the element;
 * the resampling is logged. */
GST_START_TEST (test_location_resample)
{
  const gchar *backend = backends[__i__];
  const gint ir_rate = 44100, ir_frames = 661;  /* 15 ms */
  gfloat *ir = g_new (gfloat, ir_frames);
  Fir *want, *measured;
  Stream *impulse, *s;
  gdouble peak = 0.0, err = 0.0, e_file = 0.0, e_elem = 0.0;
  gint peak_file = 0, peak_elem = 0, taps;
  gboolean logging;
  gchar *path, *log, *kernel;
  GArray *cuts;
  Out o;

  for (gint k = 0; k < ir_frames; k++) {
    ir[k] = (gfloat) pulses ((gdouble) k / ir_rate);
    e_file += (gdouble) ir[k] * ir[k];
    if (fabs (ir[k]) > fabs (ir[peak_file]))
      peak_file = k;
  }
  path = write_ir ("ir-44100.wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1,
      ir_rate, ir, ir_frames);

  /* longer than the response */
  cuts = random_cuts (2, 999);
  g_array_index (cuts, gint, 0) += 720;
  impulse = stream_new (GST_AUDIO_FORMAT_F32LE, FALSE, 1, RATE, cuts);
  for (gint n = 0; n < impulse->frames; n++)
    impulse->x[0][n] = n == 0;
  logging = log_start ();
  {
    GstElement *e = make_conv (backend);
    g_object_set (e, "location", path, NULL);
    run_stream (e, impulse, &o, "unit impulse through a 44.1 kHz response");
  }
  log = logging ? log_stop () : NULL;
  if (!logging)
    g_print ("SKIP the log check of resampling: this GStreamer does not "
        "log\n");
  else
    fail_unless (strstr (log, "resampled") != NULL, "no INFO line says the "
        "response was resampled; the element logged:\n%s", log);
  g_free (log);

  taps = o.frames - impulse->frames + 1;
  fail_unless (abs (taps - ir_frames * RATE / ir_rate) <= 1, "the response "
      "at 48 kHz has %d taps; %d at 44.1 kHz make %.1f", taps, ir_frames,
      (gdouble) ir_frames * RATE / ir_rate);
  fail_unless (taps <= impulse->frames);
  measured = fir_new (taps, 1);
  want = fir_new (taps, 1);
  for (gint k = 0; k < taps; k++) {
    measured->h[k] = o.y[0][k];
    want->h[k] = pulses ((gdouble) k / RATE) * ir_rate / RATE;
    peak = MAX (peak, fabs (want->h[k]));
    e_elem += measured->h[k] * measured->h[k];
    if (fabs (measured->h[k]) > fabs (measured->h[peak_elem]))
      peak_elem = k;
  }
  for (gint k = 0; k < taps; k++)
    err = MAX (err, fabs (measured->h[k] - want->h[k]));
  out_clear (&o);
  fail_unless (err <= 2e-3 * peak, "the resampled response is %.3g (%.2g "
      "of its peak) off the function sampled at 48 kHz", err, err / peak);
  fail_unless (fabs (e_elem / (e_file * ir_rate / RATE) - 1.0) < 0.01,
      "energy %g at 48 kHz, expected %g (the file's %g x 44100 / 48000)",
      e_elem, e_file * ir_rate / RATE, e_file);
  fail_unless (fabs ((gdouble) peak_elem / RATE - (gdouble) peak_file
          / ir_rate) <= 1.0 / RATE, "peak at %.6f s at 48 kHz, at %.6f s in "
      "the file", (gdouble) peak_elem / RATE, (gdouble) peak_file / ir_rate);

  /* the same response filters both channels of a stereo stream */
  s = stream_new (GST_AUDIO_FORMAT_F32LE, TRUE, 2, RATE, random_cuts (3,
          3000));
  {
    GstElement *e = make_conv (backend);
    g_object_set (e, "location", path, NULL);
    run_stream (e, s, &o, "stereo through a 44.1 kHz response");
  }
  /* the measured taps are floats already: as a kernel they read back
   * exactly */
  kernel = fir_to_kernel (measured);
  fir_free (measured);
  measured = fir_parse (kernel);
  check_simple ("stereo through a 44.1 kHz response", s, measured, 0, 1.0,
      1.0, &o);
  out_clear (&o);
  g_free (kernel);
  fir_free (measured);
  fir_free (want);
  stream_free (s);
  stream_free (impulse);
  g_free (path);
  g_free (ir);
}

GST_END_TEST;

/* ---- 4. latency ------------------------------------------------------------- */

GST_START_TEST (test_latency)
{
  const gchar *backend = backends[__i__];
  GstClockTime got, want;
  GParamSpec *pspec;
  GstAudioInfo info;
  Stream *s;
  Fir *fir;
  Conv c;
  Out o;

  /* reported: upstream's latency plus latency / rate */
  audio_info (&info, GST_AUDIO_FORMAT_F32LE, FALSE, 1, 44100);
  conv_start (&c, make_conv_latency (backend, (guint64) 5));
  g_object_set (c.conv, "kernel", "1 2 3 4 5 6 7 8 9 10 11", NULL);
  conv_set_caps (&c, &info);
  gst_harness_set_upstream_latency (c.h, 3 * GST_MSECOND);
  got = gst_harness_query_latency (c.h);
  want = 3 * GST_MSECOND + gst_util_uint64_scale_round (5, GST_SECOND, 44100);
  fail_unless (got == want, "latency 5 at 44.1 kHz after 3 ms upstream: "
      "the query says %" GST_TIME_FORMAT ", expected %" GST_TIME_FORMAT,
      GST_TIME_ARGS (got), GST_TIME_ARGS (want));
  conv_stop (&c, "latency query");

  /* the longest: taps - 1 */
  s = stream_new (GST_AUDIO_FORMAT_S16LE, TRUE, 2, RATE, random_cuts (3,
          3000));
  {
    gchar *kernel = random_kernel (11, 1);
    GstElement *e = make_conv (backend);
    fir = fir_parse (kernel);
    g_object_set (e, "kernel", kernel, "latency", (guint64) 10, NULL);
    run_stream (e, s, &o, "latency 10, 11 taps");
    check_simple ("latency 10, 11 taps", s, fir, 10, 1.0, 1.0, &o);
    out_clear (&o);
    fir_free (fir);
    g_free (kernel);
  }
  stream_free (s);

  /* not shorter than the mask: refused with the stream */
  {
    static const struct
    {
      const gchar *kernel;
      guint64 latency;
    } too_long[] = {
      {"1 2 3", 3}, {"1 2 3", 1000}, {NULL, 1},
    };
    for (guint k = 0; k < G_N_ELEMENTS (too_long); k++) {
      gchar *what = g_strdup_printf ("latency %" G_GUINT64_FORMAT " with "
          "kernel \"%s\" [%s]", too_long[k].latency, too_long[k].kernel,
          backend);
      audio_info (&info, GST_AUDIO_FORMAT_F32LE, FALSE, 1, RATE);
      conv_start (&c, make_conv_latency (backend, too_long[k].latency));
      g_object_set (c.conv, "kernel", too_long[k].kernel, NULL);
      expect_not_negotiated (&c, &info, "latency", what);
      conv_stop (&c, what);
      g_free (what);
    }
  }

  /* changeable only in NULL or READY: while playing the value stays and
   * the stream goes on as it was */
  {
    GstElement *e = make_conv (backend);
    pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "latency");
    fail_unless (pspec && (pspec->flags & GST_PARAM_MUTABLE_READY),
        "latency is not flagged GST_PARAM_MUTABLE_READY");
    gst_object_unref (e);
  }
  s = stream_new (GST_AUDIO_FORMAT_F32LE, FALSE, 1, RATE, random_cuts (4,
          2001));
  {
    gchar *kernel = random_kernel (11, 1);
    GstMessage *msg;
    guint64 latency;

    fir = fir_parse (kernel);
    conv_start (&c, make_conv_latency (backend, (guint64) 5));
    g_object_set (c.conv, "kernel", kernel, NULL);
    conv_set_caps (&c, &s->info);
    out_init_for (&o, s);
    push_range (&c, s, 0, 2, 0, "latency 5");
    g_object_set (c.conv, "latency", (guint64) 2, NULL);
    g_object_get (c.conv, "latency", &latency, NULL);
    fail_unless (latency == 5, "latency set to 2 while playing reads back %"
        G_GUINT64_FORMAT ", not 5", latency);
    /* a refusal may say so */
    msg = gst_bus_pop_filtered (c.bus, GST_MESSAGE_WARNING);
    if (msg) {
      GError *err = NULL;
      gst_message_parse_warning (msg, &err, NULL);
      fail_unless (strstr (err->message, "latency") != NULL, "the warning "
          "\"%s\" does not name latency", err->message);
      g_error_free (err);
      gst_message_unref (msg);
    }
    push_range (&c, s, 2, s->cuts->len, 0, "latency set while playing");
    push_eos (&c);
    out_take_from (&o, &c, -1, "latency set while playing");
    check_simple ("latency set to 2 while playing: still 5", s, fir, 5, 1.0,
        1.0, &o);
    out_clear (&o);

    /* in READY it changes */
    fail_unless_equals_int (gst_element_set_state (c.conv, GST_STATE_READY),
        GST_STATE_CHANGE_SUCCESS);
    g_object_set (c.conv, "latency", (guint64) 2, NULL);
    fail_unless_equals_int (gst_element_set_state (c.conv,
            GST_STATE_PLAYING), GST_STATE_CHANGE_SUCCESS);
    /* a flush forgets the EOS the harness keeps; its caps go again with
     * the next buffer */
    {
      GstSegment segment;
      gst_harness_push_event (c.h, gst_event_new_flush_start ());
      gst_harness_push_event (c.h, gst_event_new_flush_stop (TRUE));
      gst_segment_init (&segment, GST_FORMAT_TIME);
      gst_harness_push_event (c.h, gst_event_new_segment (&segment));
    }
    out_init_for (&o, s);
    push_range (&c, s, 0, s->cuts->len, 0, "latency 2 after a restart");
    push_eos (&c);
    out_take_from (&o, &c, -1, "latency 2 after a restart");
    check_simple ("latency set to 2 in READY", s, fir, 2, 1.0, 1.0, &o);
    out_clear (&o);
    conv_stop (&c, "latency changes");
    fir_free (fir);
    g_free (kernel);
  }
  stream_free (s);
}

GST_END_TEST;

/* ---- 5. gain and mix -------------------------------------------------------- */

/* Dry and wet gains glide from (d0, w0) to (d1, w1) across the `frames`
 * frames generated from input frame n0 on: at generated frame n0 + i they
 * are d0 + (d1 - d0) (i + 1) / frames. */
static void
expect_ramp (Expect * e, gint n0, gint frames, gdouble d0, gdouble w0,
    gdouble d1, gdouble w1)
{
  for (gint j = 0; j < e->frames; j++) {
    gint n = j + e->latency;
    gdouble t = n < n0 ? 0.0 : n >= n0 + frames ? 1.0
        : (gdouble) (n - n0 + 1) / frames;
    e->dry[j] = d0 + (d1 - d0) * t;
    e->wet[j] = w0 + (w1 - w0) * t;
  }
}

GST_START_TEST (test_gain_mix)
{
  const gchar *backend = backends[__i__];
  static const struct
  {
    gdouble gain, mix;
  } steady[] = {
    {2.0, 0.3}, {0.5, 1.0}, {1.0, 0.0}, {3.0, 0.75}, {0.0, 0.5},
  };
  static const gint ramp_cuts[] = { 1001, 999, 1501, 777, 35 };
  gchar *kernel = random_kernel (9, 2);
  Fir *fir = fir_parse (kernel);

  /* set before the start: in force from the first frame, no glide from
   * the defaults */
  for (guint k = 0; k < G_N_ELEMENTS (steady); k++) {
    Stream *s = stream_new (GST_AUDIO_FORMAT_F32LE, k % 2, 2, RATE,
        random_cuts (3, 2001));
    GstElement *e = make_conv (backend);
    gchar *what = g_strdup_printf ("gain=%g mix=%g, latency 4 [%s]",
        steady[k].gain, steady[k].mix, backend);
    Out o;

    g_object_set (e, "kernel", kernel, "latency", (guint64) 4, "gain",
        steady[k].gain, "mix", steady[k].mix, NULL);
    run_stream (e, s, &o, what);
    check_simple (what, s, fir, 4, steady[k].gain, steady[k].mix, &o);
    out_clear (&o);
    g_free (what);
    stream_free (s);
  }

  /* changed while playing: a linear glide across the next buffer, then
   * the new values (the tail included) */
  for (gint latency = 0; latency <= 4; latency += 4) {
    GArray *cuts = g_array_new (FALSE, FALSE, sizeof (gint));
    Stream *s;
    Expect e;
    Conv c;
    Out o;
    gchar *what = g_strdup_printf ("gain 1 -> 2.5, mix 1 -> 0.4 while "
        "playing, latency %d [%s]", latency, backend);
    gint n0 = ramp_cuts[0] + ramp_cuts[1];

    g_array_append_vals (cuts, ramp_cuts, G_N_ELEMENTS (ramp_cuts));
    s = stream_new (GST_AUDIO_FORMAT_F32LE, FALSE, 2, RATE, cuts);
    conv_start (&c, make_conv_latency (backend, (guint64) latency));
    g_object_set (c.conv, "kernel", kernel, NULL);
    conv_set_caps (&c, &s->info);
    out_init_for (&o, s);
    push_range (&c, s, 0, 2, 0, what);
    g_object_set (c.conv, "gain", 2.5, "mix", 0.4, NULL);
    push_range (&c, s, 2, s->cuts->len, 0, what);
    push_eos (&c);
    out_take_from (&o, &c, -1, what);
    expect_init (&e, s, fir, latency, 1.0, 1.0);
    expect_ramp (&e, n0, ramp_cuts[2], 0.0, 1.0, 0.6, 2.5 * 0.4);
    check_output (what, &e, &o);
    expect_clear (&e);
    out_clear (&o);
    g_free (what);
    conv_stop (&c, "gain and mix while playing");
    stream_free (s);
  }
  fir_free (fir);
  g_free (kernel);
}

GST_END_TEST;

/* ---- 6. masks changed while playing ----------------------------------------- */

/* From input frame n0 on, `fir` filters. The element hands a new mask the
 * input the old filter holds, `held` frames: generated frames whose
 * history reaches further back see silence there. */
static void
expect_change (Expect * e, gint n0, Fir * fir, gint held)
{
  gint frames = e->s->frames + fir->taps - 1 - e->latency;
  gint known = MAX (0, n0 - MIN (held, fir->taps - 1));

  if (frames != e->frames) {
    e->fir = g_renew (Fir *, e->fir, frames);
    e->known = g_renew (gint, e->known, frames);
    e->dry = g_renew (gdouble, e->dry, frames);
    e->wet = g_renew (gdouble, e->wet, frames);
    /* frames before the change that the old mask's tail did not reach (a
     * change heard only within the new one's tail) are still the old
     * mask's */
    for (gint j = e->frames; j < frames; j++) {
      e->dry[j] = e->dry[e->frames - 1];
      e->wet[j] = e->wet[e->frames - 1];
      e->fir[j] = e->fir[e->frames - 1];
      e->known[j] = e->known[e->frames - 1];
    }
    e->frames = frames;
  }
  for (gint j = MAX (0, n0 - e->latency); j < frames; j++) {
    e->fir[j] = fir;
    e->known[j] = known;
  }
}

/* The input frames the first filter in `log` (the element's INFO lines)
 * holds for its successor: taps - 1 on the direct path, one block on the
 * FFT path. */
static gint
first_filter_holds (const gchar * log, const gchar * what)
{
  const gchar *line = log ? strstr (log, " taps x ") : NULL;
  gint taps, masks, block;

  fail_unless (line != NULL, "%s: the element logged no filter", what);
  while (line > log && line[-1] != '\n')
    line--;
  fail_unless (sscanf (line, "%d taps x %d masks", &taps, &masks) == 2,
      "%s: cannot read \"%.60s\"", what, line);
  if (!strstr (line, "FFT path") || strstr (line, "FFT path") > strchr (line,
          '\n'))
    return taps - 1;
  fail_unless (sscanf (strstr (line, "(block "), "(block %d)", &block) == 1,
      "%s: no block in \"%.80s\"", what, line);
  return block;
}

typedef struct
{
  gint taps;                    /* random kernel of this length */
  gdouble cutoff;               /* or, when > 0, a low-pass preset */
} MaskSpec;

/* Sets `spec` on `e` and returns its taps. */
static Fir *
apply_mask (GstElement * e, const MaskSpec * spec)
{
  gchar *kernel;
  Fir *fir;

  if (spec->cutoff > 0) {
    g_object_set (e, "kernel", NULL, "taps", spec->taps, "cutoff",
        spec->cutoff, NULL);
    gst_util_set_object_arg (G_OBJECT (e), "preset", "low-pass");
    return design_preset ("low-pass", "hamming", spec->taps, spec->cutoff,
        0, RATE);
  }
  kernel = random_kernel (spec->taps, 1);
  fir = fir_parse (kernel);
  g_object_set (e, "kernel", kernel, NULL);
  g_free (kernel);
  return fir;
}

typedef struct
{
  gint channels, latency;
  gboolean planar;
  MaskSpec before, after;
} MaskChange;

/* A mask change after the first three buffers of `cuts`, checked against
 * the reference. */
static void
run_mask_change (const gchar * backend, const MaskChange * mc, guint k,
    const gint * cuts, guint n_cuts)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gint));
  Stream *s;
  Fir *before, *after;
  Expect e;
  Conv c;
  Out o;
  gchar *log;
  gint held, n1, n0 = cuts[0] + cuts[1] + cuts[2];
  gchar *what = g_strdup_printf ("mask change %u: %d%s -> %d%s taps, "
      "latency %d, after frame %d [%s]", k, mc->before.taps,
      mc->before.cutoff > 0 ? " (low-pass)" : "", mc->after.taps,
      mc->after.cutoff > 0 ? " (low-pass)" : "", mc->latency, n0, backend);

  g_array_append_vals (a, cuts, n_cuts);
  s = stream_new (GST_AUDIO_FORMAT_F32LE, mc->planar, mc->channels, RATE, a);
  conv_start (&c, make_conv_latency (backend, mc->latency));
  /* the new mask alone from the buffer after it is ready */
  g_object_set (c.conv, "crossfade", 0, NULL);
  before = apply_mask (c.conv, &mc->before);
  conv_set_caps (&c, &s->info);
  out_init_for (&o, s);
  fail_unless (log_start (), "this GStreamer logs nothing");
  push_range (&c, s, 0, 3, 0, what);
  log = log_stop ();
  held = first_filter_holds (log, what);
  g_free (log);
  after = apply_mask (c.conv, &mc->after);
  wait_prepared (c.conv, what);
  push_range (&c, s, 3, s->cuts->len, 0, what);
  push_eos (&c);
  out_take_from (&o, &c, -1, what);
  /* the new mask is heard from the buffer after it was ready, or, where
   * it reaches further back than the history the old one held, once it
   * has warmed up on the input: with its whole history */
  n1 = heard_from (&c, what);
  fail_unless (n1 == n0 || n1 == n0 + after->taps - 1 - held, "%s: heard "
      "from frame %d, not %d or %d", what, n1, n0, n0 + after->taps - 1
      - held);
  if (n1 != n0)
    held = after->taps - 1;
  expect_init (&e, s, before, mc->latency, 1.0, 1.0);
  expect_change (&e, n1, after, held);
  check_output (what, &e, &o);
  expect_clear (&e);
  conv_stop (&c, what);
  out_clear (&o);
  fir_free (before);
  fir_free (after);
  stream_free (s);
  g_free (what);
}

GST_START_TEST (test_mask_change)
{
  const gchar *backend = backends[__i__];
  static const MaskChange cases[] = {
    {2, 0, FALSE, {9, 0}, {33, 0}},
    {2, 0, TRUE, {5, 0}, {300, 0}},
    /* a shorter mask after a longer one: covered on the direct path */
    {1, 4, FALSE, {65, 0}, {41, 0}},
    /* not covered: the first frames see silence beyond it */
    {1, 0, FALSE, {9, 0}, {3001, 0}},
    /* a centred preset of 3001 taps, its cutoff changed */
    {1, 1500, FALSE, {3001, 2000}, {3001, 5000}},
    /* a preset, then a kernel (which wins) */
    {2, 10, TRUE, {101, 3000}, {21, 0}},
  };
  static const gint cuts[] = { 1999, 1, 2001, 1501, 999, 7 };
  /* buffers of one FFT block each, the steady state, through masks long
   * enough for several partitions: the change comes while the first
   * filter still has the next block's work queued */
  static const MaskChange steady = { 2, 0, FALSE, {5001, 0}, {9001, 0} };
  gint blocks[16];

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    run_mask_change (backend, &cases[k], k, cuts, G_N_ELEMENTS (cuts));
  for (guint k = 0; k < G_N_ELEMENTS (blocks); k++)
    blocks[k] = 1024;
  run_mask_change (backend, &steady, G_N_ELEMENTS (cases), blocks,
      G_N_ELEMENTS (blocks));
}

GST_END_TEST;

/* A new impulse response file while playing, from mono to stereo. */
GST_START_TEST (test_location_change)
{
  const gchar *backend = backends[__i__];
  gfloat *mono = random_ir (200, 1), *stereo = random_ir (500, 2);
  gchar *a = write_ir ("change-a.wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1,
      RATE, mono, 200);
  gchar *b = write_ir ("change-b.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_24, 2,
      RATE, stereo, 500);
  Fir *fa = read_ir (a, NULL), *fb = read_ir (b, NULL);
  Stream *s = stream_new (GST_AUDIO_FORMAT_S32LE, FALSE, 2, RATE,
      random_cuts (4, 3000));
  gint held, n1, n0 = stream_cut_start (s, 2);
  gchar *location, *log;
  Expect e;
  Conv c;
  Out o;

  conv_start (&c, make_conv (backend));
  g_object_set (c.conv, "location", a, "crossfade", 0, NULL);
  conv_set_caps (&c, &s->info);
  out_init_for (&o, s);
  fail_unless (log_start (), "this GStreamer logs nothing");
  push_range (&c, s, 0, 2, 0, "location change");
  log = log_stop ();
  held = first_filter_holds (log, "location change");
  g_free (log);
  g_object_set (c.conv, "location", b, NULL);
  wait_prepared (c.conv, "location change");
  g_object_get (c.conv, "location", &location, NULL);
  fail_unless_equals_string (location, b);
  g_free (location);
  push_range (&c, s, 2, s->cuts->len, 0, "location change");
  push_eos (&c);
  out_take_from (&o, &c, -1, "location change");
  n1 = heard_from (&c, "location change");
  if (n1 != n0)
    held = fb->taps - 1;
  expect_init (&e, s, fa, 0, 1.0, 1.0);
  expect_change (&e, n1, fb, held);
  check_output ("location change while playing, mono to stereo", &e, &o);
  expect_clear (&e);
  conv_stop (&c, "location change");
  out_clear (&o);
  stream_free (s);
  fir_free (fa);
  fir_free (fb);
  g_free (a);
  g_free (b);
  g_free (mono);
  g_free (stereo);
}

GST_END_TEST;

/* ---- 7. discontinuities and flushes ------------------------------------------ */

/* Two streams through one element: the first `a`, then `b` after a
 * DISCONT flag, a timestamp jump, or (flush) a flush; `b` starts at `when`,
 * or `when` after the end of `a` when `relative`. Each comes out whole with
 * its own timestamps and silence before it; after a flush the first one's
 * tail is not pushed. */
typedef enum
{
  BREAK_DISCONT,
  BREAK_JUMP,
  BREAK_FLUSH,
} BreakKind;

static void
run_two_streams (const gchar * backend, BreakKind kind, gboolean relative,
    GstClockTimeDiff when, const gchar * label)
{
  gchar *kernel = random_kernel (40, 2);
  Fir *fir = fir_parse (kernel);
  Stream *a = stream_new (GST_AUDIO_FORMAT_S16LE, TRUE, 2, RATE,
      random_cuts (3, 2001));
  Stream *b = stream_new (GST_AUDIO_FORMAT_S16LE, TRUE, 2, RATE,
      random_cuts (3, 2001));
  gchar *what = g_strdup_printf ("%s [%s]", label, backend);
  Expect e;
  Conv c;
  Out oa, ob;

  b->start = relative ? a->start + gst_util_uint64_scale_int (a->frames,
      GST_SECOND, RATE) + when : (GstClockTime) when;
  conv_start (&c, make_conv_latency (backend, (guint64) 7));
  g_object_set (c.conv, "kernel", kernel, NULL);
  conv_set_caps (&c, &a->info);
  out_init_for (&oa, a);
  out_init_for (&ob, b);
  push_range (&c, a, 0, a->cuts->len, 0, what);
  if (kind == BREAK_FLUSH) {
    /* what the first stream made so far, and nothing more */
    out_take_from (&oa, &c, -1, what);
    push_flush (&c);
    conv_collect (&c);
    fail_unless (g_queue_is_empty (&c.out), "%s: %u buffers came out of "
        "the flush", what, g_queue_get_length (&c.out));
  }
  for (guint k = 0; k < b->cuts->len; k++) {
    GstBuffer *buf = stream_buffer (b, k, 0);
    if (k == 0 && kind == BREAK_DISCONT)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    push_buffer (&c, buf, what);
  }
  push_eos (&c);

  expect_init (&e, a, fir, 7, 1.0, 1.0);
  if (kind == BREAK_FLUSH)
    e.frames = a->frames - 7;
  out_take_from (&oa, &c, e.frames, what);
  check_output (what, &e, &oa);
  expect_clear (&e);
  out_take_from (&ob, &c, -1, what);
  check_simple (what, b, fir, 7, 1.0, 1.0, &ob);

  conv_stop (&c, what);
  out_clear (&oa);
  out_clear (&ob);
  stream_free (a);
  stream_free (b);
  fir_free (fir);
  g_free (kernel);
  g_free (what);
}

GST_START_TEST (test_discont)
{
  const gchar *backend = backends[__i__];

  run_two_streams (backend, BREAK_DISCONT, TRUE, 0,
      "DISCONT flag, timestamps continuous");
  run_two_streams (backend, BREAK_DISCONT, FALSE, 7 * GST_SECOND,
      "DISCONT flag and a jump");
  run_two_streams (backend, BREAK_JUMP, FALSE, 7 * GST_SECOND,
      "a jump forward");
  run_two_streams (backend, BREAK_JUMP, FALSE, 0, "a jump back to zero");
  run_two_streams (backend, BREAK_JUMP, TRUE, 6 * GST_MSECOND, "6 ms late");
  run_two_streams (backend, BREAK_JUMP, TRUE, -6 * GST_MSECOND,
      "6 ms early");
  run_two_streams (backend, BREAK_FLUSH, FALSE, 3 * GST_SECOND, "a flush");
}

GST_END_TEST;

/* Timestamps off the frame count by 5 ms or less are jitter, not a
 * discontinuity: the stream goes on, stamped from its frame count. */
GST_START_TEST (test_jitter)
{
  const gchar *backend = backends[__i__];
  static const gint64 offsets_ms[] = { 3, -4, 5 };
  gchar *kernel = random_kernel (25, 1);
  Fir *fir = fir_parse (kernel);

  for (guint k = 0; k < G_N_ELEMENTS (offsets_ms); k++) {
    Stream *s = stream_new (GST_AUDIO_FORMAT_F32LE, FALSE, 1, RATE,
        random_cuts (4, 3000));
    gchar *what = g_strdup_printf ("buffer 2 stamped %+" G_GINT64_FORMAT
        " ms off [%s]", offsets_ms[k], backend);
    Conv c;
    Out o;

    conv_start (&c, make_conv (backend));
    g_object_set (c.conv, "kernel", kernel, NULL);
    conv_set_caps (&c, &s->info);
    out_init_for (&o, s);
    for (guint b = 0; b < s->cuts->len; b++) {
      GstBuffer *buf = stream_buffer (s, b, 0);
      if (b == 2)
        GST_BUFFER_PTS (buf) += offsets_ms[k] * GST_MSECOND;
      push_buffer (&c, buf, what);
    }
    push_eos (&c);
    out_take_from (&o, &c, -1, what);
    check_simple (what, s, fir, 0, 1.0, 1.0, &o);
    conv_stop (&c, what);
    out_clear (&o);
    stream_free (s);
    g_free (what);
  }
  fir_free (fir);
  g_free (kernel);
}

GST_END_TEST;

/* ---- 8. paths: direct and FFT ------------------------------------------------- */

/* Runs `s` through a mask of `taps` with `algorithm`, checks the output,
 * and returns the path the element logged ("direct", "FFT", or NULL when
 * it logged none or ran on the GPU). */
static const gchar *
run_algorithm (const gchar * backend, const gchar * algorithm, Stream * s,
    const gchar * kernel, Fir * fir, gint latency)
{
  gchar *what = g_strdup_printf ("algorithm=%s, %d taps x %d masks [%s]",
      algorithm, fir->taps, fir->masks, backend);
  GstElement *e = make_conv (backend);
  const gchar *path = NULL;
  gboolean logging;
  gchar *log;
  Out o;

  gst_util_set_object_arg (G_OBJECT (e), "algorithm", algorithm);
  g_object_set (e, "kernel", kernel, "latency", (guint64) latency, NULL);
  logging = log_start ();
  run_stream (e, s, &o, what);
  log = logging ? log_stop () : NULL;
  check_simple (what, s, fir, latency, 1.0, 1.0, &o);
  if (log && strstr (log, "on the CPU"))
    path = strstr (log, "FFT path") ? "FFT"
        : strstr (log, "direct path") ? "direct" : "none";
  out_clear (&o);
  g_free (log);
  g_free (what);
  return path;
}

GST_START_TEST (test_algorithms)
{
  const gchar *backend = backends[__i__];
  static const gint long_cuts[] = { 2999, 1, 9001, 777, 1501 };
  GArray *cuts = g_array_new (FALSE, FALSE, sizeof (gint));
  gchar *long_kernel = random_kernel (5000, 1);
  gchar *mid_kernel = random_kernel (100, 2);
  Fir *long_fir = fir_parse (long_kernel), *mid_fir = fir_parse (mid_kernel);
  Stream *s;
  const gchar *path;

  /* a buffer longer than the element's chunk too */
  g_array_append_vals (cuts, long_cuts, G_N_ELEMENTS (long_cuts));
  s = stream_new (GST_AUDIO_FORMAT_F32LE, FALSE, 2, RATE, cuts);

  path = run_algorithm (backend, "fft", s, long_kernel, long_fir, 0);
  fail_unless (!path || !strcmp (path, "FFT"), "algorithm=fft with 5000 "
      "taps on the CPU took the %s path", path);
  path = run_algorithm (backend, "auto", s, long_kernel, long_fir, 2500);
  fail_unless (!path || !strcmp (path, "FFT"), "algorithm=auto with 5000 "
      "taps on the CPU took the %s path", path);
  path = run_algorithm (backend, "fft", s, mid_kernel, mid_fir, 30);
  fail_unless (!path || !strcmp (path, "FFT"), "algorithm=fft with 100 "
      "taps on the CPU took the %s path", path);
  for (guint a = 0; a < G_N_ELEMENTS (direct_algorithms); a++) {
    path = run_algorithm (backend, direct_algorithms[a], s, mid_kernel,
        mid_fir, a * 20);
    fail_unless (!path || !strcmp (path, "direct"), "algorithm=%s with 100 "
        "taps on the CPU took the %s path", direct_algorithms[a], path);
  }
  /* a direct variant asked for a long mask: still direct on the CPU */
  path = run_algorithm (backend, "basic", s, long_kernel, long_fir, 0);
  fail_unless (!path || !strcmp (path, "direct"), "algorithm=basic with "
      "5000 taps on the CPU took the %s path", path);

  stream_free (s);
  fir_free (long_fir);
  fir_free (mid_fir);
  g_free (long_kernel);
  g_free (mid_kernel);
}

GST_END_TEST;

/* ---- 9. bad input ------------------------------------------------------------- */

static const struct
{
  const gchar *kernel;
  const gchar *why;             /* what the message must say */
} bad_kernels[] = {
  {"nan", "not a finite number"},
  {"inf", "not a finite number"},
  {"1 -inf 2", "not a finite number"},
  {"1 1e999 1", "not a finite number"},
  {"0.5 NAN", "not a finite number"},
  {";", "empty"},
  {" ; ;", "empty"},
  {"1;;1", "row 2 is empty"},
  {"1 x 1", "\"x\" is not a number"},
  {"0.5 2a", "not a number"},
  {"1 2; 3", "same length"},
};

/* Too many taps: one more than the longest mask. */
static gchar *
too_long_kernel (void)
{
  GString *s = g_string_sized_new (2 * (MAX_TAPS + 1));

  for (gint k = 0; k <= MAX_TAPS; k++)
    g_string_append (s, k ? " 0" : "1");
  return g_string_free (s, FALSE);
}

GST_START_TEST (test_bad_kernel_before_start)
{
  const gchar *backend = backends[__i__];
  gchar *huge = too_long_kernel ();
  GstAudioInfo info;
  Conv c;

  for (guint k = 0; k < G_N_ELEMENTS (bad_kernels); k++) {
    GstElement *e = make_conv (backend);
    gchar *what = g_strdup_printf ("kernel \"%s\" before start [%s]",
        bad_kernels[k].kernel, backend);

    g_object_set (e, "kernel", bad_kernels[k].kernel, NULL);
    expect_start_failure (e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        bad_kernels[k].why, "kernel", what);
    /* a good kernel set afterwards clears the error */
    g_object_set (e, "kernel", "1 2 1", NULL);
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
        GST_STATE_CHANGE_SUCCESS);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_object_unref (e);
    g_free (what);
  }

  /* too many taps: the count is checked with the stream */
  audio_info (&info, GST_AUDIO_FORMAT_F32LE, FALSE, 1, RATE);
  conv_start (&c, make_conv (backend));
  g_object_set (c.conv, "kernel", huge, NULL);
  expect_not_negotiated (&c, &info, "2097152", "kernel of 2^21 + 1 taps");
  conv_stop (&c, "kernel of 2^21 + 1 taps");
  g_free (huge);
}

GST_END_TEST;

/* Refused while playing: a warning naming the property, the property keeps
 * its value, the stream goes on with the old mask. */
GST_START_TEST (test_bad_kernel_while_playing)
{
  const gchar *backend = backends[__i__];
  gchar *kernel = random_kernel (13, 1), *huge = too_long_kernel ();
  Fir *fir = fir_parse (kernel);
  Stream *s = stream_new (GST_AUDIO_FORMAT_F32LE, FALSE, 2, RATE,
      random_cuts (G_N_ELEMENTS (bad_kernels) + 3, 999));
  Conv c;
  Out o;

  conv_start (&c, make_conv (backend));
  g_object_set (c.conv, "kernel", kernel, NULL);
  conv_set_caps (&c, &s->info);
  out_init_for (&o, s);
  push_range (&c, s, 0, 1, 0, "before the bad kernels");
  for (guint k = 0; k <= G_N_ELEMENTS (bad_kernels); k++) {
    const gchar *bad = k < G_N_ELEMENTS (bad_kernels) ? bad_kernels[k].kernel
        : huge;
    const gchar *why = k < G_N_ELEMENTS (bad_kernels) ? bad_kernels[k].why
        : "2097152";
    gchar *what = g_strdup_printf ("kernel \"%.20s\" while playing [%s]",
        bad, backend);
    gchar *text, *now;

    g_object_set (c.conv, "kernel", bad, NULL);
    text = expect_message (c.bus, GST_MESSAGE_WARNING, GST_LIBRARY_ERROR,
        GST_LIBRARY_ERROR_SETTINGS, why, what);
    fail_unless (strstr (text, "kernel") != NULL, "%s: the warning \"%s\" "
        "does not name the property", what, text);
    g_free (text);
    expect_no_message (c.bus, what);
    g_object_get (c.conv, "kernel", &now, NULL);
    fail_unless (g_strcmp0 (now, kernel) == 0, "%s: kernel reads back "
        "\"%.40s\", not the current mask", what, now);
    g_free (now);
    push_range (&c, s, k + 1, k + 2, 0, what);
    g_free (what);
  }
  push_range (&c, s, G_N_ELEMENTS (bad_kernels) + 2, s->cuts->len, 0,
      "after the bad kernels");
  push_eos (&c);
  out_take_from (&o, &c, -1, "bad kernels while playing");
  check_simple ("bad kernels while playing: the old mask throughout", s, fir,
      0, 1.0, 1.0, &o);
  conv_stop (&c, "bad kernels while playing");
  out_clear (&o);
  stream_free (s);
  fir_free (fir);
  g_free (kernel);
  g_free (huge);
}

GST_END_TEST;

GST_START_TEST (test_unsupported_caps)
{
  const gchar *backend = backends[__i__];
  static const gchar *const refused[] = {
    "audio/x-raw,format=U8,rate=48000,channels=1,layout=interleaved",
    "audio/x-raw,format=S24LE,rate=48000,channels=2,layout=interleaved",
    "audio/x-raw,format=F32BE,rate=48000,channels=1,layout=interleaved",
    "audio/x-raw,format=S16BE,rate=48000,channels=1,layout=interleaved",
    "video/x-raw,format=GRAY8,width=16,height=16,framerate=0/1",
  };

  for (guint k = 0; k < G_N_ELEMENTS (refused); k++) {
    GstCaps *caps = gst_caps_from_string (refused[k]);
    GstSegment segment;
    GstFlowReturn ret;
    GstPad *sink;
    Conv c;

    conv_start (&c, make_conv (backend));
    sink = gst_element_get_static_pad (c.conv, "sink");
    fail_if (gst_pad_query_accept_caps (sink, caps), "%s accepted",
        refused[k]);
    gst_object_unref (sink);
    gst_harness_push_event (c.h, gst_event_new_caps (caps));
    gst_caps_unref (caps);
    gst_segment_init (&segment, GST_FORMAT_TIME);
    gst_harness_push_event (c.h, gst_event_new_segment (&segment));
    ret = gst_harness_push (c.h, gst_buffer_new_allocate (NULL, 512, NULL));
    fail_unless (ret == GST_FLOW_NOT_NEGOTIATED, "%s: push returned %s",
        refused[k], gst_flow_get_name (ret));
    drain_messages (c.bus, GST_MESSAGE_ANY);
    conv_stop (&c, refused[k]);
  }
}

GST_END_TEST;

/* ---- 10. the peer: audiofirfilter --------------------------------------------- */

/* Runs `s` through audiofirfilter with `fir`'s taps (time domain for short
 * kernels, FFT overlap-save for long ones) and returns every output sample
 * of channel-interleaved F32/F64 in out[c][frame]; *frames says how many. */
static gdouble **
run_audiofirfilter (const Stream * s, const Fir * fir, gint * frames)
{
  GstHarness *h = gst_harness_new ("audiofirfilter");
  gint channels = GST_AUDIO_INFO_CHANNELS (&s->info);
  GstAudioFormat format = GST_AUDIO_INFO_FORMAT (&s->info);
  gdouble **y = g_new0 (gdouble *, channels);
  GValueArray *va;
  GValue v = G_VALUE_INIT;
  GstBuffer *buf;
  gint n = 0, alloc = s->frames + fir->taps;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  va = g_value_array_new (fir->taps);
  g_value_init (&v, G_TYPE_DOUBLE);
  for (gint k = 0; k < fir->taps; k++) {
    g_value_set_double (&v, fir->h[k]);
    g_value_array_append (va, &v);
  }
  g_object_set (h->element, "kernel", va, NULL);
  g_value_array_free (va);
  G_GNUC_END_IGNORE_DEPRECATIONS;

  for (gint c = 0; c < channels; c++)
    y[c] = g_new0 (gdouble, alloc);
  gst_harness_set_src_caps (h, gst_audio_info_to_caps (&s->info));
  for (guint k = 0; k < s->cuts->len; k++)
    fail_unless (gst_harness_push (h, stream_buffer (s, k, 0)) ==
        GST_FLOW_OK, "audiofirfilter refused buffer %u", k);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((buf = gst_harness_try_pull (h))) {
    GstMapInfo map;
    gint m;

    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    m = (gint) (map.size / GST_AUDIO_INFO_BPF (&s->info));
    for (gint k = 0; k < m && n + k < alloc; k++)
      for (gint c = 0; c < channels; c++)
        y[c][n + k] = get_sample (format, map.data, (gsize) k * channels + c);
    n = MIN (alloc, n + m);
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
  }
  gst_harness_teardown (h);
  *frames = n;
  return y;
}

/* The same taps through cudaconv1d and audiofirfilter, both against the
 * reference. audiofirfilter gets the end of a stream wrong in its FFT mode
 * (its last block); there the comparison stops, and everywhere before it
 * the two must agree within the float slack of each. */
GST_START_TEST (test_same_as_audiofirfilter)
{
  const gchar *backend = backends[__i__];
  static const struct
  {
    GstAudioFormat format;
    gint taps, channels;
  } cases[] = {
    {GST_AUDIO_FORMAT_F32LE, 9, 2},     /* audiofirfilter: time domain */
    {GST_AUDIO_FORMAT_F64LE, 31, 1},
    {GST_AUDIO_FORMAT_F32LE, 300, 2},   /* FFT overlap-save */
    {GST_AUDIO_FORMAT_F64LE, 2000, 3},
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    Stream *s = stream_new (cases[k].format, FALSE, cases[k].channels, RATE,
        random_cuts (6, 4001));
    gchar *kernel = random_kernel (cases[k].taps, 1);
    Fir *fir = fir_parse (kernel);
    GstElement *e = make_conv (backend);
    gchar *what = g_strdup_printf ("%d taps, %s, %d channels, against "
        "audiofirfilter [%s]", cases[k].taps,
        gst_audio_format_to_string (cases[k].format), cases[k].channels,
        backend);
    gint peer_frames, agree = s->frames, compared = 0;
    gdouble **peer;
    Expect ex;
    Out o;

    g_object_set (e, "kernel", kernel, NULL);
    run_stream (e, s, &o, what);
    check_simple (what, s, fir, 0, 1.0, 1.0, &o);
    peer = run_audiofirfilter (s, fir, &peer_frames);
    fail_unless (peer_frames >= s->frames / 2, "%s: audiofirfilter put out "
        "%d of %d frames", what, peer_frames, s->frames);
    agree = MIN (agree, peer_frames);

    /* where audiofirfilter first leaves the reference */
    expect_init (&ex, s, fir, 0, 1.0, 1.0);
    for (gint c = 0; c < cases[k].channels; c++) {
      gdouble xmax = max_abs (s->x[c], s->frames);
      for (gint j = 0; j < agree; j++) {
        gdouble slack, want = expect_value (&ex, c, j, xmax, &slack);
        /* written so that a NaN from it counts as leaving too */
        if (!(fabs (peer[c][j] - want) <= 4 * slack))
          agree = j;
      }
    }
    /* its errors only at the end: within its last block */
    fail_unless (agree >= MIN (peer_frames, s->frames) - 8 * cases[k].taps
        - 8192 && agree > 0, "%s: audiofirfilter leaves the reference at frame %d of %d",
        what, agree, s->frames);
    for (gint c = 0; c < cases[k].channels; c++) {
      gdouble xmax = max_abs (s->x[c], s->frames);
      for (gint j = 0; j < agree; j++, compared++) {
        gdouble slack;
        expect_value (&ex, c, j, xmax, &slack);
        fail_unless (fabs (o.y[c][j] - peer[c][j]) <= 8 * slack, "%s: "
            "channel %d frame %d: cudaconv1d %.9g, audiofirfilter %.9g", what,
            c, j, o.y[c][j], peer[c][j]);
      }
    }
    g_print ("%s: the same on %d frames; audiofirfilter wrong on the last "
        "%d\n", what, agree, s->frames - agree);
    for (gint c = 0; c < cases[k].channels; c++)
      g_free (peer[c]);
    g_free (peer);
    expect_clear (&ex);
    out_clear (&o);
    fir_free (fir);
    g_free (kernel);
    g_free (what);
    stream_free (s);
  }
}

GST_END_TEST;

/* ---- 11. properties and the GPU's absence ------------------------------------ */

/* Defaults as documented, ranges as documented, values read back. */
GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("cudaconv1d", NULL);
  GObjectClass *klass = G_OBJECT_GET_CLASS (e);
  static const struct
  {
    const gchar *name;
    const gchar *value;         /* default, as gst_value_serialize says */
  } defaults[] = {
    {"kernel", NULL}, {"location", NULL}, {"preset", "none"},
    {"cutoff", "1000"}, {"bandwidth", "500"}, {"taps", "255"},
    {"window", "hamming"}, {"normalize", "false"}, {"gain", "1"},
    {"mix", "1"}, {"latency", "0"}, {"algorithm", "auto"},
    {"overlap", "false"}, {"backend", "auto"}, {"cuda-device-id", "-1"},
  };
  GParamSpec *spec;
  gchar *text;
  gdouble d;
  guint64 latency;
  gint taps;

  for (guint k = 0; k < G_N_ELEMENTS (defaults); k++) {
    GValue v = G_VALUE_INIT;

    spec = g_object_class_find_property (klass, defaults[k].name);
    fail_unless (spec != NULL, "no property %s", defaults[k].name);
    fail_unless (g_param_spec_get_blurb (spec)
        && strlen (g_param_spec_get_blurb (spec)) > 8,
        "property %s is not documented", defaults[k].name);
    g_value_init (&v, spec->value_type);
    g_object_get_property (G_OBJECT (e), defaults[k].name, &v);
    if (spec->value_type == G_TYPE_STRING) {
      fail_unless (g_strcmp0 (g_value_get_string (&v), defaults[k].value)
          == 0, "%s defaults to \"%s\"", defaults[k].name,
          g_value_get_string (&v));
    } else {
      text = gst_value_serialize (&v);
      fail_unless (g_strcmp0 (text, defaults[k].value) == 0,
          "%s defaults to %s, documented %s", defaults[k].name, text,
          defaults[k].value);
      g_free (text);
    }
    g_value_unset (&v);
  }

  /* documented bounds */
  spec = g_object_class_find_property (klass, "taps");
  fail_unless_equals_int (G_PARAM_SPEC_INT (spec)->maximum, MAX_TAPS - 1);
  spec = g_object_class_find_property (klass, "latency");
  fail_unless (G_PARAM_SPEC_UINT64 (spec)->maximum == MAX_TAPS - 1);
  spec = g_object_class_find_property (klass, "mix");
  fail_unless (G_PARAM_SPEC_DOUBLE (spec)->minimum == 0.0
      && G_PARAM_SPEC_DOUBLE (spec)->maximum == 1.0);
  fail_unless (g_object_class_find_property (klass, "gain")->flags
      & GST_PARAM_CONTROLLABLE, "gain is not controllable");
  fail_unless (g_object_class_find_property (klass, "mix")->flags
      & GST_PARAM_CONTROLLABLE, "mix is not controllable");

  /* values read back */
  g_object_set (e, "kernel", "0.5 0.25", "gain", 0.5, "mix", 0.25, "taps",
      31, "latency", (guint64) 1, NULL);
  g_object_get (e, "kernel", &text, "gain", &d, "taps", &taps, "latency",
      &latency, NULL);
  fail_unless (g_strcmp0 (text, "0.5 0.25") == 0, "kernel reads back %s",
      text);
  fail_unless (d == 0.5 && taps == 31 && latency == 1);
  g_free (text);
  g_object_get (e, "mix", &d, NULL);
  fail_unless (d == 0.25);
  gst_object_unref (e);
}

GST_END_TEST;

/* `overlap`: the same convolution on either backend (the CPU's ignores
 * it); fixed while playing, as `latency` is, with a warning saying so. */
GST_START_TEST (test_overlap)
{
  const gchar *backend = backends[__i__];
  gchar *kernel = random_kernel (700, 2), *text;
  Fir *fir = fir_parse (kernel);
  Stream *s = stream_new (GST_AUDIO_FORMAT_F32LE, FALSE, 2, RATE,
      random_cuts (6, 3001));
  GstElement *e = make_conv (backend);
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "overlap");
  gboolean overlap;
  Out o;
  Conv c;

  fail_unless (pspec && (pspec->flags & GST_PARAM_MUTABLE_READY),
      "overlap is not flagged GST_PARAM_MUTABLE_READY");
  g_object_set (e, "kernel", kernel, "overlap", TRUE, NULL);
  run_stream (e, s, &o, "overlap=true");
  check_simple ("overlap=true", s, fir, 0, 1.0, 1.0, &o);
  out_clear (&o);

  conv_start (&c, make_conv (backend));
  g_object_set (c.conv, "kernel", kernel, NULL);
  conv_set_caps (&c, &s->info);
  push_range (&c, s, 0, 1, 0, "overlap set while playing");
  g_object_set (c.conv, "overlap", TRUE, NULL);
  g_object_get (c.conv, "overlap", &overlap, NULL);
  fail_if (overlap, "overlap set while playing took");
  text = expect_message (c.bus, GST_MESSAGE_WARNING, GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS, "overlap", "overlap set while playing");
  g_free (text);
  conv_stop (&c, "overlap set while playing");
  stream_free (s);
  fir_free (fir);
  g_free (kernel);
}

GST_END_TEST;

/* backend=cuda where no GPU is usable: the start fails, naming CUDA. */
GST_START_TEST (test_cuda_without_gpu)
{
  check_cuda_without_gpu ("cudaconv1d");
}

GST_END_TEST;

/* ---- the GPU suite: backend=cuda against backend=cpu and the reference --- */


/* One stream through backend=cpu and backend=cuda with the same kernel,
 * latency and algorithm; the GPU's output is checked against the reference
 * and against the CPU's. */
static void
compare_gpu (Stream * s, const gchar * kernel, gint latency,
    const gchar * algorithm, const gchar * what)
{
  Fir *fir = fir_parse (kernel);
  GstElement *cpu = make_conv ("cpu"), *gpu = make_conv ("cuda");
  Out cpu_out, gpu_out;
  Expect e;

  for (gint k = 0; k < 2; k++) {
    GstElement *el = k ? gpu : cpu;
    g_object_set (el, "kernel", kernel, "latency", (guint64) latency, NULL);
    gst_util_set_object_arg (G_OBJECT (el), "algorithm", algorithm);
  }
  run_stream (cpu, s, &cpu_out, what);
  run_stream (gpu, s, &gpu_out, what);
  expect_init (&e, s, fir, latency, 1.0, 1.0);
  check_output_twin (what, &e, &gpu_out, &cpu_out);
  expect_clear (&e);
  out_clear (&cpu_out);
  out_clear (&gpu_out);
  fir_free (fir);
}

/* Every format and layout, masks on both sides of the GPU's direct/FFT
 * crossover (1024 taps), shared and per-channel, odd buffer sizes. */
GST_START_TEST (test_gpu_matches_cpu)
{
  const FormatDesc *f = &formats[__i__];
  static const gint taps_list[] = { 1, 2, 31, 257, 1024, 1025, 3001 };
  guint k = 0;

  for (gint planar = 0; planar < 2; planar++)
    for (guint t = 0; t < G_N_ELEMENTS (taps_list); t++, k++) {
      gint taps = taps_list[t], channels = k % 3 ? 2 : 5;
      gint masks = k % 2 ? channels : 1;
      gint latency = g_rand_int_range (rng, 0, taps);
      Stream *s = stream_new (f->format, planar, channels, RATE,
          random_cuts (5, 4001));
      gchar *kernel = random_kernel (taps, masks);
      gchar *what = g_strdup_printf ("GPU vs CPU: %s %s, %d taps x %d "
          "masks, latency %d", f->name, layout_name (&s->info), taps, masks,
          latency);

      compare_gpu (s, kernel, latency, "auto", what);
      g_free (what);
      g_free (kernel);
      stream_free (s);
    }
}

GST_END_TEST;

/* Each direct variant and the FFT, at lengths where each is chosen and
 * where it is not; a direct variant asked for more taps than it takes
 * runs the FFT. */
GST_START_TEST (test_gpu_algorithms)
{
  static const gchar *const algorithms[] = { "basic", "tiled", "cached",
    "fast", "fft"
  };
  static const gint taps_list[] = { 3, 64, 1000, 9000 };

  for (guint a = 0; a < G_N_ELEMENTS (algorithms); a++)
    for (guint t = 0; t < G_N_ELEMENTS (taps_list); t++) {
      gint taps = taps_list[t];
      Stream *s = stream_new (GST_AUDIO_FORMAT_F32LE, a % 2, 3, RATE,
          random_cuts (4, 6001));
      gchar *kernel = random_kernel (taps, t % 2 ? 3 : 1);
      gchar *what = g_strdup_printf ("GPU algorithm=%s, %d taps",
          algorithms[a], taps);

      compare_gpu (s, kernel, g_rand_int_range (rng, 0, taps),
          algorithms[a], what);
      g_free (what);
      g_free (kernel);
      stream_free (s);
    }
}

GST_END_TEST;

/* A reverb-length response, with buffers of the size audio sources push
 * and one far longer than the element's chunk. */
GST_START_TEST (test_gpu_long_response)
{
  static const gint cuts[] = { 1024, 1024, 1, 20000, 1024, 4410, 1023 };
  GArray *c = g_array_new (FALSE, FALSE, sizeof (gint));
  Stream *s;
  gchar *kernel;

  g_array_append_vals (c, cuts, G_N_ELEMENTS (cuts));
  s = stream_new (GST_AUDIO_FORMAT_F32LE, FALSE, 2, RATE, c);
  kernel = random_kernel (40000, 2);
  compare_gpu (s, kernel, 0, "auto", "GPU, 40000 taps x 2 masks");
  compare_gpu (s, kernel, 123, "fft", "GPU, 40000 taps x 2 masks, "
      "latency 123");
  g_free (kernel);
  stream_free (s);
}

GST_END_TEST;

/* Many instances in one process, each streaming from its own thread (16
 * stereo stems, each through its own reverb-length mask): every output
 * must be its own stream's convolution. */
#define INSTANCES 16

typedef struct
{
  GstElement *e;
  Stream *s;
  Out o;
  gchar *what;
} Instance;

static gpointer
run_instance (gpointer data)
{
  Instance *in = data;
  run_stream (in->e, in->s, &in->o, in->what);
  return NULL;
}

GST_START_TEST (test_gpu_many_instances)
{
  Instance in[INSTANCES];
  GThread *threads[INSTANCES];
  Fir *firs[INSTANCES];

  /* random choices on this thread: the generator is not shared */
  for (gint k = 0; k < INSTANCES; k++) {
    gchar *kernel = random_kernel (k % 2 ? 3001 : 700, 2);
    in[k].s = stream_new (GST_AUDIO_FORMAT_F32LE, FALSE, 2, RATE,
        random_cuts (12, 2048));
    in[k].e = make_conv ("cuda");
    in[k].what = g_strdup_printf ("instance %d of %d", k + 1, INSTANCES);
    g_object_set (in[k].e, "kernel", kernel, NULL);
    firs[k] = fir_parse (kernel);
    g_free (kernel);
  }
  for (gint k = 0; k < INSTANCES; k++)
    threads[k] = g_thread_new ("instance", run_instance, &in[k]);
  for (gint k = 0; k < INSTANCES; k++)
    g_thread_join (threads[k]);
  for (gint k = 0; k < INSTANCES; k++) {
    check_simple (in[k].what, in[k].s, firs[k], 0, 1.0, 1.0, &in[k].o);
    out_clear (&in[k].o);
    fir_free (firs[k]);
    stream_free (in[k].s);
    g_free (in[k].what);
  }
}

GST_END_TEST;

/* ---- overlap ------------------------------------------------------------------- */

/* Input from recycled memory, as sources push it: the element page-locks
 * memory it sees again, so from then on the steady state runs the one
 * launch a buffer, which `overlap` leaves running while it returns.
 * Takes `src`. */
static GstBuffer *
pooled (GstBufferPool * pool, GstBuffer * src)
{
  GstBuffer *buf = NULL;
  GstMapInfo map;

  fail_unless (gst_buffer_pool_acquire_buffer (pool, &buf, NULL)
      == GST_FLOW_OK);
  gst_buffer_set_size (buf, gst_buffer_get_size (src));
  fail_unless (gst_buffer_map (src, &map, GST_MAP_READ));
  gst_buffer_fill (buf, 0, map.data, map.size);
  gst_buffer_unmap (src, &map);
  gst_buffer_copy_into (buf, src, GST_BUFFER_COPY_METADATA, 0, -1);
  gst_buffer_unref (src);
  return buf;
}

/* What one run put out. */
typedef struct
{
  GPtrArray *out;
  guint before_flush;           /* outputs that came out before the flush */
  GstClockTime latency;         /* reported after the first buffers */
  gboolean latency_message;
} OverlapRun;

#define OVERLAP_BUFFERS 40
#define OVERLAP_MASK_CHANGE 12
#define OVERLAP_DISCONT 22
#define OVERLAP_FLUSH 31

static void
take_outputs (Conv * c, OverlapRun * r)
{
  GstBuffer *buf;

  while ((buf = gst_harness_try_pull (c->h)))
    g_ptr_array_add (r->out, buf);
}

/* `s` through one element, `overlap` on or off: a mask change, a DISCONT,
 * a flush and an EOS on the way. Before the flush, `settle` outputs are
 * waited for (0: none; the flush then drops what is on its way). */
static void
overlap_run (const Stream * s, const gchar * kernel, const gchar * kernel2,
    gboolean overlap, guint settle, OverlapRun * r, const gchar * what)
{
  gsize bytes = 0;
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstMessage *msg;
  GstBuffer *buf;
  Conv c;

  for (guint k = 0; k < s->cuts->len; k++)
    bytes = MAX (bytes, (gsize) g_array_index (s->cuts, gint, k)
        * GST_AUDIO_INFO_BPF (&s->info));
  gst_buffer_pool_config_set_params (config, NULL, (guint) bytes, 4, 0);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  r->out = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_buffer_unref);

  conv_start (&c, make_conv ("cuda"));
  g_object_set (c.conv, "kernel", kernel, "overlap", overlap, NULL);
  gst_harness_set_upstream_latency (c.h, 0);
  conv_set_caps (&c, &s->info);
  for (guint k = 0; k < s->cuts->len; k++) {
    /* ready before the next buffer: it takes over there in every run */
    if (k == OVERLAP_MASK_CHANGE) {
      g_object_set (c.conv, "kernel", kernel2, NULL);
      wait_prepared (c.conv, what);
    }
    if (k == OVERLAP_FLUSH) {
      while (r->out->len < settle && (buf = gst_harness_pull (c.h)))
        g_ptr_array_add (r->out, buf);
      push_flush (&c);
      take_outputs (&c, r);
      r->before_flush = r->out->len;
    }
    buf = pooled (pool, stream_buffer (s, k, 0));
    if (k == OVERLAP_DISCONT)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    fail_unless_equals_int (gst_harness_push (c.h, buf), GST_FLOW_OK);
    take_outputs (&c, r);
    if (k == 2)
      r->latency = gst_harness_query_latency (c.h);
  }
  /* the EOS comes out after every output */
  fail_unless (gst_harness_push_event (c.h, gst_event_new_eos ()));
  take_outputs (&c, r);
  msg = gst_bus_pop_filtered (c.bus, GST_MESSAGE_LATENCY);
  r->latency_message = msg != NULL;
  if (msg)
    gst_message_unref (msg);
  conv_stop (&c, what);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

static void
same_buffer (GstBuffer * a, GstBuffer * b, guint k, const gchar * what)
{
  GstMapInfo ma, mb;

  fail_unless (GST_BUFFER_PTS (a) == GST_BUFFER_PTS (b)
      && GST_BUFFER_DURATION (a) == GST_BUFFER_DURATION (b)
      && GST_BUFFER_OFFSET (a) == GST_BUFFER_OFFSET (b),
      "%s: output %u: PTS %" GST_TIME_FORMAT " against %" GST_TIME_FORMAT,
      what, k, GST_TIME_ARGS (GST_BUFFER_PTS (a)),
      GST_TIME_ARGS (GST_BUFFER_PTS (b)));
  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  fail_unless (ma.size == mb.size && memcmp (ma.data, mb.data, ma.size) == 0,
      "%s: output %u (%" G_GSIZE_FORMAT " bytes) differs from the one "
      "without overlap", what, k, ma.size);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
}

/* `overlap` changes which thread pushes the outputs, never what they are:
 * the same buffers as without it, through a mask change, a DISCONT, a
 * flush and the EOS, and no latency added. A flush with outputs on their
 * way drops some of them, never anything after it: what came out before
 * is a start of what came out without overlap, what comes after the same.
 * Reverb-length masks in 1024-frame buffers (the one launch a buffer),
 * 4096-frame ones (conversions apart), and a layout that converts in
 * steps of its own. */
GST_START_TEST (test_gpu_overlap)
{
  static const struct
  {
    GstAudioFormat format;
    gboolean planar;
    gint channels, frames;
  } kinds[] = {
    {GST_AUDIO_FORMAT_F32LE, FALSE, 8, 1024},
    {GST_AUDIO_FORMAT_F32LE, FALSE, 2, 1024},
    {GST_AUDIO_FORMAT_F32LE, FALSE, 8, 4096},
    {GST_AUDIO_FORMAT_S16LE, TRUE, 2, 1024},
  };

  for (guint t = 0; t < G_N_ELEMENTS (kinds); t++) {
    GArray *cuts = g_array_new (FALSE, FALSE, sizeof (gint));
    gchar *kernel = random_kernel (16383, 1), *kernel2 = random_kernel (4000,
        kinds[t].channels);
    gchar *what = g_strdup_printf ("overlap, %d ch %s %s, %d frames",
        kinds[t].channels, gst_audio_format_to_string (kinds[t].format),
        kinds[t].planar ? "planar" : "interleaved", kinds[t].frames);
    OverlapRun plain, settled, in_flight;
    guint a, after;
    Stream *s;

    for (gint k = 0; k < OVERLAP_BUFFERS; k++)
      g_array_append_val (cuts, kinds[t].frames);
    s = stream_new (kinds[t].format, kinds[t].planar, kinds[t].channels, RATE,
        cuts);
    overlap_run (s, kernel, kernel2, FALSE, 0, &plain, what);
    overlap_run (s, kernel, kernel2, TRUE, plain.before_flush, &settled,
        what);
    overlap_run (s, kernel, kernel2, TRUE, 0, &in_flight, what);

    fail_unless (settled.latency == plain.latency && !settled.latency_message,
        "%s: latency %" GST_TIME_FORMAT ", %" GST_TIME_FORMAT " without "
        "overlap", what, GST_TIME_ARGS (settled.latency),
        GST_TIME_ARGS (plain.latency));
    fail_unless (settled.out->len == plain.out->len, "%s: %u outputs, %u "
        "without overlap", what, settled.out->len, plain.out->len);
    for (guint k = 0; k < plain.out->len; k++)
      same_buffer (g_ptr_array_index (settled.out, k),
          g_ptr_array_index (plain.out, k), k, what);

    a = plain.before_flush;
    after = plain.out->len - a;
    fail_unless (in_flight.before_flush <= a && in_flight.out->len
        == in_flight.before_flush + after, "%s, flushed in flight: %u "
        "outputs before the flush and %u after, without overlap %u and %u",
        what, in_flight.before_flush, in_flight.out->len
        - in_flight.before_flush, a, after);
    for (guint k = 0; k < in_flight.before_flush; k++)
      same_buffer (g_ptr_array_index (in_flight.out, k),
          g_ptr_array_index (plain.out, k), k, what);
    for (guint k = 0; k < after; k++)
      same_buffer (g_ptr_array_index (in_flight.out, in_flight.before_flush
              + k), g_ptr_array_index (plain.out, a + k), a + k, what);
    g_ptr_array_unref (plain.out);
    g_ptr_array_unref (settled.out);
    g_ptr_array_unref (in_flight.out);
    stream_free (s);
    g_free (kernel);
    g_free (kernel2);
    g_free (what);
  }
}

GST_END_TEST;

/* The filtered signal with `overlap`, against the exact convolution, in
 * buffers of odd sizes (no held work, only held buffers). */
GST_START_TEST (test_gpu_overlap_exact)
{
  gchar *kernel = random_kernel (3001, 2);
  Fir *fir = fir_parse (kernel);
  Stream *s = stream_new (GST_AUDIO_FORMAT_F32LE, FALSE, 2, RATE,
      random_cuts (9, 3001));
  GstElement *e = make_conv ("cuda");
  Out o;

  g_object_set (e, "kernel", kernel, "overlap", TRUE, NULL);
  run_stream (e, s, &o, "overlap, odd buffers");
  check_simple ("overlap, odd buffers", s, fir, 0, 1.0, 1.0, &o);
  out_clear (&o);
  stream_free (s);
  fir_free (fir);
  g_free (kernel);
}

GST_END_TEST;

GST_START_TEST (test_gpu_bad_device)
{
  GstElement *e = make_conv ("cuda");

  g_object_set (e, "cuda-device-id", G_MAXINT16, "kernel", "1", NULL);
  expect_start_failure (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "cuda-device-id", NULL, "cuda-device-id beyond the devices");
  gst_object_unref (e);
}

GST_END_TEST;

/* Precision follows the stream: an 8-channel stream in 1024-frame buffers
 * through a 2048-tap mask per channel (the FFT path on the GPU, direct
 * head and partitions) must come out within 1e-9 of the exact convolution,
 * relative to the output's peak, for F64 and S32 (computed in double), and
 * within 1e-6 for F32. */
static void
check_precision (const gchar * backend)
{
  static const GstAudioFormat list[] = { GST_AUDIO_FORMAT_F32LE,
    GST_AUDIO_FORMAT_F64LE, GST_AUDIO_FORMAT_S32LE
  };
  static const gdouble limit[] = { 1e-6, 1e-9, 1e-9 };

  for (guint f = 0; f < G_N_ELEMENTS (list); f++) {
    GArray *cuts = g_array_new (FALSE, FALSE, sizeof (gint));
    gint n = 1024, channels = 8;
    for (gint k = 0; k < 12; k++)
      g_array_append_val (cuts, n);
    Stream *s = stream_new (list[f], FALSE, channels, RATE, cuts);
    gchar *random = random_kernel (2048, channels), *kernel;
    Fir *fir = fir_parse (random);
    GstElement *e = make_conv (backend);
    gdouble unit = format_scale (list[f]) > 0 ? format_scale (list[f]) : 1.0;
    gdouble worst = 0.0;
    Out o;
    Expect x;

    /* quieter, so that integers do not saturate */
    for (gint k = 0; k < fir->taps * fir->masks; k++)
      fir->h[k] *= 0.3;
    kernel = fir_to_kernel (fir);
    g_object_set (e, "kernel", kernel, NULL);
    run_stream (e, s, &o, "precision");
    expect_init (&x, s, fir, 0, 1.0, 1.0);
    fail_unless_equals_int (o.frames, x.frames);
    for (gint c = 0; c < channels; c++) {
      gdouble xmax = max_abs (s->x[c], s->frames), peak = 0.0, err = 0.0;
      for (gint j = 0; j < x.frames; j++) {
        gdouble slack, v = expect_value (&x, c, j, xmax, &slack);
        peak = MAX (peak, fabs (v));
        err = MAX (err, fabs (o.y[c][j] / unit - v));
      }
      fail_unless (peak > 0.1 && peak < 1.0, "peak %g", peak);
      worst = MAX (worst, err / peak);
    }
    g_print ("precision [%s]: %s, 8 ch, 2048 taps per channel: %.3g of the "
        "peak off the exact convolution\n", backend,
        gst_audio_format_to_string (list[f]), worst);
    fail_unless (worst <= limit[f], "%s [%s]: %.3g of the peak off the exact "
        "convolution, more than %g", gst_audio_format_to_string (list[f]),
        backend, worst, limit[f]);
    expect_clear (&x);
    out_clear (&o);
    fir_free (fir);
    g_free (random);
    g_free (kernel);
    stream_free (s);
  }
}

GST_START_TEST (test_precision)
{
  check_precision (backends[__i__]);
}

GST_END_TEST;

GST_START_TEST (test_gpu_precision)
{
  check_precision ("cuda");
}

GST_END_TEST;

/* ---- suites -------------------------------------------------------------- */

static Suite *
cudaconv1d_suite (void)
{
  Suite *s = suite_create ("cudaconv1d");
  TCase *tc = tcase_create ("general");
  gint n = G_N_ELEMENTS (backends);

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_cuda_without_gpu);
  tcase_add_loop_test (tc, test_formats, 0, n);
  tcase_add_loop_test (tc, test_padded_planes, 0, n);
  tcase_add_loop_test (tc, test_many_channels, 0, n);
  tcase_add_loop_test (tc, test_kernel_masks, 0, n);
  tcase_add_loop_test (tc, test_kernel_wins, 0, n);
  tcase_add_loop_test (tc, test_presets, 0, n);
  tcase_add_loop_test (tc, test_preset_errors, 0, n);
  tcase_add_loop_test (tc, test_normalize, 0, n);
  tcase_add_loop_test (tc, test_location_formats, 0, n);
  tcase_add_loop_test (tc, test_location_channels, 0, n);
  tcase_add_loop_test (tc, test_location_errors, 0, n);
  tcase_add_loop_test (tc, test_location_errors_while_playing, 0, n);
  tcase_add_loop_test (tc, test_location_resample, 0, n);
  tcase_add_loop_test (tc, test_latency, 0, n);
  tcase_add_loop_test (tc, test_overlap, 0, n);
  tcase_add_loop_test (tc, test_gain_mix, 0, n);
  tcase_add_loop_test (tc, test_mask_change, 0, n);
  tcase_add_loop_test (tc, test_location_change, 0, n);
  tcase_add_loop_test (tc, test_discont, 0, n);
  tcase_add_loop_test (tc, test_jitter, 0, n);
  tcase_add_loop_test (tc, test_algorithms, 0, n);
  tcase_add_loop_test (tc, test_bad_kernel_before_start, 0, n);
  tcase_add_loop_test (tc, test_bad_kernel_while_playing, 0, n);
  tcase_add_loop_test (tc, test_unsupported_caps, 0, n);
  tcase_add_loop_test (tc, test_same_as_audiofirfilter, 0, n);
  tcase_add_loop_test (tc, test_precision, 0, n);
  return s;
}

static Suite *
cudaconv1d_gpu_suite (void)
{
  Suite *s = suite_create ("cudaconv1d-gpu");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_gpu_matches_cpu, 0, G_N_ELEMENTS (formats));
  tcase_add_test (tc, test_gpu_algorithms);
  tcase_add_test (tc, test_gpu_long_response);
  tcase_add_test (tc, test_gpu_precision);
  tcase_add_test (tc, test_gpu_many_instances);
  tcase_add_test (tc, test_gpu_overlap);
  tcase_add_test (tc, test_gpu_overlap_exact);
  tcase_add_test (tc, test_gpu_bad_device);
  return s;
}

int
main (int argc, char **argv)
{
  gboolean gpu;
  const gchar *name;
  gint ret;
  Suite *s;

  if (!element_test_init ("cudaconv1d", &argc, &argv, &gpu))
    return 1;
  name = gpu ? "cudaconv1d-gpu" : "cudaconv1d";
  tmp_dir = g_dir_make_tmp ("cudaconv1d-XXXXXX", NULL);
  if (!tmp_dir) {
    g_print ("%s: cannot make a temporary folder\n", name);
    return 1;
  }
  if (gpu) {
    gchar *why = cuda_unusable_reason ("cudaconv1d");
    if (why) {
      g_print ("SKIP %s: %s\n", name, why);
      g_free (why);
      remove_tmp_dir ();
      return 77;
    }
    s = cudaconv1d_gpu_suite ();
  } else {
    s = cudaconv1d_suite ();
  }
  ret = gst_check_run_suite (s, name, __FILE__);
  g_print ("%s: %" G_GUINT64_FORMAT " buffers, %" G_GUINT64_FORMAT
      " samples checked (seed %u)\n", name, buffers_checked, samples_checked,
      seed);
  free_bad_files ();
  remove_tmp_dir ();
  g_rand_free (rng);
  return ret;
}
