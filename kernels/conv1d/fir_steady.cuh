/* The CUDA FIR backend's steady state, a call of one whole FFT block, in
 * one kernel (fir_block.cu). Internal to the kernels library. */
#pragma once

#include <cuda_runtime.h>

#include "fir_ops.h"

namespace cf_fir {

/* Complex numbers of each sample type, laid out as cuFFT's. */
template <typename T> struct Complex;
template <> struct Complex<float> { using type = float2; };
template <> struct Complex<double> { using type = double2; };

/* Largest partition the one-kernel block takes: its block of B complex
 * numbers and B + 1 twiddles sit in shared memory. */
constexpr int CF_FIR_BLOCK_MAX = 4096;

/* Readies the kernel for partitions of `block` (its shared memory);
 * CF_ERR_UNSUPPORTED when it cannot take them. Once per filter, on the
 * filter's device. */
template <typename T> int cf_fir_block_prepare (int block);

/* Whether cf_fir_block can take interleaved samples for this layout on
 * the current device (clusters of one block a channel, up to 8). */
template <typename T> bool cf_fir_block_clusters_fit (const cf_fir_layout &
    l);

/* Bytes of the `older` buffer cf_fir_block takes for a filter of this
 * layout (0: it needs none). */
template <typename T> size_t cf_fir_block_older_bytes (const cf_fir_layout &
    l);

/* For each channel c, the block just in, stage[c][B, 2B), with the one
 * before it, stage[c][0, B):
 *   - the spectrum X of that 2B window (a real FFT) is filed in the ring at
 *     position `first` (mod l.ring);
 *   - the output, sum over partitions p = 0..P-1 of X[first - p] x
 *     spectra[mask(c)][p] back in the time domain, the last B samples of
 *     it scaled by `scale`, goes to y[c][0, B) (y[c] = y + c * y_pitch);
 *   - the block moves to the front: stage[c][0, B) = stage[c][B, 2B).
 * With `io` (not NULL), the block comes interleaved from io->in instead of
 * stage[c][B, 2B), and the output goes interleaved to io->out instead of
 * y, both in io->layout's format, read and written by the kernel where they
 * lie (the launch then runs in clusters: cf_fir_block_clusters_fit). 
 * `twiddles` holds exp(-i pi k / B) for k = 0..B. One thread block per
 * channel, and beside them blocks that sum the longest part of the next
 * launch's delay line into `older` (NULL: none; each launch computes its
 * own). `chained`: the launch before on this filter was the one of block
 * first - 1, so `older` holds this launch's part. */
template <typename T>
int cf_fir_block (const cf_fir_layout & l, T * stage, size_t stage_pitch,
    typename Complex<T>::type * ring,
    const typename Complex<T>::type * spectra, T * y, size_t y_pitch,
    const cf_fir_interleaved * io,
    const typename Complex<T>::type * twiddles,
    typename Complex<T>::type * older, long long first, int chained,
    T scale, cudaStream_t stream);

/* The spectra of the masks' partitions as cf_fir_block reads them:
 * partition p of mask m, taps [p B, (p + 1) B) of h[m] (h: `masks` rows of
 * `taps`, in device memory), zero-padded to 2B, its real FFT's B + 1 bins,
 * unscaled, at spectra[(m P + p) (B + 1)]: what cuFFT's real transform
 * of the padded partitions gives, computed by the block kernel's own FFT,
 * so that a filter on this path makes no cuFFT plan (whose making holds
 * up the other threads' work on the device: a response prepared while
 * another plays). `twiddles` as for cf_fir_block. */
template <typename T>
int cf_fir_block_spectra (const cf_fir_layout & l, const T * h, int taps,
    typename Complex<T>::type * spectra,
    const typename Complex<T>::type * twiddles, cudaStream_t stream);

}  /* namespace cf_fir */
