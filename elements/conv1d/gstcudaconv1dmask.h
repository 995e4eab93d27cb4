/* cudaconv1d's masks: taps from the `kernel` string, an impulse response
 * file (libsndfile, resampled to the stream's rate when needed) or a
 * windowed-sinc preset, validated, normalised on request. */
#ifndef __GST_CUDA_CONV1D_MASK_H__
#define __GST_CUDA_CONV1D_MASK_H__

#include <glib-object.h>

#include "gstcudaconv1droutes.h"

G_BEGIN_DECLS

/* The longest mask accepted: 2^21 taps, 43.7 s at 48 kHz. The partitioned
 * FFT keeps the spectrum of every partition of every mask on the device
 * (2 x 4 bytes per tap and mask: 64 MiB for a stereo response of this
 * length), and a buffer costs time in proportion to the length. */
#define GST_CUDA_CONV1D_MAX_TAPS (1 << 21)

/* The most taps all masks may have together: 2^24, every channel of a 7.1
 * stream with its own response of the longest length (128 MiB of spectra
 * on the device). Without it a small file of many channels at a low rate
 * asks for gigabytes once resampled. */
#define GST_CUDA_CONV1D_MAX_TOTAL_TAPS (8 * GST_CUDA_CONV1D_MAX_TAPS)

typedef enum
{
  GST_CUDA_CONV1D_PRESET_NONE,
  GST_CUDA_CONV1D_PRESET_LOW_PASS,
  GST_CUDA_CONV1D_PRESET_HIGH_PASS,
  GST_CUDA_CONV1D_PRESET_BAND_PASS,
  GST_CUDA_CONV1D_PRESET_BAND_STOP,
} GstCudaConv1dPreset;

#define GST_TYPE_CUDA_CONV1D_PRESET (gst_cuda_conv1d_preset_get_type ())
GType gst_cuda_conv1d_preset_get_type (void);

typedef enum
{
  GST_CUDA_CONV1D_WINDOW_HAMMING,
  GST_CUDA_CONV1D_WINDOW_HANN,
  GST_CUDA_CONV1D_WINDOW_BLACKMAN,
  GST_CUDA_CONV1D_WINDOW_RECTANGULAR,
} GstCudaConv1dWindow;

#define GST_TYPE_CUDA_CONV1D_WINDOW (gst_cuda_conv1d_window_get_type ())
GType gst_cuda_conv1d_window_get_type (void);

/* An impulse response as read from its file. */
typedef struct
{
  gint channels, rate, frames;
  gdouble *data;                /* channels planes of `frames` samples */
} GstCudaImpulse;

/* The properties that define the mask. */
typedef struct
{
  gchar *kernel;                /* unset (NULL or blank): location or preset */
  GstCudaImpulse impulse;       /* read from `location`; frames 0 if none */
  GstCudaConv1dPreset preset;
  gdouble cutoff, bandwidth;    /* Hz */
  gint taps;                    /* preset length, odd */
  GstCudaConv1dWindow window;
  gboolean normalize;
  gchar *matrix;                /* routes "in:out:ir ..."; unset: by counts */
} GstCudaConv1dSettings;

/* Masks ready for a stream: `masks` responses of `taps`, in double (a
 * float stream's filter rounds them to float), and the routes that take
 * the input channels through them to the output channels. */
typedef struct
{
  gint taps, masks;
  gdouble *h;
  GstCudaConv1dRouting routing;
  gchar *name;                  /* where they came from: the file, "kernel"
                                 * or the preset */
} GstCudaConv1dTaps;

/* Reads an impulse response with libsndfile. On failure returns FALSE and
 * sets *error to a sentence for the user. */
gboolean gst_cuda_impulse_load (const gchar * location,
    GstCudaImpulse * impulse, gchar ** error);
void gst_cuda_impulse_clear (GstCudaImpulse * impulse);
void gst_cuda_impulse_copy (GstCudaImpulse * dst, const GstCudaImpulse * src);

/* Builds the masks of `settings` and their routes for a stream of `rate`
 * and `in_channels`, into `out_channels` (0: as many).
 * On failure returns FALSE and sets *error; *note, when not NULL, tells
 * what was done on the way (resampling) for the log. */
gboolean gst_cuda_conv1d_build (const GstCudaConv1dSettings * settings,
    gint rate, gint in_channels, gint out_channels, GstCudaConv1dTaps * taps,
    gchar ** error, gchar ** note);
/* Whether `settings` build for such a stream, and the taps they would
 * have, without building them (no taps copied, nothing resampled): cheap
 * enough to run under the object lock. FALSE with *error set. */
gboolean gst_cuda_conv1d_check (const GstCudaConv1dSettings * settings,
    gint rate, gint in_channels, gint out_channels, gint * taps,
    gchar ** error);
void gst_cuda_conv1d_taps_clear (GstCudaConv1dTaps * taps);

G_END_DECLS

#endif
