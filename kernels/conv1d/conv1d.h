/* 1D convolution (FIR filtering) of planar audio: one API, a CPU twin
 * and CUDA variants, in single precision (float) or double.
 *
 * Causal FIR, as audiofirfilter computes it: h[0] weighs the current frame,
 *
 *   y[c][n] = sum_{k < taps} h_c[k] * x[c][n - k]
 *
 * Streaming: each channel's input holds the last taps - 1 frames of the
 * previous call (its history) followed by the new frames, so a stream cut
 * into buffers of any size gives the same samples as one convolution of the
 * whole signal. Channels are `pitch` floats apart. A mask is either shared
 * by every channel or given per channel.
 */
#ifndef CF_CONV1D_H
#define CF_CONV1D_H

#include <stddef.h>
#include "cf_status.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Taps of all masks together that the direct variants take: the masks
 * travel as a kernel parameter (constant memory, 32 KB at most). Longer
 * masks go through the FFT path (conv1d_fft.h). */
#define CF_CONV1D_MAX_DIRECT_TAPS 8000

typedef struct
{
  int taps;                     /* >= 1 */
  int masks;                    /* 1 (every channel) or one per channel */
  const float *h;               /* masks x taps, for float samples */
  const double *h64;            /* the same in double, for double samples
                                 * (NULL when not needed) */
} cf_conv1d_mask;

typedef enum
{
  CF_CONV1D_AUTO,               /* the fastest direct variant */
  CF_CONV1D_BASIC,              /* one thread per output, global memory */
  CF_CONV1D_TILED,              /* input tile and halo in shared memory */
  CF_CONV1D_CACHED,             /* own samples in shared memory, halo cached */
  CF_CONV1D_FAST,               /* tiled, coarsened, register window */
  CF_CONV1D_N_ALGORITHMS
} cf_conv1d_algorithm;

const char *cf_conv1d_algorithm_name (cf_conv1d_algorithm algorithm);

/* Checks a mask against `channels`; CF_ERR_INVALID when it does not fit
 * (no taps, non-finite taps in h or h64, neither given, masks neither 1
 * nor channels). */
int cf_conv1d_mask_check (const cf_conv1d_mask * mask, int channels);

/* CPU twin: x[c] = x + c * x_pitch holds taps - 1 history frames then
 * `frames` new ones; y[c] = y + c * y_pitch receives `frames` outputs. */
int cf_conv1d_cpu (const cf_conv1d_mask * mask, int channels,
    const float *x, size_t x_pitch, float *y, size_t y_pitch, int frames);

/* CUDA: the same on device memory, asynchronously on `stream`.
 * CF_ERR_UNSUPPORTED when masks x taps exceeds CF_CONV1D_MAX_DIRECT_TAPS. */
int cf_conv1d_cuda (cf_conv1d_algorithm algorithm,
    const cf_conv1d_mask * mask, int channels, const float *d_x,
    size_t x_pitch, float *d_y, size_t y_pitch, int frames,
    cf_stream stream);

/* Double precision, for streams of double or 32-bit integer samples: taps
 * from mask->h64, products accumulated in double. The CPU twin reads h64 in
 * host memory; the CUDA one (one variant, the tiled algorithm) in device
 * memory, so its length has no parameter limit, and it does not check the
 * taps' values. */
int cf_conv1d_cpu_f64 (const cf_conv1d_mask * mask, int channels,
    const double *x, size_t x_pitch, double *y, size_t y_pitch, int frames);
int cf_conv1d_cuda_f64 (const cf_conv1d_mask * mask, int channels,
    const double *d_x, size_t x_pitch, double *d_y, size_t y_pitch,
    int frames, cf_stream stream);

#ifdef __cplusplus
}
#endif
#endif
