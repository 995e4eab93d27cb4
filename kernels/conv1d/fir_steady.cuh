/* The two kernels of the CUDA FIR backend's steady state, a call of one
 * whole FFT block: its output (fir_head.cu) and, after it, the
 * frequency-domain work for the next block (fir_block.cu). Internal to
 * the kernels library. */
#pragma once

#include <cuda_runtime.h>

#include "fir_ops.h"

/* Complex numbers of each sample type, laid out as cuFFT's. */
template <typename T> struct Complex;
template <> struct Complex<float> { using type = float2; };
template <> struct Complex<double> { using type = double2; };

/* Largest partition the one-kernel step takes: its block of B complex
 * numbers and B + 1 twiddles sit in shared memory. */
constexpr int CF_FIR_BLOCK_STEP_MAX = 4096;

/* Readies the kernel for partitions of `block` (its shared memory);
 * CF_ERR_UNSUPPORTED when it cannot take them. Once per filter, on the
 * filter's device. */
template <typename T> int cf_fir_block_step_prepare (int block);

/* Bytes of the `older` buffer cf_fir_block_step takes for a filter of
 * this layout, complex numbers of `complex_bytes` (0: it needs none). */
size_t cf_fir_block_step_older_bytes (const cf_fir_layout & l,
    size_t complex_bytes);

/* For each channel c, the block just completed, stage[c][B, 2B), with the
 * one before it, stage[c][0, B):
 *   - the spectrum X of that 2B window (a real FFT) is filed in the ring at
 *     position `first` (mod l.ring);
 *   - the tail of the next block, sum over partitions p = 1..P-1 of
 *     X[first + 1 - p] x spectra[mask(c)][p] back in the time domain, the
 *     last B samples of it scaled by `scale`, goes to current[c][0, B);
 *   - the block moves to the front: stage[c][0, B) = stage[c][B, 2B).
 * `twiddles` holds exp(-i pi k / B) for k = 0..B. One thread block per
 * channel, and beside them blocks that sum the longest part of the next
 * launch's delay line into `older` (NULL: none; each launch computes its
 * own). `chained`: the launch before on this filter was the step of block
 * first - 1, so `older` holds this launch's part. */
template <typename T>
int cf_fir_block_step (const cf_fir_layout & l, T * stage, size_t stage_pitch,
    typename Complex<T>::type * ring,
    const typename Complex<T>::type * spectra, T * current,
    const typename Complex<T>::type * twiddles,
    typename Complex<T>::type * older, long long first, int chained,
    T scale, cudaStream_t stream);

/* Longest head the one-kernel output takes: the largest FFT partition. */
constexpr int CF_FIR_HEAD_MAX_TAPS = 4096;

/* Readies the head kernel (its shared memory); CF_ERR_UNSUPPORTED when it
 * cannot run. Once per filter, on the filter's device. */
template <typename T> int cf_fir_head_prepare (void);

/* y[c][f] = current[c][f] + sum_k h_c[k] x[c][f - k], f < frames: the
 * head partition applied directly, as cf_conv1d_cuda does (x[c] = x + c *
 * x_pitch starts taps - 1 frames of history early; `current` has a pitch
 * of `frames`), with the taps (masks x count, at most
 * CF_FIR_HEAD_MAX_TAPS, in device memory) shared out among the warps of a
 * block, so that one buffer of a long head fills the GPU. */
template <typename T>
int cf_fir_head (const T * taps, int count, int masks, int channels,
    const T * x, size_t x_pitch, T * y, size_t y_pitch, int frames,
    const T * current, cudaStream_t stream);
