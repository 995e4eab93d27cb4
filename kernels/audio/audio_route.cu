/* The plane sums on the GPU: one thread per destination sample, the route
 * table passed by value (it sits in the kernel's parameter space, read
 * alike by every thread). */
#include "cf_fault.h"
#include "audio_route.h"

namespace {

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

}  /* namespace */

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
