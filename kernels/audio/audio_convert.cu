/* The audio sample conversions on the GPU: one thread per sample. */
#include "cf_fault.h"
#include "audio_convert.h"
#include "audio_sample.h"

namespace {

constexpr int THREADS = 256;

__global__ void
to_float_kernel (cf_audio_layout l, const void *src, int frames, float *dst,
    size_t dst_pitch)
{
  size_t k = blockIdx.x * (size_t) THREADS + threadIdx.x;
  if (k >= (size_t) frames * l.channels)
    return;
  int c = (int) (k / frames), n = (int) (k % frames);
  dst[c * dst_pitch + n] = cf_sample_get (l.format, src,
      cf_sample_index (&l, c, n));
}

__global__ void
from_float_kernel (cf_audio_layout l, const float *src, size_t src_pitch,
    int frames, void *dst)
{
  size_t k = blockIdx.x * (size_t) THREADS + threadIdx.x;
  if (k >= (size_t) frames * l.channels)
    return;
  int c = (int) (k / frames), n = (int) (k % frames);
  cf_sample_put (l.format, dst, cf_sample_index (&l, c, n),
      src[c * src_pitch + n]);
}

__global__ void
mix_kernel (int channels, int frames, const float *dry, size_t dry_pitch,
    const float *wet, size_t wet_pitch, float *out, size_t out_pitch,
    float a0, float a1, float b0, float b1)
{
  size_t k = blockIdx.x * (size_t) THREADS + threadIdx.x;
  if (k >= (size_t) frames * channels)
    return;
  int c = (int) (k / frames), n = (int) (k % frames);
  out[c * out_pitch + n] = cf_mix_at (n, frames, dry[c * dry_pitch + n],
      wet[c * wet_pitch + n], a0, a1, b0, b1);
}

unsigned
blocks_for (int frames, int channels)
{
  return (unsigned) (((size_t) frames * channels + THREADS - 1) / THREADS);
}

}  /* namespace */

extern "C" int
cf_audio_to_float_cuda (const cf_audio_layout * l, const void *src,
    int frames, float *dst, size_t dst_pitch, cf_stream stream)
{
  if (!l || !src || !dst || frames < 0 || l->channels < 1)
    return CF_ERR_INVALID;
  if (frames == 0)
    return CF_OK;
  to_float_kernel<<<blocks_for (frames, l->channels), THREADS, 0,
      (cudaStream_t) stream>>> (*l, src, frames, dst, dst_pitch);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

extern "C" int
cf_audio_from_float_cuda (const cf_audio_layout * l, const float *src,
    size_t src_pitch, int frames, void *dst, cf_stream stream)
{
  if (!l || !src || !dst || frames < 0 || l->channels < 1)
    return CF_ERR_INVALID;
  if (frames == 0)
    return CF_OK;
  from_float_kernel<<<blocks_for (frames, l->channels), THREADS, 0,
      (cudaStream_t) stream>>> (*l, src, src_pitch, frames, dst);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

extern "C" int
cf_audio_mix_cuda (int channels, int frames, const float *dry,
    size_t dry_pitch, const float *wet, size_t wet_pitch, float *out,
    size_t out_pitch, float a0, float a1, float b0, float b1,
    cf_stream stream)
{
  if (channels < 1 || frames < 0 || !dry || !wet || !out)
    return CF_ERR_INVALID;
  if (frames == 0)
    return CF_OK;
  mix_kernel<<<blocks_for (frames, channels), THREADS, 0,
      (cudaStream_t) stream>>> (channels, frames, dry, dry_pitch, wet,
      wet_pitch, out, out_pitch, a0, a1, b0, b1);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}
