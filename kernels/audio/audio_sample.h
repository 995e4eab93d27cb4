/* One sample to float and back, shared by the CPU twin and the CUDA
 * kernels of audio_convert.h. */
#ifndef CF_AUDIO_SAMPLE_H
#define CF_AUDIO_SAMPLE_H

#include <math.h>
#include <stdint.h>

#include "audio_convert.h"

#ifdef __CUDACC__
#define CF_AUDIO_FN __host__ __device__ __forceinline__
#else
#define CF_AUDIO_FN static inline
#endif

/* Sample `i` of a buffer of `format`, as a float in [-1, 1) for integers. */
CF_AUDIO_FN float
cf_sample_get (cf_audio_format format, const void *base, size_t i)
{
  switch (format) {
    case CF_AUDIO_F64:
      return (float) ((const double *) base)[i];
    case CF_AUDIO_S16:
      return ((const int16_t *) base)[i] * (1.0f / 32768.0f);
    case CF_AUDIO_S32:
      return (float) (((const int32_t *) base)[i] * (1.0 / 2147483648.0));
    default:
      return ((const float *) base)[i];
  }
}

/* Stores v at sample `i`: integers rounded to nearest even and saturated. */
CF_AUDIO_FN void
cf_sample_put (cf_audio_format format, void *base, size_t i, float v)
{
  switch (format) {
    case CF_AUDIO_F64:
      ((double *) base)[i] = v;
      break;
    case CF_AUDIO_S16:{
      float s = rintf (v * 32768.0f);
      ((int16_t *) base)[i] = (int16_t) (s < -32768.0f ? -32768.0f
          : (s > 32767.0f ? 32767.0f : s));
      break;
    }
    case CF_AUDIO_S32:{
      double s = rint ((double) v * 2147483648.0);
      ((int32_t *) base)[i] = (int32_t) (s < -2147483648.0 ? -2147483648.0
          : (s > 2147483647.0 ? 2147483647.0 : s));
      break;
    }
    default:
      ((float *) base)[i] = v;
      break;
  }
}

/* Index of sample (channel c, frame n) in a buffer of `layout`. */
CF_AUDIO_FN size_t
cf_sample_index (const cf_audio_layout * l, int c, int n)
{
  return l->interleaved ? (size_t) n * l->channels + c
      : (size_t) c * l->plane_pitch + n;
}

/* One mixed sample: see cf_audio_mix_cpu(). */
CF_AUDIO_FN float
cf_mix_at (int n, int frames, float dry, float wet, float a0, float a1,
    float b0, float b1)
{
  float t = (float) (n + 1) / (float) frames;
  return (a0 + (a1 - a0) * t) * dry + (b0 + (b1 - b0) * t) * wet;
}

#endif
