/* The CUDA launchers of audio sample conversion in a build without CUDA: each
 * says so, and callers take the CPU twin. */
#include "audio_convert.h"

int
cf_audio_to_planar_cuda (const cf_audio_layout * l, const void *src, int f,
    void *dst, size_t dp, int f64, cf_stream s)
{
  (void) l; (void) src; (void) f; (void) dst; (void) dp; (void) f64;
  (void) s;
  return CF_ERR_NO_CUDA;
}

int
cf_audio_from_planar_cuda (const cf_audio_layout * l, const void *src,
    size_t sp, int f, void *dst, int f64, cf_stream s)
{
  (void) l; (void) src; (void) sp; (void) f; (void) dst; (void) f64;
  (void) s;
  return CF_ERR_NO_CUDA;
}

int
cf_audio_mix_cuda (int ch, int f, const void *d, size_t dp, const void *w,
    size_t wp, void *o, size_t op, double a0, double a1, double b0,
    double b1, int f64, cf_stream s)
{
  (void) ch; (void) f; (void) d; (void) dp; (void) w; (void) wp; (void) o;
  (void) op; (void) a0; (void) a1; (void) b0; (void) b1; (void) f64;
  (void) s;
  return CF_ERR_NO_CUDA;
}

int
cf_audio_crossfade_cuda (int ch, int f, const void *a, size_t ap,
    const void *b, size_t bp, void *o, size_t op, long long start,
    long long length, int f64, cf_stream s)
{
  (void) ch; (void) f; (void) a; (void) ap; (void) b; (void) bp; (void) o;
  (void) op; (void) start; (void) length; (void) f64; (void) s;
  return CF_ERR_NO_CUDA;
}
