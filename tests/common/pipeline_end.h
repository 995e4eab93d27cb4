/* How a pipeline that is playing ends, for tests that run many: waits for
 * EOS or an ERROR (30 s at most), stops and frees the pipeline, and says
 * "ran", "error from ELEMENT: TEXT" or "hang" (a g_free'd string). */
#ifndef CF_TEST_PIPELINE_END_H
#define CF_TEST_PIPELINE_END_H

#include <gst/gst.h>

static inline gchar *
pipeline_end (GstElement * pipe)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gchar *result;

  if (!m) {
    result = g_strdup ("hang");
  } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
    result = g_strdup ("ran");
  } else {
    GError *err = NULL;
    gst_message_parse_error (m, &err, NULL);
    result = g_strdup_printf ("error from %s: %s",
        GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), err && err->message
        && *err->message ? err->message : "(no text)");
    g_clear_error (&err);
  }
  if (m)
    gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return result;
}

#endif
