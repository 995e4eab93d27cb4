/* Audio samples to planar float or double and back, for the audio
 * filters: F32, F64, S16 and S32 samples, interleaved or one plane per
 * channel. Integers map
 * to [-1, 1) (divided by 2^15 or 2^31) and back with rounding to nearest
 * (ties to even) and saturation to their range. */
#ifndef CF_AUDIO_CONVERT_H
#define CF_AUDIO_CONVERT_H

#include <stddef.h>
#include "cf_status.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CF_AUDIO_F32,
  CF_AUDIO_F64,
  CF_AUDIO_S16,
  CF_AUDIO_S32,
} cf_audio_format;

typedef struct
{
  cf_audio_format format;       /* native endian */
  int channels;
  int interleaved;              /* 1: frames of `channels` samples */
  size_t plane_pitch;           /* planar: samples from one plane to the next */
} cf_audio_layout;

size_t cf_audio_sample_bytes (cf_audio_format format);

/* Whether `layout` describes `frames` frames the converters can read or
 * write: a known format, a channel or more, planes that do not overlap. */
int cf_audio_layout_ok (const cf_audio_layout * layout, int frames);

/* The planes the filters work on hold floats, or doubles (f64) for streams
 * computed in double precision: F64 and S32 samples, which a float would
 * round to 24 bits. */

/* dst[c * dst_pitch + n] = sample n of channel c, for `frames` frames. */
int cf_audio_to_planar_cpu (const cf_audio_layout * layout, const void *src,
    int frames, void *dst, size_t dst_pitch, int f64);
int cf_audio_from_planar_cpu (const cf_audio_layout * layout,
    const void *src, size_t src_pitch, int frames, void *dst, int f64);

/* The same on device memory, queued on `stream`. The raw samples (src of
 * to_planar, dst of from_planar) may also be page-locked host memory
 * mapped for the device: interleaved ones are then read or written in
 * place, a warp's accesses contiguous. */
int cf_audio_to_planar_cuda (const cf_audio_layout * layout, const void *src,
    int frames, void *dst, size_t dst_pitch, int f64, cf_stream stream);
int cf_audio_from_planar_cuda (const cf_audio_layout * layout,
    const void *src, size_t src_pitch, int frames, void *dst, int f64,
    cf_stream stream);

/* out[c][n] = a(n) dry[c][n] + b(n) wet[c][n], planar, with a and b
 * ramping linearly from (a0, b0) to (a1, b1) across the frames (a(n) =
 * a0 + (a1 - a0)(n + 1) / frames): gains that change between buffers glide
 * instead of stepping. `out` may be `wet`. Computed in double. */
int cf_audio_mix_cpu (int channels, int frames, const void *dry,
    size_t dry_pitch, const void *wet, size_t wet_pitch, void *out,
    size_t out_pitch, double a0, double a1, double b0, double b1, int f64);
int cf_audio_mix_cuda (int channels, int frames, const void *dry,
    size_t dry_pitch, const void *wet, size_t wet_pitch, void *out,
    size_t out_pitch, double a0, double a1, double b0, double b1, int f64,
    cf_stream stream);

/* out[c][n] = (1 - w) a[c][n] + w b[c][n], w the raised cosine
 * (1 - cos(pi t / length)) / 2 at t = start + n (1 from t = length on):
 * from one filter's output to another's without a click. `out` may be a
 * or b. Computed in double. */
int cf_audio_crossfade_cpu (int channels, int frames, const void *a,
    size_t a_pitch, const void *b, size_t b_pitch, void *out,
    size_t out_pitch, long long start, long long length, int f64);
int cf_audio_crossfade_cuda (int channels, int frames, const void *a,
    size_t a_pitch, const void *b, size_t b_pitch, void *out,
    size_t out_pitch, long long start, long long length, int f64,
    cf_stream stream);

#ifdef __cplusplus
}
#endif
#endif
