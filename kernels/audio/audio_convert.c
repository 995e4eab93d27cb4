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

int
cf_audio_layout_ok (const cf_audio_layout * l, int frames)
{
  return l && l->channels >= 1 && frames >= 0
      && (unsigned) l->format <= CF_AUDIO_S32
      && (l->interleaved || l->channels == 1
      || l->plane_pitch >= (size_t) frames);
}

int
cf_audio_to_planar_cpu (const cf_audio_layout * l, const void *src,
    int frames, void *dst, size_t dst_pitch, int f64)
{
  if (!cf_audio_layout_ok (l, frames) || !src || !dst)
    return CF_ERR_INVALID;
  for (int c = 0; c < l->channels; c++)
    for (int n = 0; n < frames; n++)
      cf_plane_put (dst, f64, c * dst_pitch + n, cf_sample_get (l->format,
              src, cf_sample_index (l, c, n)));
  return CF_OK;
}

int
cf_audio_from_planar_cpu (const cf_audio_layout * l, const void *src,
    size_t src_pitch, int frames, void *dst, int f64)
{
  if (!cf_audio_layout_ok (l, frames) || !src || !dst)
    return CF_ERR_INVALID;
  for (int c = 0; c < l->channels; c++)
    for (int n = 0; n < frames; n++)
      cf_sample_put (l->format, dst, cf_sample_index (l, c, n),
          cf_plane_get (src, f64, c * src_pitch + n));
  return CF_OK;
}

int
cf_audio_mix_cpu (int channels, int frames, const void *dry,
    size_t dry_pitch, const void *wet, size_t wet_pitch, void *out,
    size_t out_pitch, double a0, double a1, double b0, double b1, int f64)
{
  if (channels < 1 || frames < 0 || !dry || !wet || !out)
    return CF_ERR_INVALID;
  for (int c = 0; c < channels; c++)
    for (int n = 0; n < frames; n++)
      cf_plane_put (out, f64, c * out_pitch + n, cf_mix_at (n, frames,
              cf_plane_get (dry, f64, c * dry_pitch + n),
              cf_plane_get (wet, f64, c * wet_pitch + n), a0, a1, b0, b1));
  return CF_OK;
}

int
cf_audio_crossfade_cpu (int channels, int frames, const void *a,
    size_t a_pitch, const void *b, size_t b_pitch, void *out,
    size_t out_pitch, long long start, long long length, int f64)
{
  if (channels < 1 || frames < 0 || length < 0 || !a || !b || !out)
    return CF_ERR_INVALID;
  for (int c = 0; c < channels; c++)
    for (int n = 0; n < frames; n++)
      cf_plane_put (out, f64, c * out_pitch + n, cf_crossfade_at (start + n,
              length, cf_plane_get (a, f64, c * a_pitch + n),
              cf_plane_get (b, f64, c * b_pitch + n)));
  return CF_OK;
}
