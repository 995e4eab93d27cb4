/* Loudness without CUDA: the CUDA twin's entry points (see loudness.h). */
#include "loudness_private.h"

int
cf_loudness_add_cuda (cf_loudness * l, const cf_audio_layout * layout,
    const void *src, int frames, cf_stream stream)
{
  (void) l; (void) layout; (void) src; (void) frames; (void) stream;
  return CF_ERR_NO_CUDA;
}

int
cf_loudness_queue_cuda (cf_loudness * l, const cf_audio_layout * layout,
    const void *src, int frames, cf_stream stream)
{
  return cf_loudness_add_cuda (l, layout, src, frames, stream);
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
