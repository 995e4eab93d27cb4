/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libFuzzer target: caps and property combinations of each element on the
 * CPU backend. The input's bytes pick an element, a format from its sink
 * template (system memory), a small frame size or an audio layout, values
 * for the element's own properties (within their ranges, with the extremes
 * and NaN among them, mask strings from the input), then frames filled with
 * the input's bytes, and a property changed between two frames. Whatever
 * the element does (filter, refuse the caps, post an error), it must not
 * crash, trip a sanitizer or log a CRITICAL. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstcudaconv1d.h"
#include "gstcudaconv2d.h"
#include "gstcudaprefixsum.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* The input, read a byte or a string at a time; zeros once used up. */
typedef struct
{
  const uint8_t *data;
  size_t size, at;
} Bytes;

static guint
take (Bytes * b)
{
  return b->at < b->size ? b->data[b->at++] : 0;
}

static guint32
take32 (Bytes * b)
{
  return take (b) | take (b) << 8 | take (b) << 16 | (guint32) take (b) << 24;
}

static gchar *
take_string (Bytes * b)
{
  guint n = take (b) % 48;
  gchar *s = g_malloc0 (n + 1);

  for (guint i = 0; i < n; i++)
    s[i] = (gchar) (take (b) ? b->data[b->at - 1] : ' ');
  return s;
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  return GST_ELEMENT_REGISTER (cudaconv1d, plugin)
      && GST_ELEMENT_REGISTER (cudaconv2d, plugin)
      && GST_ELEMENT_REGISTER (cudaprefixsum, plugin);
}

static void
init_once (void)
{
  static gboolean done;

  if (done)
    return;
  done = TRUE;
  /* only the elements registered here: no scan of the system's plugins
   * (seconds under the sanitizers) */
  g_setenv ("GST_PLUGIN_SYSTEM_PATH_1_0", "", TRUE);
  g_setenv ("GST_PLUGIN_PATH_1_0", "", TRUE);
  g_setenv ("GST_REGISTRY_UPDATE", "no", TRUE);
  gst_init (NULL, NULL);
  /* a CRITICAL is a bug the fuzzer must report: make it abort */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL);
  gst_plugin_register_static (GST_VERSION_MAJOR, GST_VERSION_MINOR,
      "cudafilters", "the elements under test", plugin_init, "1",
      "LGPL", "fuzz", "fuzz", "fuzz");
}

/* A value for `pspec`, in its range, biased to the edges. */
static gboolean
pick_value (GParamSpec * pspec, Bytes * b, GValue * v)
{
  guint pick = take (b);
  GType t = G_PARAM_SPEC_VALUE_TYPE (pspec);

  g_value_init (v, t);
  if (G_IS_PARAM_SPEC_ENUM (pspec)) {
    GEnumClass *e = G_PARAM_SPEC_ENUM (pspec)->enum_class;
    g_value_set_enum (v, e->values[pick % e->n_values].value);
  } else if (G_IS_PARAM_SPEC_BOOLEAN (pspec)) {
    g_value_set_boolean (v, pick & 1);
  } else if (G_IS_PARAM_SPEC_INT (pspec)) {
    GParamSpecInt *p = G_PARAM_SPEC_INT (pspec);
    gint64 span = (gint64) p->maximum - p->minimum + 1;
    g_value_set_int (v, pick % 4 == 0 ? p->minimum : pick % 4 == 1
        ? p->maximum : (gint) (p->minimum + take32 (b) % MIN (span, 64)));
  } else if (G_IS_PARAM_SPEC_UINT64 (pspec)) {
    GParamSpecUInt64 *p = G_PARAM_SPEC_UINT64 (pspec);
    g_value_set_uint64 (v, pick % 4 == 0 ? p->minimum : pick % 4 == 1
        ? p->maximum : MIN (p->maximum, p->minimum + take32 (b)));
  } else if (G_IS_PARAM_SPEC_DOUBLE (pspec)) {
    GParamSpecDouble *p = G_PARAM_SPEC_DOUBLE (pspec);
    gdouble choices[] = { p->minimum, p->maximum, 0.0, 1.0, NAN,
      p->minimum + (p->maximum - p->minimum) * (take32 (b) / 4294967296.0),
      CLAMP ((gint) take (b) - 128, p->minimum, p->maximum),
      CLAMP (take (b) / 16.0, p->minimum, p->maximum)
    };
    g_value_set_double (v, choices[pick % G_N_ELEMENTS (choices)]);
  } else if (G_IS_PARAM_SPEC_STRING (pspec)) {
    static const gchar *const masks[] = { NULL, "", "1", "1 2 1",
      "1 2 1; 2 4 2; 1 2 1", "0 -1 0; -1 5 -1; 0 -1 0", "1; 2", "nan",
      "1e308 1e308 1e308", "0.5 0.5; 0.25 0.75", "1,,2", ";"
    };
    gchar *s = pick % 2 ? take_string (b)
        : g_strdup (masks[take (b) % G_N_ELEMENTS (masks)]);
    g_value_take_string (v, s);
  } else {
    g_value_unset (v);
    return FALSE;
  }
  return TRUE;
}

/* Sets some of the element's own properties (not backend, device, file). */
static void
set_properties (GstElement * e, Bytes * b, guint rounds)
{
  guint n = 0;
  GParamSpec **specs =
      g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);

  for (guint r = 0; r < rounds; r++) {
    GParamSpec *p = specs[take (b) % n];
    GValue v = G_VALUE_INIT;

    if (!(p->flags & G_PARAM_WRITABLE) || p->owner_type == GST_TYPE_OBJECT
        || p->owner_type == GST_TYPE_ELEMENT
        || p->owner_type == GST_TYPE_BASE_TRANSFORM
        || !strcmp (p->name, "backend") || !strcmp (p->name, "location")
        || !strcmp (p->name, "cuda-device-id"))
      continue;
    if (pick_value (p, b, &v)) {
      /* cudaconv1d's presets go to 2^21 taps: on the CPU, at the small
       * buffers here (FFT blocks of 64 frames), seconds a buffer
       * (documented), not a finding. 65535 taps on 2 channels took 11 s
       * to drain at EOS under the sanitizers, past the fuzzer's 10 s an
       * input; the work grows as the taps squared, so 8191 take 64 times
       * less. */
      if (!strcmp (p->name, "taps"))
        g_value_set_int (&v, MIN (g_value_get_int (&v), 8191));
      g_object_set_property (G_OBJECT (e), p->name, &v);
      g_value_unset (&v);
    }
  }
  g_free (specs);
}

/* Fixed caps from the element's sink template, system memory. */
static GstCaps *
pick_caps (GstElement * e, gboolean audio, Bytes * b)
{
  GstCaps *templ = gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD
      (e));
  GstCaps *caps = gst_caps_new_empty ();
  guint n = gst_caps_get_size (templ), tries = 0;

  for (guint i = take (b); tries < n; i++, tries++) {
    GstStructure *s = gst_caps_get_structure (templ, i % n);
    GstCapsFeatures *f = gst_caps_get_features (templ, i % n);
    if (gst_structure_has_name (s, audio ? "audio/x-raw" : "video/x-raw")
        && (!f || gst_caps_features_is_equal (f,
                GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))) {
      gst_caps_append_structure (caps, gst_structure_copy (s));
      break;
    }
  }
  gst_caps_unref (templ);
  if (gst_caps_is_empty (caps))
    return caps;
  {
    GstStructure *s = gst_caps_get_structure (caps, 0);
    const GValue *formats = gst_structure_get_value (s, "format");
    if (formats && GST_VALUE_HOLDS_LIST (formats)) {
      const GValue *one = gst_value_list_get_value (formats,
          take (b) % gst_value_list_get_size (formats));
      gst_structure_set_value (s, "format", one);
    }
    if (audio) {
      static const gint rates[] = { 8000, 44100, 48000, 96000, 384000 };
      gst_structure_set (s, "rate", G_TYPE_INT, rates[take (b) % 5],
          "channels", G_TYPE_INT, 1 + take (b) % 8, "layout", G_TYPE_STRING,
          take (b) % 2 ? "interleaved" : "non-interleaved", NULL);
    } else {
      gst_structure_set (s, "width", G_TYPE_INT, 1 + take (b) % 40,
          "height", G_TYPE_INT, 1 + take (b) % 40, "framerate",
          GST_TYPE_FRACTION, 30, 1, NULL);
    }
  }
  return gst_caps_fixate (caps);
}

static GstBuffer *
make_buffer (gsize bytes, Bytes * b, guint64 index)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, MAX (bytes, 1), NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = b->size ? b->data[(b->at + i) % b->size] : 0;
  gst_buffer_unmap (buf, &map);
  gst_buffer_set_size (buf, bytes);
  GST_BUFFER_PTS (buf) = index * GST_SECOND / 30;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static const struct
  {
    const gchar *name;
    gboolean audio;
  } targets[] = {
    {"cudaconv2d", FALSE}, {"cudaprefixsum", FALSE},
    {"cudaprefixsum", TRUE}, {"cudaconv1d", TRUE},
  };
  Bytes b = { data, size, 0 };
  guint t = take (&b) % G_N_ELEMENTS (targets);
  GstHarness *h;
  GstCaps *caps;
  gsize bytes = 0;

  init_once ();
  h = gst_harness_new (targets[t].name);
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
  set_properties (h->element, &b, take (&b) % 8);
  caps = pick_caps (h->element, targets[t].audio, &b);
  if (!gst_caps_is_empty (caps)) {
    if (targets[t].audio) {
      GstAudioInfo info;
      if (gst_audio_info_from_caps (&info, caps))
        bytes = (gsize) (take (&b) % 300) * GST_AUDIO_INFO_BPF (&info);
    } else {
      GstVideoInfo info;
      if (gst_video_info_from_caps (&info, caps))
        bytes = GST_VIDEO_INFO_SIZE (&info);
    }
    gst_harness_set_caps (h, gst_caps_ref (caps), gst_caps_ref (caps));
    /* sometimes a truncated frame */
    if (take (&b) % 8 == 0 && bytes > 1)
      bytes /= 2;
    for (guint64 i = 0; i < 1 + take (&b) % 3; i++) {
      GstBuffer *out;
      gst_harness_push (h, make_buffer (bytes, &b, i));
      while ((out = gst_harness_try_pull (h)))
        gst_buffer_unref (out);
      set_properties (h->element, &b, take (&b) % 2);
    }
    gst_harness_push_event (h, gst_event_new_eos ());
  }
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  return 0;
}
