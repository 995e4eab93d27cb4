/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's filter: the stream as it is filtered, chunk by chunk, on
 * the GPU or the CPU. Samples in (any format and layout, converted to
 * float or double planes), the FIR (direct or FFT, kernels/conv1d/fir.h),
 * the dry/wet mix with the input delayed by the latency, samples out; the
 * input history that carries the dry signal from chunk to chunk; the
 * first `latency` frames dropped; timestamps that follow the input; the
 * output buffers. The element owns a GstCudaConv1dFilter, builds the taps
 * and calls these; the module knows it only as a GstCudaFilterBase (its
 * device, streams and error reporting).
 */
#ifndef __GST_CUDA_CONV1D_FILTER_H__
#define __GST_CUDA_CONV1D_FILTER_H__

#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "fir.h"
#include "gstcudafilterbase.h"
#include "gstcudaconv1dbackend.h"
#include "gstcudaconv1dchain.h"
#include "gstcudaconv1dmask.h"

G_BEGIN_DECLS

/* Where the samples of one chunk live while it is filtered (the backend's
 * memory: host for the CPU, device for CUDA). */
typedef struct
{
  void *raw_in, *raw_out;       /* samples in the stream's format */
  guint8 *stage;                /* per channel: history, then the chunk */
  guint8 *wet;                  /* per channel: the filtered chunk */
  guint8 *wet_next;             /* the same through the next chain, while
                                 * the filter crossfades to it */
  gsize stage_pitch, wet_pitch; /* samples */
  gsize es;                     /* bytes a sample: 4 (float) or 8 (double,
                                 * for F64 and S32 streams) */
  gint rows;                    /* stage and wet rows: the larger of the
                                 * input's and the output's channels */
  GstCudaDeviceBuffer device[5];
} GstCudaConv1dBuffers;

typedef struct
{
  GstCudaFilterBase *owner;
  const GstCudaConv1dBackend *backend;  /* chosen when a stream is
                                         * configured */
  GstAudioInfo info;            /* the stream filtered */
  GstAudioInfo out_info;        /* what comes out (its channels may differ) */
  /* set by the element at start, fixed for the run */
  guint64 latency;              /* frames dropped at the start */
  gboolean overlap;             /* outputs leave by the output thread */
  GstCudaConv1dChain chain;     /* the masks playing */
  GstCudaConv1dChain next;      /* while crossfading: the masks coming in */
  gint64 fade_at;               /* frames into the crossfade (below 0:
                                 * the next chain still warms up) */
  guint64 fade_frames;          /* the crossfade's length */
  gint chunk;                   /* frames per chunk at most */
  gint history;                 /* frames of input kept for the dry signal */
  GstCudaConv1dBuffers buf;
  gdouble dry_gain, wet_gain;   /* where the last buffer's ramps ended */
  GstBufferPool *pool;          /* output buffers */
  gpointer *chunk_planes;       /* one per plane: where a chunk starts */
  GstClockTime start_ts;        /* time of the first input frame since the
                                 * last reset */
  guint64 start_offset;
  guint64 frames_in, frames_out;        /* since the last reset; frames_out
                                         * counts the dropped ones too */
  gboolean reset_pending;       /* a reset failed (posted): the history
                                 * is still the old stream's */
  gboolean queued_output;       /* the buffer being filtered goes to the
                                 * output thread: no waiting for its work */
  /* takes a chain the stream is done with, to free it off the streaming
   * thread; FALSE: not taken, freed where it is (NULL: always so) */
  gboolean (*retire) (gpointer data, GstCudaConv1dChain * chain);
  gpointer retire_data;
} GstCudaConv1dFilter;

void gst_cuda_conv1d_filter_init (GstCudaConv1dFilter * f,
    GstCudaFilterBase * owner);
void gst_cuda_conv1d_filter_finalize (GstCudaConv1dFilter * f);
/* A new stream: the old filter and its buffers go. FALSE after posting an
 * error. */
gboolean gst_cuda_conv1d_filter_configure (GstCudaConv1dFilter * f,
    const GstAudioInfo * info, const GstAudioInfo * out_info);
/* The filter, its buffers and pool go (stop). */
void gst_cuda_conv1d_filter_clear (GstCudaConv1dFilter * f);
/* A filter for `taps` (taken); a filter already running hands over its
 * input history, so a mask change applies at the next buffer with no
 * glitch beyond the new filter's own start. FALSE after posting an
 * error. */
gboolean gst_cuda_conv1d_filter_set_taps (GstCudaConv1dFilter * f,
    GstCudaConv1dTaps * taps, GstCudaConv1dAlgorithm algorithm,
    gint typical_frames);
/* What a chain for this stream is built with (its algorithm and typical
 * buffer size given). */
GstCudaConv1dChainSpec gst_cuda_conv1d_filter_spec (GstCudaConv1dFilter * f,
    GstCudaConv1dAlgorithm algorithm, gint typical_frames);
/* `chain` (taken) takes over from the current one. It is primed with the
 * input history the current one holds; where that is shorter than its
 * mask (and than the stream so far), it first filters alongside, unheard,
 * until it has the history it would have had. Then it plays alone
 * (fade_frames 0, or no chain yet), or after a raised-cosine crossfade of
 * `fade_frames`. *starts_in: input frames from this buffer's start to
 * where it is first heard. FALSE after posting an error. */
gboolean gst_cuda_conv1d_filter_take_over (GstCudaConv1dFilter * f,
    GstCudaConv1dChain * chain, guint64 fade_frames, guint64 * starts_in);
/* Whether a filter is built (the first buffer has configured it). */
gboolean gst_cuda_conv1d_filter_ready (GstCudaConv1dFilter * f);
/* Frames of the convolution after the input's end: the longest mask's
 * taps - 1. */
gint gst_cuda_conv1d_filter_tail (GstCudaConv1dFilter * f);
/* Forgets the stream: no history, the next buffer starts the timeline.
 * FALSE after posting an error; reset_pending then stays set. */
gboolean gst_cuda_conv1d_filter_reset (GstCudaConv1dFilter * f);
/* Whether outputs go to the output thread (`overlap`, on the GPU). */
gboolean gst_cuda_conv1d_filter_overlapping (GstCudaConv1dFilter * f);
/* Frames that come out of the next `frames` filtered. */
gint gst_cuda_conv1d_filter_kept (GstCudaConv1dFilter * f, gint frames);
/* Timestamps and offsets of an output of `frames` frames. */
void gst_cuda_conv1d_filter_stamp (GstCudaConv1dFilter * f, GstBuffer * buf,
    gint frames);
/* A buffer for `frames` output frames (page-locked on the GPU path). */
GstBuffer *gst_cuda_conv1d_filter_new_output (GstCudaConv1dFilter * f,
    gint frames);
/* Filters `frames` frames of `in` (planes, or one interleaved run; NULL:
 * silence, the tail) into `out` (sized for the frames kept), the mix
 * gliding to dry1/wet1. FALSE after posting an error, once the work queued
 * on the buffers is done. */
gboolean gst_cuda_conv1d_filter_process (GstCudaConv1dFilter * f,
    gpointer * in, gint frames, gpointer * out, gdouble dry1, gdouble wet1);

G_END_DECLS

#endif
