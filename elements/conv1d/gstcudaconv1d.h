#ifndef __GST_CUDA_CONV1D_H__
#define __GST_CUDA_CONV1D_H__

#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "fir.h"
#include "gstcudafilterbase.h"
#include "gstcudaconv1dmask.h"

#include "gstcudaconv1doverlap.h"

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

#define GST_TYPE_CUDA_CONV1D (gst_cuda_conv1d_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaConv1d, gst_cuda_conv1d, GST, CUDA_CONV1D,
    GstCudaFilterBase)

/* Where the samples of one chunk live while it is filtered (host memory
 * for the CPU backend, device memory for CUDA). */
typedef struct
{
  void *raw_in, *raw_out;       /* samples in the stream's format */
  guint8 *stage;                /* per channel: history, then the chunk */
  guint8 *wet;                  /* per channel: the filtered chunk */
  gsize stage_pitch, wet_pitch; /* samples */
  gsize es;                     /* bytes a sample: 4 (float) or 8 (double,
                                 * for F64 and S32 streams) */
  GstCudaDeviceBuffer device[4];
} GstCudaConv1dBuffers;

struct _GstCudaConv1d
{
  GstCudaFilterBase parent;

  /* properties, object lock */
  GstCudaConv1dSettings settings;
  gchar *location;
  gdouble gain, mix;
  guint64 latency;
  GstCudaConv1dAlgorithm algorithm;
  gboolean overlap;             /* outputs pushed by their own thread (GPU) */
  gchar *settings_error;        /* why the settings make no mask, or NULL */
  gchar *location_error;        /* why `location` could not be read, or NULL */
  gboolean started;             /* bad settings are refused, not stored */
  gint tail_frames;             /* frames pushed after the input ends */
  gboolean rebuild;             /* the mask must be rebuilt before the next
                                 * buffer */
  GstAudioInfo info;
  gboolean have_info;

  /* streaming thread */
  guint64 run_latency;          /* `latency` and `overlap` for this run */
  gboolean run_overlap;
  GstCudaConv1dTaps taps;
  cf_fir *fir;
  gint chunk;                   /* frames per chunk at most */
  gint history;                 /* frames of input kept: taps - 1 */
  GstCudaConv1dBuffers buf;
  gdouble dry_gain, wet_gain;   /* where the last buffer's ramps ended */
  GstBufferPool *pool;          /* output buffers of `chunk` frames */
  gpointer *chunk_planes;       /* one per plane: where a chunk starts */

  GstClockTime start_ts;        /* time of the first input frame since the
                                 * last reset */
  guint64 start_offset;
  guint64 frames_in, frames_out;        /* since the last reset; frames_out
                                         * counts the dropped ones too */
  GstCudaConv1dOutputs outputs; /* `overlap`: the output thread */
  gboolean queued_output;       /* the buffer being filtered goes to the
                                 * output thread: no waiting for its work */
};

GST_ELEMENT_REGISTER_DECLARE (cudaconv1d);

G_END_DECLS

#endif
