/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's routing: which input channel goes through which response
 * into which output channel. An impulse response (or a `kernel` of rows)
 * holds M responses; the stream has C_in input channels and C_out output
 * channels (`out-channels`, or C_in). A route (in, out, ir) adds input
 * `in` convolved with response `ir` to output `out`.
 *
 * Without a `matrix` the counts choose the layout:
 * - M = 1, C_out = C_in: every channel through the one response;
 * - M = C_in, C_out = C_in: each channel through its own (diagonal);
 * - M = C_in x C_out: the full matrix, input-major (response k from input
 *   k / C_out to output k % C_out): on a stereo stream a 4-channel file is
 *   true stereo (L->L, L->R, R->L, R->R).
 * A `matrix` of "in:out:ir" triples lists the routes itself; pairs not
 * listed are silent and cost nothing.
 *
 * The filter runs one FIR channel per route. Diagonal layouts (route c
 * from input c to output c) need no gathering or summing: the filter
 * takes its fast paths as for a plain multichannel stream.
 */
#ifndef __GST_CUDA_CONV1D_ROUTES_H__
#define __GST_CUDA_CONV1D_ROUTES_H__

#include <gst/gst.h>

#include "audio_route.h"

G_BEGIN_DECLS

#define GST_CUDA_CONV1D_MAX_ROUTES CF_AUDIO_MAX_ROUTES

typedef struct
{
  gint in, out, ir;
} GstCudaConv1dRoute;

typedef struct
{
  gint in_channels, out_channels, responses;
  gint n_routes;
  GstCudaConv1dRoute route[GST_CUDA_CONV1D_MAX_ROUTES];
  gboolean diagonal;            /* route c is c -> c: no gather, no sums */
} GstCudaConv1dRouting;

/* Parses a `matrix` string: triples "in:out:ir" separated by commas or
 * white space (blank: no matrix, *n = 0). Checks the syntax, duplicate
 * pairs and the count, not the channels. FALSE with *error set. */
gboolean gst_cuda_conv1d_routes_parse (const gchar * matrix,
    GstCudaConv1dRoute * routes, gint * n, gchar ** error);

/* The routes for a stream of `in_channels` into `out_channels` (0: as
 * many as in) with `responses` responses and `matrix` (NULL or blank: by
 * the counts). FALSE with *error naming the counts or the value. */
gboolean gst_cuda_conv1d_routes_choose (GstCudaConv1dRouting * routing,
    const gchar * matrix, gint in_channels, gint out_channels,
    gint responses, gchar ** error);

/* The table that gathers each route's input (destination: route r),
 * and the one that sums the routes' outputs into the output channels. */
void gst_cuda_conv1d_routes_gather (const GstCudaConv1dRouting * routing,
    cf_audio_plane_sums * sums);
void gst_cuda_conv1d_routes_scatter (const GstCudaConv1dRouting * routing,
    cf_audio_plane_sums * sums);

/* Carries a filter's history across a change of routes: for each route of
 * `to`, the route of `from` with the same input (gathers its recent
 * input), or none (silence). */
void gst_cuda_conv1d_routes_carry (const GstCudaConv1dRouting * from,
    const GstCudaConv1dRouting * to, cf_audio_plane_sums * sums);

G_END_DECLS

#endif
