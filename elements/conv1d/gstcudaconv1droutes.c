/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's routing: see gstcudaconv1droutes.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "gstcudaconv1droutes.h"
#include "gstcudamaskparse.h"

static gboolean
parse_index (const gchar * text, gint * value)
{
  gchar *end;
  gint64 v;

  if (!g_ascii_isdigit (*text))
    return FALSE;
  v = g_ascii_strtoll (text, &end, 10);
  if (*end != '\0' || v > G_MAXINT)
    return FALSE;
  *value = (gint) v;
  return TRUE;
}

gboolean
gst_cuda_conv1d_routes_parse (const gchar * matrix,
    GstCudaConv1dRoute * routes, gint * n, gchar ** error)
{
  gchar **items = g_strsplit_set (matrix ? matrix : "", ", \t\n", -1);
  gboolean ok = TRUE;

  *n = 0;
  for (gchar ** item = items; *item && ok; item++) {
    gchar **parts;
    GstCudaConv1dRoute r;

    if (**item == '\0')
      continue;
    parts = g_strsplit (*item, ":", -1);
    ok = g_strv_length (parts) == 3 && parse_index (parts[0], &r.in)
        && parse_index (parts[1], &r.out) && parse_index (parts[2], &r.ir);
    g_strfreev (parts);
    if (!ok) {
      *error = g_strdup_printf ("matrix: \"%s\" is not in:out:ir (three "
          "channel numbers from 0)", *item);
      break;
    }
    for (gint k = 0; k < *n && ok; k++)
      if (routes[k].in == r.in && routes[k].out == r.out) {
        *error = g_strdup_printf ("matrix: input %d to output %d is given "
            "twice", r.in, r.out);
        ok = FALSE;
      }
    if (ok && *n == GST_CUDA_CONV1D_MAX_ROUTES) {
      *error = g_strdup_printf ("matrix: more than %d routes",
          GST_CUDA_CONV1D_MAX_ROUTES);
      ok = FALSE;
    }
    if (ok)
      routes[(*n)++] = r;
  }
  g_strfreev (items);
  return ok;
}

/* The routes of a matrix, checked against the channels. */
static gboolean
routes_of_matrix (GstCudaConv1dRouting * g, const gchar * matrix,
    gchar ** error)
{
  if (!gst_cuda_conv1d_routes_parse (matrix, g->route, &g->n_routes, error))
    return FALSE;
  for (gint k = 0; k < g->n_routes; k++) {
    const GstCudaConv1dRoute *r = &g->route[k];
    const gchar *what = r->in >= g->in_channels ? "input"
        : r->out >= g->out_channels ? "output" : r->ir >= g->responses
        ? "impulse response" : NULL;
    gint value = r->in >= g->in_channels ? r->in
        : r->out >= g->out_channels ? r->out : r->ir;
    gint have = r->in >= g->in_channels ? g->in_channels
        : r->out >= g->out_channels ? g->out_channels : g->responses;
    if (what) {
      *error = g_strdup_printf ("matrix \"%d:%d:%d\" names %s channel %d; "
          "the %s has %d (0 to %d)", r->in, r->out, r->ir, what, value, what,
          have, have - 1);
      return FALSE;
    }
  }
  return TRUE;
}

static void
add_route (GstCudaConv1dRouting * g, gint in, gint out, gint ir)
{
  GstCudaConv1dRoute *r = &g->route[g->n_routes++];
  r->in = in;
  r->out = out;
  r->ir = ir;
}

static gboolean
is_diagonal (const GstCudaConv1dRouting * g)
{
  if (g->n_routes != g->in_channels || g->in_channels != g->out_channels)
    return FALSE;
  for (gint k = 0; k < g->n_routes; k++) {
    const GstCudaConv1dRoute *r = &g->route[k];
    /* the FIR takes one mask for all channels, or one per channel */
    gboolean mask_ok = g->responses == 1 ? r->ir == 0 : r->ir == k;
    if (r->in != k || r->out != k || !mask_ok)
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_conv1d_routes_choose (GstCudaConv1dRouting * g,
    const gchar * matrix, gint in_channels, gint out_channels,
    gint responses, gchar ** error)
{
  gboolean listed = gst_cuda_mask_text_is_set (matrix);
  gint in = in_channels, out = out_channels > 0 ? out_channels : in;

  memset (g, 0, sizeof (*g));
  g->in_channels = in;
  g->out_channels = out;
  g->responses = responses;
  *error = NULL;
  if (listed) {
    if (!routes_of_matrix (g, matrix, error))
      return FALSE;
  } else if ((responses == 1 || responses == in) && out == in) {
    if (in > GST_CUDA_CONV1D_MAX_ROUTES) {
      /* no routes needed: each channel through its mask, any count */
      g->diagonal = TRUE;
      return TRUE;
    }
    for (gint c = 0; c < in; c++)
      add_route (g, c, c, responses == 1 ? 0 : c);
  } else if ((gint64) in * out == responses
      && responses <= GST_CUDA_CONV1D_MAX_ROUTES) {
    for (gint k = 0; k < responses; k++)
      add_route (g, k / out, k % out, k);
  } else {
    *error = g_strdup_printf ("the mask has %d channels (responses), which "
        "fit no layout for %d input and %d output channels: give 1, %d (one "
        "per channel), or %d x %d = %" G_GINT64_FORMAT " (input-major, at "
        "most %d), or a matrix", responses, in, out, in, in, out,
        (gint64) in * out, GST_CUDA_CONV1D_MAX_ROUTES);
    return FALSE;
  }
  g->diagonal = is_diagonal (g);
  return TRUE;
}

void
gst_cuda_conv1d_routes_gather (const GstCudaConv1dRouting * g,
    cf_audio_plane_sums * sums)
{
  memset (sums, 0, sizeof (*sums));
  sums->planes = g->n_routes;
  for (gint k = 0; k < g->n_routes; k++) {
    sums->source[k] = g->route[k].in;
    sums->first[k + 1] = k + 1;
  }
}

void
gst_cuda_conv1d_routes_scatter (const GstCudaConv1dRouting * g,
    cf_audio_plane_sums * sums)
{
  gint n = 0;

  memset (sums, 0, sizeof (*sums));
  sums->planes = g->out_channels;
  for (gint j = 0; j < g->out_channels; j++) {
    for (gint k = 0; k < g->n_routes; k++)
      if (g->route[k].out == j)
        sums->source[n++] = k;
    sums->first[j + 1] = n;
  }
}

/* The FIR channel of `g` that holds input `in`'s history, or -1. */
static gint
channel_with_input (const GstCudaConv1dRouting * g, gint in)
{
  if (g->diagonal)
    return in < g->in_channels ? in : -1;
  for (gint k = 0; k < g->n_routes; k++)
    if (g->route[k].in == in)
      return k;
  return -1;
}

void
gst_cuda_conv1d_routes_carry (const GstCudaConv1dRouting * from,
    const GstCudaConv1dRouting * to, cf_audio_plane_sums * sums)
{
  gint n = 0, channels = to->diagonal ? to->in_channels : to->n_routes;

  memset (sums, 0, sizeof (*sums));
  sums->planes = channels;
  for (gint k = 0; k < channels; k++) {
    gint source = channel_with_input (from, to->diagonal ? k
        : to->route[k].in);
    if (source >= 0)
      sums->source[n++] = source;
    sums->first[k + 1] = n;
  }
}
