/* Whether `factory` starts with backend=cuda here: the benchmarks skip
 * their GPU rows (or all of them) when it does not. */
#ifndef BENCH_GPU_H
#define BENCH_GPU_H

#include <gst/gst.h>
#include <stdio.h>
#include <string.h>

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

/* The flags every element benchmark takes (--quick, --no-gpu; others are
 * left to it) and whether it can run here: 0, or 77 after saying why it
 * skips (no `factory`; no GPU, unless --no-gpu asks for the CPU rows
 * alone). */
static inline int
bench_start (const gchar * name, const gchar * factory, int argc,
    char **argv, gboolean * quick, gboolean * no_gpu)
{
  *quick = *no_gpu = FALSE;
  for (int k = 1; k < argc; k++) {
    *quick |= strcmp (argv[k], "--quick") == 0;
    *no_gpu |= strcmp (argv[k], "--no-gpu") == 0;
  }
  if (!gst_element_factory_find (factory)) {
    printf ("SKIP %s: %s not found (GST_PLUGIN_PATH?)\n", name, factory);
    return 77;
  }
  if (!*no_gpu && !bench_gpu_usable (factory)) {
    printf ("SKIP %s: no usable CUDA device\n", name);
    return 77;
  }
  return 0;
}

#endif
