/* Whether `factory` starts with backend=cuda here: the benchmarks skip
 * their GPU rows (or all of them) when it does not. */
#ifndef BENCH_GPU_H
#define BENCH_GPU_H

#include <gst/gst.h>

static inline gboolean
bench_gpu_usable (const gchar * factory)
{
  GstElement *probe = gst_element_factory_make (factory, NULL);
  gboolean ok;

  if (!probe)
    return FALSE;
  gst_util_set_object_arg (G_OBJECT (probe), "backend", "cuda");
  ok = gst_element_set_state (probe, GST_STATE_PAUSED)
      != GST_STATE_CHANGE_FAILURE;
  gst_element_set_state (probe, GST_STATE_NULL);
  gst_object_unref (probe);
  return ok;
}

#endif
