/* The CUDA launchers of integral images in a build without CUDA: each
 * says so, and callers take the CPU twin. */
#include "integral.h"

int
cf_integral_cuda (const cf_integral_layout * l, const void *in, void *sum,
    void *sq, cf_stream s)
{
  (void) l; (void) in; (void) sum; (void) sq; (void) s;
  return CF_ERR_NO_CUDA;
}

size_t
cf_integral_scan_workspace_size (const cf_integral_layout * l,
    cf_scan_algorithm a)
{
  (void) l; (void) a;
  return 0;
}

int
cf_integral_cuda_with_scan (const cf_integral_layout * l,
    cf_scan_algorithm a, const void *in, void *sum, void *sq, void *w,
    cf_stream s)
{
  (void) l; (void) a; (void) in; (void) sum; (void) sq; (void) w; (void) s;
  return CF_ERR_NO_CUDA;
}
