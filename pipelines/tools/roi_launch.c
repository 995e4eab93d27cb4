/* Runs a pipeline as gst-launch-1.0 does, adding region-of-interest metas
 * to every frame that leaves its element named "detector": a stand-in for
 * a detector (facedetect of gst-plugins-bad's opencv plugin attaches the
 * same metas, of type "face"), for cudaconv2d's roi property.
 *
 *   roi_launch PIPELINE TYPE:X,Y,W,H...
 *
 * e.g. roi_launch "videotestsrc num-buffers=1 ! identity name=detector !
 *   cudaconv2d roi=true ! videoconvert ! pngenc ! filesink
 *   location=out.png" face:40,30,80,100 license-plate:200,150,90,30
 * Exits 0 at the end of the stream, 1 on an error or bad arguments. */
#include <stdio.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/video/video.h>

typedef struct
{
  gchar *type;
  guint x, y, w, h;
} Region;

static GstPadProbeReturn
add_regions (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info,
    gpointer user)
{
  GArray *regions = user;
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));

  for (guint k = 0; k < regions->len; k++) {
    Region *r = &g_array_index (regions, Region, k);
    gst_buffer_add_video_region_of_interest_meta (buf, r->type, r->x, r->y,
        r->w, r->h);
  }
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

static gboolean
parse_region (const gchar * arg, Region * r)
{
  const gchar *colon = strchr (arg, ':');

  if (!colon || colon == arg
      || sscanf (colon + 1, "%u,%u,%u,%u", &r->x, &r->y, &r->w, &r->h) != 4)
    return FALSE;
  r->type = g_strndup (arg, colon - arg);
  return TRUE;
}

int
main (int argc, char **argv)
{
  GArray *regions = g_array_new (FALSE, FALSE, sizeof (Region));
  GError *error = NULL;
  GstElement *pipe, *detector;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  int status = 0;

  gst_init (&argc, &argv);
  if (argc < 2) {
    fprintf (stderr, "usage: %s PIPELINE TYPE:X,Y,W,H...\n", argv[0]);
    return 1;
  }
  for (int k = 2; k < argc; k++) {
    Region r;
    if (!parse_region (argv[k], &r)) {
      fprintf (stderr, "%s: \"%s\" is not TYPE:X,Y,W,H\n", argv[0], argv[k]);
      return 1;
    }
    g_array_append_val (regions, r);
  }
  pipe = gst_parse_launch (argv[1], &error);
  if (!pipe) {
    fprintf (stderr, "%s: %s\n", argv[0], error->message);
    return 1;
  }
  detector = gst_bin_get_by_name (GST_BIN (pipe), "detector");
  if (!detector) {
    fprintf (stderr, "%s: the pipeline has no element named detector\n",
        argv[0]);
    return 1;
  }
  pad = gst_element_get_static_pad (detector, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, add_regions, regions,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (detector);

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipe);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *debug = NULL;
    gst_message_parse_error (msg, &error, &debug);
    fprintf (stderr, "ERROR: from element %s: %s\n%s\n",
        GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), error->message,
        debug ? debug : "");
    g_free (debug);
    g_clear_error (&error);
    status = 1;
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  for (guint k = 0; k < regions->len; k++)
    g_free (g_array_index (regions, Region, k).type);
  g_array_unref (regions);
  return status;
}
