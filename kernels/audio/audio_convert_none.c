/* The CUDA launchers of audio sample conversion in a build without CUDA: each
 * says so, and callers take the CPU twin. */
#include "audio_convert.h"

int
cf_audio_to_float_cuda (const cf_audio_layout * l, const void *src, int f,
    float *dst, size_t dp, cf_stream s)
{
  (void) l; (void) src; (void) f; (void) dst; (void) dp; (void) s;
  return CF_ERR_NO_CUDA;
}

int
cf_audio_from_float_cuda (const cf_audio_layout * l, const float *src,
    size_t sp, int f, void *dst, cf_stream s)
{
  (void) l; (void) src; (void) sp; (void) f; (void) dst; (void) s;
  return CF_ERR_NO_CUDA;
}

int
cf_audio_mix_cuda (int ch, int f, const float *d, size_t dp, const float *w,
    size_t wp, float *o, size_t op, float a0, float a1, float b0, float b1,
    cf_stream s)
{
  (void) ch; (void) f; (void) d; (void) dp; (void) w; (void) wp; (void) o;
  (void) op; (void) a0; (void) a1; (void) b0; (void) b1; (void) s;
  return CF_ERR_NO_CUDA;
}
