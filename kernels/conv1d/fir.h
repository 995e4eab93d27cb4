/* Streaming FIR filtering of planar audio, in float or in double: the
 * history between calls, and two paths, on the CPU or on a GPU.
 *
 * - Direct: the convolution of conv1d.h, with the last taps - 1 frames of
 *   every channel kept between calls.
 * - FFT: uniformly partitioned convolution for long masks (reverb impulse
 *   responses of seconds). The mask is cut into partitions of B taps
 *   (B a power of two). The first partition runs direct, so output frames
 *   leave with no added latency whatever the call sizes; partitions 1..P-1
 *   run in the frequency domain by overlap-save on blocks of B frames: when
 *   a block completes, its 2B-point spectrum joins a delay line of spectra,
 *   and the contribution of every later partition to the next block is one
 *   multiply-accumulate over that line and one inverse FFT. Cost per frame:
 *   B multiply-adds (direct head) plus about (2 FFTs of 2B + (P - 1)(B + 1)
 *   complex multiply-adds) / B, instead of P x B multiply-adds.
 *
 *   A call of exactly one block on a block boundary (the steady state of a
 *   stream in buffers of B frames) takes every partition, the first too,
 *   through the block's spectrum: nothing waits for more frames either.
 *
 * Both give y[c][n] = sum_k h_c[k] x[c][n - k] over the whole stream, the
 * same however the stream is cut into calls.
 */
#ifndef CF_FIR_H
#define CF_FIR_H

#include <stddef.h>
#include "audio_convert.h"
#include "cf_status.h"
#include "conv1d.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cf_fir cf_fir;

typedef enum
{
  CF_FIR_DIRECT,
  CF_FIR_FFT,
} cf_fir_path;

typedef struct
{
  int channels;
  cf_conv1d_mask mask;          /* copied: the caller's taps may go; h for
                                 * a float filter, h64 for a double one */
  cf_fir_path path;
  cf_conv1d_algorithm direct;   /* direct variant (CUDA), also for the
                                 * FFT path's head */
  int block;                    /* FFT: partition size B, a power of two
                                 * from 16; 0 picks one */
  int max_frames;               /* frames per call at most (longer calls
                                 * are split) */
  int cuda;                     /* 1: device memory and a CUDA stream */
  cf_stream stream;
  int f64;                      /* 1: samples are doubles and every step
                                 * computes in double (FFTs included) */
} cf_fir_config;

/* Largest FFT partition for a mask: 4096, where the direct head (B taps a
 * mask, run a few masks at a time) fits CF_CONV1D_MAX_DIRECT_TAPS. */
int cf_fir_max_block (const cf_conv1d_mask * mask);

/* The partition size picked when config.block is 0: the smallest power of
 * two covering `frames` (a typical call), within [64, cf_fir_max_block]. */
int cf_fir_pick_block (const cf_conv1d_mask * mask, int frames);

int cf_fir_new (cf_fir ** fir, const cf_fir_config * config);
void cf_fir_free (cf_fir * fir);

/* Filters `frames` new frames: channel c of the input at x + c * x_pitch,
 * of the output at y + c * y_pitch (host memory, or device memory for a
 * CUDA filter, whose work is then queued on its stream). Samples are floats,
 * or doubles for an f64 filter; pitches count samples. */
int cf_fir_process (cf_fir * fir, const void *x, size_t x_pitch, void *y,
    size_t y_pitch, int frames);

/* One whole FFT block (frames == cf_fir_block, the stream on a block
 * boundary) of interleaved samples in `layout`'s format, read from `in`
 * and written to `out` where they lie (device memory, or page-locked host
 * memory through its device pointer), converted inside the filter's one
 * launch: the steady state of a stream with no conversion steps of its
 * own. CF_ERR_UNSUPPORTED when the filter cannot take this call (a CPU or
 * direct filter, a call of another size, more than 8 channels, a GPU
 * without thread block clusters): convert, then cf_fir_process. */
int cf_fir_process_interleaved (cf_fir * fir, const cf_audio_layout * layout,
    const void *in, void *out, int frames);

/* Where the next call's `frames` new frames (1 to max_frames) may be
 * written in place: *x, channel c at *x + c * *pitch (memory of the
 * filter's kind). cf_fir_process given that pointer, the same `frames` and
 * *pitch reads them there instead of copying them in. Valid until the next
 * call on the filter; on a CUDA filter it may queue a move of the history
 * first (whose status it returns). */
int cf_fir_input (cf_fir * fir, int frames, void **x, size_t *pitch);

/* Copies the most recent input frames the filter holds (up to `frames`,
 * the oldest first) to dst (channel c at dst + c * dst_pitch, memory of the
 * filter's kind): a new filter fed with them continues the stream. Returns
 * how many frames were copied (the direct path holds taps - 1, the FFT path
 * one block), or a negative status. */
int cf_fir_recent (cf_fir * fir, void *dst, size_t dst_pitch,
    int frames);

/* Queues the filter's work on `stream` from now on (a CUDA filter built
 * on a stream of its own, then handed to another thread's). The work
 * queued on the old stream must be done: the caller waits for it. */
int cf_fir_set_stream (cf_fir * fir, cf_stream stream);

/* Forgets the history: the next frame is filtered as a stream's first. */
int cf_fir_reset (cf_fir * fir);

int cf_fir_block (const cf_fir * fir);

#ifdef __cplusplus
}
#endif
#endif
