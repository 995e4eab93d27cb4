/* Sums of planes, for filters whose outputs mix channels: plane j of the
 * destination is the sum of the source planes the route table lists for
 * it (none: silence). One table gathers (each destination from one
 * source: a filter's input per route), another scatters (each output
 * channel the sum of its routes' outputs). Planes of floats, or doubles
 * (f64); the sums are computed in double and rounded once. */
#ifndef CF_AUDIO_ROUTE_H
#define CF_AUDIO_ROUTE_H

#include <stddef.h>
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

/* Whether a table is well formed: counts in range, ascending firsts. */
int cf_audio_plane_sums_ok (const cf_audio_plane_sums * sums);

#ifdef __cplusplus
}
#endif
#endif
