/* The bytes a GstHarness has received, in order. */
#ifndef __HARNESS_BYTES_H__
#define __HARNESS_BYTES_H__

#include <gst/gst.h>
#include <gst/check/gstharness.h>

/* Moves every buffer the harness holds to the end of `out`. */
static inline void
harness_collect (GstHarness * h, GByteArray * out)
{
  GstBuffer *b;

  while ((b = gst_harness_try_pull (h))) {
    GstMapInfo map;
    gst_buffer_map (b, &map, GST_MAP_READ);
    g_byte_array_append (out, map.data, (guint) map.size);
    gst_buffer_unmap (b, &map);
    gst_buffer_unref (b);
  }
}

/* The same into a new array. */
static inline GByteArray *
harness_pull_bytes (GstHarness * h)
{
  GByteArray *bytes = g_byte_array_new ();

  harness_collect (h, bytes);
  return bytes;
}

#endif
