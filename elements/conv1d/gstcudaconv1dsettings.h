/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's properties: their specs and defaults, the values set, and
 * the rules a new value meets (a mask that does not build is refused
 * while running, kept with its reason otherwise). The element owns a
 * GstCudaConv1dProps, guarded by its object lock, and calls these with the
 * lock held; what is fixed for a run (refused by state) stays the
 * element's business.
 */
#ifndef __GST_CUDA_CONV1D_SETTINGS_H__
#define __GST_CUDA_CONV1D_SETTINGS_H__

#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "gstcudaconv1dmask.h"
#include "gstcudaconv1dfilter.h"

G_BEGIN_DECLS

enum
{
  GST_CUDA_CONV1D_PROP_0,
  GST_CUDA_CONV1D_PROP_KERNEL,
  GST_CUDA_CONV1D_PROP_LOCATION,
  GST_CUDA_CONV1D_PROP_PRESET,
  GST_CUDA_CONV1D_PROP_CUTOFF,
  GST_CUDA_CONV1D_PROP_BANDWIDTH,
  GST_CUDA_CONV1D_PROP_TAPS,
  GST_CUDA_CONV1D_PROP_WINDOW,
  GST_CUDA_CONV1D_PROP_NORMALIZE,
  GST_CUDA_CONV1D_PROP_GAIN,
  GST_CUDA_CONV1D_PROP_MIX,
  GST_CUDA_CONV1D_PROP_LATENCY,
  GST_CUDA_CONV1D_PROP_ALGORITHM,
  GST_CUDA_CONV1D_PROP_OVERLAP,
  GST_CUDA_CONV1D_PROP_MATRIX,
  GST_CUDA_CONV1D_PROP_OUT_CHANNELS,
  GST_CUDA_CONV1D_PROP_CROSSFADE,
  GST_CUDA_CONV1D_PROP_PREPARING,
};

/* The values of the properties, and what follows from them; the
 * element's object lock guards all of it. */
typedef struct
{
  GstCudaConv1dSettings settings;
  gchar *location;
  gdouble gain, mix;
  guint64 latency;
  GstCudaConv1dAlgorithm algorithm;
  gboolean overlap;             /* outputs pushed by their own thread (GPU) */
  guint out_channels;           /* 0: as many as the input */
  guint crossfade;              /* ms from one response to the next */
  gchar *settings_error;        /* why the settings make no mask, or NULL */
  gchar *location_error;        /* why `location` could not be read, or NULL */
  gboolean started;             /* bad settings are refused, not stored */
} GstCudaConv1dProps;

/* Installs every property of cudaconv1d on its class. */
void gst_cuda_conv1d_props_install (GObjectClass * gobject_class);

/* The defaults; _clear frees what the values hold. */
void gst_cuda_conv1d_props_init (GstCudaConv1dProps * props);
void gst_cuda_conv1d_props_clear (GstCudaConv1dProps * props);

/* Why the settings make no usable mask for a stream of `info` (NULL before
 * caps are negotiated), or NULL. Called with object lock. */
/* Whether a change of `prop_id` rebuilds the masks. */
gboolean gst_cuda_conv1d_props_is_mask (guint prop_id);

gchar *gst_cuda_conv1d_props_check (GstCudaConv1dProps * props,
    const GstAudioInfo * info);

/* `value` of a `location` whose file could not be read: refused while
 * running (returned), kept with the reason otherwise. Takes `error`.
 * Called with object lock. */
gchar *gst_cuda_conv1d_props_keep_unreadable_location (GstCudaConv1dProps *
    props, const GValue * value, gchar * error);

/* Stores `value` of `prop_id` (`loaded`: the file of a new `location`, read
 * before the lock was taken, taken), checked against a stream of `info`
 * (NULL before caps). Returns why the value was refused, the old one
 * staying, or NULL. `object` names the element in the warning of an
 * unknown id. Called with object lock. On return, `loaded` holds the
 * file let go of (the old one, or the refused one): the caller clears it
 * once the lock is released, since the last reference to a file of
 * seconds frees megabytes, which the streaming thread would wait for. */
gchar *gst_cuda_conv1d_props_set (GstCudaConv1dProps * props,
    GObject * object, guint prop_id, const GValue * value,
    GstCudaImpulse * loaded, const GstAudioInfo * info, GParamSpec * pspec);

/* Reads the value of `prop_id` into `value`. Called with object lock. */
void gst_cuda_conv1d_props_get (GstCudaConv1dProps * props,
    GObject * object, guint prop_id, GValue * value, GParamSpec * pspec);

G_END_DECLS

#endif
