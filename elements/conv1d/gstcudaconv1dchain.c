/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's chain: see gstcudaconv1dchain.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudaconv1dchain.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_conv1d_debug);
#define GST_CAT_DEFAULT gst_cuda_conv1d_debug

/* FIR channels: one per route, or per channel where the routing is
 * diagonal. */
static gint
fir_channels (const GstCudaConv1dRouting * routing)
{
  return routing->diagonal ? routing->in_channels : routing->n_routes;
}

/* The path and direct variant for the masks (`taps` in all). */
static void
choose_path (const GstCudaConv1dChainSpec * spec, gsize taps,
    cf_fir_config * cfg)
{
  /* longer masks direct would take seconds a buffer on either backend */
  gboolean fits = taps <= CF_CONV1D_MAX_DIRECT_TAPS;
  gint direct_max = spec->backend->direct_max_taps;

  cfg->direct = CF_CONV1D_FAST;
  switch (spec->algorithm) {
    case GST_CUDA_CONV1D_ALGORITHM_FFT:
      cfg->path = CF_FIR_FFT;
      break;
    case GST_CUDA_CONV1D_ALGORITHM_AUTO:
      cfg->path = fits && cfg->mask.taps <= direct_max ? CF_FIR_DIRECT
          : CF_FIR_FFT;
      break;
    default:
      cfg->path = fits ? CF_FIR_DIRECT : CF_FIR_FFT;
      cfg->direct = (cf_conv1d_algorithm) spec->algorithm;
      break;
  }
}

/* The masks as the FIR takes them: as given where the routing is
 * diagonal, else one per route (its response's row, copied). */
static gdouble *
fir_masks (const GstCudaConv1dTaps * taps, gint * masks)
{
  const GstCudaConv1dRouting *g = &taps->routing;
  gsize row = (gsize) taps->taps;
  gdouble *h;

  if (g->diagonal) {
    *masks = taps->masks;
    return g_memdup2 (taps->h, sizeof (gdouble) * row * taps->masks);
  }
  *masks = g->n_routes;
  h = g_new (gdouble, row * g->n_routes);
  for (gint k = 0; k < g->n_routes; k++)
    memcpy (h + k * row, taps->h + g->route[k].ir * row,
        sizeof (gdouble) * row);
  return h;
}

/* The stream a chain is built on. */
static cf_stream
build_stream (const GstCudaConv1dChainSpec * spec)
{
  return spec->stream ? spec->stream
      : gst_cuda_filter_base_streams (spec->owner)->compute;
}

/* The FIR for the chain's masks. */
static int
new_fir (GstCudaConv1dChain * c, const GstCudaConv1dChainSpec * spec)
{
  cf_fir_config cfg = { 0 };
  gfloat *taps32 = NULL;
  gdouble *h;
  int st;

  cfg.channels = fir_channels (&c->taps.routing);
  h = fir_masks (&c->taps, &cfg.mask.masks);
  cfg.mask.taps = c->taps.taps;
  cfg.f64 = spec->f64;
  if (cfg.f64) {
    cfg.mask.h64 = h;
  } else {
    gsize n = (gsize) c->taps.taps * cfg.mask.masks;
    taps32 = g_new (gfloat, n);
    for (gsize k = 0; k < n; k++)
      taps32[k] = (gfloat) h[k];
    cfg.mask.h = taps32;
  }
  choose_path (spec, cfg.mask.taps * (gsize) cfg.mask.masks, &cfg);
  cfg.block = cfg.path == CF_FIR_FFT ? spec->backend->pick_block (&cfg.mask,
      spec->typical_frames) : 0;
  cfg.cuda = spec->backend->cuda;
  cfg.stream = build_stream (spec);
  cfg.max_frames = spec->chunk;
  st = cf_fir_new (&c->fir, &cfg);
  g_free (taps32);              /* the filter keeps its own copy */
  g_free (h);
  if (st == CF_OK)
    GST_INFO_OBJECT (spec->owner, "%d taps x %d masks, %d routes%s, %s path "
        "%s (block %d)", c->taps.taps, c->taps.masks,
        c->taps.routing.n_routes, c->taps.routing.diagonal ? " (diagonal)"
        : "", cfg.path == CF_FIR_FFT ? "FFT" : "direct",
        spec->backend->where, cf_fir_block (c->fir));
  return st;
}

gboolean
gst_cuda_conv1d_chain_build (GstCudaConv1dChain * c,
    const GstCudaConv1dChainSpec * spec, GstCudaConv1dTaps * taps)
{
  const GstCudaConv1dRouting *g = &c->taps.routing;
  gsize es = spec->f64 ? sizeof (gdouble) : sizeof (gfloat);

  memset (c, 0, sizeof (*c));
  c->backend = spec->backend;
  c->taps = *taps;
  memset (taps, 0, sizeof (*taps));
  if (!GST_CUDA_FILTER_CHECK (spec->owner, new_fir (c, spec),
          "creating the filter")) {
    gst_cuda_conv1d_chain_clear (c);
    return FALSE;
  }
  if (g->diagonal)
    return TRUE;
  gst_cuda_conv1d_routes_gather (&c->taps.routing, &c->gather);
  gst_cuda_conv1d_routes_scatter (&c->taps.routing, &c->scatter);
  if (!spec->backend->alloc (spec->owner, &c->routed_device, es
          * c->taps.routing.n_routes * spec->chunk, (void **) &c->routed,
          build_stream (spec))) {
    gst_cuda_conv1d_chain_clear (c);
    return FALSE;
  }
  return TRUE;
}

void
gst_cuda_conv1d_chain_clear (GstCudaConv1dChain * c)
{
  if (c->fir)
    cf_fir_free (c->fir);
  if (c->backend)
    c->backend->release (&c->routed_device, (void **) &c->routed);
  gst_cuda_conv1d_taps_clear (&c->taps);
  memset (c, 0, sizeof (*c));
}

int
gst_cuda_conv1d_chain_run (GstCudaConv1dChain * c, const void *x,
    size_t x_pitch, gint frames, void *wet, size_t wet_pitch, gboolean f64,
    cf_stream stream)
{
  const GstCudaConv1dBackend *be = c->backend;
  void *routes_in;
  size_t pitch;
  int st;

  if (c->taps.routing.diagonal)
    return cf_fir_process (c->fir, x, x_pitch, wet, wet_pitch, frames);
  /* each route's input gathered where the filter reads it, the routes'
   * outputs summed into the output channels */
  st = cf_fir_input (c->fir, frames, &routes_in, &pitch);
  if (st == CF_OK)
    st = be->sum_planes (&c->gather, x, x_pitch, frames, routes_in, pitch,
        f64, stream);
  if (st == CF_OK)
    st = cf_fir_process (c->fir, routes_in, pitch, c->routed, wet_pitch,
        frames);
  if (st == CF_OK)
    st = be->sum_planes (&c->scatter, c->routed, wet_pitch, frames, wet,
        wet_pitch, f64, stream);
  return st;
}

gboolean
gst_cuda_conv1d_chain_prime (GstCudaConv1dChain * to,
    GstCudaConv1dChain * from, const GstCudaConv1dChainSpec * spec,
    gint * primed)
{
  const GstCudaConv1dBackend *be = spec->backend;
  gint old_rows = fir_channels (&from->taps.routing);
  gint new_rows = fir_channels (&to->taps.routing);
  gint n = MIN (to->taps.taps - 1, spec->chunk), frames = 0;
  gsize plane = (spec->f64 ? sizeof (gdouble) : sizeof (gfloat))
      * spec->chunk;
  cf_stream stream = gst_cuda_filter_base_streams (spec->owner)->compute;
  GstCudaDeviceBuffer dev[3] = { {0} };
  void *mem[3] = { NULL, NULL, NULL };
  cf_audio_plane_sums carry;
  gboolean allocated, same;
  int st = CF_OK;

  *primed = 0;
  if (!from->fir || n <= 0)
    return TRUE;
  /* each new filter channel takes the history of an old one with its
   * input (none: silence); the same channels (both diagonal) as they are;
   * too many channels to carry: silence */
  same = from->taps.routing.diagonal && to->taps.routing.diagonal;
  gst_cuda_conv1d_routes_carry (&from->taps.routing, &to->taps.routing,
      &carry);
  if (!same && !cf_audio_plane_sums_ok (&carry))
    return TRUE;
  allocated = be->alloc (spec->owner, &dev[0], plane * old_rows, &mem[0],
      stream) && be->alloc (spec->owner, &dev[1], plane * new_rows, &mem[1],
      stream) && be->alloc (spec->owner, &dev[2], plane * new_rows, &mem[2],
      stream);
  if (allocated)
    frames = cf_fir_recent (from->fir, mem[0], spec->chunk, n);
  if (frames < 0)
    st = frames;
  if (st == CF_OK && frames > 0 && !same)
    st = be->sum_planes (&carry, mem[0], spec->chunk, frames, mem[1],
        spec->chunk, spec->f64, stream);
  /* the output of the history is not wanted: only what the filter keeps */
  if (st == CF_OK && frames > 0)
    st = cf_fir_process (to->fir, mem[same ? 0 : 1], spec->chunk, mem[2],
        spec->chunk, frames);
  /* not waited for: the working memory is freed in the stream's order,
   * and the next buffer's work follows on the same stream */
  for (guint k = 0; k < G_N_ELEMENTS (dev); k++)
    be->release (&dev[k], &mem[k]);
  *primed = st == CF_OK ? MAX (frames, 0) : 0;
  /* an allocation's failure is posted already */
  return allocated && GST_CUDA_FILTER_CHECK (spec->owner, st,
      "priming the filter");
}
