/* The CUDA launchers of scans in a build without CUDA: each
 * says so, and callers take the CPU twin. */
#include "scan.h"

size_t
cf_scan_workspace_size (cf_scan_algorithm a, cf_scan_type t, size_t n)
{
  (void) a; (void) t; (void) n;
  return 0;
}

int
cf_scan_cuda (cf_scan_algorithm a, cf_scan_type t, int inclusive,
    const void *in, void *out, size_t n, void *w, cf_stream s)
{
  (void) a; (void) t; (void) inclusive; (void) in; (void) out; (void) n;
  (void) w; (void) s;
  return CF_ERR_NO_CUDA;
}
