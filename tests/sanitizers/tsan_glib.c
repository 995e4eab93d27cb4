/* gst-cuda-filters
 * Copyright (C) 2025 gst-cuda-filters contributors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* ThreadSanitizer annotations for GLib's synchronisation, preloaded into
 * the element tests of a -Db_sanitize=thread build (tests/meson.build).
 *
 * GLib implements GMutex, GRecMutex, GRWLock and GCond on futexes, and
 * GAsyncQueue and GThreadPool on those, all inside an uninstrumented
 * libglib: ThreadSanitizer sees none of the ordering they give, and reports
 * every access made under a GStreamer object lock, a pad's stream lock or
 * handed over through a harness queue as a race. Each hook below calls
 * GLib's function (found with dlsym (RTLD_NEXT)) and tells ThreadSanitizer
 * of the happens-before edge it makes: __tsan_release (addr) where a thread
 * publishes, __tsan_acquire (addr) where another one takes what was
 * published.
 *
 * Only calls made from outside libglib reach these hooks: GLib links with
 * -Bsymbolic-functions, so its calls to itself (GThreadPool's own
 * GAsyncQueue, GAsyncQueue's own GMutex) never come here. That is enough:
 * the plugin, GStreamer, GstCheck and GObject call these functions across
 * the library boundary (nm -D --undefined-only lists them), and the
 * hand-offs built inside GLib are annotated at their public entry points
 * (queue push and pop, pool push and worker).
 *
 * Annotations add ordering only where GLib guarantees it, so that a race in
 * the plugin is still reported; where a hook could order more than GLib
 * does (two readers of a GRWLock), it keeps them apart. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>
#include <sanitizer/tsan_interface.h>

/* GLib's own function of that name, looked up on first use (other
 * libraries' constructors take locks before this one's could run); two threads
 * may both look it up, hence the atomics. A missing one is a broken setup,
 * better stopped at once than run unannotated. */
#define REAL(name) \
  static __typeof__ (name) *real_##name; \
  __typeof__ (name) *real = \
      __atomic_load_n (&real_##name, __ATOMIC_ACQUIRE); \
  if (G_UNLIKELY (!real)) { \
    real = (__typeof__ (name) *) lookup (#name); \
    __atomic_store_n (&real_##name, real, __ATOMIC_RELEASE); \
  }

static void *
lookup (const char *name)
{
  void *sym = dlsym (RTLD_NEXT, name);

  if (!sym) {
    fprintf (stderr, "tsan_glib: %s not found after the preload\n", name);
    abort ();
  }
  return sym;
}

/* GMutex: unlock publishes what the holder wrote, lock takes it. */
void
g_mutex_lock (GMutex * mutex)
{
  REAL (g_mutex_lock);
  real (mutex);
  __tsan_acquire (mutex);
}

gboolean
g_mutex_trylock (GMutex * mutex)
{
  gboolean locked;
  REAL (g_mutex_trylock);

  locked = real (mutex);
  if (locked)
    __tsan_acquire (mutex);
  return locked;
}

void
g_mutex_unlock (GMutex * mutex)
{
  REAL (g_mutex_unlock);
  __tsan_release (mutex);
  real (mutex);
}

/* GRecMutex: GstTask's and the pads' stream locks, GObject's class
 * initialisation. Every level releases; the inner ones add nothing, since
 * the same thread keeps the lock. */
void
g_rec_mutex_lock (GRecMutex * rec_mutex)
{
  REAL (g_rec_mutex_lock);
  real (rec_mutex);
  __tsan_acquire (rec_mutex);
}

gboolean
g_rec_mutex_trylock (GRecMutex * rec_mutex)
{
  gboolean locked;
  REAL (g_rec_mutex_trylock);

  locked = real (rec_mutex);
  if (locked)
    __tsan_acquire (rec_mutex);
  return locked;
}

void
g_rec_mutex_unlock (GRecMutex * rec_mutex)
{
  REAL (g_rec_mutex_unlock);
  __tsan_release (rec_mutex);
  real (rec_mutex);
}

/* GRWLock: GObject's type tables, and GStreamer core's. A writer
 * publishes on the lock and takes from readers and writers; readers take
 * from writers only and publish on a second address inside the lock, so
 * that two readers are not ordered against each other (they run at the
 * same time, and a type lookup in each of two streaming threads must not
 * hide a race between them). */
#define READERS(rw_lock) ((char *) (rw_lock) + 1)

void
g_rw_lock_writer_lock (GRWLock * rw_lock)
{
  REAL (g_rw_lock_writer_lock);
  real (rw_lock);
  __tsan_acquire (rw_lock);
  __tsan_acquire (READERS (rw_lock));
}

gboolean
g_rw_lock_writer_trylock (GRWLock * rw_lock)
{
  gboolean locked;
  REAL (g_rw_lock_writer_trylock);

  locked = real (rw_lock);
  if (locked) {
    __tsan_acquire (rw_lock);
    __tsan_acquire (READERS (rw_lock));
  }
  return locked;
}

void
g_rw_lock_writer_unlock (GRWLock * rw_lock)
{
  REAL (g_rw_lock_writer_unlock);
  __tsan_release (rw_lock);
  real (rw_lock);
}

void
g_rw_lock_reader_lock (GRWLock * rw_lock)
{
  REAL (g_rw_lock_reader_lock);
  real (rw_lock);
  __tsan_acquire (rw_lock);
}

gboolean
g_rw_lock_reader_trylock (GRWLock * rw_lock)
{
  gboolean locked;
  REAL (g_rw_lock_reader_trylock);

  locked = real (rw_lock);
  if (locked)
    __tsan_acquire (rw_lock);
  return locked;
}

void
g_rw_lock_reader_unlock (GRWLock * rw_lock)
{
  REAL (g_rw_lock_reader_unlock);
  __tsan_release (READERS (rw_lock));
  real (rw_lock);
}

/* GCond: waiting gives the mutex up and takes it back, which GLib does
 * inside; a wake-up also takes what the signalling thread published
 * (gstcudarows' batch, the overlap thread of cudaconv1d, GstTask's pause,
 * the harness's blocking push). */
void
g_cond_wait (GCond * cond, GMutex * mutex)
{
  REAL (g_cond_wait);
  __tsan_release (mutex);
  real (cond, mutex);
  __tsan_acquire (mutex);
  __tsan_acquire (cond);
}

gboolean
g_cond_wait_until (GCond * cond, GMutex * mutex, gint64 end_time)
{
  gboolean signalled;
  REAL (g_cond_wait_until);

  __tsan_release (mutex);
  signalled = real (cond, mutex, end_time);
  __tsan_acquire (mutex);
  __tsan_acquire (cond);
  return signalled;
}

void
g_cond_signal (GCond * cond)
{
  REAL (g_cond_signal);
  __tsan_release (cond);
  real (cond);
}

void
g_cond_broadcast (GCond * cond)
{
  REAL (g_cond_broadcast);
  __tsan_release (cond);
  real (cond);
}

/* g_once_init_enter's fast path is an atomic load in the caller, which
 * ThreadSanitizer sees; the store that it pairs with is in libglib. The
 * release here gives that load something to acquire; a FALSE from the slow
 * path means another thread initialised the value while this one waited. */
gboolean
(g_once_init_enter) (volatile void *location)
{
  gboolean initialise;
  REAL (g_once_init_enter);

  initialise = real (location);
  if (!initialise)
    __tsan_acquire ((void *) location);
  return initialise;
}

void
(g_once_init_leave) (volatile void *location, gsize result)
{
  REAL (g_once_init_leave);
  __tsan_release ((void *) location);
  real (location, result);
}

/* GAsyncQueue: GstHarness hands buffers, events and queries from the
 * streaming thread to the test through these. GLib orders every push
 * before every later pop with the queue's mutex, which is what one
 * address per queue models. */
void
g_async_queue_lock (GAsyncQueue * queue)
{
  REAL (g_async_queue_lock);
  real (queue);
  __tsan_acquire (queue);
}

void
g_async_queue_unlock (GAsyncQueue * queue)
{
  REAL (g_async_queue_unlock);
  __tsan_release (queue);
  real (queue);
}

#define HOOK_PUSH(name, ...) \
  REAL (name); \
  __tsan_release (queue); \
  real (queue, __VA_ARGS__)

void
g_async_queue_push (GAsyncQueue * queue, gpointer data)
{
  HOOK_PUSH (g_async_queue_push, data);
}

void
g_async_queue_push_unlocked (GAsyncQueue * queue, gpointer data)
{
  HOOK_PUSH (g_async_queue_push_unlocked, data);
}

void
g_async_queue_push_front (GAsyncQueue * queue, gpointer item)
{
  HOOK_PUSH (g_async_queue_push_front, item);
}

void
g_async_queue_push_front_unlocked (GAsyncQueue * queue, gpointer item)
{
  HOOK_PUSH (g_async_queue_push_front_unlocked, item);
}

void
g_async_queue_push_sorted (GAsyncQueue * queue, gpointer data,
    GCompareDataFunc func, gpointer user_data)
{
  HOOK_PUSH (g_async_queue_push_sorted, data, func, user_data);
}

void
g_async_queue_push_sorted_unlocked (GAsyncQueue * queue, gpointer data,
    GCompareDataFunc func, gpointer user_data)
{
  HOOK_PUSH (g_async_queue_push_sorted_unlocked, data, func, user_data);
}

/* A pop that returns an item (NULL: none, or timed out) takes what was
 * published before it was pushed. */
#define HOOK_POP(name, ...) \
  gpointer item; \
  REAL (name); \
  item = real (__VA_ARGS__); \
  if (item) \
    __tsan_acquire (queue); \
  return item

gpointer
g_async_queue_pop (GAsyncQueue * queue)
{
  HOOK_POP (g_async_queue_pop, queue);
}

gpointer
g_async_queue_pop_unlocked (GAsyncQueue * queue)
{
  HOOK_POP (g_async_queue_pop_unlocked, queue);
}

gpointer
g_async_queue_try_pop (GAsyncQueue * queue)
{
  HOOK_POP (g_async_queue_try_pop, queue);
}

gpointer
g_async_queue_try_pop_unlocked (GAsyncQueue * queue)
{
  HOOK_POP (g_async_queue_try_pop_unlocked, queue);
}

gpointer
g_async_queue_timeout_pop (GAsyncQueue * queue, guint64 timeout)
{
  HOOK_POP (g_async_queue_timeout_pop, queue, timeout);
}

gpointer
g_async_queue_timeout_pop_unlocked (GAsyncQueue * queue, guint64 timeout)
{
  HOOK_POP (g_async_queue_timeout_pop_unlocked, queue, timeout);
}

/* GThreadPool: gstcudarows' strips and GstTaskPool's streaming threads.
 * GLib documents one hand-off, the pushed data to the call that runs it:
 * pushing publishes on the data pointer (on the pool for NULL data), and
 * the worker function is called through a trampoline that takes it. The
 * trampoline's record lives as long as the process, since GLib may still
 * run the function after g_thread_pool_free returns. */
typedef struct
{
  GFunc func;
  gpointer user_data;
} PoolFunc;

static void
pool_trampoline (gpointer data, gpointer user_data)
{
  PoolFunc *f = user_data;

  __tsan_acquire (data ? data : f);
  f->func (data, f->user_data);
}

/* the pool's user_data is the trampoline's record, the key of NULL data */
static gpointer
pool_key (GThreadPool * pool, gpointer data)
{
  return data ? data : pool->user_data;
}

GThreadPool *
g_thread_pool_new (GFunc func, gpointer user_data, gint max_threads,
    gboolean exclusive, GError ** error)
{
  PoolFunc *f = malloc (sizeof (PoolFunc));
  REAL (g_thread_pool_new);

  f->func = func;
  f->user_data = user_data;
  return real (pool_trampoline, f, max_threads, exclusive, error);
}

GThreadPool *
g_thread_pool_new_full (GFunc func, gpointer user_data,
    GDestroyNotify item_free_func, gint max_threads, gboolean exclusive,
    GError ** error)
{
  PoolFunc *f = malloc (sizeof (PoolFunc));
  REAL (g_thread_pool_new_full);

  f->func = func;
  f->user_data = user_data;
  return real (pool_trampoline, f, item_free_func, max_threads, exclusive,
      error);
}

gboolean
g_thread_pool_push (GThreadPool * pool, gpointer data, GError ** error)
{
  REAL (g_thread_pool_push);
  __tsan_release (pool_key (pool, data));
  return real (pool, data, error);
}
