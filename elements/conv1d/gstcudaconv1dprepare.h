/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's preparer: a thread of the element's own that builds the
 * chain for a new response while the stream plays (the file already read
 * by the application's thread that set it): the masks resampled and
 * normalised, their spectra computed and uploaded. The streaming thread
 * never does that work for a change while playing: it takes the chain
 * once it is ready, at a buffer boundary. A request made while another is
 * being prepared replaces it (the last one wins); a result for a stream
 * that has changed since is dropped. Chains the stream is done with are
 * freed here too, so that their frees never hold up a buffer.
 */
#ifndef __GST_CUDA_CONV1D_PREPARE_H__
#define __GST_CUDA_CONV1D_PREPARE_H__

#include <gst/gst.h>

#include "gstcudaconv1dchain.h"

G_BEGIN_DECLS

/* Builds the masks from the element's current settings, on the
 * preparer's thread; FALSE with *error set. */
typedef gboolean (*GstCudaConv1dBuildFunc) (gpointer element,
    GstCudaConv1dTaps * taps, GstCudaConv1dAlgorithm * algorithm,
    gchar ** error);

typedef struct
{
  GMutex lock;
  GCond cond;
  GThread *thread;
  gboolean stopping;
  gboolean have_spec;           /* a stream runs: requests can be served */
  GstCudaConv1dChainSpec spec;  /* that stream's */
  guint64 wanted, done;         /* generations asked for, and finished */
  GstCudaConv1dChain ready;     /* the newest result, if any */
  guint64 ready_generation;     /* 0: none */
  gchar *error;                 /* why the newest request failed */
  GArray *retired;              /* chains to free (GstCudaConv1dChain) */
  GstCudaConv1dBuildFunc build;
  gpointer element;
  /* the GPU: the stream chains are built on, so that their uploads and
   * transforms do not queue before the buffers on the element's own */
  cf_stream stream;
} GstCudaConv1dPreparer;

void gst_cuda_conv1d_preparer_init (GstCudaConv1dPreparer * p,
    GstCudaConv1dBuildFunc build, gpointer element);
void gst_cuda_conv1d_preparer_finalize (GstCudaConv1dPreparer * p);

/* The stream that chains are built for (from the streaming thread, once
 * its first chain is in). */
void gst_cuda_conv1d_preparer_set_spec (GstCudaConv1dPreparer * p,
    const GstCudaConv1dChainSpec * spec);

/* Asks for a chain of the current settings; FALSE (nothing asked) while
 * no stream runs: the streaming thread then builds the first itself. */
gboolean gst_cuda_conv1d_preparer_request (GstCudaConv1dPreparer * p);

/* Whether a request is being prepared. */
gboolean gst_cuda_conv1d_preparer_busy (GstCudaConv1dPreparer * p);

/* The newest request's chain, once ready (moved into *chain: TRUE); or
 * its failure (*error set, FALSE); or nothing yet (FALSE, *error NULL). */
gboolean gst_cuda_conv1d_preparer_take (GstCudaConv1dPreparer * p,
    GstCudaConv1dChain * chain, gchar ** error);

/* Takes `chain` (cleared) to free it on the preparer's thread; FALSE
 * (nothing taken) while no stream runs. */
gboolean gst_cuda_conv1d_preparer_retire (GstCudaConv1dPreparer * p,
    GstCudaConv1dChain * chain);

/* The stream ends or changes: pending, ready and retired chains are
 * dropped (with the element's CUDA context current), the thread ends, no spec. */
void gst_cuda_conv1d_preparer_stop (GstCudaConv1dPreparer * p);

G_END_DECLS

#endif
