/* The CUDA launchers of 2D convolution in a build without CUDA: each
 * says so, and callers take the CPU twin. */
#include "conv2d_long.h"
#include "conv2d_roi.h"
#include "conv2d_spectral.h"

int
cf_conv2d_cuda (cf_conv2d_algorithm a, const cf_conv2d_plan * p,
    const cf_plane_format * f, const void *s, size_t ss, void *d, size_t ds,
    int r0, int r1, cf_stream st)
{
  (void) a; (void) p; (void) f; (void) s; (void) ss; (void) d; (void) ds;
  (void) r0; (void) r1; (void) st;
  return CF_ERR_NO_CUDA;
}

int
cf_conv2d_long_cuda (const cf_conv2d_plan * p, const cf_plane_format * f,
    const void *s, size_t ss, void *d, size_t ds, void *w, cf_stream st)
{
  (void) p; (void) f; (void) s; (void) ss; (void) d; (void) ds; (void) w;
  (void) st;
  return CF_ERR_NO_CUDA;
}

int
cf_conv2d_spectral_cuda_new (cf_conv2d_spectral_gpu ** out,
    const cf_conv2d_plan * p, const cf_plane_format * f, cf_stream st)
{
  (void) p; (void) f; (void) st;
  if (out)
    *out = NULL;
  return CF_ERR_NO_CUDA;
}

int
cf_conv2d_spectral_cuda (cf_conv2d_spectral_gpu * sp, const void *s, size_t ss,
    void *d, size_t ds, cf_stream st)
{
  (void) sp; (void) s; (void) ss; (void) d; (void) ds; (void) st;
  return CF_ERR_NO_CUDA;
}

int
cf_conv2d_spectral_cuda_double (const cf_conv2d_spectral_gpu * sp)
{
  (void) sp;
  return 0;
}

void
cf_conv2d_spectral_cuda_free (cf_conv2d_spectral_gpu * sp)
{
  (void) sp;
}

int
cf_conv2d_roi_blend_cuda (const cf_plane_format * f, const cf_rect * a,
    const cf_roi_view * g, const cf_roi_view * s, const cf_roi_view * d,
    const cf_rect * r, const cf_rect * dr, int n, int fx, int fy, int owner,
    cf_stream st)
{
  (void) f; (void) a; (void) g; (void) s; (void) d; (void) r; (void) dr;
  (void) n;
  (void) fx; (void) fy; (void) owner; (void) st;
  return CF_ERR_NO_CUDA;
}
