/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's chain: one set of masks ready to filter a stream. The masks
 * and their routes (gstcudaconv1droutes.h), the FIR built for them (a
 * channel per route, or per channel where the routes are diagonal), and
 * the room and tables that gather the routes' inputs and sum their
 * outputs. The filter runs one chain, or two while it crossfades from one
 * response to the next; a chain can be built on any thread that has the
 * element's CUDA context current (the preparer's), then handed to the
 * streaming thread.
 */
#ifndef __GST_CUDA_CONV1D_CHAIN_H__
#define __GST_CUDA_CONV1D_CHAIN_H__

#include <gst/gst.h>

#include "fir.h"
#include "gstcudafilterbase.h"
#include "gstcudaconv1dbackend.h"
#include "gstcudaconv1dmask.h"

G_BEGIN_DECLS

/* The `algorithm` property: a direct variant or the FFT path. */
typedef enum
{
  GST_CUDA_CONV1D_ALGORITHM_AUTO,
  GST_CUDA_CONV1D_ALGORITHM_BASIC,
  GST_CUDA_CONV1D_ALGORITHM_TILED,
  GST_CUDA_CONV1D_ALGORITHM_CACHED,
  GST_CUDA_CONV1D_ALGORITHM_FAST,
  GST_CUDA_CONV1D_ALGORITHM_FFT,
} GstCudaConv1dAlgorithm;

/* What a chain is built for: the stream as the filter runs it. */
typedef struct
{
  GstCudaFilterBase *owner;     /* device, stream, error reporting */
  const GstCudaConv1dBackend *backend;
  gint chunk;                   /* frames a call at most */
  gboolean f64;                 /* samples computed in double */
  gint typical_frames;          /* frames a buffer, for the FFT block */
  GstCudaConv1dAlgorithm algorithm;
  cf_stream stream;             /* where the chain is built (NULL: the
                                 * owner's compute stream, where it runs) */
} GstCudaConv1dChainSpec;

typedef struct
{
  GstCudaConv1dTaps taps;       /* the masks and their routes */
  cf_fir *fir;
  cf_audio_plane_sums gather, scatter;  /* routes that mix channels */
  guint8 *routed;               /* per route: its filtered chunk */
  GstCudaDeviceBuffer routed_device;
  const GstCudaConv1dBackend *backend;  /* whose memory */
} GstCudaConv1dChain;

/* A chain for `taps` (taken, also on failure). FALSE after posting an
 * error. */
gboolean gst_cuda_conv1d_chain_build (GstCudaConv1dChain * chain,
    const GstCudaConv1dChainSpec * spec, GstCudaConv1dTaps * taps);
/* Frees the chain (its work must be done); an empty one stays empty. */
void gst_cuda_conv1d_chain_clear (GstCudaConv1dChain * chain);

/* `frames` frames of the input's planes at x (`x_pitch` apart) through
 * the chain, into the output channels' planes at wet. Queued on `stream`
 * on the GPU. */
int gst_cuda_conv1d_chain_run (GstCudaConv1dChain * chain, const void *x,
    size_t x_pitch, gint frames, void *wet, size_t wet_pitch, gboolean f64,
    cf_stream stream);

/* Feeds `to` the input history `from` holds (up to `to`'s mask length and
 * `chunk` frames), each input's to the routes that read it, so that `to`
 * continues the stream; *primed: the frames fed. FALSE after posting an
 * error. */
gboolean gst_cuda_conv1d_chain_prime (GstCudaConv1dChain * to,
    GstCudaConv1dChain * from, const GstCudaConv1dChainSpec * spec,
    gint * primed);

G_END_DECLS

#endif
