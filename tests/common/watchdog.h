/* A watchdog for tests that drive pipelines from several threads: armed
 * with a deadline and a description of the step, it ends the program with
 * a message naming the step when the deadline passes (a deadlock, or a
 * state change that never completes), rather than letting the test hang
 * until the harness kills it without a word. */
#ifndef CF_TEST_WATCHDOG_H
#define CF_TEST_WATCHDOG_H

#include <stdlib.h>

#include <glib.h>

typedef struct
{
  GMutex lock;
  GCond cond;
  GThread *thread;
  gint64 deadline;              /* monotonic µs; 0: disarmed */
  gchar *what;
  guint32 seed;
  gboolean quit;
} Watchdog;

static Watchdog watchdog_;

static gpointer
watchdog_run (gpointer unused G_GNUC_UNUSED)
{
  g_mutex_lock (&watchdog_.lock);
  while (!watchdog_.quit) {
    if (watchdog_.deadline == 0) {
      g_cond_wait (&watchdog_.cond, &watchdog_.lock);
      continue;
    }
    if (!g_cond_wait_until (&watchdog_.cond, &watchdog_.lock,
            watchdog_.deadline) && watchdog_.deadline != 0
        && g_get_monotonic_time () >= watchdog_.deadline) {
      /* the test's thread is stuck: say where, and end the program (a
       * check failure cannot be raised from this thread) */
      g_printerr ("FAIL watchdog: \"%s\" did not finish in time: a deadlock "
          "or a state change that never completes (seed %u, set "
          "CF_TEST_SEED to replay)\n", watchdog_.what, watchdog_.seed);
      abort ();
    }
  }
  g_mutex_unlock (&watchdog_.lock);
  return NULL;
}

/* Arms (or re-arms) the watchdog: `what` must finish within `seconds`. */
static inline void
watchdog_arm (gdouble seconds, const gchar * what, guint32 seed)
{
  g_mutex_lock (&watchdog_.lock);
  if (!watchdog_.thread)
    watchdog_.thread = g_thread_new ("watchdog", watchdog_run, NULL);
  g_free (watchdog_.what);
  watchdog_.what = g_strdup (what);
  watchdog_.seed = seed;
  watchdog_.deadline = g_get_monotonic_time () + (gint64) (seconds * 1e6);
  g_cond_signal (&watchdog_.cond);
  g_mutex_unlock (&watchdog_.lock);
}

static inline void
watchdog_disarm (void)
{
  g_mutex_lock (&watchdog_.lock);
  watchdog_.deadline = 0;
  g_cond_signal (&watchdog_.cond);
  g_mutex_unlock (&watchdog_.lock);
}

/* Stops the thread (at the end of the program). */
static inline void
watchdog_stop (void)
{
  GThread *t;

  g_mutex_lock (&watchdog_.lock);
  watchdog_.quit = TRUE;
  g_cond_signal (&watchdog_.cond);
  t = watchdog_.thread;
  watchdog_.thread = NULL;
  g_mutex_unlock (&watchdog_.lock);
  if (t)
    g_thread_join (t);
  g_clear_pointer (&watchdog_.what, g_free);
}

#endif
