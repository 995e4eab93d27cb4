/* The CUDA launchers of box means in a build without CUDA: each
 * says so, and callers take the CPU twin. */
#include "boxmean.h"

int
cf_box_cuda (const cf_integral_layout * l, const void *in, const void *sum,
    const cf_box_params * p, void *out, cf_stream s)
{
  (void) l; (void) in; (void) sum; (void) p; (void) out; (void) s;
  return CF_ERR_NO_CUDA;
}

int
cf_box_direct_cuda (const cf_integral_layout * l, const void *in,
    const cf_box_params * p, void *out, cf_stream s)
{
  (void) l; (void) in; (void) p; (void) out; (void) s;
  return CF_ERR_NO_CUDA;
}

long
cf_box_words_division_errors (void)
{
  return -1;
}
