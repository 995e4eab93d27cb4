/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests of cudaconv2d, through GstHarness.
 *
 *   test_cudaconv2d          every behaviour, with backend=cpu and
 *                            backend=auto (the GPU where one is usable)
 *   test_cudaconv2d --gpu    backend=cuda against backend=cpu and the
 *                            reference; exits 77 when no GPU is usable
 *
 * Output frames are checked sample by sample against a double-precision
 * reference written here from the element's documentation: the mask applied
 * as written (not flipped), sums divided by the divisor, offset added,
 * rounded to nearest and saturated; alpha and padding channels and
 * unfiltered planes copied. Inputs are random (CF_TEST_SEED replays a run),
 * output buffers are poisoned before the element writes them.
 *
 * The plugin is found as GStreamer finds plugins (GST_PLUGIN_PATH_1_0 and
 * friends), so the same binary runs from the build tree and from a packed
 * runtime. CUDA does not survive fork(): the tests run in one process.
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "element_check.h"
#include "ref_border.h"

#define MAX_SIZE 31
#define MAX_TAPS (MAX_SIZE * MAX_SIZE)

/* The element's documented defaults, which the reference assumes where a
 * test leaves a property alone (test_properties checks them). */
#define DEFAULT_PRESET "gaussian"
#define DEFAULT_SIGMA 1.2

/* A general (rank > 1) 5x3 mask with a non-zero sum (12). */
#define K_GENERAL "1 -2 3 0 1; 2 5 -1 2 0; 0 1 2 -3 1"
/* Another one, 3x5, with decimals, sum 1. */
#define K_TALL "0.5 -0.25 0; 0.1 0.2 0.3; -0.4 1.1 0.15; 0 0.05 -0.5; " \
    "0.25 0 -0.25"
/* A 7x5 mask of decimals, sum 4.7. */
#define K_7X5 "0.1 -0.3 0.5 0.2 0 0.4 -0.1; 0.3 0.2 -0.6 0.8 0.1 0 0.2; " \
    "-0.2 0.4 0.9 1.5 0.7 -0.5 0.1; 0 0.6 0.3 -0.4 0.2 0.1 0.3; " \
    "0.2 -0.1 0 0.4 -0.3 0.5 0.1"

static const gchar *const formats[] = {
  "RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR", "xRGB", "xBGR", "RGB",
  "BGR", "GRAY8", "GRAY16_LE", "I420", "YV12", "NV12", "Y444", "Y42B",
};

static const gchar *const borders[] = { "clamp", "mirror", "wrap",
  "constant"
};

static const gchar *const algorithms[] = { "auto", "basic", "tiled",
  "cached", "fast", "separable", "wide"
};

/* Backends of the default run, one per iteration of the loop tests. */
static const gchar *const backends[] = { "cpu", "auto" };

static guint64 frames_checked, samples_checked;

/* ---- plane layouts, written from the formats' definitions ------------- */

typedef struct
{
  gint width, height;           /* pixels */
  gint channels;                /* interleaved samples a pixel */
  gint bytes;                   /* a sample: 1 or 2 (little endian) */
  gint keep;                    /* channel copied unchanged, or -1 */
} PlaneDesc;

static void
plane_set (PlaneDesc * d, gint w, gint h, gint channels, gint bytes,
    gint keep)
{
  d->width = w;
  d->height = h;
  d->channels = channels;
  d->bytes = bytes;
  d->keep = keep;
}

/* Fills planes[] for a w x h frame; returns the number of planes.
 * Subsampled chroma rounds up (a 37 wide I420 frame has 19 wide chroma). */
static guint
describe_planes (GstVideoFormat format, gint w, gint h, PlaneDesc * planes)
{
  gint cw = (w + 1) / 2, ch = (h + 1) / 2;

  switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
      plane_set (&planes[0], w, h, 4, 1, 3);
      return 1;
    case GST_VIDEO_FORMAT_ARGB:
    case GST_VIDEO_FORMAT_ABGR:
    case GST_VIDEO_FORMAT_xRGB:
    case GST_VIDEO_FORMAT_xBGR:
      plane_set (&planes[0], w, h, 4, 1, 0);
      return 1;
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
      plane_set (&planes[0], w, h, 3, 1, -1);
      return 1;
    case GST_VIDEO_FORMAT_GRAY8:
      plane_set (&planes[0], w, h, 1, 1, -1);
      return 1;
    case GST_VIDEO_FORMAT_GRAY16_LE:
      plane_set (&planes[0], w, h, 1, 2, -1);
      return 1;
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_YV12:
      plane_set (&planes[0], w, h, 1, 1, -1);
      plane_set (&planes[1], cw, ch, 1, 1, -1);
      plane_set (&planes[2], cw, ch, 1, 1, -1);
      return 3;
    case GST_VIDEO_FORMAT_NV12:
      plane_set (&planes[0], w, h, 1, 1, -1);
      plane_set (&planes[1], cw, ch, 2, 1, -1);
      return 2;
    case GST_VIDEO_FORMAT_Y444:
      plane_set (&planes[0], w, h, 1, 1, -1);
      plane_set (&planes[1], w, h, 1, 1, -1);
      plane_set (&planes[2], w, h, 1, 1, -1);
      return 3;
    case GST_VIDEO_FORMAT_Y42B:
      plane_set (&planes[0], w, h, 1, 1, -1);
      plane_set (&planes[1], cw, h, 1, 1, -1);
      plane_set (&planes[2], cw, h, 1, 1, -1);
      return 3;
    default:
      fail ("no plane layout for %s", gst_video_format_to_string (format));
      return 0;
  }
}

static guint
get_sample (const GstVideoFrame * f, guint p, const PlaneDesc * d, gint x,
    gint y, gint c)
{
  const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f, p)
      + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (f, p);
  gint k = x * d->channels + c;

  /* byte by byte: rows of 16-bit samples may start at odd addresses */
  return d->bytes == 2 ? (guint) (row[2 * k] | row[2 * k + 1] << 8) : row[k];
}

/* ---- the reference ------------------------------------------------------ */

typedef struct
{
  gint w, h;
  gdouble taps[2][MAX_TAPS];    /* h rows of w; [1] only for magnitude */
  gboolean magnitude;           /* sqrt(a^2 + b^2) of the two sums */
  gdouble divisor;              /* resolved: never 0 */
  gdouble offset;
  gint border;                  /* REF_BORDER_* */
} Mask;

/* The exact value of output sample (x, y, c) of a plane, saturated, and how
 * far float arithmetic may move it: about 2^-23 per term on the sum of the
 * terms' magnitudes (taps are floats in the element, doubles here). */
static void
reference (const GstVideoFrame * in, guint p, const PlaneDesc * d,
    const Mask * m, gint x, gint y, gint c, gdouble * value,
    gdouble * slack)
{
  gdouble sum[2] = { 0.0, 0.0 }, size = 0.0, v;
  gdouble maxval = d->bytes == 2 ? 65535.0 : 255.0;
  gint n_masks = m->magnitude ? 2 : 1;

  for (gint j = 0; j < m->h; j++) {
    gint sy = ref_border_source (y + j - m->h / 2, d->height, m->border);
    for (gint i = 0; i < m->w; i++) {
      gint sx = ref_border_source (x + i - m->w / 2, d->width, m->border);
      gdouble s = sx < 0 || sy < 0 ? 0.0 : get_sample (in, p, d, sx, sy, c);
      for (gint k = 0; k < n_masks; k++) {
        sum[k] += m->taps[k][j * m->w + i] * s;
        size += fabs (m->taps[k][j * m->w + i] * s);
      }
    }
  }
  v = m->magnitude ? sqrt (sum[0] * sum[0] + sum[1] * sum[1]) : sum[0];
  v = v / m->divisor + m->offset;
  *value = CLAMP (v, 0.0, maxval);
  *slack = 1.2e-7 * (m->w * m->h + 16) * (size / fabs (m->divisor)
      + fabs (m->offset) + 1.0);
}

/* ---- masks from the properties, independently of the element ----------- */

/* The properties of one run. NULL and 0 leave the element's default. */
typedef struct
{
  const gchar *kernel;
  const gchar *mask_location;
  const gchar *preset;
  gint size;
  gdouble sigma;
  gdouble divisor;
  gdouble offset;
  const gchar *border;
  const gchar *planes;
  const gchar *algorithm;
  gdouble radius;
  gboolean roi;
  const gchar *roi_types;
  gint roi_grow, roi_feather;
  gdouble roi_sigma;
} Settings;

/* Parses a valid kernel string: rows split at ';', numbers at spaces, tabs
 * or commas, one empty last row allowed. */
static void
parse_kernel (const gchar * text, Mask * m)
{
  gchar **rows = g_strsplit (text, ";", -1);
  GArray *values = g_array_new (FALSE, FALSE, sizeof (gdouble));
  gint n_rows = 0, width = 0;

  for (guint r = 0; rows[r]; r++) {
    gchar **tokens = g_strsplit_set (rows[r], " ,\t", -1);
    gint n = 0;

    for (guint t = 0; tokens[t]; t++) {
      gchar *end;
      gdouble v;

      if (!tokens[t][0])
        continue;
      v = g_ascii_strtod (tokens[t], &end);
      fail_unless (*end == '\0', "test kernel \"%s\": bad number \"%s\"",
          text, tokens[t]);
      g_array_append_val (values, v);
      n++;
    }
    g_strfreev (tokens);
    if (n == 0)
      continue;
    fail_unless (n_rows == 0 || n == width, "test kernel \"%s\" is ragged",
        text);
    width = n;
    n_rows++;
  }
  g_strfreev (rows);
  fail_unless (n_rows > 0 && n_rows <= MAX_SIZE && width <= MAX_SIZE,
      "test kernel \"%s\" has no usable size", text);
  m->w = width;
  m->h = n_rows;
  memcpy (m->taps[0], values->data, sizeof (gdouble) * width * n_rows);
  g_array_free (values, TRUE);
}

static void
set_taps_3x3 (Mask * m, gint k, const gdouble taps[9])
{
  m->w = m->h = 3;
  memcpy (m->taps[k], taps, 9 * sizeof (gdouble));
}

/* Normalised Gaussian: the outer product of exp(-d^2 / (2 sigma^2)) with
 * itself, divided by the total. */
static void
set_gaussian (Mask * m, gint size, gdouble sigma)
{
  gdouble total = 0.0;

  m->w = m->h = size;
  for (gint j = 0; j < size; j++)
    for (gint i = 0; i < size; i++) {
      gdouble dx = i - size / 2, dy = j - size / 2;
      m->taps[0][j * size + i] = exp (-dx * dx / (2 * sigma * sigma))
          * exp (-dy * dy / (2 * sigma * sigma));
      total += m->taps[0][j * size + i];
    }
  for (gint k = 0; k < size * size; k++)
    m->taps[0][k] /= total;
}

static void
preset_mask (const gchar * preset, gint size, gdouble sigma, Mask * m)
{
  static const gdouble sharpen[9] = { 0, -1, 0, -1, 5, -1, 0, -1, 0 };
  static const gdouble sobel_x[9] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
  static const gdouble laplacian[9] = { 0, 1, 0, 1, -4, 1, 0, 1, 0 };
  static const gdouble emboss[9] = { -2, -1, 0, -1, 1, 1, 0, 1, 2 };
  gdouble sobel_y[9];

  /* sobel-y is the transpose of sobel-x */
  for (gint j = 0; j < 3; j++)
    for (gint i = 0; i < 3; i++)
      sobel_y[j * 3 + i] = sobel_x[i * 3 + j];

  if (!strcmp (preset, "none")) {
    m->w = m->h = 1;
    m->taps[0][0] = 1.0;
  } else if (!strcmp (preset, "box")) {
    m->w = m->h = size ? size : 3;
    for (gint k = 0; k < m->w * m->h; k++)
      m->taps[0][k] = 1.0;
  } else if (!strcmp (preset, "gaussian") || !strcmp (preset, "unsharp")) {
    /* the short masks' Gaussians: automatic sizes up to 31 */
    gint n = size ? size : MIN (2 * (gint) ceil (3 * sigma) + 1, MAX_SIZE);
    set_gaussian (m, n, sigma);
    if (!strcmp (preset, "unsharp")) {
      /* 2 x identity - Gaussian */
      for (gint k = 0; k < n * n; k++)
        m->taps[0][k] = (k == n * n / 2 ? 2.0 : 0.0) - m->taps[0][k];
    }
  } else if (!strcmp (preset, "sharpen")) {
    set_taps_3x3 (m, 0, sharpen);
  } else if (!strcmp (preset, "sobel-x")) {
    set_taps_3x3 (m, 0, sobel_x);
  } else if (!strcmp (preset, "sobel-y")) {
    set_taps_3x3 (m, 0, sobel_y);
  } else if (!strcmp (preset, "sobel")) {
    set_taps_3x3 (m, 0, sobel_x);
    set_taps_3x3 (m, 1, sobel_y);
    m->magnitude = TRUE;
  } else if (!strcmp (preset, "laplacian")) {
    set_taps_3x3 (m, 0, laplacian);
  } else if (!strcmp (preset, "emboss")) {
    set_taps_3x3 (m, 0, emboss);
  } else {
    fail ("the test knows no preset \"%s\"", preset);
  }
}

static gint
border_index (const gchar * nick)
{
  for (guint k = 0; k < G_N_ELEMENTS (borders); k++)
    if (!strcmp (nick, borders[k]))
      return k;
  fail ("the test knows no border \"%s\"", nick);
  return -1;
}

static void
mask_from_settings (const Settings * s, Mask * m)
{
  gdouble sum = 0.0, size = 0.0;

  memset (m, 0, sizeof (*m));
  if (s->kernel && s->kernel[0])
    parse_kernel (s->kernel, m);
  else
    preset_mask (s->preset ? s->preset : DEFAULT_PRESET, s->size,
        s->sigma ? s->sigma : DEFAULT_SIGMA, m);
  /* divisor 0: the sum of the mask, or 1 when the taps cancel out and for
   * the Sobel magnitude */
  for (gint k = 0; k < m->w * m->h; k++) {
    sum += m->taps[0][k];
    size += fabs (m->taps[0][k]);
  }
  if (s->divisor != 0.0)
    m->divisor = s->divisor;
  else if (m->magnitude || fabs (sum) <= 1e-9 * size)
    m->divisor = 1.0;
  else
    m->divisor = sum;
  m->offset = s->offset;
  m->border = border_index (s->border ? s->border : "clamp");
}

static gboolean
all_planes (const Settings * s)
{
  return s->planes && !strcmp (s->planes, "all");
}

/* ---- element and harness ------------------------------------------------- */

/* Sets a property from a string, as gst-launch does; the kernel directly,
 * so that NULL clears it. */
static void
set_prop (GstElement * e, const gchar * name, const gchar * value)
{
  if (!strcmp (name, "kernel"))
    g_object_set (e, "kernel", value, NULL);
  else
    gst_util_set_object_arg (G_OBJECT (e), name, value);
}

static void
set_prop_double (GstElement * e, const gchar * name, gdouble value)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
  set_prop (e, name, g_ascii_dtostr (buf, sizeof (buf), value));
}

static void
apply_settings (GstElement * e, const Settings * s)
{
  if (s->kernel)
    set_prop (e, "kernel", s->kernel);
  if (s->mask_location)
    g_object_set (e, "mask-location", s->mask_location, NULL);
  if (s->preset)
    set_prop (e, "preset", s->preset);
  if (s->size)
    g_object_set (e, "size", s->size, NULL);
  if (s->sigma)
    set_prop_double (e, "sigma", s->sigma);
  if (s->divisor)
    set_prop_double (e, "divisor", s->divisor);
  if (s->offset)
    set_prop_double (e, "offset", s->offset);
  if (s->border)
    set_prop (e, "border", s->border);
  if (s->planes)
    set_prop (e, "planes", s->planes);
  if (s->algorithm)
    set_prop (e, "algorithm", s->algorithm);
  if (s->radius)
    set_prop_double (e, "radius", s->radius);
  if (s->roi)
    g_object_set (e, "roi", TRUE, NULL);
  if (s->roi_types)
    g_object_set (e, "roi-types", s->roi_types, NULL);
  if (s->roi_grow)
    g_object_set (e, "roi-grow", s->roi_grow, NULL);
  if (s->roi_feather)
    g_object_set (e, "roi-feather", s->roi_feather, NULL);
  if (s->roi_sigma)
    set_prop_double (e, "roi-sigma", s->roi_sigma);
}

static GstElement *
make_conv (const gchar * backend, const Settings * s)
{
  GstElement *e = gst_element_factory_make ("cudaconv2d", NULL);

  fail_unless (e != NULL, "no cudaconv2d element: is GST_PLUGIN_PATH_1_0 "
      "set to the folder of libgstcudafilters.so?");
  set_prop (e, "backend", backend);
  if (s)
    apply_settings (e, s);
  return e;
}

/* The nick of the value of enum property `prop`. */
static const gchar *
enum_nick (GObject * obj, const gchar * prop)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (obj),
      prop);
  GEnumClass *klass = G_PARAM_SPEC_ENUM (pspec)->enum_class;
  GEnumValue *v;
  gint value;

  g_object_get (obj, prop, &value, NULL);
  v = g_enum_get_value (klass, value);
  fail_unless (v != NULL, "%s reads back %d, no value of its enum", prop,
      value);
  return v->value_nick;
}

/* An allocator for the element's output buffers: system memory filled
 * with POISON, so a sample the element does not write shows. The memory
 * it returns belongs to the system allocator, which also frees it. */
typedef struct
{
  GstAllocator parent;
} PoisonAllocator;

typedef struct
{
  GstAllocatorClass parent_class;
} PoisonAllocatorClass;

GType poison_allocator_get_type (void);
G_DEFINE_TYPE (PoisonAllocator, poison_allocator, GST_TYPE_ALLOCATOR);

static GstMemory *
poison_allocator_alloc (GstAllocator * allocator G_GNUC_UNUSED, gsize size,
    GstAllocationParams * params)
{
  GstMemory *mem = gst_allocator_alloc (NULL, size, params);
  GstMapInfo map;

  if (mem && gst_memory_map (mem, &map, GST_MAP_WRITE)) {
    memset (map.data, POISON, map.size);
    gst_memory_unmap (mem, &map);
  }
  return mem;
}

static void
poison_allocator_free (GstAllocator * allocator G_GNUC_UNUSED,
    GstMemory * mem)
{
  gst_allocator_free (mem->allocator, mem);
}

static void
poison_allocator_class_init (PoisonAllocatorClass * klass)
{
  klass->parent_class.alloc = poison_allocator_alloc;
  klass->parent_class.free = poison_allocator_free;
}

static void
poison_allocator_init (PoisonAllocator * self G_GNUC_UNUSED)
{
}

/* A started element in a harness, with a bus for its messages. */
typedef struct
{
  GstHarness *h;
  GstElement *conv;
  GstBus *bus;
} Conv;

static void
conv_start (Conv * c, const gchar * backend, const Settings * s)
{
  GstElement *e = make_conv (backend, s);

  c->bus = gst_bus_new ();
  gst_element_set_bus (e, c->bus);
  c->h = gst_harness_new_with_element (e, "sink", "src");
  c->conv = c->h->element;
  gst_object_unref (e);
  gst_harness_set_propose_allocator (c->h,
      g_object_new (poison_allocator_get_type (), NULL), NULL);
}

static void
conv_set_caps (Conv * c, const GstVideoInfo * info)
{
  gst_harness_set_src_caps (c->h, gst_video_info_to_caps (info));
}




static void
conv_stop (Conv * c, const gchar * what)
{
  expect_no_message (c->bus, what);
  gst_harness_teardown (c->h);
  /* queued messages (the CUDA context ones among them) hold the element,
   * which holds the bus: dropped, or the element and its context leak */
  gst_bus_set_flushing (c->bus, TRUE);
  gst_object_unref (c->bus);
  memset (c, 0, sizeof (*c));
}

/* Pushes `in` (which stays the caller's) and returns the output frame. */
static GstBuffer *
conv_push (Conv * c, GstBuffer * in, const gchar * what)
{
  GstFlowReturn ret = gst_harness_push (c->h, gst_buffer_ref (in));
  GstBuffer *out;

  fail_unless (ret == GST_FLOW_OK, "%s: pushing a frame returned %s", what,
      gst_flow_get_name (ret));
  out = gst_harness_try_pull (c->h);
  fail_unless (out != NULL, "%s: no output frame", what);
  return out;
}


/* ---- frames -------------------------------------------------------------- */

static void
video_info (GstVideoInfo * info, const gchar * format, gint w, gint h)
{
  GstVideoFormat f = gst_video_format_from_string (format);

  fail_unless (f != GST_VIDEO_FORMAT_UNKNOWN, "unknown format %s", format);
  fail_unless (gst_video_info_set_format (info, f, w, h));
}

/* A frame of random bytes (padding included). */
static GstBuffer *
random_frame (const GstVideoInfo * info)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (gsize k = 0; k < map.size; k += 4) {
    guint32 r = g_rand_int (rng);
    memcpy (map.data + k, &r, MIN (4, map.size - k));
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* Checks every sample of `outbuf`, the output of `inbuf` through `m`:
 * filtered channels within rounding of the reference (m NULL: within one
 * level of `twin` only), kept channels and unfiltered planes equal to the
 * input. With `twin` (the CPU backend's output of the same frame), filtered
 * 8-bit samples must also be at most one level from it. */
static void
check_frame (const gchar * what, const GstVideoInfo * info,
    GstBuffer * inbuf, GstBuffer * outbuf, const Mask * m, gboolean all,
    GstBuffer * twin)
{
  GstVideoFrame in, out, tw;
  PlaneDesc planes[GST_VIDEO_MAX_PLANES];
  guint n_planes, bad = 0, total = 0;
  gchar first[256] = "";

  fail_unless (m != NULL || twin != NULL);
  fail_unless (gst_video_frame_map (&in, info, inbuf, GST_MAP_READ),
      "%s: cannot map the input frame", what);
  fail_unless (gst_video_frame_map (&out, info, outbuf, GST_MAP_READ),
      "%s: cannot map the output frame", what);
  if (twin)
    fail_unless (gst_video_frame_map (&tw, info, twin, GST_MAP_READ),
        "%s: cannot map the CPU backend's frame", what);
  n_planes = describe_planes (GST_VIDEO_INFO_FORMAT (info),
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), planes);
  fail_unless_equals_int (n_planes, GST_VIDEO_FRAME_N_PLANES (&in));

  for (guint p = 0; p < n_planes; p++) {
    const PlaneDesc *d = &planes[p];
    gboolean filtered_plane = p == 0 || all;

    for (gint y = 0; y < d->height; y++)
      for (gint x = 0; x < d->width; x++)
        for (gint c = 0; c < d->channels; c++) {
          gboolean filtered = filtered_plane && c != d->keep;
          guint got = get_sample (&out, p, d, x, y, c);
          gdouble expect, slack = 0.0, tol = 0.0;
          gboolean ok = TRUE;

          if (!filtered) {
            expect = get_sample (&in, p, d, x, y, c);
          } else if (m) {
            reference (&in, p, d, m, x, y, c, &expect, &slack);
            tol = 0.5 + slack;
          } else {
            expect = get_sample (&tw, p, d, x, y, c);
            tol = 1.0;
          }
          ok = fabs (got - expect) <= tol;
          if (ok && twin && filtered && m) {
            /* 16-bit sums carry more float error than one level */
            gdouble twin_tol = d->bytes == 1 ? 1.0 : 1.0 + 2 * slack;
            guint t = get_sample (&tw, p, d, x, y, c);
            ok = fabs ((gdouble) got - t) <= twin_tol;
            if (!ok && !bad)
              g_snprintf (first, sizeof (first), "plane %u, x %d, y %d, "
                  "channel %d: got %u, the CPU backend %u (reference %.3f)",
                  p, x, y, c, got, t, expect);
          } else if (!ok && !bad) {
            g_snprintf (first, sizeof (first), "plane %u, x %d, y %d, "
                "channel %d: got %u, expected %.3f%s%.3g", p, x, y, c, got,
                expect, tol > 0 ? " +- " : "", tol);
          }
          bad += !ok;
          total++;
        }
  }
  if (twin)
    gst_video_frame_unmap (&tw);
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&in);
  frames_checked++;
  samples_checked += total;
  fail_unless (bad == 0, "%s: %u of %u samples wrong; first at %s", what,
      bad, total, first);
}

/* One random w x h frame of `format` through an element with settings `s`,
 * checked against the reference. */
static void
run_one_frame (const gchar * backend, const gchar * format, gint w, gint h,
    const Settings * s, const gchar * label)
{
  GstVideoInfo info;
  GstBuffer *in, *out;
  Conv c;
  Mask m;
  gchar *what = g_strdup_printf ("%s [%s, %s %dx%d]", label, backend,
      format, w, h);

  mask_from_settings (s, &m);
  video_info (&info, format, w, h);
  conv_start (&c, backend, s);
  conv_set_caps (&c, &info);
  in = random_frame (&info);
  out = conv_push (&c, in, what);
  check_frame (what, &info, in, out, &m, all_planes (s), NULL);
  release_output (out);
  gst_buffer_unref (in);
  conv_stop (&c, what);
  g_free (what);
}

/* ---- 1. formats ---------------------------------------------------------- */

GST_START_TEST (test_formats)
{
  const gchar *backend = backends[__i__];

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (gint all = 0; all < 2; all++) {
      Settings s = {.kernel = K_GENERAL,.offset = 5,
        .border = borders[(f + all) % G_N_ELEMENTS (borders)],
        .planes = all ? "all" : "luma"
      };
      gchar *label = g_strdup_printf ("format planes=%s border=%s",
          s.planes, s.border);
      run_one_frame (backend, formats[f], 37, 23, &s, label);
      g_free (label);
    }
  }
}

GST_END_TEST;

/* Input frames whose rows are padded further than GstVideoInfo would pad
 * them, described by a GstVideoMeta: the element must follow the meta. */
GST_START_TEST (test_padded_strides)
{
  const gchar *backend = backends[__i__];
  static const gchar *const padded[] = { "RGBA", "RGB", "GRAY16_LE",
    "I420", "NV12", "Y42B"
  };

  for (guint f = 0; f < G_N_ELEMENTS (padded); f++) {
    Settings s = {.kernel = K_TALL,.border = "mirror",.planes = "all" };
    GstVideoInfo info, padinfo;
    gsize offset[GST_VIDEO_MAX_PLANES], size = 0;
    gint stride[GST_VIDEO_MAX_PLANES];
    GstBuffer *in, *out;
    Conv c;
    Mask m;
    gchar *what = g_strdup_printf ("padded strides [%s, %s 35x21]",
        backend, padded[f]);

    mask_from_settings (&s, &m);
    video_info (&info, padded[f], 35, 21);
    padinfo = info;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      /* an odd gap before each plane, rows padded by 6 + 4 p bytes */
      gint rows = p == 0 || GST_VIDEO_INFO_FORMAT (&info)
          == GST_VIDEO_FORMAT_Y42B ? 21 : 11;
      stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (&info, p) + 6 + 4 * p;
      offset[p] = size + 3;
      size = offset[p] + (gsize) stride[p] * rows;
      padinfo.stride[p] = stride[p];
      padinfo.offset[p] = offset[p];
    }
    padinfo.size = size;
    in = random_frame (&padinfo);
    gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (&info), 35, 21, GST_VIDEO_INFO_N_PLANES (&info),
        offset, stride);

    conv_start (&c, backend, &s);
    conv_set_caps (&c, &info);
    out = conv_push (&c, in, what);
    check_frame (what, &info, in, out, &m, TRUE, NULL);
    release_output (out);
    gst_buffer_unref (in);
    conv_stop (&c, what);
    g_free (what);
  }
}

GST_END_TEST;

/* ---- 2. presets, divisor, offset, borders, mask shapes ------------------- */

GST_START_TEST (test_presets)
{
  const gchar *backend = backends[__i__];
  static const Settings presets[] = {
    {.preset = "none"},
    {.preset = "box"},
    {.preset = "box",.size = 1},
    {.preset = "box",.size = 5},
    {.preset = "gaussian"},
    {.preset = "gaussian",.sigma = 0.8},
    {.preset = "gaussian",.sigma = 1.7,.size = 5},
    {.preset = "gaussian",.sigma = 0.5,.size = 9},
    /* 2 ceil(3 sigma) + 1 = 37: the unsharp mask caps it at 31 (the
     * Gaussian runs it whole, test_long_masks) */
    {.preset = "unsharp",.sigma = 6.0},
    {.preset = "sharpen"},
    {.preset = "unsharp",.sigma = 1.0},
    {.preset = "unsharp",.sigma = 2.0,.size = 3},
    {.preset = "sobel-x"},
    {.preset = "sobel-x",.offset = 128},
    {.preset = "sobel-y",.offset = 128},
    {.preset = "sobel"},
    {.preset = "sobel",.divisor = 4},
    {.preset = "laplacian",.offset = 128},
    {.preset = "emboss"},
    {.preset = "emboss",.divisor = 2,.offset = 64,.border = "wrap"},
  };
  static const gchar *const preset_formats[] = { "GRAY8", "GRAY16_LE",
    "BGRx"
  };

  for (guint k = 0; k < G_N_ELEMENTS (presets); k++)
    for (guint f = 0; f < G_N_ELEMENTS (preset_formats); f++) {
      Settings s = presets[k];
      gchar *label;

      /* borders rotate where the case names none */
      if (!s.border)
        s.border = borders[(k + f) % G_N_ELEMENTS (borders)];
      label = g_strdup_printf ("preset=%s size=%d sigma=%g divisor=%g "
          "offset=%g border=%s", s.preset, s.size, s.sigma, s.divisor,
          s.offset, s.border);
      /* at least 31 x 31, for the capped Gaussian */
      run_one_frame (backend, preset_formats[f], 41, 33, &s, label);
      g_free (label);
    }
}

GST_END_TEST;

/* `kernel` wins over `preset`; cleared, the preset comes back. */
GST_START_TEST (test_kernel_wins)
{
  const gchar *backend = backends[__i__];
  Settings shift = {.kernel = "0 0 0; 0 0 1; 0 0 0",.preset = "sharpen" };
  Settings sharpen = {.preset = "sharpen" };
  GstVideoInfo info;
  GstBuffer *in, *out;
  Mask m;
  Conv c;

  run_one_frame (backend, "RGB", 37, 23, &shift, "kernel over preset");

  /* the same element, with the kernel cleared while playing */
  video_info (&info, "GRAY8", 37, 23);
  conv_start (&c, backend, &shift);
  conv_set_caps (&c, &info);
  in = random_frame (&info);
  out = conv_push (&c, in, "kernel set");
  mask_from_settings (&shift, &m);
  check_frame ("kernel set, preset sharpen", &info, in, out, &m, FALSE,
      NULL);
  release_output (out);
  fail_unless_equals_string (enum_nick (G_OBJECT (c.conv), "preset"),
      "sharpen");

  set_prop (c.conv, "kernel", NULL);
  out = conv_push (&c, in, "kernel cleared");
  mask_from_settings (&sharpen, &m);
  check_frame ("kernel cleared: the preset", &info, in, out, &m, FALSE,
      NULL);
  release_output (out);

  /* an empty string clears it too (documented: "used when kernel is
   * empty") */
  set_prop (c.conv, "kernel", "1 2 1");
  set_prop (c.conv, "kernel", "");
  out = conv_push (&c, in, "kernel empty");
  check_frame ("kernel \"\": the preset", &info, in, out, &m, FALSE, NULL);
  release_output (out);

  /* so does a string of blanks: nothing is written in it */
  set_prop (c.conv, "kernel", "1 2 1");
  set_prop (c.conv, "kernel", " \t ");
  out = conv_push (&c, in, "kernel blank");
  check_frame ("kernel of blanks: the preset", &info, in, out, &m, FALSE,
      NULL);
  release_output (out);
  gst_buffer_unref (in);
  conv_stop (&c, "kernel wins");
}

GST_END_TEST;

GST_START_TEST (test_divisor_offset)
{
  const gchar *backend = backends[__i__];
  static const Settings cases[] = {
    {.kernel = K_GENERAL,.divisor = 3.5,.offset = -20},
    /* a negative divisor turns the image over */
    {.kernel = K_GENERAL,.divisor = -4,.offset = 255},
    {.kernel = "1 -1 0",.offset = 128},   /* sum 0: divisor 1 */
    {.kernel = "1 -2 1; 2 -4 2; 1 -2 1",.offset = 100},
    {.kernel = "0.25 0.5 0.25"},
    {.kernel = "2"},            /* divisor 2: a copy */
    {.kernel = "2",.divisor = 1},       /* saturates */
    {.kernel = "3",.divisor = 7,.offset = 0.25},
    {.kernel = K_7X5,.divisor = 0.5,.offset = -300},
    /* small taps: the sum (4e-7) is small, not zero */
    {.kernel = "1e-7 2e-7 1e-7"},
    /* cancels out up to float rounding: divisor 1 */
    {.kernel = "0.1 0.2 -0.3",.offset = 128},
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    gchar *label = g_strdup_printf ("kernel \"%s\" divisor=%g offset=%g",
        cases[k].kernel, cases[k].divisor, cases[k].offset);
    run_one_frame (backend, k % 2 ? "GRAY16_LE" : "RGBx", 37, 23, &cases[k],
        label);
    g_free (label);
  }
}

GST_END_TEST;

/* Halfway values round to even: with kernel "1" and offset +-0.5 every
 * output sample is a tie, so this checks the rounding exactly. */
GST_START_TEST (test_rounding)
{
  const gchar *backend = backends[__i__];
  static const gdouble offsets[] = { 0.5, -0.5, 2.5 };
  GstVideoInfo info;

  video_info (&info, "GRAY8", 37, 23);
  for (guint k = 0; k < G_N_ELEMENTS (offsets); k++) {
    Settings s = {.kernel = "1",.offset = offsets[k] };
    GstVideoFrame in, out;
    GstBuffer *inbuf, *outbuf;
    Conv c;

    conv_start (&c, backend, &s);
    conv_set_caps (&c, &info);
    inbuf = random_frame (&info);
    outbuf = conv_push (&c, inbuf, "rounding");
    fail_unless (gst_video_frame_map (&in, &info, inbuf, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&out, &info, outbuf, GST_MAP_READ));
    for (gint y = 0; y < 23; y++)
      for (gint x = 0; x < 37; x++) {
        PlaneDesc d = { 37, 23, 1, 1, -1 };
        gdouble v = get_sample (&in, 0, &d, x, y, 0) + offsets[k];
        guint expect = (guint) CLAMP (nearbyint (v), 0, 255);
        guint got = get_sample (&out, 0, &d, x, y, 0);
        fail_unless (got == expect, "rounding [%s] offset %g: x %d, y %d: "
            "got %u, expected %u (%g to even)", backend, offsets[k], x, y,
            got, expect, v);
      }
    samples_checked += 37 * 23;
    frames_checked++;
    gst_video_frame_unmap (&out);
    gst_video_frame_unmap (&in);
    release_output (outbuf);
    gst_buffer_unref (inbuf);
    conv_stop (&c, "rounding");
  }
}

GST_END_TEST;

GST_START_TEST (test_borders)
{
  const gchar *backend = backends[__i__];
  static const struct
  {
    const gchar *format;
    gint w, h;
    const gchar *kernel;
  } cases[] = {
    {"GRAY8", 9, 7, K_7X5},
    {"GRAY8", 7, 5, K_7X5},     /* the mask as large as the frame */
    {"RGB", 11, 8, K_GENERAL},
    {"GRAY8", 3, 3, "1 2 3; 4 5 6; 7 8 9"},
    {"GRAY16_LE", 5, 3, K_GENERAL},
    {"GRAY8", 1, 9, "1; 2; 3; -1; 2"},  /* one column */
    {"GRAY8", 9, 1, "1 2 3 -1 2"},      /* one row */
    {"NV12", 13, 10, "1 2 1; 0 3 1; -1 2 1"},   /* 7x5 two-channel chroma */
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    for (guint b = 0; b < G_N_ELEMENTS (borders); b++) {
      Settings s = {.kernel = cases[k].kernel,.border = borders[b],
        .planes = "all"
      };
      gchar *label = g_strdup_printf ("border=%s kernel \"%s\"", borders[b],
          cases[k].kernel);
      run_one_frame (backend, cases[k].format, cases[k].w, cases[k].h, &s,
          label);
      g_free (label);
    }
}

GST_END_TEST;

GST_START_TEST (test_mask_shapes)
{
  const gchar *backend = backends[__i__];
  static const struct
  {
    const gchar *kernel;
    gint w, h;
  } shapes[] = {
    {"1 2 1", 3, 1},
    {"1;2;1", 1, 3},
    {"1 2 3 4 5 6 7", 7, 1},
    {"1;-2;3;4;5", 1, 5},
    {" 1, 2 ,1 ;\t2 4  2 ;1,2,1; ", 3, 3},
    {"  3  ", 1, 1},
    {"1e-1 2.5E0 -0.5", 3, 1},
    {"1,,2,,1", 3, 1},
    {K_TALL, 3, 5},
  };

  for (guint k = 0; k < G_N_ELEMENTS (shapes); k++) {
    Settings s = {.kernel = shapes[k].kernel,.border = "mirror" };
    Mask m;
    gchar *label = g_strdup_printf ("kernel \"%s\"", shapes[k].kernel);

    mask_from_settings (&s, &m);
    fail_unless (m.w == shapes[k].w && m.h == shapes[k].h,
        "the test reads \"%s\" as %dx%d", shapes[k].kernel, m.w, m.h);
    run_one_frame (backend, "GRAY8", 37, 23, &s, label);
    g_free (label);
  }
}

GST_END_TEST;

/* Random masks (odd sizes up to 9x9, taps in [-1, 1] written with three
 * decimals), divisors, offsets, borders, formats and frame sizes. */
GST_START_TEST (test_random_masks)
{
  const gchar *backend = backends[__i__];

  for (gint k = 0; k < 60; k++) {
    gint kw = 2 * g_rand_int_range (rng, 0, 5) + 1;
    gint kh = 2 * g_rand_int_range (rng, 0, 5) + 1;
    /* at least twice the mask, so that 4:2:0 chroma fits too */
    gint w = g_rand_int_range (rng, 2 * kw, 70);
    gint h = g_rand_int_range (rng, 2 * kh, 50);
    GString *kernel = g_string_new (NULL);
    Settings s = {.border = borders[g_rand_int_range (rng, 0, 4)],
      .planes = g_rand_boolean (rng) ? "all" : "luma",
      .divisor = g_rand_boolean (rng) ? 0.0 : g_rand_double_range (rng, -9,
          9),
      .offset = g_rand_double_range (rng, -50, 150)
    };
    gchar *label;

    for (gint j = 0; j < kh; j++) {
      for (gint i = 0; i < kw; i++) {
        gint v = g_rand_int_range (rng, -1000, 1001);
        g_string_append_printf (kernel, "%s%s%d.%03d", i ? " " : "",
            v < 0 ? "-" : "", ABS (v) / 1000, ABS (v) % 1000);
      }
      g_string_append (kernel, j + 1 < kh ? "; " : "");
    }
    s.kernel = kernel->str;
    label = g_strdup_printf ("random mask %d: kernel \"%s\" divisor=%g "
        "offset=%g border=%s planes=%s", k, s.kernel, s.divisor, s.offset,
        s.border, s.planes);
    run_one_frame (backend, formats[g_rand_int_range (rng, 0,
                G_N_ELEMENTS (formats))], w, h, &s, label);
    g_free (label);
    g_string_free (kernel, TRUE);
  }
}

GST_END_TEST;

/* Every algorithm value gives the same frames (the CPU backend ignores it;
 * on a GPU, separable falls back to auto for rank > 1 masks, with a
 * warning that this test lets pass). */
GST_START_TEST (test_algorithms)
{
  const gchar *backend = backends[__i__];
  static const Settings masks[] = {
    {.kernel = K_GENERAL},
    {.preset = "gaussian",.sigma = 1.5},
    {.preset = "sobel"},
  };
  GstVideoInfo info;

  video_info (&info, "RGBA", 45, 29);
  for (guint a = 0; a < G_N_ELEMENTS (algorithms); a++)
    for (guint k = 0; k < G_N_ELEMENTS (masks); k++) {
      Settings s = masks[k];
      GstBuffer *in, *out;
      Mask m;
      Conv c;
      gchar *what = g_strdup_printf ("algorithm=%s mask %u [%s]",
          algorithms[a], k, backend);

      s.algorithm = algorithms[a];
      mask_from_settings (&s, &m);
      conv_start (&c, backend, &s);
      conv_set_caps (&c, &info);
      in = random_frame (&info);
      out = conv_push (&c, in, what);
      check_frame (what, &info, in, out, &m, FALSE, NULL);
      release_output (out);
      gst_buffer_unref (in);
      drain_messages (c.bus, GST_MESSAGE_WARNING);
      conv_stop (&c, what);
      g_free (what);
    }
}

GST_END_TEST;

/* ---- 3. changes while playing ------------------------------------------- */

typedef struct
{
  const gchar *format;
  Settings before;
  const gchar *prop, *value;
  Settings after;
} ChangeCase;

static const ChangeCase changes[] = {
  {"GRAY8", {.kernel = "1 2 1; 2 4 2; 1 2 1"}, "kernel", K_GENERAL,
      {.kernel = K_GENERAL}},
  {"RGBA", {.preset = "gaussian",.sigma = 1.0}, "sigma", "0.6",
      {.preset = "gaussian",.sigma = 0.6}},
  {"GRAY8", {.kernel = K_7X5}, "border", "wrap",
      {.kernel = K_7X5,.border = "wrap"}},
  {"GRAY8", {.kernel = K_7X5,.border = "wrap"}, "border", "constant",
      {.kernel = K_7X5,.border = "constant"}},
  {"RGB", {.kernel = K_GENERAL}, "divisor", "30",
      {.kernel = K_GENERAL,.divisor = 30}},
  {"GRAY16_LE", {.preset = "sobel-x"}, "offset", "32768",
      {.preset = "sobel-x",.offset = 32768}},
  {"GRAY8", {.preset = "gaussian"}, "preset", "emboss",
      {.preset = "emboss"}},
  {"GRAY8", {.preset = "box"}, "size", "5", {.preset = "box",.size = 5}},
  {"I420", {.kernel = K_GENERAL}, "planes", "all",
      {.kernel = K_GENERAL,.planes = "all"}},
  {"NV12", {.kernel = K_GENERAL,.planes = "all"}, "planes", "luma",
      {.kernel = K_GENERAL,.planes = "luma"}},
  /* the kernel still wins: the same output */
  {"GRAY8", {.kernel = K_GENERAL,.preset = "sharpen"}, "preset", "emboss",
      {.kernel = K_GENERAL,.preset = "emboss"}},
};

GST_START_TEST (test_change_while_playing)
{
  const gchar *backend = backends[__i__];

  for (guint k = 0; k < G_N_ELEMENTS (changes); k++) {
    const ChangeCase *cc = &changes[k];
    GstVideoInfo info;
    GstBuffer *in1, *in2, *out1, *out2;
    Mask m1, m2;
    Conv c;
    gchar *what = g_strdup_printf ("%s=%s while playing [%s, %s]", cc->prop,
        cc->value, backend, cc->format);
    gchar *old_frame = g_strconcat (what, ", frame 1 (old mask)", NULL);
    gchar *new_frame = g_strconcat (what, ", frame 2 (new mask)", NULL);

    mask_from_settings (&cc->before, &m1);
    mask_from_settings (&cc->after, &m2);
    video_info (&info, cc->format, 37, 23);
    conv_start (&c, backend, &cc->before);
    conv_set_caps (&c, &info);
    in1 = random_frame (&info);
    in2 = random_frame (&info);
    /* both frames queued before the change would not show which mask
     * each used: push, change, push */
    out1 = conv_push (&c, in1, old_frame);
    set_prop (c.conv, cc->prop, cc->value);
    out2 = conv_push (&c, in2, new_frame);
    check_frame (old_frame, &info, in1, out1, &m1, all_planes (&cc->before),
        NULL);
    check_frame (new_frame, &info, in2, out2, &m2, all_planes (&cc->after),
        NULL);
    release_output (out1);
    release_output (out2);
    gst_buffer_unref (in1);
    gst_buffer_unref (in2);
    conv_stop (&c, what);
    g_free (old_frame);
    g_free (new_frame);
    g_free (what);
  }
}

GST_END_TEST;

/* New caps while playing: another size and format, device buffers (on a
 * GPU) growing and shrinking. */
GST_START_TEST (test_caps_change)
{
  const gchar *backend = backends[__i__];
  static const struct
  {
    const gchar *format;
    gint w, h;
  } steps[] = {
    {"RGBA", 37, 23}, {"GRAY8", 19, 31}, {"I420", 129, 67},
    {"GRAY16_LE", 7, 5}, {"NV12", 41, 21}, {"RGBA", 37, 23},
  };
  Settings s = {.kernel = K_GENERAL,.border = "mirror",.planes = "all" };
  Mask m;
  Conv c;

  mask_from_settings (&s, &m);
  conv_start (&c, backend, &s);
  for (guint k = 0; k < G_N_ELEMENTS (steps); k++) {
    GstVideoInfo info;
    GstBuffer *in, *out;
    gchar *what = g_strdup_printf ("caps change %u to %s %dx%d [%s]", k,
        steps[k].format, steps[k].w, steps[k].h, backend);

    video_info (&info, steps[k].format, steps[k].w, steps[k].h);
    conv_set_caps (&c, &info);
    in = random_frame (&info);
    out = conv_push (&c, in, what);
    check_frame (what, &info, in, out, &m, TRUE, NULL);
    release_output (out);
    gst_buffer_unref (in);
    g_free (what);
  }
  conv_stop (&c, "caps change");
}

GST_END_TEST;

/* Stopped and started again, the element uses the latest settings,
 * whether they were set while playing or while stopped. */
GST_START_TEST (test_restart)
{
  const gchar *backend = backends[__i__];
  Settings first = {.kernel = K_GENERAL };
  Settings second = {.kernel = K_TALL };
  Settings third = {.preset = "emboss",.border = "wrap" };
  GstVideoInfo info;
  GstBuffer *in, *out;
  Mask m;
  Conv c;

  video_info (&info, "GRAY8", 37, 23);
  in = random_frame (&info);
  conv_start (&c, backend, &first);
  conv_set_caps (&c, &info);
  release_output (conv_push (&c, in, "restart: first frame"));

  set_prop (c.conv, "kernel", second.kernel);
  fail_unless_equals_int (gst_element_set_state (c.conv, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (c.conv,
          GST_STATE_PLAYING), GST_STATE_CHANGE_SUCCESS);
  out = conv_push (&c, in, "restart: set while playing");
  mask_from_settings (&second, &m);
  check_frame ("restart: kernel set while playing, before the stop", &info,
      in, out, &m, FALSE, NULL);
  release_output (out);

  fail_unless_equals_int (gst_element_set_state (c.conv, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  set_prop (c.conv, "kernel", NULL);
  apply_settings (c.conv, &third);
  fail_unless_equals_int (gst_element_set_state (c.conv,
          GST_STATE_PLAYING), GST_STATE_CHANGE_SUCCESS);
  out = conv_push (&c, in, "restart: set while stopped");
  mask_from_settings (&third, &m);
  check_frame ("restart: settings changed while stopped", &info, in, out,
      &m, FALSE, NULL);
  release_output (out);
  gst_buffer_unref (in);
  conv_stop (&c, "restart");
}

GST_END_TEST;

/* ---- 4. errors ----------------------------------------------------------- */

#define ONES_11 "1 1 1 1 1 1 1 1 1 1 1 "
#define ROWS_11 "1;1;1;1;1;1;1;1;1;1;1;"
#define ONES_121 ONES_11 ONES_11 ONES_11 ONES_11 ONES_11 ONES_11 ONES_11 \
    ONES_11 ONES_11 ONES_11 ONES_11
#define ONES_257 ONES_121 ONES_121 ONES_11 "1 1 1 1 "

static const struct
{
  const gchar *kernel;
  const gchar *why;             /* what the message must say */
} bad_kernels[] = {
  {"1 2; 3", "same length"},
  {";", "empty"},
  {" ; ;", "empty"},
  {"1;;1", "row 2 is empty"},
  {"1 x 1", "\"x\" is not a number"},
  {"1 2a 1", "not a number"},
  {"nan", "not a finite number"},
  {"inf", "not a finite number"},
  {"1 1e999 1", "not a finite number"},
  {"1 1", "odd"},
  {"1;1", "odd"},
  {"1 2 3 4; 5 6 7 8; 1 2 3 4", "odd"},
  {ONES_257 ";" ONES_257 ";" ONES_257, "at most 255"},
  {ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11
        ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11
        ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11
        ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11
        ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11
        ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11
        ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11
        ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11
        ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11
        ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11
        ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11
        ROWS_11 ROWS_11 ROWS_11 ROWS_11 ROWS_11, "1023"},
};


GST_START_TEST (test_bad_kernel_before_start)
{
  const gchar *backend = backends[__i__];

  for (guint k = 0; k < G_N_ELEMENTS (bad_kernels); k++) {
    Settings s = {.kernel = bad_kernels[k].kernel };
    GstElement *e = make_conv (backend, &s);
    gchar *what = g_strdup_printf ("kernel \"%s\" before start [%s]",
        bad_kernels[k].kernel, backend);

    expect_start_failure (e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        bad_kernels[k].why, NULL, what);

    /* a good kernel set afterwards clears the error */
    set_prop (e, "kernel", "1 2 1");
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
        GST_STATE_CHANGE_SUCCESS);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_object_unref (e);
    g_free (what);
  }

  /* preset sizes must be odd */
  {
    Settings box = {.preset = "box",.size = 4 };
    Settings gauss = {.preset = "gaussian",.size = 2 };
    GstElement *e = make_conv (backend, &box);
    expect_start_failure (e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "odd", NULL, "box size 4 before start");
    gst_object_unref (e);
    e = make_conv (backend, &gauss);
    expect_start_failure (e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "odd", NULL, "gaussian size 2 before start");
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* Refused while playing: a warning, the property keeps its value, the
 * next frame uses the old mask. */
static void
expect_refused (Conv * c, const GstVideoInfo * info, const Mask * m,
    const gchar * prop, const gchar * value, const gchar * why,
    const gchar * what)
{
  GstBuffer *in = random_frame (info), *out;
  gchar *text;

  set_prop (c->conv, prop, value);
  text = expect_message (c->bus, GST_MESSAGE_WARNING, GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS, why, what);
  fail_unless (strstr (text, prop) != NULL, "%s: the warning \"%s\" does "
      "not name the property", what, text);
  g_free (text);
  expect_no_message (c->bus, what);
  out = conv_push (c, in, what);
  check_frame (what, info, in, out, m, FALSE, NULL);
  release_output (out);
  gst_buffer_unref (in);
}

GST_START_TEST (test_bad_kernel_while_playing)
{
  const gchar *backend = backends[__i__];
  Settings s = {.kernel = K_GENERAL };
  Settings box = {.preset = "box" };
  GstVideoInfo info;
  gchar *kernel;
  Mask m;
  Conv c;

  mask_from_settings (&s, &m);
  video_info (&info, "GRAY8", 37, 23);
  conv_start (&c, backend, &s);
  conv_set_caps (&c, &info);
  for (guint k = 0; k < G_N_ELEMENTS (bad_kernels); k++) {
    gchar *what = g_strdup_printf ("kernel \"%s\" while playing [%s]",
        bad_kernels[k].kernel, backend);

    expect_refused (&c, &info, &m, "kernel", bad_kernels[k].kernel,
        bad_kernels[k].why, what);
    g_object_get (c.conv, "kernel", &kernel, NULL);
    fail_unless (g_strcmp0 (kernel, K_GENERAL) == 0, "%s: kernel reads "
        "back \"%s\", not the current mask", what, kernel);
    g_free (kernel);
    g_free (what);
  }
  conv_stop (&c, "bad kernel while playing");

  /* an even preset size, and a mask that would not fit the frames */
  mask_from_settings (&box, &m);
  video_info (&info, "GRAY8", 16, 16);
  conv_start (&c, backend, &box);
  conv_set_caps (&c, &info);
  expect_refused (&c, &info, &m, "size", "4", "odd",
      "box size 4 while playing");
  expect_refused (&c, &info, &m, "kernel", ONES_11 "1 1 1 1 1 1",
      "larger than", "17x1 kernel on 16x16 frames while playing");
  conv_stop (&c, "bad size while playing");

  /* planes=all where the chroma is smaller than the mask */
  mask_from_settings (&s, &m);
  video_info (&info, "I420", 6, 4);
  conv_start (&c, backend, &s);
  conv_set_caps (&c, &info);
  expect_refused (&c, &info, &m, "planes", "all", "chroma plane",
      "planes=all on 3x2 chroma while playing");
  conv_stop (&c, "bad planes while playing");
}

GST_END_TEST;

/* ---- long masks: factors above 31 taps ---------------------------------- */

#define MAX_FACTOR 1023

/* A separable mask by its factors, for the long masks' reference. */
typedef struct
{
  gint w, h;
  gdouble row[MAX_FACTOR], col[MAX_FACTOR];
  gdouble divisor, offset;
  gint border;
} Factors;

static void
gaussian_factor (gdouble * f, gint n, gdouble sigma)
{
  gdouble total = 0.0;

  for (gint i = 0; i < n; i++)
    total += f[i] = exp (-(gdouble) ((i - n / 2) * (i - n / 2))
        / (2 * sigma * sigma));
  for (gint i = 0; i < n; i++)
    f[i] /= total;
}

/* The exact values of plane p, saturated: rows, then columns, in float64;
 * `channels` values a pixel (free with g_free). */
static gdouble *
factors_reference (const GstVideoFrame * in, guint p, const PlaneDesc * d,
    const Factors * f)
{
  gint w = d->width, h = d->height, n = d->channels;
  gdouble top = d->bytes == 2 ? 65535.0 : 255.0;
  gdouble *rows = g_new0 (gdouble, (gsize) w * h * n);
  gdouble *out = g_new0 (gdouble, (gsize) w * h * n);

  for (gint y = 0; y < h; y++)
    for (gint x = 0; x < w; x++)
      for (gint c = 0; c < n; c++)
        for (gint i = 0; i < f->w; i++) {
          gint sx = ref_border_source (x + i - f->w / 2, w, f->border);
          if (sx >= 0)
            rows[((gsize) y * w + x) * n + c] += f->row[i]
                * get_sample (in, p, d, sx, y, c);
        }
  for (gint y = 0; y < h; y++)
    for (gsize v = 0; v < (gsize) w * n; v++) {
      gdouble sum = 0.0;
      for (gint j = 0; j < f->h; j++) {
        gint sy = ref_border_source (y + j - f->h / 2, h, f->border);
        if (sy >= 0)
          sum += f->col[j] * rows[(gsize) sy * w * n + v];
      }
      out[(gsize) y * w * n + v] = CLAMP (sum / f->divisor + f->offset, 0.0,
          top);
    }
  g_free (rows);
  return out;
}

/* Whether the settings' preset is a long mask (sides above 31). */
static gboolean
long_preset (const Settings * s)
{
  gint n = s->size;

  if (!s->preset || s->kernel)
    return FALSE;
  if (!n && !strcmp (s->preset, "gaussian"))
    n = 2 * (gint) ceil (3 * s->sigma) + 1;
  return (!strcmp (s->preset, "gaussian") || !strcmp (s->preset, "box"))
      && n > MAX_SIZE;
}

/* One random frame through settings `s`, both frames mapped for reading,
 * for a check sample by sample; finished by finish_checked_frame(). */
typedef struct
{
  GstVideoInfo info;
  Conv c;
  GstBuffer *in, *out;
  GstVideoFrame vin, vout;
  PlaneDesc planes[GST_VIDEO_MAX_PLANES];
  guint n_planes;
} CheckedFrame;

static void
filter_random_frame (CheckedFrame * f, const gchar * backend,
    const gchar * format, gint w, gint h, const Settings * s,
    const gchar * what)
{
  video_info (&f->info, format, w, h);
  conv_start (&f->c, backend, s);
  conv_set_caps (&f->c, &f->info);
  f->in = random_frame (&f->info);
  f->out = conv_push (&f->c, f->in, what);
  fail_unless (gst_video_frame_map (&f->vin, &f->info, f->in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&f->vout, &f->info, f->out,
          GST_MAP_READ));
  f->n_planes = describe_planes (GST_VIDEO_INFO_FORMAT (&f->info), w, h,
      f->planes);
}

/* Fails the check when `bad` of `total` samples were wrong (`first` says
 * where), counts them, and releases the frames and the element. */
static void
finish_checked_frame (CheckedFrame * f, const gchar * what, guint bad,
    guint total, const gchar * first)
{
  gst_video_frame_unmap (&f->vout);
  gst_video_frame_unmap (&f->vin);
  frames_checked++;
  samples_checked += total;
  fail_unless (bad == 0, "%s: %u of %u samples wrong; first at %s", what,
      bad, total, first);
  release_output (f->out);
  gst_buffer_unref (f->in);
  conv_stop (&f->c, what);
}

/* One frame through settings `s` whose mask is `f`: every filtered sample
 * within `tol` of the exact value, the others unchanged. */
static void
check_long_mask (const gchar * backend, const gchar * format, gint w,
    gint h, const Settings * s, const Factors * f, gdouble tol)
{
  CheckedFrame cf;
  guint bad = 0, total = 0;
  gchar first[200] = "";
  gchar *what = g_strdup_printf ("%dx%d mask [%s, %s %dx%d, %s]", f->w, f->h,
      backend, format, w, h, s->border);

  filter_random_frame (&cf, backend, format, w, h, s, what);
  for (guint p = 0; p < cf.n_planes; p++) {
    const PlaneDesc *d = &cf.planes[p];
    gdouble *exact = factors_reference (&cf.vin, p, d, f);
    for (gint y = 0; y < d->height; y++)
      for (gint x = 0; x < d->width; x++)
        for (gint ch = 0; ch < d->channels; ch++) {
          gboolean filtered = (p == 0 || all_planes (s)) && ch != d->keep;
          gdouble got = get_sample (&cf.vout, p, d, x, y, ch);
          gdouble want = filtered ? exact[((gsize) y * d->width + x)
              * d->channels + ch] : get_sample (&cf.vin, p, d, x, y, ch);
          if (fabs (got - want) > (filtered ? tol : 0.0) && !bad++)
            g_snprintf (first, sizeof (first), "plane %u, x %d, y %d, "
                "channel %d: got %g, exact %.4f", p, x, y, ch, got, want);
          total++;
        }
    g_free (exact);
  }
  finish_checked_frame (&cf, what, bad, total, first);
  g_free (what);
}

/* Gaussians of large sigma, boxes up to 1023 and kernels of one row or one
 * column, on both backends, every border, frames smaller than the mask:
 * within 1 level of the exact convolution (boxes: its rounding). */
GST_START_TEST (test_long_masks)
{
  const gchar *backend = backends[__i__];
  Factors *f = g_new0 (Factors, 1);
  GString *text = g_string_new (NULL);
  gdouble sum = 0.0;

  /* Gaussian of sigma 100: 601 taps, over a frame smaller than that */
  {
    Settings s = {.preset = "gaussian",.sigma = 100,.border = "wrap" };
    f->w = f->h = 601;
    gaussian_factor (f->row, 601, 100);
    gaussian_factor (f->col, 601, 100);
    f->divisor = 1;
    f->border = REF_BORDER_WRAP;
    check_long_mask (backend, "RGBA", 150, 83, &s, f, 1.0);
  }
  /* sigma 12.5: its automatic 77 taps, every plane, zeros outside */
  {
    Settings s = {.preset = "gaussian",.sigma = 12.5,.border = "constant",
      .planes = "all"
    };
    f->w = f->h = 77;
    gaussian_factor (f->row, 77, 12.5);
    gaussian_factor (f->col, 77, 12.5);
    f->border = REF_BORDER_CONSTANT;
    check_long_mask (backend, "I420", 61, 47, &s, f, 1.0);
  }
  /* an explicit size cuts the Gaussian short */
  {
    Settings s = {.preset = "gaussian",.sigma = 40,.size = 101,
      .border = "clamp",.planes = "all"
    };
    f->w = f->h = 101;
    gaussian_factor (f->row, 101, 40);
    gaussian_factor (f->col, 101, 40);
    f->border = REF_BORDER_CLAMP;
    check_long_mask (backend, "Y42B", 90, 70, &s, f, 1.0);
  }
  /* boxes: exact sums, rounded once */
  {
    Settings s = {.preset = "box",.size = 1023,.border = "mirror",
      .planes = "all"
    };
    f->w = f->h = 1023;
    for (gint i = 0; i < 1023; i++)
      f->row[i] = f->col[i] = 1.0;
    f->divisor = 1023.0 * 1023.0;
    f->border = REF_BORDER_MIRROR;
    check_long_mask (backend, "NV12", 64, 36, &s, f, 0.5 + 1e-6);
  }
  {
    Settings s = {.preset = "box",.size = 35,.border = "clamp" };
    f->w = f->h = 35;
    f->divisor = 35.0 * 35.0;
    f->border = REF_BORDER_CLAMP;
    check_long_mask (backend, "GRAY16_LE", 300, 40, &s, f, 0.5 + 1e-6);
  }
  /* one row of 45 random taps, divided by their sum */
  for (gint i = 0; i < 45; i++) {
    f->row[i] = g_rand_int_range (rng, -20, 100) / 8.0;
    sum += f->row[i];
    g_string_append_printf (text, "%s%g", i ? " " : "", f->row[i]);
  }
  {
    Settings s = {.kernel = text->str,.border = "clamp" };
    f->w = 45;
    f->h = 1;
    f->col[0] = 1.0;
    f->divisor = sum;
    f->border = REF_BORDER_CLAMP;
    check_long_mask (backend, "BGR", 120, 20, &s, f, 1.0);
  }
  /* one column of 51, an offset, a divisor */
  g_string_truncate (text, 0);
  for (gint j = 0; j < 51; j++) {
    f->col[j] = g_rand_int_range (rng, -50, 50) / 4.0;
    g_string_append_printf (text, "%g;", f->col[j]);
  }
  {
    Settings s = {.kernel = text->str,.divisor = 40,.offset = 128,
      .border = "mirror"
    };
    f->w = 1;
    f->h = 51;
    f->row[0] = 1.0;
    f->divisor = 40;
    f->offset = 128;
    f->border = REF_BORDER_MIRROR;
    check_long_mask (backend, "xRGB", 16, 140, &s, f, 1.0);
  }
  g_string_free (text, TRUE);
  g_free (f);
}

GST_END_TEST;

/* What the long masks refuse: the unsharp mask (not separable) above 31,
 * sizes above 1023 or even, a mask of 33 x 3. */
GST_START_TEST (test_long_mask_limits)
{
  const gchar *backend = backends[__i__];
  static const struct
  {
    Settings s;
    const gchar *why;
  } bad[] = {
    {{.preset = "unsharp",.size = 33}, "from 1 to 31"},
    {{.preset = "box",.size = 1022}, "odd"},
    {{.preset = "gaussian",.size = 500}, "odd"},
    {{.kernel = ONES_11 ONES_11 ONES_11 "1;" ONES_11 ONES_11 ONES_11 ";"
              ONES_11 ONES_11 ONES_11}, "same length"},
  };

  for (guint k = 0; k < G_N_ELEMENTS (bad); k++) {
    GstElement *e = make_conv (backend, &bad[k].s);
    gchar *what = g_strdup_printf ("long mask limit %u [%s]", k, backend);
    expect_start_failure (e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        bad[k].why, NULL, what);
    gst_object_unref (e);
    g_free (what);
  }
  /* the largest sigma's automatic mask is 1021 taps, accepted */
  {
    Settings s = {.preset = "gaussian",.sigma = 170 };
    GstElement *e = make_conv (backend, &s);
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
        GST_STATE_CHANGE_SUCCESS);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* ---- masks above 31 that are not separable -------------------------------- */

static gchar *write_file (const gchar * dir, const gchar * name,
    const gchar * data, gsize size);

/* A mask of any size, as doubles. */
typedef struct
{
  gint w, h;
  gdouble *taps;
  gdouble divisor, offset;
  gint border;
} General;

/* The disc preset as documented: each tap the share of its pixel's 16 x
 * 16 points inside the circle, the mask 2 * ceil(r + 1/2) - 1 a side. */
static void
disc_mask (General * g, gdouble radius)
{
  gint n = 2 * (gint) ceil (radius + 0.5) - 1, r = n / 2;

  g->w = g->h = n;
  g->taps = g_new0 (gdouble, n * n);
  g->divisor = 0.0;
  for (gint j = 0; j < n; j++)
    for (gint i = 0; i < n; i++) {
      gint in = 0;
      for (gint b = 0; b < 16; b++)
        for (gint a = 0; a < 16; a++) {
          gdouble x = i - r - 0.5 + (a + 0.5) / 16;
          gdouble y = j - r - 0.5 + (b + 0.5) / 16;
          in += x * x + y * y <= radius * radius;
        }
      g->taps[j * n + i] = in / 256.0;
      g->divisor += g->taps[j * n + i];
    }
}

/* Random taps in [lo, hi), as kernel text (to be freed); the divisor is
 * their sum. */
static gchar *
random_general (General * g, gint w, gint h, gint lo, gint hi)
{
  GString *text = g_string_new (NULL);

  g->w = w;
  g->h = h;
  g->taps = g_new0 (gdouble, w * h);
  g->divisor = 0.0;
  for (gint j = 0; j < h; j++) {
    for (gint i = 0; i < w; i++) {
      g->taps[j * w + i] = g_rand_int_range (rng, lo, hi);
      g->divisor += g->taps[j * w + i];
      g_string_append_printf (text, "%s%g", i ? " " : "",
          g->taps[j * w + i]);
    }
    g_string_append (text, ";");
  }
  return g_string_free (text, FALSE);
}

/* One frame through settings `s` whose mask is `g`, checked at `samples`
 * random places a plane against a direct float64 correlation: filtered
 * samples within 1 level, the others unchanged. */
static void
check_general_mask (const gchar * backend, const gchar * format, gint w,
    gint h, const Settings * s, const General * g, guint samples)
{
  CheckedFrame cf;
  guint bad = 0, total = 0;
  gchar first[200] = "";
  gchar *what = g_strdup_printf ("%dx%d mask [%s, %s %dx%d, %s]", g->w, g->h,
      backend, format, w, h, s->border);

  filter_random_frame (&cf, backend, format, w, h, s, what);
  for (guint p = 0; p < cf.n_planes; p++) {
    const PlaneDesc *d = &cf.planes[p];
    gdouble top = d->bytes == 2 ? 65535.0 : 255.0;
    for (guint k = 0; k < samples; k++) {
      gint x = g_rand_int_range (rng, 0, d->width);
      gint y = g_rand_int_range (rng, 0, d->height);
      for (gint ch = 0; ch < d->channels; ch++) {
        gboolean filtered = (p == 0 || all_planes (s)) && ch != d->keep;
        gdouble got = get_sample (&cf.vout, p, d, x, y, ch), want = 0.0;
        if (!filtered) {
          want = get_sample (&cf.vin, p, d, x, y, ch);
        } else {
          for (gint j = 0; j < g->h; j++) {
            gint sy = ref_border_source (y + j - g->h / 2, d->height,
                g->border);
            for (gint i = 0; i < g->w && sy >= 0; i++) {
              gint sx = ref_border_source (x + i - g->w / 2, d->width,
                  g->border);
              if (sx >= 0)
                want += g->taps[j * g->w + i]
                    * get_sample (&cf.vin, p, d, sx, sy, ch);
            }
          }
          want = CLAMP (want / g->divisor + g->offset, 0.0, top);
        }
        if (fabs (got - want) > (filtered ? 1.0 : 0.0) && !bad++)
          g_snprintf (first, sizeof (first), "plane %u, x %d, y %d, "
              "channel %d: got %g, exact %.4f", p, x, y, ch, got, want);
        total++;
      }
    }
  }
  finish_checked_frame (&cf, what, bad, total, first);
  g_free (what);
}

/* Discs of radius 15 (31 x 31, the short path) to 100, random masks up to
 * 255 x 255 from kernel text and from a file, larger than the frame or
 * its chroma planes, on both backends and every border. */
GST_START_TEST (test_spectral_masks)
{
  const gchar *backend = backends[__i__];
  gchar *dir = g_dir_make_tmp ("cf-spectral-XXXXXX", NULL);
  General g = { 0 };
  GString *pgm;
  gchar *text, *path;

  /* discs: radius 15 is 31 x 31 (the short path), 15.5 is 33 x 33 */
  {
    static const struct
    {
      gdouble radius;
      const gchar *format, *border;
      gint w, h, ref;
    } discs[] = {
      {15, "GRAY8", "clamp", 70, 50, REF_BORDER_CLAMP},
      {15.5, "RGBA", "mirror", 90, 61, REF_BORDER_MIRROR},
      {40, "BGRx", "wrap", 150, 83, REF_BORDER_WRAP},
      {100, "GRAY16_LE", "constant", 64, 48, REF_BORDER_CONSTANT},
    };
    for (guint k = 0; k < G_N_ELEMENTS (discs); k++) {
      Settings s = {.preset = "disc",.radius = discs[k].radius,
        .border = discs[k].border
      };
      disc_mask (&g, discs[k].radius);
      g.border = discs[k].ref;
      check_general_mask (backend, discs[k].format, discs[k].w, discs[k].h,
          &s, &g, 150);
      g_free (g.taps);
    }
  }
  /* random 101 x 61 taps from the kernel text, an offset, every plane of
   * I420 (its chroma planes smaller than the mask) */
  text = random_general (&g, 101, 61, -3, 10);
  {
    Settings s = {.kernel = text,.offset = 7,.border = "constant",
      .planes = "all"
    };
    g.offset = 7;
    g.border = REF_BORDER_CONSTANT;
    check_general_mask (backend, "I420", 67, 45, &s, &g, 120);
  }
  g_free (g.taps);
  g_free (text);
  g.offset = 0;
  /* the largest: 255 x 255 from a PGM */
  g_free (random_general (&g, 255, 255, 0, 256));
  pgm = g_string_new ("P2 255 255 255\n");
  for (gint k = 0; k < 255 * 255; k++)
    g_string_append_printf (pgm, "%g\n", g.taps[k]);
  path = write_file (dir, "large.pgm", pgm->str, pgm->len);
  {
    Settings s = {.mask_location = path,.border = "wrap" };
    g.border = REF_BORDER_WRAP;
    check_general_mask (backend, "RGB", 40, 30, &s, &g, 60);
  }
  g_string_free (pgm, TRUE);
  g_free (g.taps);
  g_remove (path);
  g_free (path);
  g_rmdir (dir);
  g_free (dir);
}

GST_END_TEST;

/* What the masks above 31 refuse: a side above 255 unless a single row
 * or column, a disc radius under 0.5. */
GST_START_TEST (test_spectral_mask_limits)
{
  const gchar *backend = backends[__i__];
  GString *text = g_string_new (NULL);

  for (gint j = 0; j < 3; j++) {
    for (gint i = 0; i < 257; i++)
      g_string_append (text, "1 ");
    g_string_append (text, ";");
  }
  {
    Settings bad[] = {
      {.kernel = text->str},
      {.preset = "disc",.radius = 0.25},
    };
    static const gchar *const why[] = { "at most 255", "disc radius 0.25" };
    for (guint k = 0; k < G_N_ELEMENTS (bad); k++) {
      GstElement *e = make_conv (backend, &bad[k]);
      gchar *what = g_strdup_printf ("spectral limit %u [%s]", k, backend);
      expect_start_failure (e, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_SETTINGS, why[k], NULL, what);
      gst_object_unref (e);
      g_free (what);
    }
  }
  g_string_free (text, TRUE);
}

GST_END_TEST;

/* ---- regions (roi) -------------------------------------------------------- */

/* A region-of-interest meta: its type and rectangle. */
typedef struct
{
  const gchar *type;
  guint x, y, w, h;
} Region;

/* A writable copy of `in` pushed through the regions of `c`: it must come
 * out as the same buffer (filtered in place, no copy) with the pixels of
 * `expected`, the output of a frame that was not writable (padding aside:
 * the copy keeps the input's). */
/* Pushes a writable copy of `in` (metas included) through `c`: the
 * output, and whether it is the buffer pushed (filtered in place). */
static GstBuffer *
push_writable (Conv * c, GstBuffer * in, gboolean * same, const gchar * what)
{
  GstBuffer *copy = gst_buffer_copy_deep (in), *out;
  gconstpointer pushed = copy;  /* compared, never used */

  fail_unless (gst_harness_push (c->h, copy) == GST_FLOW_OK,
      "%s: pushing a writable frame failed", what);
  out = gst_harness_try_pull (c->h);
  fail_unless (out != NULL, "%s: no output for a writable frame", what);
  *same = (gconstpointer) out == pushed;
  return out;
}

/* The region-of-interest metas of `b`, in a string (type and rectangle
 * each), so that two buffers' can be compared. */
static gchar *
describe_regions (GstBuffer * b)
{
  GString *s = g_string_new (NULL);
  gpointer state = NULL;
  GstMeta *m;

  while ((m = gst_buffer_iterate_meta_filtered (b, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *r = (GstVideoRegionOfInterestMeta *) m;
    g_string_append_printf (s, "%s:%u,%u,%u,%u ",
        g_quark_to_string (r->roi_type), r->x, r->y, r->w, r->h);
  }
  return g_string_free (s, FALSE);
}

/* The pixels of two frames, each in its own layout (padding aside). */
static void
expect_same_pixels (const GstVideoInfo * info, GstBuffer * x, GstBuffer * y,
    const gchar * what)
{
  PlaneDesc planes[GST_VIDEO_MAX_PLANES];
  GstVideoFrame a, b;
  guint n_planes;

  fail_unless (gst_video_frame_map (&a, info, x, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&b, info, y, GST_MAP_READ));
  n_planes = describe_planes (GST_VIDEO_INFO_FORMAT (info),
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), planes);
  for (guint p = 0; p < n_planes; p++)
    for (gint row = 0; row < planes[p].height; row++)
      fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a, p)
              + row * GST_VIDEO_FRAME_PLANE_STRIDE (&a, p),
              (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, p)
              + row * GST_VIDEO_FRAME_PLANE_STRIDE (&b, p),
              (gsize) planes[p].width * planes[p].channels
              * planes[p].bytes) == 0, "%s: plane %u row %d differs from "
          "the frame filtered into a new one", what, p, row);
  gst_video_frame_unmap (&b);
  gst_video_frame_unmap (&a);
}

static void
expect_in_place (Conv * c, const GstVideoInfo * info, GstBuffer * in,
    GstBuffer * expected, const gchar * what)
{
  gboolean same;
  GstBuffer *out = push_writable (c, in, &same, what);
  gchar *got = describe_regions (out), *want = describe_regions (in);

  fail_unless (same, "%s: a writable frame was copied, not filtered in "
      "place", what);
  fail_unless (strcmp (got, want) == 0, "%s: in place, the output's "
      "regions are \"%s\", the input's \"%s\"", what, got, want);
  g_free (got);
  g_free (want);
  expect_same_pixels (info, out, expected, what);
  gst_buffer_unref (out);
}

/* One frame through `s` (roi on) and, for the reference, through
 * `full[k]` (roi off: the whole frame filtered) for region k, or `full[0]`
 * for all. Every sample must be the source where no wanted rectangle
 * reaches, and source + (filtered - source) * weight elsewhere: the
 * weight 1 inside the rectangle (grown), the raised cosine of the distance
 * within `feather` of it, written here from the documentation. `tol`:
 * the difference allowed where the weight is 1 (0 for short masks, whose
 * crops sum as the whole frame does); 1 wherever it is between. */
static void
check_regions (const gchar * backend, const gchar * format, gint w, gint h,
    const Settings * s, const Region * regions, guint n,
    const Settings * full, gboolean per_region, gdouble tol)
{
  GstVideoInfo info;
  GstVideoFrame vin, vout, vfull[4];
  PlaneDesc planes[GST_VIDEO_MAX_PLANES];
  GstBuffer *in, *out, *ref[4];
  Conv c;
  guint n_planes, bad = 0, total = 0, n_full = per_region ? n : 1;
  gchar first[240] = "";
  gchar *what = g_strdup_printf ("%u regions [%s, %s %dx%d, %s]", n, backend,
      format, w, h, s->roi_types ? s->roi_types : "all types");
  const GstVideoFormatInfo *finfo;
  guint8 *before;

  video_info (&info, format, w, h);
  before = g_malloc (info.size);
  finfo = info.finfo;
  in = random_frame (&info);
  for (guint k = 0; k < n; k++)
    gst_buffer_add_video_region_of_interest_meta (in, regions[k].type,
        regions[k].x, regions[k].y, regions[k].w, regions[k].h);
  for (guint k = 0; k < n_full; k++) {
    conv_start (&c, backend, &full[k]);
    conv_set_caps (&c, &info);
    ref[k] = conv_push (&c, in, what);
    conv_stop (&c, what);
    fail_unless (gst_video_frame_map (&vfull[k], &info, ref[k],
            GST_MAP_READ));
  }
  conv_start (&c, backend, s);
  conv_set_caps (&c, &info);
  gst_buffer_extract (in, 0, before, info.size);
  /* a frame the test keeps (not writable): filtered into a new one */
  out = conv_push (&c, in, what);
  fail_unless (out != in, "%s: a frame held elsewhere was written", what);
  {
    gchar *got = describe_regions (out), *want = describe_regions (in);
    fail_unless (strcmp (got, want) == 0, "%s: the copy's regions are "
        "\"%s\", the input's \"%s\"", what, got, want);
    g_free (got);
    g_free (want);
  }
  fail_unless (gst_buffer_memcmp (in, 0, before, info.size) == 0,
      "%s: the input frame changed", what);
  expect_in_place (&c, &info, in, out, what);
  fail_unless (gst_video_frame_map (&vin, &info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&vout, &info, out, GST_MAP_READ));
  n_planes = describe_planes (GST_VIDEO_INFO_FORMAT (&info), w, h, planes);
  for (guint p = 0; p < n_planes; p++) {
    const PlaneDesc *d = &planes[p];
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint ws, hs;
    gint fx, fy;

    gst_video_format_info_component (finfo, p, comp);
    ws = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comp[0]);
    hs = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comp[0]);
    /* chroma: rectangles cover every sample they touch, the feather
     * follows the subsampling each way, rounded up */
    fx = (s->roi_feather + (1 << ws) - 1) >> ws;
    fy = (s->roi_feather + (1 << hs) - 1) >> hs;
    for (gint y = 0; y < d->height; y++)
      for (gint x = 0; x < d->width; x++) {
        gdouble best = 0.0;
        gint owner = -1;
        for (guint k = 0; k < n; k++) {
          gint g = s->roi_grow, rx0, ry0, rx1, ry1, dx, dy;
          gdouble t, wt;
          if (s->roi_types && !strstr (s->roi_types, regions[k].type))
            continue;
          rx0 = ((gint) regions[k].x - g) >> ws;
          ry0 = ((gint) regions[k].y - g) >> hs;
          rx1 = ((gint) (regions[k].x + regions[k].w) + g + (1 << ws) - 1)
              >> ws;
          ry1 = ((gint) (regions[k].y + regions[k].h) + g + (1 << hs) - 1)
              >> hs;
          dx = x < rx0 ? rx0 - x : (x >= rx1 ? x - rx1 + 1 : 0);
          dy = y < ry0 ? ry0 - y : (y >= ry1 ? y - ry1 + 1 : 0);
          /* an ellipse of fx across, fy down */
          t = fx > 0 && fy > 0 ? sqrt ((gdouble) dx * dx / (fx * fx)
              + (gdouble) dy * dy / (fy * fy)) : 1.0;
          wt = dx == 0 && dy == 0 ? 1.0 : (t >= 1 ? 0.0
              : 0.5 * (1 + cos (G_PI * t)));
          if (wt > best) {
            best = wt;
            owner = k;
          }
        }
        for (gint ch = 0; ch < d->channels; ch++) {
          gboolean filtered = (p == 0 || all_planes (s)) && ch != d->keep
              && owner >= 0;
          gdouble src = get_sample (&vin, p, d, x, y, ch);
          gdouble got = get_sample (&vout, p, d, x, y, ch), want = src;
          gdouble allowed = 0.0;
          if (filtered) {
            gdouble f = get_sample (&vfull[per_region ? owner : 0], p, d, x,
                y, ch);
            want = src + (f - src) * best;
            allowed = best == 1.0 ? tol : 1.0;
          }
          if (fabs (got - want) > allowed + 1e-9 && !bad++)
            g_snprintf (first, sizeof (first), "plane %u, x %d, y %d, "
                "channel %d: got %g, expected %.3f (weight %.3f)", p, x, y,
                ch, got, want, best);
          total++;
        }
      }
  }
  gst_video_frame_unmap (&vout);
  gst_video_frame_unmap (&vin);
  for (guint k = 0; k < n_full; k++) {
    gst_video_frame_unmap (&vfull[k]);
    release_output (ref[k]);
  }
  frames_checked++;
  samples_checked += total;
  fail_unless (bad == 0, "%s: %u of %u samples wrong; first at %s", what,
      bad, total, first);
  release_output (out);
  gst_buffer_unref (in);
  conv_stop (&c, what);
  g_free (before);
  g_free (what);
}

/* Regions of chosen types, grown, feathered, overlapping, reaching past
 * the frame, smaller than the mask, with short, long and spectral masks,
 * every plane: filtered where the metas say, the rest unchanged. */
GST_START_TEST (test_regions)
{
  const gchar *backend = backends[__i__];
  static const Region two[] = {
    {"face", 10, 12, 40, 30}, {"license-plate", 100, 50, 50, 30},
  };
  static const Region crowded[] = {
    {"face", 0, 0, 30, 20}, {"face", 20, 10, 30, 30},
    {"face", 140, 70, 60, 60}, {"face", 400, 400, 10, 10},
  };
  static const Region small[] = { {"face", 70, 30, 9, 7} };

  {
    /* only faces; a Gaussian of sigma 2 */
    Settings s = {.preset = "gaussian",.sigma = 2,.roi = TRUE,
      .roi_types = "face"
    };
    Settings full = {.preset = "gaussian",.sigma = 2 };
    check_regions (backend, "RGBA", 160, 90, &s, two, 2, &full, FALSE, 0);
    s.roi_types = "license-plate, face";
    check_regions (backend, "BGRx", 160, 90, &s, two, 2, &full, FALSE, 0);
  }
  {
    /* overlapping, past the edges (clipped), one outside the frame;
     * grown and feathered; every plane of I420 */
    Settings s = {.preset = "box",.size = 5,.border = "mirror",
      .planes = "all",.roi = TRUE,.roi_grow = 3,.roi_feather = 6
    };
    Settings full = {.preset = "box",.size = 5,.border = "mirror",
      .planes = "all"
    };
    check_regions (backend, "I420", 180, 100, &s, crowded, 4, &full, FALSE,
        0);
    s.border = full.border = "wrap";
    check_regions (backend, "GRAY16_LE", 180, 100, &s, crowded, 4, &full,
        FALSE, 0);
    /* chroma subsampled across only: the feather halved across, whole
     * down */
    s.border = full.border = "clamp";
    check_regions (backend, "Y42B", 180, 100, &s, crowded, 4, &full, FALSE,
        0);
  }
  {
    /* a region smaller than the mask: a long Gaussian, a disc */
    Settings s = {.preset = "gaussian",.sigma = 12,.roi = TRUE,
      .roi_feather = 3
    };
    Settings full = {.preset = "gaussian",.sigma = 12 };
    check_regions (backend, "RGB", 120, 64, &s, small, 1, &full, FALSE, 1);
    s.preset = full.preset = "disc";
    s.radius = full.radius = 20;
    check_regions (backend, "GRAY8", 120, 64, &s, small, 1, &full, FALSE, 1);
  }
  {
    /* more rectangles than a GPU launch carries (64): a grid of 70 */
    Region many[70];
    Settings s = {.preset = "box",.size = 3,.roi = TRUE,.roi_feather = 2 };
    Settings full = {.preset = "box",.size = 3 };
    for (guint k = 0; k < G_N_ELEMENTS (many); k++)
      many[k] = (Region) {
      "face", 2 + 9 * (k % 14), 3 + 11 * (k / 14), 4, 5};
    check_regions (backend, "RGBx", 130, 60, &s, many, G_N_ELEMENTS (many),
        &full, FALSE, 0);
  }
  {
    /* no metas of the wanted type: the frame as it came */
    Settings s = {.preset = "sharpen",.roi = TRUE,.roi_types = "car" };
    Settings full = {.preset = "sharpen" };
    check_regions (backend, "RGBA", 160, 90, &s, two, 2, &full, FALSE, 0);
  }
}

GST_END_TEST;

/* roi-sigma: each face blurred by a Gaussian of its own, sigma a fraction
 * of its smaller side (at least 33 taps). */
GST_START_TEST (test_region_sigma)
{
  const gchar *backend = backends[__i__];
  static const Region faces[] = {
    {"face", 10, 10, 60, 40}, {"face", 100, 30, 20, 30},
  };
  Settings s = {.preset = "gaussian",.roi = TRUE,.roi_sigma = 0.1,
    .border = "clamp"
  };
  Settings full[2] = {
    {.preset = "gaussian",.sigma = 4,.size = 33,.border = "clamp"},
    {.preset = "gaussian",.sigma = 2,.size = 33,.border = "clamp"},
  };

  check_regions (backend, "RGBA", 160, 90, &s, faces, 2, full, TRUE, 1);
}

GST_END_TEST;

/* `in` through `c` as a frame the test holds and as a writable copy: the
 * copy must be filtered in place exactly when `in_place` (`why_not_copied`
 * and `why_not_in_place` say what went wrong), with the same pixels. */
static void
expect_placement (Conv * c, const GstVideoInfo * info, GstBuffer * in,
    gboolean in_place, const gchar * why_not_copied,
    const gchar * why_not_in_place, const gchar * what)
{
  GstBuffer *shared = conv_push (c, in, what), *out;
  gboolean same;

  out = push_writable (c, in, &same, what);
  fail_unless (same == in_place, "%s: %s, %s", what, same ? "filtered in "
      "place" : "copied", same ? why_not_copied : why_not_in_place);
  expect_same_pixels (info, out, shared, what);
  gst_buffer_unref (out);
  release_output (shared);
}

/* In place only while the crops, held at once, fit in a frame's bytes or
 * 16 MB: a 4K GRAY8 frame (8.3 MB) with a 301-tap box on the wrap border,
 * where each corner's crop is the whole plane, stays in place with one
 * corner and is copied with three (24.9 MB), filtered the same. */
GST_START_TEST (test_regions_in_place_limit)
{
  const gchar *backend = backends[__i__];
  static const Region corners[] = {
    {"face", 2, 2, 8, 8}, {"face", 3826, 2, 8, 8}, {"face", 2, 2150, 8, 8},
  };
  Settings s = {.preset = "box",.size = 301,.border = "wrap",.roi = TRUE };
  GstVideoInfo info;

  video_info (&info, "GRAY8", 3840, 2160);
  for (guint n = 1; n <= 3; n += 2) {
    gchar *what = g_strdup_printf ("%u corners [%s]", n, backend);
    GstBuffer *in = random_frame (&info);
    Conv c;

    for (guint k = 0; k < n; k++)
      gst_buffer_add_video_region_of_interest_meta (in, corners[k].type,
          corners[k].x, corners[k].y, corners[k].w, corners[k].h);
    conv_start (&c, backend, &s);
    conv_set_caps (&c, &info);
    expect_placement (&c, &info, in, n == 1, "its crops beyond the limit",
        "its crops within the limit", what);
    gst_buffer_unref (in);
    conv_stop (&c, what);
    g_free (what);
  }
}

GST_END_TEST;

/* A frame whose rows are padded (a video meta says so) stays in place
 * only where downstream reads video metas; else it is copied into the
 * caps' layout. Filtered the same either way. */
GST_START_TEST (test_regions_padded_layout)
{
  const gchar *backend = backends[__i__];
  Settings s = {.preset = "gaussian",.sigma = 2,.roi = TRUE };
  GstVideoInfo info, padded;
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0 };

  video_info (&info, "RGBA", 64, 36);
  padded = info;
  stride[0] = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0) + 64;
  padded.stride[0] = stride[0];
  padded.size = (gsize) stride[0] * 36;
  for (gboolean reads_metas = FALSE; reads_metas <= TRUE; reads_metas++) {
    gchar *what = g_strdup_printf ("padded rows, downstream %s video "
        "metas [%s]", reads_metas ? "reading" : "not reading", backend);
    GstBuffer *in = random_frame (&padded);
    Conv c;

    gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_RGBA, 64, 36, 1, offset, stride);
    gst_buffer_add_video_region_of_interest_meta (in, "face", 10, 8, 20, 12);
    conv_start (&c, backend, &s);
    if (reads_metas)
      gst_harness_add_propose_allocation_meta (c.h, GST_VIDEO_META_API_TYPE,
          NULL);
    conv_set_caps (&c, &info);
    expect_placement (&c, &info, in, reads_metas, "its padded rows handed "
        "to an element that cannot read them", "though downstream reads "
        "video metas", what);
    gst_buffer_unref (in);
    conv_stop (&c, what);
    g_free (what);
  }
}

GST_END_TEST;

/* roi-types with an empty name: the start fails naming it; set while
 * playing, refused with a warning. */
GST_START_TEST (test_bad_region_types)
{
  const gchar *backend = backends[__i__];
  static const gchar *const bad[] = { "face,,plate", ",", "face, " };

  for (guint k = 0; k < G_N_ELEMENTS (bad); k++) {
    Settings s = {.roi = TRUE,.roi_types = bad[k] };
    GstElement *e = make_conv (backend, &s);
    gchar *what = g_strdup_printf ("roi-types \"%s\" [%s]", bad[k], backend);
    expect_start_failure (e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "is empty", NULL, what);
    gst_object_unref (e);
    g_free (what);
  }
}

GST_END_TEST;

/* ---- masks from files ----------------------------------------------------- */

/* One random frame through settings `a` and through settings `b`: the
 * outputs must be the same bytes. */
static void
expect_same_output (const gchar * backend, const gchar * format,
    const Settings * a, const Settings * b, const gchar * what)
{
  GstVideoInfo info;
  GstBuffer *in, *out_a, *out_b;
  GstMapInfo ma, mb;
  Conv ca, cb;

  video_info (&info, format, 41, 29);
  in = random_frame (&info);
  conv_start (&ca, backend, a);
  conv_start (&cb, backend, b);
  conv_set_caps (&ca, &info);
  conv_set_caps (&cb, &info);
  out_a = conv_push (&ca, in, what);
  out_b = conv_push (&cb, in, what);
  fail_unless (gst_buffer_map (out_a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (out_b, &mb, GST_MAP_READ));
  fail_unless (ma.size == mb.size && !memcmp (ma.data, mb.data, ma.size),
      "%s [%s]: the file's mask filters differently from its kernel text",
      what, backend);
  gst_buffer_unmap (out_a, &ma);
  gst_buffer_unmap (out_b, &mb);
  release_output (out_a);
  release_output (out_b);
  gst_buffer_unref (in);
  conv_stop (&ca, what);
  conv_stop (&cb, what);
}

/* A PNG of `w` x `h` samples `v` (GRAY8) through pngenc, lossless. */
static void
write_png (const gchar * path, const guint8 * v, gint w, gint h)
{
  gchar *desc = g_strdup_printf ("appsrc name=src caps=video/x-raw,"
      "format=GRAY8,width=%d,height=%d,framerate=1/1 ! pngenc ! filesink "
      "location=\"%s\"", w, h, path);
  GstElement *pipe = gst_parse_launch (desc, NULL), *src;
  GstBuffer *buf;
  GstVideoInfo info;
  GstVideoFrame frame;
  GstFlowReturn ret;
  GstMessage *msg;

  fail_unless (pipe != NULL, "cannot build %s", desc);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  video_info (&info, "GRAY8", w, h);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (gint y = 0; y < h; y++)
    memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), v + y * w, w);
  gst_video_frame_unmap (&frame);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  g_signal_emit_by_name (src, "push-buffer", buf, &ret);
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "writing %s failed", path);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_buffer_unref (buf);
  gst_object_unref (src);
  gst_object_unref (pipe);
  g_free (desc);
}

/* Random taps 0..top as kernel text, and the same in `v`. */
static gchar *
random_mask (guint * v, gint w, gint h, guint top)
{
  GString *text = g_string_new (NULL);

  for (gint k = 0; k < w * h; k++) {
    v[k] = g_rand_int_range (rng, 0, top + 1);
    g_string_append_printf (text, "%u%s", v[k], (k + 1) % w ? " "
        : (k + 1 < w * h ? "; " : ""));
  }
  return g_string_free (text, FALSE);
}

static gchar *
write_file (const gchar * dir, const gchar * name, const gchar * data,
    gsize size)
{
  gchar *path = g_build_filename (dir, name, NULL);
  fail_unless (g_file_set_contents (path, data, size, NULL));
  return path;
}

/* PGM (text and binary, 8 and 16 bits), PNG and text files give the mask
 * their samples say: the same bytes as that mask written in `kernel`. */
GST_START_TEST (test_mask_files)
{
  const gchar *backend = backends[__i__];
  gchar *dir = g_dir_make_tmp ("cf-mask-XXXXXX", NULL);
  guint v[7 * 5];
  guint8 bytes[2 * 7 * 5];
  GString *data = g_string_new (NULL);
  gchar *kernel, *path;

  /* P2, comments in the header */
  kernel = random_mask (v, 5, 3, 255);
  g_string_printf (data, "P2\n# a mask\n5 3\n# more\n255\n");
  for (gint k = 0; k < 15; k++)
    g_string_append_printf (data, "%u%c", v[k], k % 5 == 4 ? '\n' : ' ');
  path = write_file (dir, "p2.pgm", data->str, data->len);
  {
    Settings a = {.mask_location = path,.border = "mirror" };
    Settings b = {.kernel = kernel,.border = "mirror" };
    expect_same_output (backend, "RGBA", &a, &b, "P2 5x3");
  }
  g_free (path);
  g_free (kernel);

  /* P5, 8 bits, 3 wide and 5 high */
  kernel = random_mask (v, 3, 5, 200);
  g_string_printf (data, "P5 3 5 200\n");
  for (gint k = 0; k < 15; k++)
    g_string_append_c (data, (gchar) v[k]);
  path = write_file (dir, "p5.pgm", data->str, data->len);
  {
    Settings a = {.mask_location = path };
    Settings b = {.kernel = kernel };
    expect_same_output (backend, "I420", &a, &b, "P5 8-bit 3x5");
  }
  g_free (path);
  g_free (kernel);

  /* P5, 16 bits (big endian), a divisor and an offset */
  kernel = random_mask (v, 3, 3, 1000);
  g_string_printf (data, "P5\n3 3\n1000\n");
  for (gint k = 0; k < 9; k++) {
    g_string_append_c (data, (gchar) (v[k] >> 8));
    g_string_append_c (data, (gchar) (v[k] & 255));
  }
  path = write_file (dir, "p5-16.pgm", data->str, data->len);
  {
    Settings a = {.mask_location = path,.divisor = 4000,.offset = 9 };
    Settings b = {.kernel = kernel,.divisor = 4000,.offset = 9 };
    expect_same_output (backend, "GRAY16_LE", &a, &b, "P5 16-bit 3x3");
  }
  g_free (path);
  g_free (kernel);

  /* text: comments, blank lines, commas, CRLF, negative and fractional
   * taps */
  {
    const gchar *text = "# a row and its sign\r\n\r\n0.5, -1, 2.25 1 3 "
        "-0.75 1;\n";
    Settings a, b = {.kernel = "0.5 -1 2.25 1 3 -0.75 1",.offset = 64 };
    path = write_file (dir, "mask.txt", text, strlen (text));
    a = (Settings) {.mask_location = path,.offset = 64 };
    expect_same_output (backend, "BGRx", &a, &b, "text 7x1");
    g_free (path);
  }

  /* PNG, 8 bits, 7 x 5 */
  kernel = random_mask (v, 7, 5, 255);
  for (gint k = 0; k < 35; k++)
    bytes[k] = (guint8) v[k];
  path = g_build_filename (dir, "mask.png", NULL);
  write_png (path, bytes, 7, 5);
  {
    Settings a = {.mask_location = path,.border = "wrap" };
    Settings b = {.kernel = kernel,.border = "wrap" };
    expect_same_output (backend, "NV12", &a, &b, "PNG 7x5");
    /* `kernel` wins over the file; the file over `preset` */
    Settings c = {.kernel = "1 2 1",.mask_location = path };
    Settings d = {.kernel = "1 2 1" };
    expect_same_output (backend, "GRAY8", &c, &d, "kernel before the file");
    Settings e = {.mask_location = path,.preset = "sobel" };
    Settings f = {.kernel = kernel };
    expect_same_output (backend, "GRAY8", &e, &f, "the file before preset");
  }
  g_free (path);
  g_free (kernel);
  g_string_free (data, TRUE);
  g_rmdir (dir);                /* fails while files remain: removed below */
  {
    GDir *d = g_dir_open (dir, 0, NULL);
    const gchar *name;
    while (d && (name = g_dir_read_name (d))) {
      gchar *f = g_build_filename (dir, name, NULL);
      g_remove (f);
      g_free (f);
    }
    if (d)
      g_dir_close (d);
    g_rmdir (dir);
  }
  g_free (dir);
}

GST_END_TEST;

/* Files that give no mask: the start fails naming the file and why; set
 * while playing, a warning and the current mask stays. */
GST_START_TEST (test_bad_mask_files)
{
  const gchar *backend = backends[__i__];
  gchar *dir = g_dir_make_tmp ("cf-mask-XXXXXX", NULL);
  GString *big = g_string_new ("P2 257 257 255\n");
  static const guint8 garbage[] = { 0x7f, 'E', 'L', 'F', 0, 1, 2, 3 };
  struct
  {
    const gchar *name, *data;
    gsize size;
    const gchar *why;
  } bad[] = {
    {"missing.pgm", NULL, 0, "No such file"},
    {"binary", (const gchar *) garbage, sizeof (garbage),
        "neither a PGM or PNG image nor text"},
    {"empty.txt", "# nothing\n\n", 11, "holds no numbers"},
    {"even.txt", "1 2\n3 4\n", 8, "odd"},
    {"short.pgm", "P5 4 4 255\nab", 13, "cut short"},
    {"header.pgm", "P2 3\n", 5, "not a PGM image"},
    {"big.pgm", NULL, 0, "at most 255"},
    {"truncated.png", "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16, "PNG"},
    {"", NULL, 0, "not a regular file"},      /* the folder itself */
    {"huge.txt", NULL, 0, "far more than any mask file takes"},
  };

  GString *huge = g_string_new (NULL);

  for (gint k = 0; k < 257 * 257; k++)
    g_string_append (big, "1 ");
  while (huge->len <= (4 << 20))       /* the element reads up to 4 MB */
    g_string_append (huge, "1 2 1\n");
  for (guint k = 0; k < G_N_ELEMENTS (bad); k++) {
    const GString *made = !strcmp (bad[k].name, "big.pgm") ? big
        : !strcmp (bad[k].name, "huge.txt") ? huge : NULL;
    gchar *path = bad[k].data || made
        ? write_file (dir, bad[k].name, made ? made->str : bad[k].data,
        made ? made->len : bad[k].size)
        : g_build_filename (dir, bad[k].name, NULL);
    Settings s = {.mask_location = path };
    GstElement *e = make_conv (backend, &s);
    gchar *what = g_strdup_printf ("mask file %s [%s]", bad[k].name,
        backend);

    expect_start_failure (e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        bad[k].why, NULL, what);
    gst_object_unref (e);
    if (bad[k].name[0])
      g_remove (path);
    g_free (path);
    g_free (what);
  }
  g_string_free (huge, TRUE);
  /* while playing: refused, the preset's mask goes on */
  {
    Settings s = {.preset = "sharpen" };
    GstVideoInfo info;
    gchar *missing = g_build_filename (dir, "missing.png", NULL), *location;
    Mask m;
    Conv c;

    mask_from_settings (&s, &m);
    video_info (&info, "RGBA", 37, 23);
    conv_start (&c, backend, &s);
    conv_set_caps (&c, &info);
    expect_refused (&c, &info, &m, "mask-location", missing, "No such file",
        "a missing mask file while playing");
    g_object_get (c.conv, "mask-location", &location, NULL);
    fail_unless (location == NULL, "mask-location reads back \"%s\" after "
        "it was refused", location);
    conv_stop (&c, "a missing mask file while playing");
    g_free (missing);
  }
  g_string_free (big, TRUE);
  g_rmdir (dir);
  g_free (dir);
}

GST_END_TEST;

/* Caps pushed into `c`, expecting refusal: the next buffer push returns
 * not-negotiated. */
static void
expect_not_negotiated (Conv * c, const GstVideoInfo * info,
    const gchar * what)
{
  GstSegment segment;
  GstBuffer *in = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstFlowReturn ret;

  gst_buffer_memset (in, 0, 0x42, info->size);
  /* a refused caps event still reads as handled (sticky events are kept
   * for later): the buffer push tells */
  {
    GstCaps *caps = gst_video_info_to_caps (info);
    gst_harness_push_event (c->h, gst_event_new_caps (caps));
    gst_caps_unref (caps);      /* the event holds its own reference */
  }
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_harness_push_event (c->h, gst_event_new_segment (&segment));
  ret = gst_harness_push (c->h, in);
  fail_unless (ret == GST_FLOW_NOT_NEGOTIATED, "%s: pushing a frame "
      "returned %s, not not-negotiated", what, gst_flow_get_name (ret));
  fail_unless (gst_harness_try_pull (c->h) == NULL, "%s: a frame came out",
      what);
}

GST_START_TEST (test_mask_larger_than_frame)
{
  const gchar *backend = backends[__i__];
  static const struct
  {
    Settings s;
    const gchar *format;
    gint w, h;
    const gchar *why;
  } cases[] = {
    {{.preset = "box",.size = 31}, "GRAY8", 16, 16, "larger than the 16x16 "
          "frame"},
    {{.kernel = K_7X5}, "RGBA", 6, 30, "larger than the 6x30 frame"},
    {{.kernel = "1;1;1"}, "BGR", 30, 2, "larger than"},
    {{.preset = "sharpen",.planes = "all"}, "I420", 2, 2, "larger than"},
    {{.preset = "sharpen",.planes = "all"}, "I420", 4, 4, "larger than the "
          "2x2 chroma plane"},
    {{.kernel = "1 1 1",.planes = "all"}, "Y42B", 4, 4, "chroma plane"},
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    GstVideoInfo info;
    Conv c;
    gchar *what = g_strdup_printf ("mask larger than %s %dx%d [%s]",
        cases[k].format, cases[k].w, cases[k].h, backend);

    video_info (&info, cases[k].format, cases[k].w, cases[k].h);
    conv_start (&c, backend, &cases[k].s);
    expect_not_negotiated (&c, &info, what);
    g_free (expect_message (c.bus, GST_MESSAGE_ERROR, GST_CORE_ERROR,
            GST_CORE_ERROR_NEGOTIATION, cases[k].why, what));
    drain_messages (c.bus, GST_MESSAGE_ANY);
    conv_stop (&c, what);
    g_free (what);
  }

  /* the same 3x3 mask on the luma plane alone fits */
  {
    Settings s = {.preset = "sharpen" };
    run_one_frame (backend, "I420", 4, 4, &s, "3x3 on 4x4 luma");
  }
}

GST_END_TEST;

GST_START_TEST (test_unsupported_caps)
{
  const gchar *backend = backends[__i__];
  static const gchar *const refused[] = {
    "video/x-raw,format=UYVY,width=16,height=16,framerate=0/1",
    "video/x-raw,format=GRAY16_BE,width=16,height=16,framerate=0/1",
    "audio/x-raw,format=S16LE,rate=48000,channels=1,layout=interleaved",
  };

  for (guint k = 0; k < G_N_ELEMENTS (refused); k++) {
    GstCaps *caps = gst_caps_from_string (refused[k]);
    GstSegment segment;
    GstFlowReturn ret;
    GstPad *sink;
    Conv c;

    conv_start (&c, backend, NULL);
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

/* backend=cuda where no GPU is usable: the start fails. */
GST_START_TEST (test_cuda_without_gpu)
{
  check_cuda_without_gpu ("cudaconv2d");
}

GST_END_TEST;

/* ---- 5. properties ------------------------------------------------------- */

static void
check_enum (GObject * obj, const gchar * prop, const gchar * def,
    const gchar * const *nicks, guint n_nicks)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (obj),
      prop);

  fail_unless (pspec && G_IS_PARAM_SPEC_ENUM (pspec), "no enum %s", prop);
  fail_unless_equals_string (enum_nick (obj, prop), def);
  fail_unless_equals_int (G_PARAM_SPEC_ENUM (pspec)->enum_class->n_values,
      n_nicks);
  for (guint k = 0; k < n_nicks; k++) {
    gst_util_set_object_arg (obj, prop, nicks[k]);
    fail_unless (!strcmp (enum_nick (obj, prop), nicks[k]),
        "%s=%s reads back %s", prop, nicks[k], enum_nick (obj, prop));
  }
}

static void
check_double (GObject * obj, const gchar * prop, gdouble def, gdouble min,
    gdouble max, gdouble other, gboolean controllable)
{
  GParamSpecDouble *pspec = (GParamSpecDouble *)
      g_object_class_find_property (G_OBJECT_GET_CLASS (obj), prop);
  gdouble v;

  fail_unless (pspec && G_IS_PARAM_SPEC_DOUBLE (pspec), "no double %s",
      prop);
  g_object_get (obj, prop, &v, NULL);
  fail_unless (v == def, "%s defaults to %g, not %g", prop, v, def);
  fail_unless (pspec->minimum == min && pspec->maximum == max,
      "%s ranges over [%g, %g], not [%g, %g]", prop, pspec->minimum,
      pspec->maximum, min, max);
  fail_unless (!!(G_PARAM_SPEC (pspec)->flags & GST_PARAM_CONTROLLABLE) ==
      controllable, "%s is%s controllable", prop, controllable ? " not" : "");
  g_object_set (obj, prop, other, NULL);
  g_object_get (obj, prop, &v, NULL);
  fail_unless (v == other, "%s=%g reads back %g", prop, other, v);
}

static void
check_int (GObject * obj, const gchar * prop, gint def, gint min, gint max,
    gint other)
{
  GParamSpecInt *pspec = (GParamSpecInt *)
      g_object_class_find_property (G_OBJECT_GET_CLASS (obj), prop);
  gint v;

  fail_unless (pspec && G_IS_PARAM_SPEC_INT (pspec), "no int %s", prop);
  g_object_get (obj, prop, &v, NULL);
  fail_unless_equals_int (v, def);
  fail_unless (pspec->minimum == min && pspec->maximum == max,
      "%s ranges over [%d, %d], not [%d, %d]", prop, pspec->minimum,
      pspec->maximum, min, max);
  g_object_set (obj, prop, other, NULL);
  g_object_get (obj, prop, &v, NULL);
  fail_unless_equals_int (v, other);
}

GST_START_TEST (test_properties)
{
  static const gchar *const presets[] = { "none", "box", "gaussian",
    "sharpen", "unsharp", "sobel-x", "sobel-y", "sobel", "laplacian",
    "emboss", "disc"
  };
  static const gchar *const planes[] = { "luma", "all" };
  static const gchar *const backend_nicks[] = { "auto", "cuda", "cpu" };
  GstElement *e = gst_element_factory_make ("cudaconv2d", NULL);
  GObject *obj;
  GParamSpec *pspec;
  gchar *kernel;

  fail_unless (e != NULL, "no cudaconv2d element");
  obj = G_OBJECT (e);

  g_object_get (obj, "kernel", &kernel, NULL);
  fail_unless (kernel == NULL, "kernel defaults to \"%s\"", kernel);
  g_object_set (obj, "kernel", "1, 2 ,1", NULL);
  g_object_get (obj, "kernel", &kernel, NULL);
  fail_unless_equals_string (kernel, "1, 2 ,1");
  g_free (kernel);

  check_enum (obj, "preset", DEFAULT_PRESET, presets,
      G_N_ELEMENTS (presets));
  check_enum (obj, "border", "clamp", borders, G_N_ELEMENTS (borders));
  check_enum (obj, "algorithm", "auto", algorithms,
      G_N_ELEMENTS (algorithms));
  check_enum (obj, "planes", "luma", planes, G_N_ELEMENTS (planes));
  check_enum (obj, "backend", "auto", backend_nicks,
      G_N_ELEMENTS (backend_nicks));

  check_int (obj, "size", 0, 0, MAX_FACTOR, 7);
  check_int (obj, "cuda-device-id", -1, -1, G_MAXINT16, 0);
  check_double (obj, "sigma", DEFAULT_SIGMA, 0.05, 170.0, 2.5, TRUE);
  check_double (obj, "radius", 8.0, 0.0, 100.0, 33.5, TRUE);
  check_double (obj, "divisor", 0.0, -1e9, 1e9, -3.5, TRUE);
  check_double (obj, "offset", 0.0, -1e9, 1e9, 17.25, TRUE);

  /* the device is chosen at start */
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (obj), "backend");
  fail_unless (pspec->flags & GST_PARAM_MUTABLE_READY);
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (obj),
      "cuda-device-id");
  fail_unless (pspec->flags & GST_PARAM_MUTABLE_READY);
  gst_object_unref (e);
}

GST_END_TEST;

/* ---- the GPU suite: backend=cuda against backend=cpu --------------------- */


/* One frame through backend=cpu and backend=cuda with the same settings.
 * `check_reference`: also against the reference (off for the largest
 * frames, where the CPU backend, itself checked, stands in). Returns the
 * number of warnings the GPU element posted. */
static guint
compare_gpu (const gchar * format, gint w, gint h, const Settings * s,
    gboolean check_reference, const gchar * label)
{
  GstVideoInfo info;
  GstBuffer *in, *cpu_out, *gpu_out;
  Conv cpu, gpu;
  Mask m;
  guint warnings = 0;
  GstMessage *msg;
  gchar *what = g_strdup_printf ("%s [%s %dx%d]", label, format, w, h);

  /* long masks do not fit the 2D reference: against the CPU backend */
  if (check_reference)
    mask_from_settings (s, &m);
  video_info (&info, format, w, h);
  in = random_frame (&info);
  conv_start (&cpu, "cpu", s);
  conv_start (&gpu, "cuda", s);
  conv_set_caps (&cpu, &info);
  conv_set_caps (&gpu, &info);
  cpu_out = conv_push (&cpu, in, what);
  gpu_out = conv_push (&gpu, in, what);
  check_frame (what, &info, in, gpu_out, check_reference ? &m : NULL,
      all_planes (s), cpu_out);
  release_output (cpu_out);
  release_output (gpu_out);
  gst_buffer_unref (in);
  while ((msg = gst_bus_pop_filtered (gpu.bus, GST_MESSAGE_WARNING))) {
    warnings++;
    gst_message_unref (msg);
  }
  conv_stop (&cpu, what);
  conv_stop (&gpu, what);
  g_free (what);
  return warnings;
}

/* Every format x mask x border x algorithm, at two odd sizes (the larger
 * spans several tiles of every variant). */
GST_START_TEST (test_gpu_matches_cpu)
{
  const gchar *format = formats[__i__];
  static const Settings masks[] = {
    {.kernel = K_GENERAL,.offset = 7},
    {.preset = "gaussian",.sigma = 1.5},        /* separable, 11x11 */
    {.preset = "sobel"},
  };
  static const gint sizes[][2] = { {37, 23}, {131, 45} };

  for (guint k = 0; k < G_N_ELEMENTS (masks); k++)
    for (guint b = 0; b < G_N_ELEMENTS (borders); b++)
      for (guint a = 0; a < G_N_ELEMENTS (algorithms); a++) {
        Settings s = masks[k];
        const gint *size = sizes[(k + b + a) % 2];
        gchar *label;

        s.border = borders[b];
        s.algorithm = algorithms[a];
        /* planar YUV: chroma filtered on every other run */
        s.planes = (b + a) % 2 ? "all" : "luma";
        label = g_strdup_printf ("cuda vs cpu: mask %u border=%s "
            "algorithm=%s planes=%s", k, s.border, s.algorithm, s.planes);
        compare_gpu (format, size[0], size[1], &s, TRUE, label);
        g_free (label);
      }
}

GST_END_TEST;

/* Frames at the edges of the tiles: one row, one column, the mask as large
 * as the frame, a 31x31 mask. */
GST_START_TEST (test_gpu_edge_frames)
{
  static const struct
  {
    const gchar *format;
    gint w, h;
    Settings s;
  } cases[] = {
    {"GRAY8", 1, 67, {.kernel = "1; 2; 3; -1; 2"}},
    {"GRAY8", 301, 1, {.kernel = "1 2 3 -1 2"}},
    {"RGBA", 7, 5, {.kernel = K_7X5}},
    {"GRAY16_LE", 5, 3, {.kernel = K_GENERAL}},
    {"GRAY8", 33, 35, {.preset = "box",.size = 31}},
    {"RGB", 40, 31, {.preset = "unsharp",.sigma = 6.0}},
    /* long masks (conv2d_long.h) over frames narrower than them */
    {"RGB", 40, 31, {.preset = "gaussian",.sigma = 6.0}},
    {"GRAY8", 1, 67, {.preset = "gaussian",.sigma = 30.0}},
    {"RGBA", 40, 31, {.preset = "box",.size = 99}},
    /* chroma 3x3, as large as the mask */
    {"NV12", 6, 6, {.kernel = "1 2 1; 0 3 1; -1 2 1",.planes = "all"}},
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    for (guint b = 0; b < G_N_ELEMENTS (borders); b++)
      for (guint a = 0; a < G_N_ELEMENTS (algorithms); a++) {
        Settings s = cases[k].s;
        gchar *label;

        s.border = borders[b];
        s.algorithm = algorithms[a];
        label = g_strdup_printf ("edge frame %u border=%s algorithm=%s", k,
            s.border, s.algorithm);
        compare_gpu (cases[k].format, cases[k].w, cases[k].h, &s,
            !long_preset (&s), label);
        g_free (label);
      }
}

GST_END_TEST;

/* Planes large enough to go through the GPU in several strips (2 MiB a
 * strip), with a tall mask whose halo crosses strip edges and, with wrap,
 * reads the other end of the frame. */
GST_START_TEST (test_gpu_strips)
{
  static const struct
  {
    const gchar *format;
    gint w, h;
  } frames[] = {
    {"GRAY8", 2053, 2051},      /* 2 strips */
    {"RGBA", 1031, 1029},       /* 2 strips */
    {"RGBA", 2049, 2047},       /* 8 strips */
  };

  for (guint f = 0; f < G_N_ELEMENTS (frames); f++)
    for (guint b = 0; b < G_N_ELEMENTS (borders); b++) {
      Settings s = {.kernel = K_TALL,.border = borders[b] };
      Settings tall = {.preset = "box",.size = 31,.border = borders[b],
        .algorithm = "basic"
      };
      gchar *label = g_strdup_printf ("strips border=%s", borders[b]);

      compare_gpu (frames[f].format, frames[f].w, frames[f].h, &s, FALSE,
          label);
      compare_gpu (frames[f].format, frames[f].w, frames[f].h, &tall, FALSE,
          label);
      g_free (label);
    }
}

GST_END_TEST;

/* algorithm=separable on a mask of rank > 1: right output through the
 * fallback, and one warning for the mask however many frames. */
GST_START_TEST (test_gpu_separable_fallback)
{
  Settings general = {.kernel = K_GENERAL,.algorithm = "separable" };
  Settings rank1 = {.preset = "gaussian",.algorithm = "separable" };
  GstVideoInfo info;
  Mask m;
  Conv c;

  mask_from_settings (&general, &m);
  video_info (&info, "RGBA", 131, 45);
  conv_start (&c, "cuda", &general);
  conv_set_caps (&c, &info);
  for (gint k = 0; k < 3; k++) {
    GstBuffer *in = random_frame (&info), *out;
    gchar *what = g_strdup_printf ("separable fallback, frame %d", k);

    out = conv_push (&c, in, what);
    check_frame (what, &info, in, out, &m, FALSE, NULL);
    if (k == 0)
      g_free (expect_message (c.bus, GST_MESSAGE_WARNING, GST_LIBRARY_ERROR,
              GST_LIBRARY_ERROR_SETTINGS, "separable", what));
    expect_no_message (c.bus, what);
    release_output (out);
    gst_buffer_unref (in);
    g_free (what);
  }
  conv_stop (&c, "separable fallback");

  fail_unless_equals_int (compare_gpu ("GRAY8", 37, 23, &rank1, TRUE,
          "separable on a Gaussian"), 0);
}

GST_END_TEST;

/* Changes while playing on the GPU: masks, caps (device buffers grow and
 * shrink), planes. */
GST_START_TEST (test_gpu_changes)
{
  static const struct
  {
    const gchar *format;
    gint w, h;
    const gchar *prop, *value;
  } steps[] = {
    {"RGBA", 37, 23, NULL, NULL},
    {"RGBA", 37, 23, "kernel", K_7X5},
    {"GRAY8", 640, 481, "border", "wrap"},
    {"I420", 129, 67, "planes", "all"},
    {"GRAY16_LE", 9, 7, "algorithm", "tiled"},
    {"NV12", 301, 203, "preset", "sobel"},
    {"NV12", 301, 203, "kernel", NULL},
    {"RGBx", 37, 23, "sigma", "0.7"},
  };
  Settings s = {.kernel = K_GENERAL };
  Conv c;

  conv_start (&c, "cuda", &s);
  for (guint k = 0; k < G_N_ELEMENTS (steps); k++) {
    GstVideoInfo info;
    GstBuffer *in, *out;
    Mask m;
    gchar *what = g_strdup_printf ("GPU change %u: %s=%s, %s %dx%d", k,
        steps[k].prop, steps[k].value, steps[k].format, steps[k].w,
        steps[k].h);

    if (steps[k].prop) {
      set_prop (c.conv, steps[k].prop, steps[k].value);
      if (!strcmp (steps[k].prop, "kernel"))
        s.kernel = steps[k].value;
      else if (!strcmp (steps[k].prop, "border"))
        s.border = steps[k].value;
      else if (!strcmp (steps[k].prop, "planes"))
        s.planes = steps[k].value;
      else if (!strcmp (steps[k].prop, "preset"))
        s.preset = steps[k].value;
      else if (!strcmp (steps[k].prop, "sigma"))
        s.sigma = g_ascii_strtod (steps[k].value, NULL);
    }
    mask_from_settings (&s, &m);
    video_info (&info, steps[k].format, steps[k].w, steps[k].h);
    conv_set_caps (&c, &info);
    in = random_frame (&info);
    out = conv_push (&c, in, what);
    check_frame (what, &info, in, out, &m, all_planes (&s), NULL);
    release_output (out);
    gst_buffer_unref (in);
    g_free (what);
  }
  conv_stop (&c, "GPU changes");
}

GST_END_TEST;

GST_START_TEST (test_gpu_bad_device)
{
  GstElement *e = make_conv ("cuda", NULL);

  g_object_set (e, "cuda-device-id", G_MAXINT16, NULL);
  expect_start_failure (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "cuda-device-id", NULL, "cuda-device-id beyond the devices");
  gst_object_unref (e);
}

GST_END_TEST;

/* ---- suites -------------------------------------------------------------- */

static Suite *
cudaconv2d_suite (void)
{
  Suite *s = suite_create ("cudaconv2d");
  TCase *tc = tcase_create ("general");
  gint n = G_N_ELEMENTS (backends);

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_cuda_without_gpu);
  tcase_add_loop_test (tc, test_formats, 0, n);
  tcase_add_loop_test (tc, test_padded_strides, 0, n);
  tcase_add_loop_test (tc, test_presets, 0, n);
  tcase_add_loop_test (tc, test_kernel_wins, 0, n);
  tcase_add_loop_test (tc, test_divisor_offset, 0, n);
  tcase_add_loop_test (tc, test_rounding, 0, n);
  tcase_add_loop_test (tc, test_borders, 0, n);
  tcase_add_loop_test (tc, test_mask_shapes, 0, n);
  tcase_add_loop_test (tc, test_random_masks, 0, n);
  tcase_add_loop_test (tc, test_algorithms, 0, n);
  tcase_add_loop_test (tc, test_change_while_playing, 0, n);
  tcase_add_loop_test (tc, test_caps_change, 0, n);
  tcase_add_loop_test (tc, test_restart, 0, n);
  tcase_add_loop_test (tc, test_bad_kernel_before_start, 0, n);
  tcase_add_loop_test (tc, test_bad_kernel_while_playing, 0, n);
  tcase_add_loop_test (tc, test_mask_larger_than_frame, 0, n);
  tcase_add_loop_test (tc, test_long_masks, 0, n);
  tcase_add_loop_test (tc, test_long_mask_limits, 0, n);
  tcase_add_loop_test (tc, test_spectral_masks, 0, n);
  tcase_add_loop_test (tc, test_spectral_mask_limits, 0, n);
  tcase_add_loop_test (tc, test_regions, 0, n);
  tcase_add_loop_test (tc, test_region_sigma, 0, n);
  tcase_add_loop_test (tc, test_regions_in_place_limit, 0, n);
  tcase_add_loop_test (tc, test_regions_padded_layout, 0, n);
  tcase_add_loop_test (tc, test_bad_region_types, 0, n);
  tcase_add_loop_test (tc, test_mask_files, 0, n);
  tcase_add_loop_test (tc, test_bad_mask_files, 0, n);
  tcase_add_loop_test (tc, test_unsupported_caps, 0, n);
  return s;
}

static Suite *
cudaconv2d_gpu_suite (void)
{
  Suite *s = suite_create ("cudaconv2d-gpu");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_gpu_matches_cpu, 0, G_N_ELEMENTS (formats));
  tcase_add_test (tc, test_gpu_edge_frames);
  tcase_add_test (tc, test_gpu_strips);
  tcase_add_test (tc, test_gpu_separable_fallback);
  tcase_add_test (tc, test_gpu_changes);
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

  if (!element_test_init ("cudaconv2d", &argc, &argv, &gpu))
    return 1;
  name = gpu ? "cudaconv2d-gpu" : "cudaconv2d";
  if (gpu) {
    gchar *why = cuda_unusable_reason ("cudaconv2d");
    if (why) {
      g_print ("SKIP %s: %s\n", name, why);
      g_free (why);
      return 77;
    }
    s = cudaconv2d_gpu_suite ();
  } else {
    s = cudaconv2d_suite ();
  }
  ret = gst_check_run_suite (s, name, __FILE__);
  g_print ("%s: %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
      " samples checked (seed %u)\n", name, frames_checked, samples_checked,
      seed);
  g_rand_free (rng);
  return ret;
}
