/* See queued_timer.h. */
#include "queued_timer.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* How long the stream stays held while the timed calls are queued. */
#define GATE_TIMEOUT_S 2.0

static atomic_int gate_open = 1;
static atomic_int gate_timed_out;

/* Runs on a CUDA thread and holds the stream until the gate opens. */
static void CUDART_CB
gate_wait (void *data)
{
  struct timespec t0, t;

  (void) data;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  while (!atomic_load (&gate_open)) {
    clock_gettime (CLOCK_MONOTONIC, &t);
    if ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 >
        GATE_TIMEOUT_S) {
      /* Something queued behind the gate waits for the stream itself (a
       * full launch queue, a synchronous call in a library). */
      atomic_store (&gate_timed_out, 1);
      return;
    }
  }
}

void
queued_timer_release (void)
{
  atomic_store (&gate_open, 1);
}

cudaError_t
queued_timer_init (QueuedTimer * t, int reps, int warmup)
{
  cudaError_t err;

  t->reps = reps < QUEUED_TIMER_MAX_REPS ? reps : QUEUED_TIMER_MAX_REPS;
  t->warmup = warmup;
  /* Non-blocking: work on the legacy default stream (a library's
   * synchronous copy) must not wait for a held timing stream. */
  err = cudaStreamCreateWithFlags (&t->stream, cudaStreamNonBlocking);
  for (int r = 0; r < QUEUED_TIMER_MAX_REPS && err == cudaSuccess; r++) {
    err = cudaEventCreate (&t->start[r]);
    if (err == cudaSuccess)
      err = cudaEventCreate (&t->stop[r]);
  }
  return err;
}

void
queued_timer_free (QueuedTimer * t)
{
  for (int r = 0; r < QUEUED_TIMER_MAX_REPS; r++) {
    cudaEventDestroy (t->start[r]);
    cudaEventDestroy (t->stop[r]);
  }
  cudaStreamDestroy (t->stream);
}

static int
compare_float (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return (x > y) - (x < y);
}

/* Queues t->reps calls, each between its own pair of events. */
static int
queue_timed (QueuedTimer * t, QueuedCall call, void *ctx, int sets,
    int gated)
{
  cudaError_t err = cudaSuccess;
  int status = 0;

  if (gated) {
    atomic_store (&gate_timed_out, 0);
    atomic_store (&gate_open, 0);
    err = cudaLaunchHostFunc (t->stream, gate_wait, NULL);
  }
  for (int r = 0; r < t->reps && status == 0 && err == cudaSuccess; r++) {
    err = cudaEventRecord (t->start[r], t->stream);
    if (err == cudaSuccess)
      status = call (ctx, (t->warmup + r) % sets);
    if (err == cudaSuccess && status == 0)
      err = cudaEventRecord (t->stop[r], t->stream);
  }
  atomic_store (&gate_open, 1);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (t->stream);
  return status != 0 ? status : (int) err;
}

int
queued_timer_median (QueuedTimer * t, QueuedCall call, void *ctx, int sets,
    int *gated, const char *who, double *us)
{
  float ms[QUEUED_TIMER_MAX_REPS];
  int status;

  for (int r = 0; r < t->warmup; r++)
    if ((status = call (ctx, r % sets)) != 0)
      return status;
  if ((status = (int) cudaStreamSynchronize (t->stream)) != 0)
    return status;

  status = queue_timed (t, call, ctx, sets, *gated);
  /* The gate let go before everything was queued: the times may hold host
   * gaps, so take them again with plain calls. */
  if (status == 0 && *gated && atomic_load (&gate_timed_out)) {
    printf ("note: %s calls wait for their stream: timed one by one\n", who);
    *gated = 0;
    status = queue_timed (t, call, ctx, sets, 0);
  }
  if (status != 0)
    return status;

  for (int r = 0; r < t->reps; r++) {
    cudaError_t err = cudaEventElapsedTime (&ms[r], t->start[r], t->stop[r]);
    if (err != cudaSuccess)
      return (int) err;
  }
  qsort (ms, t->reps, sizeof (float), compare_float);
  *us = 1e3 * (t->reps % 2 ? ms[t->reps / 2]
      : 0.5 * (ms[t->reps / 2 - 1] + ms[t->reps / 2]));
  return 0;
}
