/* cf_conv1d_cuda(): argument checks and the choice of variant; the variants
 * live in conv1d_<variant>.cu. */
#include <cstring>

#include "conv1d_common.cuh"

namespace cf_conv1d {

/* The variant, with the masks in a parameter of capacity CAP. */
template <int CAP>
static int
launch (cf_conv1d_algorithm algorithm, const cf_conv1d_mask * m,
    const Signal & s, int channels, cudaStream_t stream)
{
  Taps<CAP> t;

  t.taps = m->taps;
  t.masks = m->masks;
  memcpy (t.h, m->h, sizeof (float) * m->taps * m->masks);
  switch (algorithm) {
    case CF_CONV1D_BASIC:
      return cf_conv1d_basic (s, t, channels, stream);
    case CF_CONV1D_TILED:
      return cf_conv1d_tiled (s, t, channels, stream);
    case CF_CONV1D_CACHED:
      return cf_conv1d_cached (s, t, channels, stream);
    default:
      return cf_conv1d_fast (s, t, channels, stream);
  }
}

}  /* namespace cf_conv1d */

extern "C" int
cf_conv1d_cuda (cf_conv1d_algorithm algorithm, const cf_conv1d_mask * m,
    int channels, const float *d_x, size_t x_pitch, float *d_y,
    size_t y_pitch, int frames, cf_stream stream)
{
  int status = cf_conv1d_mask_check (m, channels);
  size_t total;
  cf_conv1d::Signal s;

  if (status != CF_OK)
    return status;
  if (!m->h || !d_x || !d_y || frames < 0
      || (unsigned) algorithm >= CF_CONV1D_N_ALGORITHMS
      || (channels > 1 && (x_pitch < (size_t) (frames + m->taps - 1)
              || y_pitch < (size_t) frames)))
    return CF_ERR_INVALID;
  total = (size_t) m->taps * m->masks;
  if (total > CF_CONV1D_MAX_DIRECT_TAPS)
    return CF_ERR_UNSUPPORTED;
  if (frames == 0)
    return CF_OK;

  s.x = d_x;
  s.y = d_y;
  s.x_pitch = x_pitch;
  s.y_pitch = y_pitch;
  s.frames = frames;
#define SMALLEST_FITTING(CAP) if (total <= (CAP)) \
    return cf_conv1d::launch<CAP> (algorithm, m, s, channels, \
        (cudaStream_t) stream);
  CF_CONV1D_FOR_EACH_TAPS_CLASS (SMALLEST_FITTING)
#undef SMALLEST_FITTING
  return CF_ERR_UNSUPPORTED;
}
