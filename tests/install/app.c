/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A media application as a user writes it against the installed plugin:
 * built with `pkg-config --cflags --libs gstreamer-cuda-filters-1.0
 * gstreamer-app-1.0`, it runs
 *
 *   videotestsrc ! GRAY8 ! cudaprefixsum grid-columns=2 grid-rows=2 ! appsink
 *
 * and checks each frame's GstCudaIntegralMeta (random rectangles against
 * sums of the frame's pixels computed here) and the statistics messages
 * (the whole frame's mean against the same sums). Exit status 0 when all
 * agree. Arguments: the backend (cpu, auto or cuda). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <gst/cudafilters/gstcudaintegralmeta.h>

#define W 64
#define H 48

static guint64
brute_sum (const GstVideoFrame * f, guint x0, guint y0, guint w, guint h)
{
  const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (f, 0);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);
  guint64 s = 0;

  for (guint y = y0; y < y0 + h; y++)
    for (guint x = x0; x < x0 + w; x++)
      s += data[y * stride + x];
  return s;
}

int
main (int argc, char **argv)
{
  const gchar *backend = argc > 1 ? argv[1] : "cpu";
  gchar *desc;
  GstElement *pipe, *sink;
  GstSample *sample;
  GstMessage *msg;
  GstBus *bus;
  gint frames = 0, wrong = 0, messages = 0;
  gdouble means[4] = { -1, -1, -1, -1 };     /* of each frame, by its time */

  gst_init (&argc, &argv);
  desc = g_strdup_printf ("videotestsrc num-buffers=4 pattern=snow ! "
      "video/x-raw,format=GRAY8,width=%d,height=%d ! cudaprefixsum "
      "backend=%s grid-columns=2 grid-rows=2 ! appsink name=sink "
      "sync=false", W, H, backend);
  pipe = gst_parse_launch (desc, NULL);
  g_free (desc);
  if (!pipe) {
    printf ("cannot build the pipeline: is the plugin installed?\n");
    return 1;
  }
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);

  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstCudaIntegralMeta *m = gst_buffer_get_cuda_integral_meta (buf);
    GstVideoInfo info;
    GstVideoFrame f;

    gst_video_info_from_caps (&info, gst_sample_get_caps (sample));
    gst_video_frame_map (&f, &info, buf, GST_MAP_READ);
    if (!m) {
      printf ("frame %d: no GstCudaIntegralMeta\n", frames);
      wrong++;
    }
    for (guint r = 0; m && r < 8; r++) {
      guint w = 1 + g_random_int_range (0, W), h = 1 + g_random_int_range (0,
          H);
      guint x = g_random_int_range (0, W - w + 1), y =
          g_random_int_range (0, H - h + 1);
      gdouble sum = -1;

      if (!gst_cuda_integral_meta_rect (m, 0, x, y, w, h, &sum, NULL, NULL)
          || sum != (gdouble) brute_sum (&f, x, y, w, h)) {
        printf ("frame %d: sum of %ux%u at %u,%u is %.0f, expected %"
            G_GUINT64_FORMAT "\n", frames, w, h, x, y, sum,
            brute_sum (&f, x, y, w, h));
        wrong++;
      }
    }
    {
      guint k = (guint) gst_util_uint64_scale_round (GST_BUFFER_PTS (buf), 30,
          GST_SECOND);
      if (k < G_N_ELEMENTS (means))
        means[k] = brute_sum (&f, 0, 0, W, H) / (gdouble) (W * H);
    }
    gst_video_frame_unmap (&f);
    gst_sample_unref (sample);
    frames++;
  }

  /* the statistics messages: one per 100 ms of stream (the interval) */
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (msg);
    if (gst_structure_has_name (s, "cudaprefixsum")) {
      const GValue *mean = gst_structure_get_value (s, "mean");
      const GValue *grid = gst_structure_get_value (s, "grid-mean");
      guint64 ts = 0;
      guint k;
      gdouble mu;
      guint cells;

      gst_structure_get_uint64 (s, "timestamp", &ts);
      k = (guint) gst_util_uint64_scale_round (ts, 30, GST_SECOND);
      G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
      mu = g_value_get_double (g_value_array_get_nth (g_value_get_boxed
              (mean), 0));
      cells = ((GValueArray *) g_value_get_boxed (grid))->n_values;
      G_GNUC_END_IGNORE_DEPRECATIONS;
      if (k >= G_N_ELEMENTS (means) || cells != 4
          || fabs (mu - means[k]) > 1e-9) {
        printf ("message %d (frame %u): mean %.6f (expected %.6f), %u grid "
            "cells\n", messages, k, mu, k < G_N_ELEMENTS (means)
            ? means[k] : -1.0, cells);
        wrong++;
      }
      messages++;
    }
    gst_message_unref (msg);
  }
  if ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    printf ("error: %s\n", err->message);
    g_clear_error (&err);
    gst_message_unref (msg);
    wrong++;
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  printf ("installed API: %d frames, %d messages, %d wrong\n", frames,
      messages, wrong);
  return wrong == 0 && frames == 4 && messages >= 1 ? 0 : 1;
}
