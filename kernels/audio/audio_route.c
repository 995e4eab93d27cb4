/* CPU twin of the plane sums; see audio_route.h. */
#include "audio_route.h"
#include "audio_sample.h"

int
cf_audio_plane_sums_ok (const cf_audio_plane_sums * s)
{
  if (!s || s->planes < 1 || s->planes > CF_AUDIO_MAX_ROUTES
      || s->first[0] != 0)
    return 0;
  for (int j = 0; j < s->planes; j++)
    if (s->first[j + 1] < s->first[j]
        || s->first[j + 1] > CF_AUDIO_MAX_ROUTES)
      return 0;
  return 1;
}

int
cf_audio_sum_planes_cpu (const cf_audio_plane_sums * s, const void *src,
    size_t src_pitch, int frames, void *dst, size_t dst_pitch, int f64)
{
  if (!cf_audio_plane_sums_ok (s) || !src || !dst || frames < 0)
    return CF_ERR_INVALID;
  for (int j = 0; j < s->planes; j++)
    for (int n = 0; n < frames; n++) {
      double sum = 0.0;
      for (int k = s->first[j]; k < s->first[j + 1]; k++)
        sum += cf_plane_get (src, f64, s->source[k] * src_pitch + n);
      cf_plane_put (dst, f64, j * dst_pitch + n, sum);
    }
  return CF_OK;
}

int
cf_audio_routed_ok (const cf_audio_layout * l, int frames,
    const cf_audio_plane_sums * s, int to_planes)
{
  if (!cf_audio_layout_ok (l, frames) || !cf_audio_plane_sums_ok (s))
    return 0;
  if (!to_planes)
    return s->planes == l->channels;
  for (int k = 0; k < s->first[s->planes]; k++)
    if (s->source[k] < 0 || s->source[k] >= l->channels)
      return 0;
  return 1;
}

int
cf_audio_to_planes_routed_cpu (const cf_audio_layout * l, const void *src,
    int frames, const cf_audio_plane_sums * s, void *dst, size_t dst_pitch,
    int f64)
{
  if (!cf_audio_routed_ok (l, frames, s, 1) || !src || !dst)
    return CF_ERR_INVALID;
  for (int j = 0; j < s->planes; j++)
    for (int n = 0; n < frames; n++) {
      double sum = 0.0;
      for (int k = s->first[j]; k < s->first[j + 1]; k++)
        sum += cf_sample_get (l->format, src, cf_sample_index (l,
                s->source[k], n));
      cf_plane_put (dst, f64, j * dst_pitch + n, sum);
    }
  return CF_OK;
}

int
cf_audio_from_planes_routed_cpu (const cf_audio_layout * l, const void *src,
    size_t src_pitch, int frames, const cf_audio_plane_sums * s, void *dst,
    int f64)
{
  if (!cf_audio_routed_ok (l, frames, s, 0) || !src || !dst)
    return CF_ERR_INVALID;
  for (int j = 0; j < s->planes; j++)
    for (int n = 0; n < frames; n++) {
      double sum = 0.0;
      for (int k = s->first[j]; k < s->first[j + 1]; k++)
        sum += cf_plane_get (src, f64, s->source[k] * src_pitch + n);
      cf_sample_put (l->format, dst, cf_sample_index (l, j, n), f64 ? sum
          : (double) (float) sum);
    }
  return CF_OK;
}
