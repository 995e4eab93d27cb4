/* Device time of a call, measured as the GPU runs it: the timed calls are
 * queued behind a gate that holds the stream until the host has queued
 * them all, each between its own pair of events. They then run back to
 * back, and no start event waits for the host to submit the work behind
 * it (events around a lone call also count the host's launch, several
 * microseconds: more than a small kernel's own time). */
#pragma once

#include <cuda_runtime.h>

#define QUEUED_TIMER_MAX_REPS 64

typedef struct
{
  cudaStream_t stream;          /* non-blocking; the calls must use it */
  cudaEvent_t start[QUEUED_TIMER_MAX_REPS], stop[QUEUED_TIMER_MAX_REPS];
  int reps, warmup;
} QueuedTimer;

/* One call on input set `set`; returns 0 or its status (positive: a CUDA
 * error). */
typedef int (*QueuedCall) (void *ctx, int set);

/* Creates the stream and events; returns a CUDA error code. */
cudaError_t queued_timer_init (QueuedTimer * t, int reps, int warmup);
void queued_timer_free (QueuedTimer * t);

/* Warm-up, then the median device time of one call in microseconds, the
 * calls rotating over `sets` input sets. Returns the first non-zero call
 * status (or CUDA error) instead, with *us untouched. `*gated` says
 * whether to queue behind the gate; it is cleared for good, with a note
 * naming `who`, when the calls turn out to wait for the stream themselves
 * (a synchronous copy in a library): they are then timed one by one. */
int queued_timer_median (QueuedTimer * t, QueuedCall call, void *ctx,
    int sets, int *gated, const char *who, double *us);

/* Lets a held stream go: for exits while calls are being queued. */
void queued_timer_release (void);
