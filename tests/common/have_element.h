/* Whether an element of that name is registered here (a stock element of
 * the GStreamer at hand: nvcodec's register only where a GPU and their
 * libraries are). */
#ifndef CF_TEST_HAVE_ELEMENT_H
#define CF_TEST_HAVE_ELEMENT_H

#include <gst/gst.h>

static inline gboolean
have_element (const gchar * name)
{
  GstElementFactory *f = gst_element_factory_find (name);

  if (f)
    gst_object_unref (f);
  return f != NULL;
}

#endif
