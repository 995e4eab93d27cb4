/* What fir.c needs from a backend: memory, copies, the direct convolution,
 * real FFTs and the few data-parallel steps of the partitioned convolution.
 * fir_cpu.c implements them on host memory (kissfft), fir_cuda.cu on
 * device memory (cuFFT and kernels, queued on the filter's stream). All
 * sizes are in elements unless they say bytes; arrays are planar, channel
 * first. Samples are floats, or doubles for a backend opened with f64 (and
 * complex numbers pairs of them): the pointers are untyped for that. Internal
 * to the kernels library. */
#ifndef CF_FIR_OPS_H
#define CF_FIR_OPS_H

#include <stddef.h>

#include "audio_convert.h"
#include "conv1d.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cf_fir_backend cf_fir_backend;

/* Interleaved samples a step reads and writes where they lie, in memory
 * the backend reaches (page-locked host memory through its device
 * pointer, for CUDA). */
typedef struct
{
  cf_audio_layout layout;
  const void *in;
  void *out;
} cf_fir_interleaved;

/* The layout of the partitioned convolution, shared by fir.c and the
 * backends' kernels. */
typedef struct
{
  int channels, masks;
  int block;                    /* B */
  int partitions;               /* P: ceil(taps / B) */
  int bins;                     /* B + 1 */
  int ring;                     /* spectra the delay line holds */
} cf_fir_layout;

typedef struct
{
  /* backend state for one filter; `fft_size` is 2B, 0 for direct only;
   * f64: samples are doubles, and every step computes in double */
  int (*open) (cf_fir_backend ** be, cf_stream stream, int fft_size,
      int max_batch, int f64);
  void (*close) (cf_fir_backend * be);

  int (*alloc) (cf_fir_backend * be, void **ptr, size_t bytes);
  void (*release) (cf_fir_backend * be, void *ptr);
  int (*zero) (cf_fir_backend * be, void *ptr, size_t bytes);
  /* from host memory into the backend's memory */
  int (*upload) (cf_fir_backend * be, void *dst, const void *src,
      size_t bytes);
  /* `rows` rows of `row_bytes`; dst and src may overlap */
  int (*move) (cf_fir_backend * be, void *dst, size_t dst_pitch,
      const void *src, size_t src_pitch, size_t row_bytes, size_t rows);

  int (*direct) (cf_fir_backend * be, cf_conv1d_algorithm algorithm,
      const cf_conv1d_mask * mask, int channels, const void *x,
      size_t x_pitch, void *y, size_t y_pitch, int frames);

  /* `batch` real transforms of 2B samples, contiguous, to B + 1 bins and
   * back (unscaled) */
  int (*rfft) (cf_fir_backend * be, const void *in, void *out, int batch);
  int (*irfft) (cf_fir_backend * be, const void *in, void *out, int batch);

  /* windows[c][i] = stage[c][(i - 1) B .. (i + 1) B), i = 1..q */
  int (*gather) (cf_fir_backend * be, const cf_fir_layout * l,
      const void *stage, size_t stage_pitch, void *windows, int q);
  /* Enters the spectra of blocks first .. first + q - 1 (fresh[c][i]) into
   * the ring, ring[c][(first + i) % ring], and computes the tails of the
   * next q blocks: out[c][i] = sum_{p=1}^{P-1} X[first + 1 + i - p] x
   * spectra[mask(c)][p], X[k] the spectrum of block k (zero before the
   * stream). */
  int (*mac) (cf_fir_backend * be, const cf_fir_layout * l,
      const void *fresh, void *ring, const void *spectra, void *out,
      long long first, int q);
  /* y[c][f] += scale * tail of frame f, for `frames` frames starting at
   * stage position `start` (>= B): block t = position / B uses `current`
   * (t = 1) or times[c][t - 2][B + position % B] */
  int (*add_tails) (cf_fir_backend * be, const cf_fir_layout * l,
      void *y, size_t y_pitch, int frames, int start, const void *current,
      const void *times, int q, double scale);
  /* current[c] = scale * times[c][q - 1][B .. 2B) */
  int (*keep_tail) (cf_fir_backend * be, const cf_fir_layout * l,
      void *current, const void *times, int q, double scale);
  /* Optional (NULL, or CF_ERR_UNSUPPORTED: the steps one by one): a call
   * of exactly one block, in one pass: the spectrum of stage[c][0, 2B)
   * filed in the ring at `first`; y[c][f] = the output of block `first`,
   * every partition (the head's too) through the spectra, scaled by
   * `scale`, f < B; and stage[c][f] = stage[c][B + f] for f < B. `current`
   * is left as it was. `chained`: the call before on this filter was
   * `block` of block first - 1, with nothing in between that changed the
   * ring (a backend may then have done part of this call's work in that
   * one). With `io` (not NULL) the block comes from io->in and the output
   * goes to io->out, interleaved, instead of stage[c][B, 2B) and y
   * (CF_ERR_UNSUPPORTED where the backend cannot). */
  int (*block) (cf_fir_backend * be, const cf_fir_layout * l, void *stage,
      size_t stage_pitch, void *ring, const void *spectra, void *y,
      size_t y_pitch, const cf_fir_interleaved * io, long long first,
      int chained, double scale);
  /* Optional (NULL: nothing to do): the work from now on queued on
   * `stream` */
  int (*set_stream) (cf_fir_backend * be, cf_stream stream);
  /* Optional (NULL, or CF_ERR_UNSUPPORTED: rfft of the padded partitions):
   * spectra[m][p] = rfft of taps [p B, (p + 1) B) of h[m] (`taps` a row,
   * in the backend's memory), zero-padded to 2B */
  int (*spectra) (cf_fir_backend * be, const cf_fir_layout * l,
      const void *h, int taps, void *spectra);
} cf_fir_ops;

extern const cf_fir_ops cf_fir_cpu_ops;
extern const cf_fir_ops cf_fir_cuda_ops;

#ifdef __cplusplus
}
#endif
#endif
