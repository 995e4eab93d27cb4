/* Device-side pieces the conv1d variants share: launch arguments and the
 * mask as a kernel parameter. */
#pragma once

#include <cuda_runtime.h>

#include "conv1d.h"

namespace cf_conv1d {

/* Where a launch reads and writes: channel c of the input starts at
 * x + c * x_pitch with taps - 1 history frames before its first current
 * frame; outputs go to y + c * y_pitch. */
struct Signal
{
  const float *x;
  float *y;
  size_t x_pitch, y_pitch;      /* floats */
  int frames;
};

/* The masks as a kernel parameter, which CUDA keeps in constant memory
 * (bank 0): read through the constant cache and broadcast to the warp, and
 * carried by each launch, so concurrent elements cannot overwrite each
 * other's taps. Passed __grid_constant__ so indexing never copies it.
 * A launch carries the whole struct, so its capacity comes in classes: a
 * 63-tap filter sends 1 KB rather than 32 KB, some microseconds less per
 * launch. */
template <int CAP>
struct Taps
{
  int taps, masks;
  float h[CAP];
};

/* Capacities, smallest first; every variant is built for each. */
#define CF_CONV1D_FOR_EACH_TAPS_CLASS(X) X (256) X (2048) \
  X (CF_CONV1D_MAX_DIRECT_TAPS)

/* Taps of channel c's mask. */
template <int CAP>
__device__ __forceinline__ const float *
mask_of (const Taps<CAP> & t, int c)
{
  return t.h + (t.masks == 1 ? 0 : c * t.taps);
}

inline unsigned
div_up (int a, int b)
{
  return (unsigned) ((a + b - 1) / b);
}

template <int CAP>
int cf_conv1d_basic (const Signal & s, const Taps<CAP> & t,
    int channels, cudaStream_t stream);
template <int CAP>
int cf_conv1d_tiled (const Signal & s, const Taps<CAP> & t,
    int channels, cudaStream_t stream);
template <int CAP>
int cf_conv1d_cached (const Signal & s, const Taps<CAP> & t,
    int channels, cudaStream_t stream);
template <int CAP>
int cf_conv1d_fast (const Signal & s, const Taps<CAP> & t,
    int channels, cudaStream_t stream);

}  /* namespace cf_conv1d */
