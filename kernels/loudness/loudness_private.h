/* Loudness: the meter's state, shared by its CPU and CUDA twins (not for
 * callers: see loudness.h). */
#ifndef CF_LOUDNESS_PRIVATE_H
#define CF_LOUDNESS_PRIVATE_H

#include "loudness.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 100 ms steps: a gating block is 4 of them, a short-term window 30, and a
 * new window for the range starts every 10 */
#define BLOCK_STEPS 4
#define WINDOW_STEPS 30
#define WINDOW_HOP 10
/* the oversampling filter: 6 input samples either side of each output */
#define HALF_SPAN 6
#define SPAN (2 * HALF_SPAN + 1)
#define MAX_FACTOR 4
#define CF_PI 3.14159265358979323846

typedef struct cf_loudness_device cf_loudness_device;

struct cf_loudness
{
  int rate, channels, step;     /* step: frames in 100 ms */
  double weights[CF_LOUDNESS_MAX_CHANNELS];
  double shelf[5], highpass[5];
  double state[CF_LOUDNESS_MAX_CHANNELS][4];   /* both biquads' */
  double energy[CF_LOUDNESS_MAX_CHANNELS];     /* this step's so far */
  int step_frames;
  double recent[WINDOW_STEPS];  /* the last steps' weighted mean squares */
  long steps;                   /* steps completed since the reset */
  /* mean squares of the gating blocks and of the range's windows above
   * the absolute gate */
  double *blocks, *windows;
  size_t n_blocks, n_windows, room_blocks, room_windows;
  double sample_peak[CF_LOUDNESS_MAX_CHANNELS];
  double true_peak[CF_LOUDNESS_MAX_CHANNELS];
  int factor;                   /* oversampling: 4, 2 or 1 */
  double interp[SPAN * MAX_FACTOR];     /* the filter, phase-major */
  /* each channel's last SPAN - 1 samples, newest first */
  double history[CF_LOUDNESS_MAX_CHANNELS][SPAN - 1];
  double *window;               /* SPAN - 1 + step samples: history, then
                                 * a piece of a step */
  cf_loudness_device *device;   /* the CUDA twin's state, or NULL */
};

/* Adds `frames` frames' sums of squares of the K-weighted samples (one a
 * channel) to the step being gathered; `frames` never pass the step's
 * end. Ends the step when it is full. */
int cf_loudness_take_energy (cf_loudness * l, const double *energy,
    int frames);

/* The CUDA twin's memory (loudness_cuda.cu, or nothing without CUDA). */
void cf_loudness_device_free (cf_loudness_device * device);

#ifdef __cplusplus
}
#endif
#endif
