/* The audio sample conversions on the GPU: one thread per sample, each
 * kernel a template on the planes' sample type (float or double). */
#include "cf_fault.h"
#include "audio_convert.h"
#include "audio_sample.h"

namespace {

constexpr int THREADS = 256;

/* Sample k of the threads' order: along the stream's own memory order
 * (frame by frame for interleaved audio), so that a warp's accesses to
 * the raw samples are contiguous, which they must be where the raw
 * samples are page-locked host memory read or written over the bus. */
__device__ void
sample_of (const cf_audio_layout & l, int frames, size_t k, int *c, int *n)
{
  if (l.interleaved) {
    *c = (int) (k % l.channels);
    *n = (int) (k / l.channels);
  } else {
    *c = (int) (k / frames);
    *n = (int) (k % frames);
  }
}

template <typename T>
__global__ void
to_planar_kernel (cf_audio_layout l, const void *src, int frames, T * dst,
    size_t dst_pitch)
{
  size_t k = blockIdx.x * (size_t) THREADS + threadIdx.x;
  if (k >= (size_t) frames * l.channels)
    return;
  int c, n;
  sample_of (l, frames, k, &c, &n);
  dst[c * dst_pitch + n] = (T) cf_sample_get (l.format, src,
      cf_sample_index (&l, c, n));
}

template <typename T>
__global__ void
from_planar_kernel (cf_audio_layout l, const T * src, size_t src_pitch,
    int frames, void *dst)
{
  size_t k = blockIdx.x * (size_t) THREADS + threadIdx.x;
  if (k >= (size_t) frames * l.channels)
    return;
  int c, n;
  sample_of (l, frames, k, &c, &n);
  cf_sample_put (l.format, dst, cf_sample_index (&l, c, n),
      src[c * src_pitch + n]);
}

template <typename T>
__global__ void
mix_kernel (int channels, int frames, const T * dry, size_t dry_pitch,
    const T * wet, size_t wet_pitch, T * out, size_t out_pitch, double a0,
    double a1, double b0, double b1)
{
  size_t k = blockIdx.x * (size_t) THREADS + threadIdx.x;
  if (k >= (size_t) frames * channels)
    return;
  int c = (int) (k / frames), n = (int) (k % frames);
  out[c * out_pitch + n] = (T) cf_mix_at (n, frames, dry[c * dry_pitch + n],
      wet[c * wet_pitch + n], a0, a1, b0, b1);
}

unsigned
blocks_for (int frames, int channels)
{
  return (unsigned) (((size_t) frames * channels + THREADS - 1) / THREADS);
}

template <typename T>
__global__ void
crossfade_kernel (int channels, int frames, const T * a, size_t a_pitch,
    const T * b, size_t b_pitch, T * out, size_t out_pitch, long long start,
    long long length)
{
  size_t k = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  int c = (int) (k / frames), n = (int) (k % frames);

  if (c >= channels)
    return;
  out[c * out_pitch + n] = (T) cf_crossfade_at (start + n, length,
      a[c * a_pitch + n], b[c * b_pitch + n]);
}

int
launched (void)
{
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

}  /* namespace */

extern "C" int
cf_audio_to_planar_cuda (const cf_audio_layout * l, const void *src,
    int frames, void *dst, size_t dst_pitch, int f64, cf_stream stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  unsigned blocks;

  if (!l || !src || !dst || frames < 0 || l->channels < 1)
    return CF_ERR_INVALID;
  if (frames == 0)
    return CF_OK;
  blocks = blocks_for (frames, l->channels);
  if (f64)
    to_planar_kernel<<<blocks, THREADS, 0, s>>> (*l, src, frames,
        (double *) dst, dst_pitch);
  else
    to_planar_kernel<<<blocks, THREADS, 0, s>>> (*l, src, frames,
        (float *) dst, dst_pitch);
  return launched ();
}

extern "C" int
cf_audio_from_planar_cuda (const cf_audio_layout * l, const void *src,
    size_t src_pitch, int frames, void *dst, int f64, cf_stream stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  unsigned blocks;

  if (!l || !src || !dst || frames < 0 || l->channels < 1)
    return CF_ERR_INVALID;
  if (frames == 0)
    return CF_OK;
  blocks = blocks_for (frames, l->channels);
  if (f64)
    from_planar_kernel<<<blocks, THREADS, 0, s>>> (*l,
        (const double *) src, src_pitch, frames, dst);
  else
    from_planar_kernel<<<blocks, THREADS, 0, s>>> (*l, (const float *) src,
        src_pitch, frames, dst);
  return launched ();
}

extern "C" int
cf_audio_mix_cuda (int channels, int frames, const void *dry,
    size_t dry_pitch, const void *wet, size_t wet_pitch, void *out,
    size_t out_pitch, double a0, double a1, double b0, double b1, int f64,
    cf_stream stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  unsigned blocks;

  if (channels < 1 || frames < 0 || !dry || !wet || !out)
    return CF_ERR_INVALID;
  if (frames == 0)
    return CF_OK;
  blocks = blocks_for (frames, channels);
  if (f64)
    mix_kernel<<<blocks, THREADS, 0, s>>> (channels, frames,
        (const double *) dry, dry_pitch, (const double *) wet, wet_pitch,
        (double *) out, out_pitch, a0, a1, b0, b1);
  else
    mix_kernel<<<blocks, THREADS, 0, s>>> (channels, frames,
        (const float *) dry, dry_pitch, (const float *) wet, wet_pitch,
        (float *) out, out_pitch, a0, a1, b0, b1);
  return launched ();
}

extern "C" int
cf_audio_crossfade_cuda (int channels, int frames, const void *a,
    size_t a_pitch, const void *b, size_t b_pitch, void *out,
    size_t out_pitch, long long start, long long length, int f64,
    cf_stream stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  unsigned blocks;

  if (channels < 1 || frames < 0 || length < 0 || !a || !b || !out)
    return CF_ERR_INVALID;
  if (frames == 0)
    return CF_OK;
  blocks = blocks_for (frames, channels);
  if (f64)
    crossfade_kernel<<<blocks, THREADS, 0, s>>> (channels, frames,
        (const double *) a, a_pitch, (const double *) b, b_pitch,
        (double *) out, out_pitch, start, length);
  else
    crossfade_kernel<<<blocks, THREADS, 0, s>>> (channels, frames,
        (const float *) a, a_pitch, (const float *) b, b_pitch,
        (float *) out, out_pitch, start, length);
  return launched ();
}
