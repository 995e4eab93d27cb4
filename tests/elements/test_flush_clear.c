/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's flush when the GPU fails to clear its history (GPU).
 *
 *   test_flush_clear           the whole test; 77 without a GPU
 *   test_flush_clear --run     one run, CF_FAULT=clear:N set by the parent
 *
 * A flushing seek makes cudaconv1d forget the stream: its filter's input
 * history and the delayed dry signal of the mix are cleared on the GPU.
 * Each run pushes four buffers, a flush, and one more buffer, with the Nth
 * clear of device memory failing, for N = 1, 2, ... until a run in which
 * no clear fails. Whatever N strikes, the run must end in an error
 * (posted), or in an output after the flush that is byte for byte a fresh
 * element's: a failed clear that goes unnoticed leaves the old stream's
 * history in the new one. At least one N must strike inside the flush,
 * else the test would not test it.
 */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>
#include <gst/gst.h>
#include <gst/check/gstharness.h>

#include "harness_bytes.h"
#include "test_util.h"

#define RATE 48000
#define FRAMES 2048
#define TAPS 63
#define CAPS "audio/x-raw,format=F32LE,layout=interleaved,channels=2," \
    "rate=48000"
/* far beyond the clears of one run: the search ends well before */
#define MAX_RUNS 200

/* What a run's exit status says. */
enum
{
  RUN_HANDLED = 0,              /* the fault struck and was handled */
  RUN_MISHANDLED = 1,
  RUN_IN_FLUSH = 2,             /* handled, and it struck in the flush */
  RUN_NOT_REACHED = 3,          /* no clear failed: the search is over */
};

static GstBuffer *
random_buffer (GRand * r, guint64 first)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, FRAMES * 2
      * sizeof (gfloat), NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gsize k = 0; k < FRAMES * 2; k++)
    ((gfloat *) map.data)[k] = (gfloat) g_rand_double_range (r, -0.5, 0.5);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (first, GST_SECOND, RATE);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int (FRAMES, GST_SECOND,
      RATE);
  return buf;
}

/* A filter whose history shows: 63 random taps, and a dry signal delayed
 * by the latency mixed in. The properties are set before the element
 * starts, where a fresh element's mix begins (a mix changed later glides
 * there over the first buffer). */
static GstHarness *
new_harness (const gchar * kernel, GstBus * bus)
{
  gchar *line = g_strdup_printf ("cudaconv1d backend=cuda latency=16 "
      "mix=0.5 kernel=\"%s\"", kernel);
  GstHarness *h = gst_harness_new_parse (line);

  g_free (line);
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, CAPS);
  return h;
}

static gboolean
error_posted (GstBus * bus)
{
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  if (!m)
    return FALSE;
  gst_message_unref (m);
  return TRUE;
}

/* One run in this process; the fault comes from CF_FAULT. */
static int
run_once (void)
{
  GRand *r = g_rand_new_with_seed (7);
  GString *kernel = g_string_new (NULL);
  GstBus *bus = gst_bus_new ();
  GstHarness *h, *fresh;
  GstBuffer *after;
  GstSegment segment;
  GByteArray *got, *want;
  GstFlowReturn flow = GST_FLOW_OK;
  const gchar *where = NULL;
  int status;

  for (gint k = 0; k < TAPS; k++)
    g_string_append_printf (kernel, "%s%.6f", k ? " " : "",
        g_rand_double_range (r, -0.5, 0.5));
  h = new_harness (kernel->str, bus);
  for (guint b = 0; b < 4 && flow == GST_FLOW_OK; b++)
    flow = gst_harness_push (h, random_buffer (r, (guint64) b * FRAMES));
  g_byte_array_unref (harness_pull_bytes (h));
  if (error_posted (bus) || flow != GST_FLOW_OK)
    where = "before the flush";

  /* the flush: a failure must be posted, and the flush still ends (the
   * flush-stop goes on, so that nothing downstream stays flushing) */
  if (!where) {
    gst_harness_push_event (h, gst_event_new_flush_start ());
    gst_harness_push_event (h, gst_event_new_flush_stop (TRUE));
    gst_segment_init (&segment, GST_FORMAT_TIME);
    gst_harness_push_event (h, gst_event_new_segment (&segment));
    if (error_posted (bus))
      where = "in the flush";
  }

  /* the new stream's first buffer */
  after = random_buffer (r, 0);
  if (!where || !strcmp (where, "in the flush"))
    flow = gst_harness_push (h, gst_buffer_ref (after));
  got = harness_pull_bytes (h);
  if (!where && (error_posted (bus) || flow != GST_FLOW_OK))
    where = "after the flush";

  /* a fresh element's output, once the one fault has struck */
  fresh = new_harness (kernel->str, bus);
  gst_harness_push (fresh, after);
  want = harness_pull_bytes (fresh);
  if (!where && error_posted (bus)) {
    printf ("clear:%s: no clear of the run failed\n", g_getenv ("CF_FAULT"));
    status = RUN_NOT_REACHED;
  } else if (!where && (got->len != want->len
          || memcmp (got->data, want->data, got->len) != 0)) {
    printf ("clear:%s: no error, and the output after the flush differs "
        "from a fresh element's: a failed clear went unnoticed\n",
        g_getenv ("CF_FAULT"));
    status = RUN_MISHANDLED;
  } else if (!where) {
    printf ("clear:%s: no error, the output as fresh (the cleared memory "
        "was written again before it was read)\n", g_getenv ("CF_FAULT"));
    status = RUN_HANDLED;
  } else if (!strcmp (where, "in the flush") && flow == GST_FLOW_OK
      && (got->len != want->len
          || memcmp (got->data, want->data, got->len) != 0)) {
    printf ("clear:%s: an error in the flush, then the next buffer "
        "filtered with the old history\n", g_getenv ("CF_FAULT"));
    status = RUN_MISHANDLED;
  } else {
    printf ("clear:%s: an error %s%s\n", g_getenv ("CF_FAULT"), where,
        !strcmp (where, "in the flush") ? (flow == GST_FLOW_OK
            ? "; the next buffer as a fresh element's" : "; the next buffer "
            "refused") : "");
    status = !strcmp (where, "in the flush") ? RUN_IN_FLUSH : RUN_HANDLED;
  }
  g_byte_array_unref (got);
  g_byte_array_unref (want);
  gst_harness_teardown (fresh);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  g_string_free (kernel, TRUE);
  g_rand_free (r);
  return status;
}

int
main (int argc, char **argv)
{
  gint count = 0, runs = 0, in_flush = 0;
  gchar *self_path;

  gst_init (&argc, &argv);
  if (argc == 2 && !strcmp (argv[1], "--run"))
    return run_once ();
  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0)
    return test_skip ("flush-clear", "no CUDA device");
  self_path = g_file_read_link ("/proc/self/exe", NULL);
  if (self_path)
    argv[0] = self_path;
  for (gint n = 1; n <= MAX_RUNS; n++) {
    gchar *fault = g_strdup_printf ("clear:%d", n);
    gchar *args[] = { argv[0], (gchar *) "--run", NULL };
    gchar **env = g_environ_setenv (g_get_environ (), "CF_FAULT", fault,
        TRUE);
    gchar *out = NULL;
    gint wait_status = 0, code;
    gboolean spawned = g_spawn_sync (NULL, args, env, G_SPAWN_DEFAULT, NULL,
        NULL, &out, NULL, &wait_status, NULL);

    code = spawned && WIFEXITED (wait_status) ? WEXITSTATUS (wait_status)
        : -1;
    printf ("%s", out ? out : "");
    g_free (out);
    g_strfreev (env);
    g_free (fault);
    if (code == RUN_NOT_REACHED)
      break;
    runs++;
    in_flush += code == RUN_IN_FLUSH;
    test_check (code == RUN_HANDLED || code == RUN_IN_FLUSH, "clear:%d: %s",
        n, code == -1 ? "crashed" : "mishandled (see above)");
  }
  printf ("flush-clear: %d clears failed one at a time, %d of them in the "
      "flush\n", runs, in_flush);
  test_check (in_flush > 0, "no failed clear struck inside the flush");
  test_check (runs < MAX_RUNS, "the clears never ran out");
  g_free (self_path);
  return test_finish ("flush-clear");
}
