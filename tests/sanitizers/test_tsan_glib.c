/* gst-cuda-filters
 * Copyright (C) 2025 gst-cuda-filters contributors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The check of tsan_glib.c itself, in the ThreadSanitizer build:
 * "ordered" hands data between threads through each annotated GLib
 * primitive and must run without a report; "mutex-race" and "pool-race"
 * hold races that the annotations must not hide (two different mutexes;
 * two pool tasks that write the same variable), so ThreadSanitizer's exit
 * code fails them (meson: should_fail). */

#include <string.h>

#include <glib.h>

static gint shared;

/* ---- ordered: every hand-off annotated, no report ---------------------- */

static GMutex lock;
static GCond cond;
static gboolean ready;

static gpointer
signal_ready (G_GNUC_UNUSED gpointer data)
{
  shared = 1;
  g_mutex_lock (&lock);
  ready = TRUE;
  g_cond_signal (&cond);
  g_mutex_unlock (&lock);
  return NULL;
}

static gpointer
push_item (gpointer queue)
{
  gint *item = g_new (gint, 1);

  *item = 42;
  g_async_queue_push (queue, item);
  return NULL;
}

static void
bump (gpointer data, gpointer user_data)
{
  gint *value = data;

  (*value)++;
  g_mutex_lock (&lock);
  if (--*(gint *) user_data == 0)
    g_cond_broadcast (&cond);
  g_mutex_unlock (&lock);
}

static gint *
once_value (void)
{
  static gint *value;

  if (g_once_init_enter (&value)) {
    gint *v = g_new (gint, 1);

    *v = 7;
    g_once_init_leave (&value, v);
  }
  return value;
}

static gpointer
read_once (G_GNUC_UNUSED gpointer data)
{
  return GINT_TO_POINTER (*once_value ());
}

static int
ordered (void)
{
  GThread *thread;
  GAsyncQueue *queue = g_async_queue_new ();
  GThreadPool *pool;
  gint values[8] = { 0 }, pending = G_N_ELEMENTS (values), *item;

  /* GMutex and GCond */
  thread = g_thread_new ("signal", signal_ready, NULL);
  g_mutex_lock (&lock);
  while (!ready)
    g_cond_wait (&cond, &lock);
  g_mutex_unlock (&lock);
  g_assert_cmpint (shared, ==, 1);
  g_thread_join (thread);

  /* GAsyncQueue: the item written before the push */
  thread = g_thread_new ("push", push_item, queue);
  item = g_async_queue_pop (queue);
  g_assert_cmpint (*item, ==, 42);
  g_free (item);
  g_thread_join (thread);
  g_async_queue_unref (queue);

  /* GThreadPool: each task's data, written before its push */
  pool = g_thread_pool_new (bump, &pending, 4, FALSE, NULL);
  for (guint k = 0; k < G_N_ELEMENTS (values); k++) {
    values[k] = (gint) k;
    g_thread_pool_push (pool, &values[k], NULL);
  }
  g_mutex_lock (&lock);
  while (pending > 0)
    g_cond_wait (&cond, &lock);
  g_mutex_unlock (&lock);
  g_thread_pool_free (pool, FALSE, TRUE);
  for (guint k = 0; k < G_N_ELEMENTS (values); k++)
    g_assert_cmpint (values[k], ==, (gint) k + 1);

  /* g_once_init_enter/leave, from two threads */
  thread = g_thread_new ("once", read_once, NULL);
  g_assert_cmpint (*once_value (), ==, 7);
  g_assert_cmpint (GPOINTER_TO_INT (g_thread_join (thread)), ==, 7);
  return 0;
}

/* ---- races the annotations must leave visible -------------------------- */

static GMutex other_lock;

/* Both threads meet (relaxed atomics, which order nothing) before they
 * write, so the two writes overlap in time on every run: a child that ran
 * to its end before the parent's write made the report depend on the
 * scheduler. Several rounds, for the same reason. */
#define MUTEX_RACE_ROUNDS 16
static gint arrived;

static void
meet (gint round)
{
  __atomic_add_fetch (&arrived, 1, __ATOMIC_RELAXED);
  while (__atomic_load_n (&arrived, __ATOMIC_RELAXED) < 2 * (round + 1))
    g_thread_yield ();
}

static gpointer
write_under_other_lock (G_GNUC_UNUSED gpointer data)
{
  for (gint round = 0; round < MUTEX_RACE_ROUNDS; round++) {
    meet (round);
    g_mutex_lock (&other_lock);
    shared++;
    g_mutex_unlock (&other_lock);
  }
  return NULL;
}

static int
mutex_race (void)
{
  GThread *thread = g_thread_new ("other", write_under_other_lock, NULL);

  for (gint round = 0; round < MUTEX_RACE_ROUNDS; round++) {
    meet (round);
    g_mutex_lock (&lock);
    shared++;
    g_mutex_unlock (&lock);
  }
  g_thread_join (thread);
  return 0;
}

/* Both tasks wait until the other has started (relaxed atomics, which
 * order nothing), so they run at once on two threads, then write. */
static gint started;

static void
write_shared (G_GNUC_UNUSED gpointer data,
    G_GNUC_UNUSED gpointer user_data)
{
  __atomic_add_fetch (&started, 1, __ATOMIC_RELAXED);
  while (__atomic_load_n (&started, __ATOMIC_RELAXED) < 2)
    g_thread_yield ();
  shared++;
}

static int
pool_race (void)
{
  GThreadPool *pool = g_thread_pool_new (write_shared, NULL, 2, TRUE, NULL);
  gint tasks[2];

  g_thread_pool_push (pool, &tasks[0], NULL);
  g_thread_pool_push (pool, &tasks[1], NULL);
  g_thread_pool_free (pool, FALSE, TRUE);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 2 && strcmp (argv[1], "ordered") == 0)
    return ordered ();
  if (argc == 2 && strcmp (argv[1], "mutex-race") == 0)
    return mutex_race ();
  if (argc == 2 && strcmp (argv[1], "pool-race") == 0)
    return pool_race ();
  g_printerr ("usage: %s ordered|mutex-race|pool-race\n", argv[0]);
  return 2;
}
