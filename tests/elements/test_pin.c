/* Page-locking from two threads at once, as two branches of a tee see the
 * same memories: each memory gets one record, made and changed in one step
 * (gstcudapin.c). Without a GPU, registration is refused and the records
 * still race; ThreadSanitizer's build (tests/sanitizers) reports a race on
 * a record; on the GPU, a memory registered twice, or a record lost,
 * leaves cudaHostRegister's "already registered" for the re-registration
 * that follows below. */
#include <stdio.h>

#include <gst/gst.h>

#include "gpu.h"
#include "gstcudapin.h"
#include "test_util.h"

#define BUFFERS 64
#define ROUNDS 200

static GstBuffer *buffers[BUFFERS];
static gint start_line;

static gpointer
pin_all (gpointer data G_GNUC_UNUSED)
{
  /* both threads start together, then pin every buffer twice (seen,
   * then registered) */
  g_atomic_int_inc (&start_line);
  while (g_atomic_int_get (&start_line) < 2)
    g_thread_yield ();
  for (guint k = 0; k < BUFFERS; k++) {
    gst_cuda_pin_buffer (buffers[k]);
    gst_cuda_pin_buffer (buffers[k]);
  }
  return NULL;
}

int
main (int argc, char **argv)
{
  int devices = 0;
  gboolean gpu = cf_gpu_device_count (&devices) == CF_OK && devices > 0;
  guint failures = 0;

  gst_init (&argc, &argv);
  for (guint round = 0; round < ROUNDS; round++) {
    gpointer data[BUFFERS];
    GThread *a, *b;

    for (guint k = 0; k < BUFFERS; k++) {
      buffers[k] = gst_buffer_new_allocate (NULL, 65536, NULL);
      data[k] = NULL;
    }
    g_atomic_int_set (&start_line, 0);
    a = g_thread_new ("branch-a", pin_all, NULL);
    b = g_thread_new ("branch-b", pin_all, NULL);
    g_thread_join (a);
    g_thread_join (b);
    for (guint k = 0; k < BUFFERS; k++) {
      GstMapInfo map;
      if (gst_buffer_map (buffers[k], &map, GST_MAP_READ)) {
        data[k] = map.data;
        gst_buffer_unmap (buffers[k], &map);
      }
      /* the record unregisters the memory as it goes */
      gst_buffer_unref (buffers[k]);
    }
    /* on the GPU every memory was registered once and unregistered with
     * its record: what malloc hands out again registers cleanly */
    if (gpu) {
      for (guint k = 0; k < BUFFERS; k++) {
        gpointer p = g_malloc (65536);
        int st = cf_gpu_host_register (p, 65536);
        if (st != CF_OK) {
          failures++;
          fprintf (stderr, "round %u: memory %p cannot be registered (%s): "
              "a registration outlived its record\n", round, p,
              cf_status_name (st));
        } else {
          cf_gpu_host_unregister (p);
        }
        g_free (p);
      }
    }
    (void) data;
  }
  printf ("%u rounds of %u buffers pinned from two threads (%s): %u "
      "failures\n", ROUNDS, BUFFERS, gpu ? "GPU" : "no GPU: records only",
      failures);
  return failures ? 1 : 0;
}
