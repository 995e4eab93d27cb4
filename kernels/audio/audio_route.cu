/* The plane sums on the GPU: one thread per destination sample, the route
 * table passed by value (it sits in the kernel's parameter space, read
 * alike by every thread). */
#include "cf_fault.h"
#include "audio_route.h"
#include "audio_sample.h"
#include "dependent_launch.cuh"

namespace {

using cf_integral::launch_after;
using cf_integral::let_next_start;
using cf_integral::wait_for_previous;

constexpr int THREADS = 256;

template <typename T>
__global__ void
sum_planes_kernel (cf_audio_plane_sums s, const T * src, size_t src_pitch,
    int frames, T * dst, size_t dst_pitch)
{
  size_t k = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  int j = (int) (k / frames), n = (int) (k % frames);
  double sum = 0.0;

  if (j >= s.planes)
    return;
  for (int r = s.first[j]; r < s.first[j + 1]; r++)
    sum += (double) src[s.source[r] * src_pitch + n];
  dst[j * dst_pitch + n] = (T) sum;
}

/* Routed conversions: one thread per destination sample, in the raw
 * stream's memory order where it is interleaved (a warp's accesses to host
 * memory over the bus stay together). */
__device__ void
position (const cf_audio_layout & l, int planes, int frames, size_t k,
    int *j, int *n)
{
  if (l.interleaved) {
    *j = (int) (k % planes);
    *n = (int) (k / planes);
  } else {
    *j = (int) (k / frames);
    *n = (int) (k % frames);
  }
}

template <typename T>
__global__ void
to_planes_kernel (cf_audio_layout l, const void *src, int frames,
    cf_audio_plane_sums s, T * dst, size_t dst_pitch)
{
  size_t k = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  double sum = 0.0;
  int j, n;

  /* launched early (dependent launch): the stage is the filter's before
   * the kernel ahead is done with it */
  let_next_start ();
  wait_for_previous ();
  if (k >= (size_t) frames * s.planes)
    return;
  position (l, s.planes, frames, k, &j, &n);
  for (int r = s.first[j]; r < s.first[j + 1]; r++)
    sum += cf_sample_get (l.format, src, cf_sample_index (&l, s.source[r],
            n));
  dst[j * dst_pitch + n] = (T) sum;
}

template <typename T>
__global__ void
from_planes_kernel (cf_audio_layout l, const T * src, size_t src_pitch,
    int frames, cf_audio_plane_sums s, void *dst)
{
  size_t k = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  double sum = 0.0;
  int j, n;

  let_next_start ();
  wait_for_previous ();         /* src: the filter's output */
  if (k >= (size_t) frames * s.planes)
    return;
  position (l, s.planes, frames, k, &j, &n);
  for (int r = s.first[j]; r < s.first[j + 1]; r++)
    sum += (double) src[s.source[r] * src_pitch + n];
  cf_sample_put (l.format, dst, cf_sample_index (&l, j, n), (T) sum);
}

unsigned
blocks_of (int frames, int planes)
{
  return (unsigned) (((size_t) frames * planes + THREADS - 1) / THREADS);
}

}  /* namespace */

extern "C" int
cf_audio_to_planes_routed_cuda (const cf_audio_layout * l, const void *src,
    int frames, const cf_audio_plane_sums * s, void *dst, size_t dst_pitch,
    int f64, cf_stream stream)
{
  cudaStream_t cs = (cudaStream_t) stream;

  if (!cf_audio_routed_ok (l, frames, s, 1) || !src || !dst)
    return CF_ERR_INVALID;
  if (frames == 0)
    return CF_OK;
  if (f64)
    launch_after (to_planes_kernel<double>, blocks_of (frames, s->planes),
        THREADS, cs, *l, src, frames, *s, (double *) dst, dst_pitch);
  else
    launch_after (to_planes_kernel<float>, blocks_of (frames, s->planes),
        THREADS, cs, *l, src, frames, *s, (float *) dst, dst_pitch);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

extern "C" int
cf_audio_from_planes_routed_cuda (const cf_audio_layout * l,
    const void *src, size_t src_pitch, int frames,
    const cf_audio_plane_sums * s, void *dst, int f64, cf_stream stream)
{
  cudaStream_t cs = (cudaStream_t) stream;

  if (!cf_audio_routed_ok (l, frames, s, 0) || !src || !dst)
    return CF_ERR_INVALID;
  if (frames == 0)
    return CF_OK;
  if (f64)
    launch_after (from_planes_kernel<double>, blocks_of (frames, s->planes),
        THREADS, cs, *l, (const double *) src, src_pitch, frames, *s, dst);
  else
    launch_after (from_planes_kernel<float>, blocks_of (frames, s->planes),
        THREADS, cs, *l, (const float *) src, src_pitch, frames, *s, dst);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

extern "C" int
cf_audio_sum_planes_cuda (const cf_audio_plane_sums * s, const void *src,
    size_t src_pitch, int frames, void *dst, size_t dst_pitch, int f64,
    cf_stream stream)
{
  cudaStream_t cs = (cudaStream_t) stream;
  unsigned blocks;

  if (!cf_audio_plane_sums_ok (s) || !src || !dst || frames < 0)
    return CF_ERR_INVALID;
  if (frames == 0)
    return CF_OK;
  blocks = (unsigned) (((size_t) frames * s->planes + THREADS - 1)
      / THREADS);
  if (f64)
    sum_planes_kernel<<<blocks, THREADS, 0, cs>>> (*s, (const double *) src,
        src_pitch, frames, (double *) dst, dst_pitch);
  else
    sum_planes_kernel<<<blocks, THREADS, 0, cs>>> (*s, (const float *) src,
        src_pitch, frames, (float *) dst, dst_pitch);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}
