/* Loudness without CUDA: the CUDA twin's entry points (see loudness.h). */
#include "loudness_private.h"

int
cf_loudness_add_cuda (cf_loudness * l, const void *src, size_t pitch,
    int frames, int f64, cf_stream stream)
{
  (void) l; (void) src; (void) pitch; (void) frames; (void) f64;
  (void) stream;
  return CF_ERR_NO_CUDA;
}

int
cf_loudness_queue_cuda (cf_loudness * l, const void *src, size_t pitch,
    int frames, int f64, cf_stream stream)
{
  return cf_loudness_add_cuda (l, src, pitch, frames, f64, stream);
}

int
cf_loudness_collect_cuda (cf_loudness * l)
{
  (void) l;
  return CF_ERR_NO_CUDA;
}

void
cf_loudness_device_free (cf_loudness_device * device)
{
  (void) device;
}
