/* Row-parallel work on the CPU; see gstcudarows.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudarows.h"

#define MAX_STRIPS 64

typedef struct
{
  GMutex lock;
  GCond done;
  gint remaining;
  int status;
  GstCudaRowFunc func;
  gpointer user;
} Batch;

typedef struct
{
  Batch *batch;
  gint row_begin, row_end;
} Strip;

static void
run_strip (gpointer data, gpointer unused G_GNUC_UNUSED)
{
  Strip *s = data;
  Batch *b = s->batch;
  int status = b->func (b->user, s->row_begin, s->row_end);

  g_mutex_lock (&b->lock);
  if (status != 0 && b->status == 0)
    b->status = status;
  if (--b->remaining == 0)
    g_cond_signal (&b->done);
  g_mutex_unlock (&b->lock);
}

/* One pool for the process: its threads are shared by every element. */
static GThreadPool *
shared_pool (void)
{
  static GThreadPool *pool;

  if (g_once_init_enter (&pool)) {
    GThreadPool *p = g_thread_pool_new (run_strip, NULL,
        MAX (1, (gint) g_get_num_processors () - 1), FALSE, NULL);
    g_once_init_leave (&pool, p);
  }
  return pool;
}

int
gst_cuda_rows_parallel (gint height, gint min_rows, GstCudaRowFunc func,
    gpointer user)
{
  Strip strips[MAX_STRIPS];
  Batch batch;
  gint n = MIN ((gint) g_get_num_processors (), height / MAX (1, min_rows));
  gint rows;

  n = CLAMP (n, 1, MAX_STRIPS);
  if (n == 1)
    return func (user, 0, height);

  rows = (height + n - 1) / n;
  n = (height + rows - 1) / rows;
  g_mutex_init (&batch.lock);
  g_cond_init (&batch.done);
  batch.remaining = n;
  batch.status = 0;
  batch.func = func;
  batch.user = user;
  for (gint k = 0; k < n; k++) {
    strips[k].batch = &batch;
    strips[k].row_begin = k * rows;
    strips[k].row_end = MIN (height, (k + 1) * rows);
    /* the caller takes the first strip itself */
    if (k > 0)
      g_thread_pool_push (shared_pool (), &strips[k], NULL);
  }
  run_strip (&strips[0], NULL);

  g_mutex_lock (&batch.lock);
  while (batch.remaining > 0)
    g_cond_wait (&batch.done, &batch.lock);
  g_mutex_unlock (&batch.lock);
  g_mutex_clear (&batch.lock);
  g_cond_clear (&batch.done);
  return batch.status;
}
