/* The pipelines a test has running: a failed check leaves them playing,
 * and the program could not end with their threads blocked; the teardown
 * (a GstCheck fixture) stops them. Needs watchdog.h before it. */
#ifndef __LIVE_PIPELINES_H__
#define __LIVE_PIPELINES_H__

#include <gst/gst.h>

static GPtrArray *live;

static GstElement *
track (GstElement * p)
{
  if (p)
    g_ptr_array_add (live, gst_object_ref (p));
  return p;
}

static void
live_setup (void)
{
  if (!live)
    live = g_ptr_array_new ();
}

static void
live_teardown (void)
{
  watchdog_disarm ();
  for (guint k = 0; k < live->len; k++) {
    gst_element_set_state (g_ptr_array_index (live, k), GST_STATE_NULL);
    gst_object_unref (g_ptr_array_index (live, k));
  }
  g_ptr_array_set_size (live, 0);
}

#endif
