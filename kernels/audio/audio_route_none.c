/* The plane sums' CUDA launchers in a build without CUDA: they say so. */
#include "audio_route.h"

int
cf_audio_sum_planes_cuda (const cf_audio_plane_sums * s, const void *src,
    size_t sp, int f, void *dst, size_t dp, int f64, cf_stream st)
{
  (void) s; (void) src; (void) sp; (void) f; (void) dst; (void) dp;
  (void) f64; (void) st;
  return CF_ERR_NO_CUDA;
}

int
cf_audio_to_planes_routed_cuda (const cf_audio_layout * l, const void *src,
    int f, const cf_audio_plane_sums * s, void *dst, size_t dp, int f64,
    cf_stream st)
{
  (void) l; (void) src; (void) f; (void) s; (void) dst; (void) dp;
  (void) f64; (void) st;
  return CF_ERR_NO_CUDA;
}

int
cf_audio_from_planes_routed_cuda (const cf_audio_layout * l,
    const void *src, size_t sp, int f, const cf_audio_plane_sums * s,
    void *dst, int f64, cf_stream st)
{
  (void) l; (void) src; (void) sp; (void) f; (void) s; (void) dst;
  (void) f64; (void) st;
  return CF_ERR_NO_CUDA;
}
