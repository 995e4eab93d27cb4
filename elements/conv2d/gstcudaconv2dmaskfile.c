/* cudaconv2d's mask files: PGM, PNG (through pngdec) or rows of text, as
 * `kernel` text. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <sys/stat.h>

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "conv2d.h"
#include "gstcudaconv2dmaskfile.h"

/* An image of w x h samples larger than any mask: NULL, or why. */
static gchar *
too_large (const gchar * path, gint64 w, gint64 h)
{
  gboolean line = w == 1 || h == 1;
  if (w <= CF_CONV2D_MAX_FACTOR && h <= CF_CONV2D_MAX_FACTOR
      && (line || (w <= CF_CONV2D_MAX_GENERAL && h <= CF_CONV2D_MAX_GENERAL)))
    return NULL;
  return g_strdup_printf ("mask-location \"%s\": the image is %"
      G_GINT64_FORMAT " x %" G_GINT64_FORMAT ": masks are at most %d x %d, "
      "or %d long as a single row or column", path, w, h,
      CF_CONV2D_MAX_GENERAL, CF_CONV2D_MAX_GENERAL, CF_CONV2D_MAX_FACTOR);
}

/* Samples `w` x `h` as kernel text: rows separated by ';'. */
static gchar *
samples_to_text (const guint * v, gint w, gint h)
{
  GString *text = g_string_sized_new ((gsize) w * h * 4);

  for (gint y = 0; y < h; y++)
    for (gint x = 0; x < w; x++)
      g_string_append_printf (text, "%u%s", v[(gsize) y * w + x],
          x + 1 < w ? " " : (y + 1 < h ? "; " : ""));
  return g_string_free (text, FALSE);
}

/* The next number of a PGM header, comments skipped; -1 when there is
 * none. */
static gint64
pgm_number (const gchar * data, gsize size, gsize * at)
{
  gint64 n = -1;

  while (*at < size) {
    gchar c = data[*at];
    if (c == '#') {
      while (*at < size && data[*at] != '\n')
        (*at)++;
    } else if (g_ascii_isspace (c)) {
      (*at)++;
    } else {
      break;
    }
  }
  while (*at < size && g_ascii_isdigit (data[*at]) && n < G_MAXINT32) {
    n = (n < 0 ? 0 : n * 10) + (data[*at] - '0');
    (*at)++;
  }
  return n;
}

static gchar *
read_pgm (const gchar * path, const gchar * data, gsize size,
    gchar ** error)
{
  gboolean binary = data[1] == '5';
  gsize at = 2;
  gint64 w = pgm_number (data, size, &at), h = pgm_number (data, size, &at);
  gint64 top = pgm_number (data, size, &at);
  gint bytes;
  guint *v;
  gchar *text;

  if (w < 1 || h < 1 || top < 1 || top > 65535) {
    *error = g_strdup_printf ("mask-location \"%s\": not a PGM image (a "
        "header of width, height and largest value 1 to 65535)", path);
    return NULL;
  }
  if ((*error = too_large (path, w, h)))
    return NULL;
  bytes = top < 256 ? 1 : 2;
  at++;                         /* the one blank after the header */
  if (binary && size < at + (gsize) (w * h * bytes)) {
    *error = g_strdup_printf ("mask-location \"%s\": the PGM image is cut "
        "short (%" G_GSIZE_FORMAT " bytes of samples for %" G_GINT64_FORMAT
        " x %" G_GINT64_FORMAT ")", path, size - MIN (size, at), w, h);
    return NULL;
  }
  v = g_new (guint, w * h);
  for (gint64 k = 0; k < w * h; k++) {
    gint64 s;
    if (binary) {
      const guint8 *p = (const guint8 *) data + at + k * bytes;
      s = bytes == 1 ? p[0] : (p[0] << 8 | p[1]);
    } else if ((s = pgm_number (data, size, &at)) < 0) {
      *error = g_strdup_printf ("mask-location \"%s\": the PGM image has %"
          G_GINT64_FORMAT " of its %" G_GINT64_FORMAT " samples", path, k,
          w * h);
      g_free (v);
      return NULL;
    }
    v[k] = (guint) MIN (s, top);
  }
  text = samples_to_text (v, (gint) w, (gint) h);
  g_free (v);
  return text;
}

typedef struct
{
  guint *v;
  gint w, h;
} Decoded;

static void
on_frame (GstElement * sink G_GNUC_UNUSED, GstBuffer * buf, GstPad * pad,
    gpointer user)
{
  Decoded *d = user;
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstVideoInfo info;
  GstVideoFrame frame;

  if (d->v || !caps || !gst_video_info_from_caps (&info, caps)
      || !gst_video_frame_map (&frame, &info, buf, GST_MAP_READ)) {
    if (caps)
      gst_caps_unref (caps);
    return;
  }
  d->w = GST_VIDEO_INFO_WIDTH (&info);
  d->h = GST_VIDEO_INFO_HEIGHT (&info);
  d->v = g_new (guint, (gsize) d->w * d->h);
  for (gint y = 0; y < d->h; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
        0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (gint x = 0; x < d->w; x++)
      d->v[(gsize) y * d->w + x] =
          GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_GRAY8 ? row[x]
          : GST_READ_UINT16_LE (row + 2 * x);
  }
  gst_video_frame_unmap (&frame);
  gst_caps_unref (caps);
}

static GstElement *
add (GstElement * pipe, const gchar * factory)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  if (e)
    gst_bin_add (GST_BIN (pipe), e);
  return e;
}

/* PNG through GStreamer: filesrc ! pngdec ! videoconvert ! GRAY8 or
 * GRAY16_LE (the file's bit depth) ! fakesink, to its end. */
static gchar *
read_png (const gchar * path, const gchar * data, gsize size,
    gchar ** error)
{
  /* IHDR: width and height (big endian) at 16, the bit depth at 24 */
  gboolean deep = size > 24 && (guint8) data[24] == 16;
  GstElement *pipe = gst_pipeline_new (NULL), *src, *dec, *conv, *filter,
      *sink;
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format",
      G_TYPE_STRING, deep ? "GRAY16_LE" : "GRAY8", NULL);
  Decoded d = { NULL, 0, 0 };
  GstMessage *msg = NULL;
  gchar *text = NULL;

  if (size < 24) {
    *error = g_strdup_printf ("mask-location \"%s\": the PNG image is cut "
        "short", path);
    goto done;
  }
  if ((*error = too_large (path, GST_READ_UINT32_BE (data + 16),
              GST_READ_UINT32_BE (data + 20))))
    goto done;
  src = add (pipe, "filesrc");
  dec = add (pipe, "pngdec");
  conv = add (pipe, "videoconvert");
  filter = add (pipe, "capsfilter");
  sink = add (pipe, "fakesink");
  if (!src || !dec || !conv || !filter || !sink) {
    *error = g_strdup_printf ("mask-location \"%s\": PNG masks need "
        "GStreamer's pngdec and videoconvert (gst-plugins-good and -base)",
        path);
    goto done;
  }
  g_object_set (src, "location", path, NULL);
  g_object_set (filter, "caps", caps, NULL);
  g_object_set (sink, "signal-handoffs", TRUE, "sync", FALSE, NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_frame), &d);
  if (!gst_element_link_many (src, dec, conv, filter, sink, NULL)) {
    *error = g_strdup_printf ("mask-location \"%s\": cannot build the PNG "
        "decoder", path);
    goto done;
  }
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gst_element_set_state (pipe, GST_STATE_NULL);
  if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR || !d.v) {
    GError *err = NULL;
    if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
      gst_message_parse_error (msg, &err, NULL);
    *error = g_strdup_printf ("mask-location \"%s\": the PNG image cannot "
        "be decoded (%s)", path, err ? err->message : "no picture");
    g_clear_error (&err);
    goto done;
  }
  text = samples_to_text (d.v, d.w, d.h);
done:
  if (msg)
    gst_message_unref (msg);
  gst_caps_unref (caps);
  gst_object_unref (pipe);
  g_free (d.v);
  return text;
}

/* Text: a row a line, blank and '#' lines skipped. */
static gchar *
read_text (const gchar * path, const gchar * data, gsize size,
    gchar ** error)
{
  gchar **lines;
  GString *text;

  if (memchr (data, '\0', size) || !g_utf8_validate (data, size, NULL)) {
    *error = g_strdup_printf ("mask-location \"%s\": neither a PGM or PNG "
        "image nor text", path);
    return NULL;
  }
  lines = g_strsplit_set (data, "\r\n", -1);
  text = g_string_new (NULL);
  for (guint k = 0; lines[k]; k++) {
    gchar *line = g_strstrip (lines[k]);
    gsize n = strlen (line);
    /* a row may end in the ';' that separates rows in `kernel` */
    while (n && (line[n - 1] == ';' || g_ascii_isspace (line[n - 1])))
      line[--n] = '\0';
    if (!line[0] || line[0] == '#')
      continue;
    g_string_append_printf (text, "%s%s", text->len ? "; " : "", line);
  }
  g_strfreev (lines);
  if (!text->len) {
    *error = g_strdup_printf ("mask-location \"%s\": the file holds no "
        "numbers", path);
    g_string_free (text, TRUE);
    return NULL;
  }
  return g_string_free (text, FALSE);
}

gchar *
gst_cuda_conv2d_read_mask_file (const gchar * path, gchar ** error)
{
  static const gchar png[8] = { '\x89', 'P', 'N', 'G', '\r', '\n', '\x1a',
    '\n'
  };
  GError *err = NULL;
  gchar *data = NULL, *text;
  gsize size = 0;
  GStatBuf st;

  *error = NULL;
  if (g_stat (path, &st) == 0 && !S_ISREG (st.st_mode)) {
    *error = g_strdup_printf ("mask-location \"%s\": not a regular file",
        path);
    return NULL;
  }
  if (g_stat (path, &st) == 0 && st.st_size > GST_CUDA_CONV2D_MASK_FILE_MAX) {
    *error = g_strdup_printf ("mask-location \"%s\": %" G_GINT64_FORMAT
        " bytes, far more than any mask file takes", path,
        (gint64) st.st_size);
    return NULL;
  }
  if (!g_file_get_contents (path, &data, &size, &err)) {
    /* GLib's sentence without its full stop: the element adds one */
    gsize n = strlen (err->message);
    if (n && err->message[n - 1] == '.')
      err->message[n - 1] = '\0';
    *error = g_strdup_printf ("mask-location \"%s\": %s", path, err->message);
    g_clear_error (&err);
    return NULL;
  }
  if (size >= 8 && !memcmp (data, png, 8))
    text = read_png (path, data, size, error);

  else if (size >= 2 && data[0] == 'P' && (data[1] == '2' || data[1] == '5'))
    text = read_pgm (path, data, size, error);
  else
    text = read_text (path, data, size, error);
  g_free (data);
  return text;
}
