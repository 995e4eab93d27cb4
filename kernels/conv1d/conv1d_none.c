/* The CUDA launchers of 1D convolution in a build without CUDA: each
 * says so, and callers take the CPU twin. */
#include "conv1d.h"

int
cf_conv1d_cuda (cf_conv1d_algorithm a, const cf_conv1d_mask * m, int ch,
    const float *x, size_t xp, float *y, size_t yp, int frames, cf_stream s)
{
  (void) a; (void) m; (void) ch; (void) x; (void) xp; (void) y; (void) yp;
  (void) frames; (void) s;
  return CF_ERR_NO_CUDA;
}

int
cf_conv1d_cuda_f64 (const cf_conv1d_mask * m, int ch, const double *x,
    size_t xp, double *y, size_t yp, int frames, cf_stream s)
{
  (void) m; (void) ch; (void) x; (void) xp; (void) y; (void) yp;
  (void) frames; (void) s;
  return CF_ERR_NO_CUDA;
}
