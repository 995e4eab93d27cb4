/* Sums of planes, for filters whose outputs mix channels: plane j of the
 * destination is the sum of the source planes the route table lists for
 * it (none: silence). One table gathers (each destination from one
 * source: a filter's input per route), another scatters (each output
 * channel the sum of its routes' outputs). Planes of floats, or doubles
 * (f64); the sums are computed in double and rounded once. */
#ifndef CF_AUDIO_ROUTE_H
#define CF_AUDIO_ROUTE_H

#include <stddef.h>
#include "audio_convert.h"
#include "cf_status.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Routes a table holds at most (an 8 x 8 matrix) */
#define CF_AUDIO_MAX_ROUTES 64

typedef struct
{
  int planes;                   /* destination planes, 1..MAX_ROUTES */
  /* destination j sums source planes source[first[j] .. first[j + 1]) */
  int first[CF_AUDIO_MAX_ROUTES + 1];
  int source[CF_AUDIO_MAX_ROUTES];
} cf_audio_plane_sums;

/* dst[j * dst_pitch + n] = sum over the sources s of j of
 * src[s * src_pitch + n], for `frames` frames. dst must not overlap src. */
int cf_audio_sum_planes_cpu (const cf_audio_plane_sums * sums,
    const void *src, size_t src_pitch, int frames, void *dst,
    size_t dst_pitch, int f64);
/* The same on device memory, queued on `stream`. */
int cf_audio_sum_planes_cuda (const cf_audio_plane_sums * sums,
    const void *src, size_t src_pitch, int frames, void *dst,
    size_t dst_pitch, int f64, cf_stream stream);

/* The raw samples of a stream (in `layout`, as audio_convert.h reads
 * them) straight into planes through a table: plane j is the sum of the
 * stream's channels listed for it. One pass for a conversion followed by a
 * gather. */
int cf_audio_to_planes_routed_cpu (const cf_audio_layout * layout,
    const void *src, int frames, const cf_audio_plane_sums * sums,
    void *dst, size_t dst_pitch, int f64);
int cf_audio_to_planes_routed_cuda (const cf_audio_layout * layout,
    const void *src, int frames, const cf_audio_plane_sums * sums,
    void *dst, size_t dst_pitch, int f64, cf_stream stream);

/* The reverse: channel j of the stream (`layout`, of sums->planes
 * channels) is the sum of the planes listed for it, rounded to the planes'
 * type first, so that the samples are those of a sum of planes followed by
 * a conversion. */
int cf_audio_from_planes_routed_cpu (const cf_audio_layout * layout,
    const void *src, size_t src_pitch, int frames,
    const cf_audio_plane_sums * sums, void *dst, int f64);
int cf_audio_from_planes_routed_cuda (const cf_audio_layout * layout,
    const void *src, size_t src_pitch, int frames,
    const cf_audio_plane_sums * sums, void *dst, int f64, cf_stream stream);

/* Whether a table is well formed: counts in range, ascending firsts. */
int cf_audio_plane_sums_ok (const cf_audio_plane_sums * sums);

/* Whether the routed conversions take a layout, `frames` and a table:
 * into planes (to_planes), sources among the layout's channels; out of
 * them, one plane sum a channel. */
int cf_audio_routed_ok (const cf_audio_layout * layout, int frames,
    const cf_audio_plane_sums * sums, int to_planes);

#ifdef __cplusplus
}
#endif
#endif
