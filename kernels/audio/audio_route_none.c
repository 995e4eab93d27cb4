/* The plane sums' CUDA launcher in a build without CUDA: it says so. */
#include "audio_route.h"

int
cf_audio_sum_planes_cuda (const cf_audio_plane_sums * s, const void *src,
    size_t sp, int f, void *dst, size_t dp, int f64, cf_stream st)
{
  (void) s; (void) src; (void) sp; (void) f; (void) dst; (void) dp;
  (void) f64; (void) st;
  return CF_ERR_NO_CUDA;
}
