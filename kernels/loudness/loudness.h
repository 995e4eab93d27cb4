/* Loudness of a multichannel stream as ITU-R BS.1770-4 and EBU R128 define
 * it: K-weighting (a high shelf, then a high-pass, as biquads designed for
 * the stream's rate), mean squares over 100 ms steps, momentary (400 ms)
 * and short-term (3 s) loudness, the gated integrated loudness (400 ms
 * blocks every 100 ms, absolute gate -70 LUFS, relative gate -10 LU), the
 * loudness range of EBU Tech 3342 (3 s windows every second, gates -70 LUFS
 * and -20 LU, the 10th to the 95th percentile), sample peaks and true
 * peaks (4x oversampled below 96 kHz, 2x below 192 kHz).
 *
 * Channels are weighted by the caller's gains (1 for front channels, 1.41
 * for surround ones, 0 for LFE). A 100 ms step is (rate + 5) / 10 frames;
 * momentary and short-term loudness are those of the last complete steps,
 * with silence before the stream began. Loudness is in LUFS and the range
 * in LU; with nothing measured, -infinity.
 *
 * The CPU twin is the reference and the CPU backend; the CUDA twin
 * (loudness_cuda.cu) does the per-sample work of a buffer on the GPU.
 */
#ifndef CF_LOUDNESS_H
#define CF_LOUDNESS_H

#include <stddef.h>
#include "audio_convert.h"
#include "cf_status.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cf_loudness cf_loudness;

typedef struct
{
  int rate;                     /* frames a second, 8000 to 384000 */
  int channels;                 /* 1 to CF_LOUDNESS_MAX_CHANNELS */
  const double *weights;        /* a gain a channel (copied); NULL: all 1 */
} cf_loudness_config;

#define CF_LOUDNESS_MAX_CHANNELS 64

typedef struct
{
  double momentary;             /* LUFS, the last 400 ms */
  double shortterm;             /* LUFS, the last 3 s */
  double global;                /* LUFS, integrated since the reset */
  double relative_threshold;    /* LUFS, the integrated loudness's gate
                                 * (-70, the absolute one, before any
                                 * block passes it) */
  double range;                 /* LU, EBU Tech 3342 */
} cf_loudness_values;

int cf_loudness_new (cf_loudness ** loudness,
    const cf_loudness_config * config);
void cf_loudness_free (cf_loudness * loudness);
/* Forgets everything measured: the filters' state, the blocks, the peaks. */
void cf_loudness_reset (cf_loudness * loudness);

/* Measures `frames` frames of planar samples: channel c at
 * src + c * pitch samples, float or (f64) double. */
int cf_loudness_add_cpu (cf_loudness * loudness, const void *src,
    size_t pitch, int frames, int f64);

/* The same on device memory (the CUDA twin), from the raw samples of a
 * buffer in `layout` (audio_convert.h: any format, interleaved or planar,
 * layout->channels the meter's): the K-weighting and the peaks run on
 * `stream`, which is waited for; the steps are counted on the host.
 * Between two resets a meter is fed by one twin: each keeps the filters'
 * state on its side. */
int cf_loudness_add_cuda (cf_loudness * loudness,
    const cf_audio_layout * layout, const void *src, int frames,
    cf_stream stream);

/* cf_loudness_add_cuda in two halves, so that a stream of buffers need not
 * wait for each: queue measures `frames` frames on `stream` without
 * waiting (src must hold them until the stream has run; it waits itself
 * only when its room for steps is full); collect waits for what was queued
 * and accounts it. What the meter reports (cf_loudness_get, the peaks)
 * covers the collected frames only. */
int cf_loudness_queue_cuda (cf_loudness * loudness,
    const cf_audio_layout * layout, const void *src, int frames,
    cf_stream stream);
int cf_loudness_collect_cuda (cf_loudness * loudness);

void cf_loudness_get (const cf_loudness * loudness,
    cf_loudness_values * values);
/* The largest magnitude of a channel's samples since the reset, and of its
 * oversampled signal (linear, 1.0 = full scale). */
double cf_loudness_sample_peak (const cf_loudness * loudness, int channel);
double cf_loudness_true_peak (const cf_loudness * loudness, int channel);

/* The K-weighting of `rate` as two biquads, b0 b1 b2 a1 a2 each (a0 = 1):
 * the shelf, then the high-pass. */
void cf_loudness_k_weighting (int rate, double shelf[5], double highpass[5]);

#ifdef __cplusplus
}
#endif
#endif
