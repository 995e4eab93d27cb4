/* One sample to a number and back, shared by the CPU twin and the CUDA
 * kernels of audio_convert.h. Read and written through double, which holds
 * every F32, S16 and S32 sample exactly: a float plane gets the same
 * values as a direct conversion would give. */
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

/* Sample `i` of a buffer of `format`, in [-1, 1) for integers. */
CF_AUDIO_FN double
cf_sample_get (cf_audio_format format, const void *base, size_t i)
{
  switch (format) {
    case CF_AUDIO_F64:
      return ((const double *) base)[i];
    case CF_AUDIO_S16:
      return ((const int16_t *) base)[i] * (1.0 / 32768.0);
    case CF_AUDIO_S32:
      return ((const int32_t *) base)[i] * (1.0 / 2147483648.0);
    default:
      return ((const float *) base)[i];
  }
}

/* Stores v at sample `i`: integers rounded to nearest even and saturated;
 * NaN stores as 0 (converting it to an integer is undefined in C). */
CF_AUDIO_FN void
cf_sample_put (cf_audio_format format, void *base, size_t i, double v)
{
  switch (format) {
    case CF_AUDIO_F64:
      ((double *) base)[i] = v;
      break;
    case CF_AUDIO_S16:{
      double s = isnan (v) ? 0.0 : rint (v * 32768.0);
      ((int16_t *) base)[i] = (int16_t) (s < -32768.0 ? -32768.0
          : (s > 32767.0 ? 32767.0 : s));
      break;
    }
    case CF_AUDIO_S32:{
      double s = isnan (v) ? 0.0 : rint (v * 2147483648.0);
      ((int32_t *) base)[i] = (int32_t) (s < -2147483648.0 ? -2147483648.0
          : (s > 2147483647.0 ? 2147483647.0 : s));
      break;
    }
    default:
      ((float *) base)[i] = (float) v;
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
CF_AUDIO_FN double
cf_mix_at (int n, int frames, double dry, double wet, double a0, double a1,
    double b0, double b1)
{
  double t = (double) (n + 1) / (double) frames;
  return (a0 + (a1 - a0) * t) * dry + (b0 + (b1 - b0) * t) * wet;
}

/* One crossfaded sample: see cf_audio_crossfade_cpu(). */
CF_AUDIO_FN double
cf_crossfade_at (long long t, long long length, double a, double b)
{
  double w = t >= length ? 1.0 : t <= 0 ? 0.0
      : 0.5 * (1.0 - cos (3.14159265358979323846 * (double) t
          / (double) length));
  return a + w * (b - a);
}

/* Sample i of a plane of floats, or of doubles (f64). */
CF_AUDIO_FN double
cf_plane_get (const void *plane, int f64, size_t i)
{
  return f64 ? ((const double *) plane)[i] : ((const float *) plane)[i];
}

CF_AUDIO_FN void
cf_plane_put (void *plane, int f64, size_t i, double v)
{
  if (f64)
    ((double *) plane)[i] = v;
  else
    ((float *) plane)[i] = (float) v;
}

#endif
