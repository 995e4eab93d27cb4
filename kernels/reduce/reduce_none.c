/* The CUDA launchers of reductions in a build without CUDA: each
 * says so, and callers take the CPU twin. */
#include "reduce.h"

size_t
cf_reduce_workspace_size (const cf_reduce_layout * l)
{
  (void) l;
  return 0;
}

int
cf_reduce_cuda (const cf_reduce_layout * l, const void *d, cf_stats * o,
    void *w, cf_stream s)
{
  (void) l; (void) d; (void) o; (void) w; (void) s;
  return CF_ERR_NO_CUDA;
}

int
cf_reduce_cuda_variant (cf_reduce_algorithm a, const cf_reduce_layout * l,
    const void *d, cf_stats * o, void *w, cf_stream s)
{
  (void) a; (void) l; (void) d; (void) o; (void) w; (void) s;
  return CF_ERR_NO_CUDA;
}
