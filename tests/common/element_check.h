/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What every element test needs: checking the messages an element posts,
 * poisoning output before it goes back to a pool, whether backend=cuda can
 * run here, and the start of a test program (seed, plugin, --gpu). Header
 * only: each test is one program.
 */
#ifndef ELEMENT_CHECK_H
#define ELEMENT_CHECK_H

#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstcheck.h>

/* What output memory holds before the element writes it. */
#define POISON 0xA5

static GRand *rng;
static guint32 seed;

/* Fails on an error or warning message nobody expected. */
static inline void
expect_no_message (GstBus * bus, const gchar * what)
{
  GstMessage *msg = gst_bus_pop_filtered (bus,
      GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
  GError *err = NULL;

  if (!msg)
    return;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &err, NULL);
  else
    gst_message_parse_warning (msg, &err, NULL);
  fail ("%s: unexpected %s message: %s", what,
      GST_MESSAGE_TYPE_NAME (msg), err->message);
}

/* Pops the next error or warning and checks its type, domain, code and
 * that its text holds `part`. Returns the text (g_free it). */
static inline gchar *
expect_message (GstBus * bus, GstMessageType type, GQuark domain, gint code,
    const gchar * part, const gchar * what)
{
  GstMessage *msg = gst_bus_pop_filtered (bus,
      GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
  GError *err = NULL;
  gchar *text;

  fail_unless (msg != NULL, "%s: no %s message was posted", what,
      type == GST_MESSAGE_ERROR ? "error" : "warning");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &err, NULL);
  else
    gst_message_parse_warning (msg, &err, NULL);
  fail_unless (GST_MESSAGE_TYPE (msg) == type, "%s: got %s \"%s\", "
      "expected a %s", what, GST_MESSAGE_TYPE_NAME (msg), err->message,
      gst_message_type_get_name (type));
  fail_unless (err->domain == domain && err->code == code,
      "%s: message \"%s\" is %s/%d, expected %s/%d", what, err->message,
      g_quark_to_string (err->domain), err->code,
      g_quark_to_string (domain), code);
  fail_unless (part == NULL || strstr (err->message, part) != NULL,
      "%s: message \"%s\" does not say \"%s\"", what, err->message, part);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return text;
}

static inline void
drain_messages (GstBus * bus, GstMessageType types)
{
  GstMessage *msg;

  while ((msg = gst_bus_pop_filtered (bus, types)))
    gst_message_unref (msg);
}

/* Sets `e` (not in a harness) to PAUSED, expecting the start to fail with
 * `domain`/`code` and a message holding `part` and, unless NULL, `also`. */
static inline void
expect_start_failure (GstElement * e, GQuark domain, gint code,
    const gchar * part, const gchar * also, const gchar * what)
{
  GstBus *bus = gst_bus_new ();
  GstStateChangeReturn ret;
  gchar *text;

  gst_element_set_bus (e, bus);
  ret = gst_element_set_state (e, GST_STATE_PAUSED);
  fail_unless (ret == GST_STATE_CHANGE_FAILURE, "%s: the start did not "
      "fail (%s)", what, gst_element_state_change_return_get_name (ret));
  text = expect_message (bus, GST_MESSAGE_ERROR, domain, code, part, what);
  fail_unless (also == NULL || strstr (text, also) != NULL,
      "%s: message \"%s\" does not say \"%s\"", what, text, also);
  g_free (text);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
}

/* Poisons an output buffer, all of its memory, before it goes back to the
 * element's pool, which hands the same memory out again. */
static inline void
release_output (GstBuffer * out)
{
  gsize offset, maxsize;
  GstMapInfo map;

  if (gst_buffer_is_writable (out)) {
    gst_buffer_get_sizes (out, &offset, &maxsize);
    gst_buffer_resize (out, -(gssize) offset, maxsize);
    if (gst_buffer_map (out, &map, GST_MAP_WRITE)) {
      memset (map.data, POISON, map.size);
      gst_buffer_unmap (out, &map);
    }
  }
  gst_buffer_unref (out);
}

/* Waits (up to a minute) until cudaconv1d has prepared the response set
 * while playing: the next buffer then takes it over. */
static inline void
wait_prepared (GstElement * e, const gchar * what)
{
  gboolean busy = TRUE;

  for (gint k = 0; k < 60000 && busy; k++) {
    g_object_get (e, "preparing", &busy, NULL);
    if (busy)
      g_usleep (1000);
  }
  fail_unless (!busy, "%s: the new response was not ready in a minute", what);
}

/* Why backend=cuda cannot start `factory` here, or NULL when it can. Runs
 * before the suite, where check's assertions cannot be used. */
static inline gchar *
cuda_unusable_reason (const gchar * factory)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  GstBus *bus = gst_bus_new ();
  gchar *why = NULL;

  gst_util_set_object_arg (G_OBJECT (e), "backend", "cuda");
  gst_element_set_bus (e, bus);
  if (gst_element_set_state (e, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    GError *err = NULL;

    if (msg) {
      gst_message_parse_error (msg, &err, NULL);
      why = g_strdup (err->message);
      g_error_free (err);
      gst_message_unref (msg);
    } else {
      why = g_strdup ("backend=cuda does not start");
    }
  }
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  return why;
}

/* backend=cuda where no GPU is usable: the start fails with a RESOURCE
 * error naming CUDA. Where a GPU is usable it says so and checks that the
 * start posts nothing. */
static inline void
check_cuda_without_gpu (const gchar * factory)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  GstBus *bus = gst_bus_new ();
  GstStateChangeReturn ret;

  gst_util_set_object_arg (G_OBJECT (e), "backend", "cuda");
  gst_element_set_bus (e, bus);
  ret = gst_element_set_state (e, GST_STATE_PAUSED);
  if (ret != GST_STATE_CHANGE_FAILURE) {
    g_print ("%s: a GPU is usable here; the no-GPU error is not checked\n",
        factory);
    expect_no_message (bus, "backend=cuda with a GPU");
  } else {
    gchar *text = expect_message (bus, GST_MESSAGE_ERROR,
        GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, "CUDA",
        "backend=cuda without a GPU");
    g_print ("%s, backend=cuda without a GPU: %s\n", factory, text);
    g_free (text);
  }
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

/* `--gpu` given: 0 when backend=cuda can start `factory`, else 77 after
 * printing "SKIP name: why". Without `--gpu`, 0. */
static inline gint
gpu_or_skip (const gchar * factory, const gchar * name, gboolean gpu)
{
  gchar *why = gpu ? cuda_unusable_reason (factory) : NULL;

  if (!why)
    return 0;
  g_print ("SKIP %s: %s\n", name, why);
  g_free (why);
  return 77;
}

/* The start of an element test program: `--gpu` taken out of argv (TRUE
 * when given), check initialised, the seed chosen (CF_TEST_SEED replays a
 * run) and the element found. Returns FALSE, having said why, when the
 * plugin is not there. */
static inline gboolean
element_test_init (const gchar * factory, gint * argc, gchar *** argv,
    gboolean * gpu)
{
  GstElementFactory *f;
  const gchar *env;
  gint n = 1;

  *gpu = FALSE;
  for (gint k = 1; k < *argc; k++) {
    if (!strcmp ((*argv)[k], "--gpu"))
      *gpu = TRUE;
    else
      (*argv)[n++] = (*argv)[k];
  }
  *argc = n;
  (*argv)[n] = NULL;

  /* a CUDA context does not survive fork(): no forked tests unless asked */
  g_setenv ("CK_FORK", "no", FALSE);
  gst_check_init (argc, argv);

  env = g_getenv ("CF_TEST_SEED");
  seed = env ? (guint32) g_ascii_strtoull (env, NULL, 0)
      : (guint32) g_get_real_time ();
  g_print ("%s%s: seed %u (set CF_TEST_SEED to replay)\n", factory,
      *gpu ? "-gpu" : "", seed);
  rng = g_rand_new_with_seed (seed);

  f = gst_element_factory_find (factory);
  if (!f) {
    g_print ("no %s element: set GST_PLUGIN_PATH_1_0 to the folder of "
        "libgstcudafilters.so\n", factory);
    return FALSE;
  }
  gst_object_unref (f);
  return TRUE;
}

#endif
