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

int cf_gpu_device_name (int d, char *n, size_t s) { (void) d; (void) n; (void) s; return CF_ERR_NO_CUDA; }
int cf_gpu_set_device (int d) { (void) d; return CF_ERR_NO_CUDA; }
int cf_gpu_stream_create (cf_stream * s) { *s = NULL; return CF_ERR_NO_CUDA; }
int cf_gpu_stream_destroy (cf_stream s) { (void) s; return CF_ERR_NO_CUDA; }
int cf_gpu_set_context (void *c) { (void) c; return CF_ERR_NO_CUDA; }
int cf_gpu_primary_context (int d, void **c) { (void) d; *c = NULL; return CF_ERR_NO_CUDA; }
int cf_gpu_stream_sync (cf_stream s) { (void) s; return CF_ERR_NO_CUDA; }
int cf_gpu_event_create (cf_event * e) { *e = NULL; return CF_ERR_NO_CUDA; }
int cf_gpu_event_destroy (cf_event e) { (void) e; return CF_ERR_NO_CUDA; }
int cf_gpu_event_record (cf_event e, cf_stream s) { (void) e; (void) s; return CF_ERR_NO_CUDA; }
int cf_gpu_event_sync (cf_event e) { (void) e; return CF_ERR_NO_CUDA; }
int cf_gpu_stream_wait (cf_stream s, cf_event e) { (void) s; (void) e; return CF_ERR_NO_CUDA; }
int cf_gpu_malloc (void **p, size_t n) { (void) n; *p = NULL; return CF_ERR_NO_CUDA; }
int cf_gpu_free (void *p) { (void) p; return CF_ERR_NO_CUDA; }
int cf_gpu_mem_info (size_t * f, size_t * t) { *f = *t = 0; return CF_ERR_NO_CUDA; }
int cf_gpu_host_alloc (void **p, size_t n) { (void) n; *p = NULL; return CF_ERR_NO_CUDA; }
int cf_gpu_host_free (void *p) { (void) p; return CF_ERR_NO_CUDA; }
int cf_gpu_host_is_pinned (const void *p) { (void) p; return 0; }
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

/* The CUDA launchers of each operation, in a build without CUDA. */
#include "conv2d.h"

int
cf_conv2d_cuda (cf_conv2d_algorithm a, const cf_conv2d_plan * p,
    const cf_plane_format * f, const void *s, size_t ss, void *d, size_t ds,
    int r0, int r1, cf_stream st)
{
  (void) a; (void) p; (void) f; (void) s; (void) ss; (void) d; (void) ds;
  (void) r0; (void) r1; (void) st;
  return CF_ERR_NO_CUDA;
}

#include "conv1d.h"

int
cf_conv1d_cuda (cf_conv1d_algorithm a, const cf_conv1d_mask * m, int ch,
    const float *x, size_t xp, float *y, size_t yp, int frames, cf_stream s)
{
  (void) a; (void) m; (void) ch; (void) x; (void) xp; (void) y; (void) yp;
  (void) frames; (void) s;
  return CF_ERR_NO_CUDA;
}

#include "audio_convert.h"

int
cf_audio_to_float_cuda (const cf_audio_layout * l, const void *src, int f,
    float *dst, size_t dp, cf_stream s)
{
  (void) l; (void) src; (void) f; (void) dst; (void) dp; (void) s;
  return CF_ERR_NO_CUDA;
}

int
cf_audio_from_float_cuda (const cf_audio_layout * l, const float *src,
    size_t sp, int f, void *dst, cf_stream s)
{
  (void) l; (void) src; (void) sp; (void) f; (void) dst; (void) s;
  return CF_ERR_NO_CUDA;
}

int
cf_audio_mix_cuda (int ch, int f, const float *d, size_t dp, const float *w,
    size_t wp, float *o, size_t op, float a0, float a1, float b0, float b1,
    cf_stream s)
{
  (void) ch; (void) f; (void) d; (void) dp; (void) w; (void) wp; (void) o;
  (void) op; (void) a0; (void) a1; (void) b0; (void) b1; (void) s;
  return CF_ERR_NO_CUDA;
}

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

#include "boxmean.h"

int
cf_box_cuda (const cf_integral_layout * l, const void *in, const void *sum,
    const cf_box_params * p, void *out, cf_stream s)
{
  (void) l; (void) in; (void) sum; (void) p; (void) out; (void) s;
  return CF_ERR_NO_CUDA;
}
