/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Impulse responses at another sample rate: band-limited interpolation at
 * the exact output times.
 */
#ifndef GST_CUDA_RESPONSE_H
#define GST_CUDA_RESPONSE_H

#include <glib.h>

G_BEGIN_DECLS

/* Resamples one channel of `in_frames` samples at `in_rate` to `out_rate`,
 * into `out` (out_frames samples: sample n is the response at time
 * n / out_rate). Samples are scaled by in_rate / out_rate so that a filter
 * keeps its gain (at a higher rate a convolution sums more taps). */
void gst_cuda_response_resample (const gdouble * in, gint in_frames,
    gint in_rate, gdouble * out, gint out_frames, gint out_rate);

/* Frames of a response of `in_frames` at `in_rate` once at `out_rate`. */
gint gst_cuda_response_resampled_frames (gint in_frames, gint in_rate,
    gint out_rate);

G_END_DECLS
#endif
