/* The device layer (gpu.h) of a build without CUDA: no device, and every
 * call says the library was built without CUDA. Callers see a device count
 * of 0 and take their CPU path. */
#include "gpu.h"

const char *
cf_gpu_error_name (int error)
{
  (void) error;
  return "CF_ERR_UNKNOWN";
}

int cf_gpu_built_with_cuda (void) { return 0; }

int
cf_gpu_device_count (int *count)
{
  *count = 0;
  return CF_ERR_NO_CUDA;
}

int cf_gpu_driver_version (void) { return 0; }
int cf_gpu_build_version (void) { return 0; }
const char *cf_gpu_build_archs (void) { return ""; }
int cf_gpu_check_build (int d, char *w, size_t s) { (void) d; if (s) w[0] = '\0'; return CF_ERR_NO_CUDA; }
int cf_gpu_check_kernel (const void *k, const char *a, int d, char *w, size_t s) { (void) k; (void) a; (void) d; if (s) w[0] = '\0'; return CF_ERR_NO_CUDA; }
int cf_gpu_device_name (int d, char *n, size_t s) { (void) d; (void) n; (void) s; return CF_ERR_NO_CUDA; }
int cf_gpu_set_device (int d) { (void) d; return CF_ERR_NO_CUDA; }
int cf_gpu_stream_create (cf_stream * s) { *s = NULL; return CF_ERR_NO_CUDA; }
int cf_gpu_stream_create_background (cf_stream * s) { *s = NULL; return CF_ERR_NO_CUDA; }
int cf_gpu_stream_destroy (cf_stream s) { (void) s; return CF_ERR_NO_CUDA; }
int cf_gpu_set_context (void *c) { (void) c; return CF_ERR_NO_CUDA; }
int cf_gpu_push_context (void *c) { (void) c; return CF_ERR_NO_CUDA; }
int cf_gpu_pop_context (void) { return CF_ERR_NO_CUDA; }
int cf_gpu_current_context (void **c) { *c = NULL; return CF_ERR_NO_CUDA; }
int cf_gpu_context_id (unsigned long long *i) { *i = 0; return CF_ERR_NO_CUDA; }
int cf_gpu_primary_context (int d, void **c) { (void) d; *c = NULL; return CF_ERR_NO_CUDA; }
int cf_gpu_stream_sync (cf_stream s) { (void) s; return CF_ERR_NO_CUDA; }
int cf_gpu_event_create (cf_event * e) { *e = NULL; return CF_ERR_NO_CUDA; }
int cf_gpu_event_destroy (cf_event e) { (void) e; return CF_ERR_NO_CUDA; }
int cf_gpu_event_record (cf_event e, cf_stream s) { (void) e; (void) s; return CF_ERR_NO_CUDA; }
int cf_gpu_event_sync (cf_event e) { (void) e; return CF_ERR_NO_CUDA; }
int cf_gpu_stream_wait (cf_stream s, cf_event e) { (void) s; (void) e; return CF_ERR_NO_CUDA; }
int cf_gpu_malloc (void **p, size_t n) { (void) n; *p = NULL; return CF_ERR_NO_CUDA; }
int cf_gpu_free (void *p) { (void) p; return CF_ERR_NO_CUDA; }
int cf_gpu_malloc_async (void **p, size_t n, cf_stream s) { (void) n; (void) s; *p = NULL; return CF_ERR_NO_CUDA; }
int cf_gpu_free_async (void *p, cf_stream s) { (void) p; (void) s; return CF_ERR_NO_CUDA; }
int cf_gpu_mem_info (size_t * f, size_t * t) { *f = *t = 0; return CF_ERR_NO_CUDA; }
int cf_gpu_host_alloc (void **p, size_t n) { (void) n; *p = NULL; return CF_ERR_NO_CUDA; }
int cf_gpu_host_free (void *p) { (void) p; return CF_ERR_NO_CUDA; }
int cf_gpu_host_is_pinned (const void *p) { (void) p; return 0; }
void *cf_gpu_host_device_pointer (const void *p) { (void) p; return NULL; }
int cf_gpu_host_register (void *p, size_t n) { (void) p; (void) n; return CF_ERR_NO_CUDA; }
int cf_gpu_host_unregister (void *p) { (void) p; return CF_ERR_NO_CUDA; }
int cf_gpu_memset (void *p, int v, size_t n, cf_stream s) { (void) p; (void) v; (void) n; (void) s; return CF_ERR_NO_CUDA; }
int cf_gpu_last_error (void) { return CF_OK; }

int
cf_gpu_copy_2d (void *dst, size_t dp, const void *src, size_t sp,
    size_t row_bytes, size_t rows, cf_copy_kind kind, cf_stream stream)
{
  (void) dst; (void) dp; (void) src; (void) sp; (void) row_bytes;
  (void) rows; (void) kind; (void) stream;
  return CF_ERR_NO_CUDA;
}
