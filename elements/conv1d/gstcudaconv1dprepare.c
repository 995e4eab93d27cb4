/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's preparer: see gstcudaconv1dprepare.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudaconv1dprepare.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_conv1d_debug);
#define GST_CAT_DEFAULT gst_cuda_conv1d_debug

void
gst_cuda_conv1d_preparer_init (GstCudaConv1dPreparer * p,
    GstCudaConv1dBuildFunc build, gpointer element)
{
  memset (p, 0, sizeof (*p));
  g_mutex_init (&p->lock);
  g_cond_init (&p->cond);
  p->build = build;
  p->element = element;
  p->retired = g_array_new (FALSE, FALSE, sizeof (GstCudaConv1dChain));
}

void
gst_cuda_conv1d_preparer_finalize (GstCudaConv1dPreparer * p)
{
  gst_cuda_conv1d_preparer_stop (p);
  g_array_free (p->retired, TRUE);
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->cond);
}

void
gst_cuda_conv1d_preparer_set_spec (GstCudaConv1dPreparer * p,
    const GstCudaConv1dChainSpec * spec)
{
  g_mutex_lock (&p->lock);
  p->spec = *spec;
  p->have_spec = TRUE;
  g_mutex_unlock (&p->lock);
}

/* One request: the masks and their chain, with the element's context
 * current on this thread. */
static gboolean
prepare (GstCudaConv1dPreparer * p, GstCudaConv1dChainSpec * spec,
    GstCudaConv1dChain * chain, gchar ** error)
{
  GstCudaConv1dTaps taps;
  gboolean ok;

  if (!p->build (p->element, &taps, &spec->algorithm, error))
    return FALSE;
  if (!gst_cuda_filter_base_push (spec->owner)) {
    gst_cuda_conv1d_taps_clear (&taps);
    *error = g_strdup ("the CUDA context cannot be made current");
    return FALSE;
  }
  /* on the GPU, built on a stream of the preparer's own, waited for
   * there, then handed to the element's; a background stream, whose
   * transforms take the GPU only where the buffers leave it free */
  if (spec->backend->cuda && !p->stream
      && cf_gpu_stream_create_background (&p->stream) != CF_OK)
    p->stream = NULL;
  spec->stream = p->stream;
  ok = gst_cuda_conv1d_chain_build (chain, spec, &taps);
  if (ok && (spec->backend->wait (spec->stream) != CF_OK
          || cf_fir_set_stream (chain->fir, gst_cuda_filter_base_streams
              (spec->owner)->compute) != CF_OK)) {
    gst_cuda_conv1d_chain_clear (chain);
    ok = FALSE;
  }
  spec->stream = NULL;
  gst_cuda_filter_base_pop (spec->owner);
  if (!ok)
    *error = g_strdup ("the filter for it could not be made (see the "
        "error before)");
  return ok;
}

/* A chain no longer wanted, freed with the context current. */
static void
drop (const GstCudaConv1dChainSpec * spec, GstCudaConv1dChain * chain)
{
  if (!chain->fir && !chain->taps.h)
    return;
  if (gst_cuda_filter_base_push (spec->owner)) {
    gst_cuda_conv1d_chain_clear (chain);
    gst_cuda_filter_base_pop (spec->owner);
  }
}

/* Frees the retired chains (the lock held on entry and return). */
static void
drop_retired (GstCudaConv1dPreparer * p)
{
  GstCudaConv1dChainSpec spec = p->spec;
  GArray *retired = p->retired;

  p->retired = g_array_new (FALSE, FALSE, sizeof (GstCudaConv1dChain));
  g_mutex_unlock (&p->lock);
  for (guint k = 0; k < retired->len; k++)
    drop (&spec, &g_array_index (retired, GstCudaConv1dChain, k));
  g_array_free (retired, TRUE);
  g_mutex_lock (&p->lock);
}

static gpointer
serve (gpointer data)
{
  GstCudaConv1dPreparer *p = data;

  g_mutex_lock (&p->lock);
  while (!p->stopping) {
    GstCudaConv1dChainSpec spec;
    GstCudaConv1dChain chain = { 0 };
    gchar *error = NULL;
    guint64 generation;
    gboolean ok;

    if (p->retired->len > 0) {
      drop_retired (p);
      continue;
    }
    if (p->done == p->wanted) {
      g_cond_wait (&p->cond, &p->lock);
      continue;
    }
    generation = p->wanted;
    spec = p->spec;
    g_mutex_unlock (&p->lock);
    GST_DEBUG_OBJECT (spec.owner, "preparing response %" G_GUINT64_FORMAT,
        generation);
    ok = prepare (p, &spec, &chain, &error);
    g_mutex_lock (&p->lock);
    p->done = generation;
    /* the newest request and the same stream: the result stands */
    if (generation == p->wanted && p->have_spec && !p->stopping) {
      GstCudaConv1dChain old = p->ready;
      p->ready = chain;
      p->ready_generation = ok ? generation : 0;
      g_free (p->error);
      p->error = error;
      g_mutex_unlock (&p->lock);
      drop (&spec, &old);
    } else {
      g_mutex_unlock (&p->lock);
      drop (&spec, &chain);
      g_free (error);
    }
    g_mutex_lock (&p->lock);
    g_cond_broadcast (&p->cond);
  }
  g_mutex_unlock (&p->lock);
  return NULL;
}

/* Wakes the thread, started if need be (the lock held). */
static void
wake (GstCudaConv1dPreparer * p)
{
  if (!p->thread)
    p->thread = g_thread_new ("cudaconv1d-prep", serve, p);
  g_cond_broadcast (&p->cond);
}

gboolean
gst_cuda_conv1d_preparer_request (GstCudaConv1dPreparer * p)
{
  gboolean asked;

  g_mutex_lock (&p->lock);
  asked = p->have_spec && !p->stopping;
  if (asked) {
    p->wanted++;
    wake (p);
  }
  g_mutex_unlock (&p->lock);
  return asked;
}

gboolean
gst_cuda_conv1d_preparer_retire (GstCudaConv1dPreparer * p,
    GstCudaConv1dChain * chain)
{
  gboolean taken;

  g_mutex_lock (&p->lock);
  taken = p->have_spec && !p->stopping;
  if (taken) {
    g_array_append_val (p->retired, *chain);
    memset (chain, 0, sizeof (*chain));
    wake (p);
  }
  g_mutex_unlock (&p->lock);
  return taken;
}

gboolean
gst_cuda_conv1d_preparer_busy (GstCudaConv1dPreparer * p)
{
  gboolean busy;

  g_mutex_lock (&p->lock);
  busy = p->done != p->wanted;
  g_mutex_unlock (&p->lock);
  return busy;
}

gboolean
gst_cuda_conv1d_preparer_take (GstCudaConv1dPreparer * p,
    GstCudaConv1dChain * chain, gchar ** error)
{
  gboolean got = FALSE;

  *error = NULL;
  g_mutex_lock (&p->lock);
  if (p->done == p->wanted && p->ready_generation == p->wanted
      && p->ready.fir) {
    *chain = p->ready;
    memset (&p->ready, 0, sizeof (p->ready));
    p->ready_generation = 0;
    got = TRUE;
  } else if (p->done == p->wanted && p->error) {
    *error = p->error;
    p->error = NULL;
  }
  g_mutex_unlock (&p->lock);
  return got;
}

void
gst_cuda_conv1d_preparer_stop (GstCudaConv1dPreparer * p)
{
  GstCudaConv1dChain ready;
  GstCudaConv1dChainSpec spec;
  GThread *thread;

  g_mutex_lock (&p->lock);
  p->stopping = TRUE;
  g_cond_broadcast (&p->cond);
  thread = p->thread;
  p->thread = NULL;
  g_mutex_unlock (&p->lock);
  if (thread)
    g_thread_join (thread);
  g_mutex_lock (&p->lock);
  /* (the caller has the context current: stop and caps run so) */
  for (guint k = 0; k < p->retired->len; k++)
    gst_cuda_conv1d_chain_clear (&g_array_index (p->retired,
            GstCudaConv1dChain, k));
  g_array_set_size (p->retired, 0);
  ready = p->ready;
  spec = p->spec;
  memset (&p->ready, 0, sizeof (p->ready));
  g_clear_pointer (&p->error, g_free);
  p->ready_generation = 0;
  p->done = p->wanted;
  p->have_spec = FALSE;
  p->stopping = FALSE;
  g_mutex_unlock (&p->lock);
  gst_cuda_conv1d_chain_clear (&ready);
  if (p->stream)
    cf_gpu_stream_destroy (p->stream);
  p->stream = NULL;
  (void) spec;
}
