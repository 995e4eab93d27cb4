/* CPU twin of the audio sample conversions; see audio_convert.h. */
#include "audio_convert.h"
#include "audio_sample.h"

size_t
cf_audio_sample_bytes (cf_audio_format format)
{
  switch (format) {
    case CF_AUDIO_F64: return 8;
    case CF_AUDIO_S16: return 2;
    default: return 4;
  }
}

static int
layout_ok (const cf_audio_layout * l, int frames)
{
  return l && l->channels >= 1 && frames >= 0
      && (unsigned) l->format <= CF_AUDIO_S32
      && (l->interleaved || l->channels == 1
      || l->plane_pitch >= (size_t) frames);
}

int
cf_audio_to_float_cpu (const cf_audio_layout * l, const void *src,
    int frames, float *dst, size_t dst_pitch)
{
  if (!layout_ok (l, frames) || !src || !dst)
    return CF_ERR_INVALID;
  for (int c = 0; c < l->channels; c++)
    for (int n = 0; n < frames; n++)
      dst[c * dst_pitch + n] = cf_sample_get (l->format, src,
          cf_sample_index (l, c, n));
  return CF_OK;
}

int
cf_audio_from_float_cpu (const cf_audio_layout * l, const float *src,
    size_t src_pitch, int frames, void *dst)
{
  if (!layout_ok (l, frames) || !src || !dst)
    return CF_ERR_INVALID;
  for (int c = 0; c < l->channels; c++)
    for (int n = 0; n < frames; n++)
      cf_sample_put (l->format, dst, cf_sample_index (l, c, n),
          src[c * src_pitch + n]);
  return CF_OK;
}

int
cf_audio_mix_cpu (int channels, int frames, const float *dry,
    size_t dry_pitch, const float *wet, size_t wet_pitch, float *out,
    size_t out_pitch, float a0, float a1, float b0, float b1)
{
  if (channels < 1 || frames < 0 || !dry || !wet || !out)
    return CF_ERR_INVALID;
  for (int c = 0; c < channels; c++)
    for (int n = 0; n < frames; n++)
      out[c * out_pitch + n] = cf_mix_at (n, frames, dry[c * dry_pitch + n],
          wet[c * wet_pitch + n], a0, a1, b0, b1);
  return CF_OK;
}
