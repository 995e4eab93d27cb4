/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GStreamer CUDA filters: cudaconv1d's properties
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaconv1dsettings.h"
#include "gstcudafilterbase.h"
#include "gstcudamaskparse.h"

#define DEFAULT_KERNEL NULL
#define DEFAULT_LOCATION NULL
#define DEFAULT_PRESET GST_CUDA_CONV1D_PRESET_NONE
#define DEFAULT_CUTOFF 1000.0
#define DEFAULT_BANDWIDTH 500.0
#define DEFAULT_TAPS 255
#define DEFAULT_WINDOW GST_CUDA_CONV1D_WINDOW_HAMMING
#define DEFAULT_NORMALIZE FALSE
#define DEFAULT_GAIN 1.0
#define DEFAULT_MIX 1.0
#define DEFAULT_LATENCY 0
#define DEFAULT_ALGORITHM GST_CUDA_CONV1D_ALGORITHM_AUTO
#define DEFAULT_OVERLAP FALSE
#define DEFAULT_MATRIX NULL
#define DEFAULT_OUT_CHANNELS 0
#define DEFAULT_CROSSFADE 30
/* a crossfade longer than this is surely a mistake (seconds for ms) */
#define MAX_CROSSFADE 10000

#define GST_TYPE_CUDA_CONV1D_ALGORITHM (gst_cuda_conv1d_algorithm_get_type ())
static GType
gst_cuda_conv1d_algorithm_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_CONV1D_ALGORITHM_AUTO, "Direct for short masks, FFT for long "
          "ones", "auto"},
    {GST_CUDA_CONV1D_ALGORITHM_BASIC, "Direct: one thread per output, "
          "global memory", "basic"},
    {GST_CUDA_CONV1D_ALGORITHM_TILED, "Direct: input tile and halo in shared "
          "memory", "tiled"},
    {GST_CUDA_CONV1D_ALGORITHM_CACHED, "Direct: own samples in shared memory, "
          "halo from the cache", "cached"},
    {GST_CUDA_CONV1D_ALGORITHM_FAST, "Direct: tiled, coarsened, register "
          "window", "fast"},
    {GST_CUDA_CONV1D_ALGORITHM_FFT, "Partitioned FFT convolution", "fft"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaConv1dAlgorithm", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* Where the mask comes from: taps, a file or a preset. */
static void
install_mask_source_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  /**
   * GstCudaConv1d:kernel:
   *
   * Taps separated by spaces or commas, h[0] (the current frame) first, e.g.
   * "0.25 0.5 0.25"; one mask for every channel, one per channel, or one
   * per route of a channel matrix (`out-channels`, `matrix`), separated by
   * `;` (all of the same length). When set, it is used instead of
   * `location` and `preset`.
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV1D_PROP_KERNEL,
      g_param_spec_string ("kernel", "Kernel",
          "Taps, h[0] first (e.g. \"0.25 0.5 0.25\"); one mask per channel "
          "or route separated by ';'. Overrides location and preset",
          DEFAULT_KERNEL,
          flags));

  /**
   * GstCudaConv1d:location:
   *
   * An impulse response file, read with libsndfile (WAV, FLAC, AIFF,
   * Ogg/Vorbis, ...). A mono response filters every channel; one with as
   * many channels as the stream maps channel to channel; one of C_in x
   * C_out channels is a matrix, input-major (a 4-channel file on a stereo
   * stream: true stereo, L->L, L->R, R->L, R->R); `matrix` routes any
   * other order. A response at
   * another sample rate is resampled to the stream's. Used when `kernel` is
   * empty; overrides `preset`.
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV1D_PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "Impulse response file (WAV, FLAC, AIFF, Ogg...): mono, one "
          "channel per stream channel, or in x out channels",
          DEFAULT_LOCATION, flags));

  /**
   * GstCudaConv1d:preset:
   *
   * A windowed-sinc filter of `taps` taps (centred: set `latency` to
   * (taps - 1) / 2 to compensate its delay), used when `kernel` and
   * `location` are empty. `none` with neither copies the stream.
   */
  gst_cuda_filter_base_class_install_enum (gobject_class,
      GST_CUDA_CONV1D_PROP_PRESET, "preset", "Preset",
      "Windowed-sinc filter, used when kernel and location are empty",
      GST_TYPE_CUDA_CONV1D_PRESET, DEFAULT_PRESET, 0);

  /**
   * GstCudaConv1d:matrix:
   *
   * Routes through the responses for files in any order: triples
   * "in:out:ir" separated by commas or spaces, e.g. "0:0:0 0:1:1 1:0:2
   * 1:1:3" (input 0 through response 1 into output 1, ...). Output j is
   * the sum of its routes; pairs not listed are silent and cost nothing.
   * Empty: the layout follows from the counts (1 response for every
   * channel, one per channel, or input-major C_in x C_out).
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV1D_PROP_MATRIX,
      g_param_spec_string ("matrix", "Matrix",
          "Routes \"in:out:ir\" through the responses, separated by commas "
          "or spaces (empty: by the channel counts)", DEFAULT_MATRIX, flags));
}

/* The presets' shape, and how every mask is scaled. */
static void
install_preset_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  /**
   * GstCudaConv1d:cutoff:
   *
   * The presets' cutoff (low-pass, high-pass) or centre (band-pass,
   * band-stop) frequency in Hz, below half the sample rate.
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV1D_PROP_CUTOFF,
      g_param_spec_double ("cutoff", "Cutoff",
          "Preset cutoff, or band centre, in Hz", 0.0, 1e6, DEFAULT_CUTOFF,
          flags));

  /**
   * GstCudaConv1d:bandwidth:
   *
   * Width in Hz of the band-pass and band-stop presets.
   */
  g_object_class_install_property (gobject_class,
      GST_CUDA_CONV1D_PROP_BANDWIDTH,
      g_param_spec_double ("bandwidth", "Bandwidth",
          "Band width of band-pass/band-stop, in Hz", 0.0, 1e6,
          DEFAULT_BANDWIDTH, flags));

  /**
   * GstCudaConv1d:taps:
   *
   * Odd length of the presets.
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV1D_PROP_TAPS,
      g_param_spec_int ("taps", "Taps", "Odd length of the presets", 1,
          GST_CUDA_CONV1D_MAX_TAPS - 1, DEFAULT_TAPS, flags));

  /**
   * GstCudaConv1d:window:
   *
   * The presets' window.
   */
  gst_cuda_filter_base_class_install_enum (gobject_class,
      GST_CUDA_CONV1D_PROP_WINDOW, "window", "Window", "Window of the presets",
      GST_TYPE_CUDA_CONV1D_WINDOW, DEFAULT_WINDOW, 0);

  /**
   * GstCudaConv1d:normalize:
   *
   * Scale each mask to unit gain at DC (kernel and presets) or to unit
   * energy, the square root of the sum of the squared taps (impulse
   * response files). A mask whose taps sum to zero is left as it is.
   */
  g_object_class_install_property (gobject_class,
      GST_CUDA_CONV1D_PROP_NORMALIZE,
      g_param_spec_boolean ("normalize", "Normalize",
          "Scale masks to unit DC gain (kernel, presets) or unit energy "
          "(impulse response files)", DEFAULT_NORMALIZE, flags));
}

/* What leaves the element: wet gain, dry/wet mix, alignment, and the path
 * that computes it. */
static void
install_output_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  /**
   * GstCudaConv1d:gain:
   *
   * Linear gain of the filtered (wet) signal. Changes glide across a buffer.
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV1D_PROP_GAIN,
      g_param_spec_double ("gain", "Gain", "Linear gain of the filtered "
          "signal", 0.0, 1000.0, DEFAULT_GAIN, flags | GST_PARAM_CONTROLLABLE));

  /**
   * GstCudaConv1d:mix:
   *
   * Share of the filtered signal: 0 passes the input (delayed by `latency`),
   * 1 the filtered signal only. Changes glide across a buffer.
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV1D_PROP_MIX,
      g_param_spec_double ("mix", "Mix", "Dry/wet mix: 0 dry, 1 wet", 0.0,
          1.0, DEFAULT_MIX, flags | GST_PARAM_CONTROLLABLE));

  /**
   * GstCudaConv1d:latency:
   *
   * Frames the output is shifted earlier, at most taps - 1: (taps - 1) / 2
   * aligns a centred (linear-phase) mask with its input. The first
   * `latency` frames are dropped and the latency is reported.
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV1D_PROP_LATENCY,
      g_param_spec_uint64 ("latency", "Latency",
          "Frames the output is shifted earlier (centred masks: "
          "(taps - 1) / 2)", 0, GST_CUDA_CONV1D_MAX_TAPS - 1, DEFAULT_LATENCY,
          flags | GST_PARAM_MUTABLE_READY));

  /**
   * GstCudaConv1d:algorithm:
   *
   * The path, for experiments: a direct GPU variant, or the partitioned
   * FFT. `auto` runs direct up to a measured length, FFT beyond. Direct
   * variants take masks of up to 8000 taps (all masks together); longer
   * masks always take the FFT path.
   */
  gst_cuda_filter_base_class_install_enum (gobject_class,
      GST_CUDA_CONV1D_PROP_ALGORITHM, "algorithm", "Algorithm",
      "Direct variant or FFT (auto: by mask length)",
      GST_TYPE_CUDA_CONV1D_ALGORITHM, DEFAULT_ALGORITHM, 0);

  /**
   * GstCudaConv1d:out-channels:
   *
   * Output channels (0: as many as the input). With an impulse response of
   * C_in x C_out channels (input-major) or a `matrix`, each output is the
   * sum of the inputs through their responses: 14 responses of 7 speakers
   * into 2 ears virtualise a 7-channel stream on headphones. The source
   * caps carry the count (stereo positions for 2, the default positions
   * otherwise).
   */
  g_object_class_install_property (gobject_class,
      GST_CUDA_CONV1D_PROP_OUT_CHANNELS, g_param_spec_uint ("out-channels",
          "Output channels", "Output channels (0: as many as the input)", 0,
          GST_CUDA_CONV1D_MAX_ROUTES, DEFAULT_OUT_CHANNELS,
          flags | GST_PARAM_MUTABLE_READY));

  /**
   * GstCudaConv1d:crossfade:
   *
   * When the response changes while playing (`kernel`, `location`,
   * `preset` and its settings, `matrix`), the new one is prepared by a
   * thread of the element's own; once ready, both filter the input for
   * this many milliseconds while the output moves from the old one's to
   * the new one's with a raised-cosine weight. 0: the new one takes over
   * at a buffer boundary. May change while playing (for the next change).
   */
  g_object_class_install_property (gobject_class,
      GST_CUDA_CONV1D_PROP_CROSSFADE, g_param_spec_uint ("crossfade",
          "Crossfade", "Milliseconds from the old response to a new one "
          "set while playing (0: switch at a buffer boundary)", 0,
          MAX_CROSSFADE, DEFAULT_CROSSFADE, flags
          | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstCudaConv1d:preparing:
   *
   * TRUE while a response set while playing is being prepared (read,
   * resampled, transformed and uploaded off the streaming thread); the old
   * one plays meanwhile. A `cudaconv1d-response` element message says
   * when the new one takes over.
   */
  g_object_class_install_property (gobject_class,
      GST_CUDA_CONV1D_PROP_PREPARING, g_param_spec_boolean ("preparing",
          "Preparing", "A response set while playing is being prepared",
          FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * GstCudaConv1d:overlap:
   *
   * On the GPU, outputs are pushed by a thread of the element's own, each
   * as soon as its work is done, while the streaming thread takes in the
   * next buffer: the GPU filters one buffer while the host handles the
   * next, which takes more buffers a second through the element. No
   * latency is added beyond that thread's wake-up. No effect on the CPU
   * backend.
   */
  g_object_class_install_property (gobject_class, GST_CUDA_CONV1D_PROP_OVERLAP,
      g_param_spec_boolean ("overlap", "Overlap", "GPU: push outputs from "
          "a thread of the element's own as soon as they are done, while "
          "the next buffer is taken in (throughput)", DEFAULT_OVERLAP,
          flags | GST_PARAM_MUTABLE_READY));
}

void
gst_cuda_conv1d_props_install (GObjectClass * gobject_class)
{
  install_mask_source_properties (gobject_class);
  install_preset_properties (gobject_class);
  install_output_properties (gobject_class);
}

void
gst_cuda_conv1d_props_init (GstCudaConv1dProps * props)
{
  GstCudaConv1dSettings *s = &props->settings;

  s->kernel = g_strdup (DEFAULT_KERNEL);
  s->preset = DEFAULT_PRESET;
  s->cutoff = DEFAULT_CUTOFF;
  s->bandwidth = DEFAULT_BANDWIDTH;
  s->taps = DEFAULT_TAPS;
  s->window = DEFAULT_WINDOW;
  s->normalize = DEFAULT_NORMALIZE;
  props->location = g_strdup (DEFAULT_LOCATION);
  props->gain = DEFAULT_GAIN;
  props->mix = DEFAULT_MIX;
  props->latency = DEFAULT_LATENCY;
  props->algorithm = DEFAULT_ALGORITHM;
  props->overlap = DEFAULT_OVERLAP;
  props->out_channels = DEFAULT_OUT_CHANNELS;
  props->crossfade = DEFAULT_CROSSFADE;
  s->matrix = g_strdup (DEFAULT_MATRIX);
}

void
gst_cuda_conv1d_props_clear (GstCudaConv1dProps * props)
{
  g_free (props->settings.kernel);
  g_free (props->settings.matrix);
  gst_cuda_impulse_clear (&props->settings.impulse);
  g_free (props->location);
  g_free (props->settings_error);
  g_free (props->location_error);
}

/* Why the settings make no usable mask, or NULL. With negotiated caps the
 * whole mask is built; before, only what needs no stream (the kernel string
 * parses). Called with object lock. */
gchar *
gst_cuda_conv1d_props_check (GstCudaConv1dProps * props,
    const GstAudioInfo * info)
{
  gchar *error = NULL;
  gint taps;

  /* an unreadable file stays the reason until the location changes or a
   * kernel replaces it */
  if (props->location_error
      && !gst_cuda_mask_text_is_set (props->settings.kernel))
    return g_strdup (props->location_error);
  if (!info) {
    gdouble *values = NULL;
    gint rows, cols;
    if (gst_cuda_mask_text_is_set (props->settings.kernel)
        && !gst_cuda_parse_matrix (props->settings.kernel, &values, &rows,
            &cols, &error)) {
      gchar *why = error;
      error = g_strdup_printf ("kernel \"%s\": %s", props->settings.kernel,
          why);
      g_free (why);
    }
    g_free (values);
    if (!error) {
      GstCudaConv1dRoute routes[GST_CUDA_CONV1D_MAX_ROUTES];
      gint n;
      gst_cuda_conv1d_routes_parse (props->settings.matrix, routes, &n,
          &error);
    }
    return error;
  }
  if (!gst_cuda_conv1d_check (&props->settings, GST_AUDIO_INFO_RATE (info),
          GST_AUDIO_INFO_CHANNELS (info), (gint) props->out_channels, &taps,
          &error))
    return error;
  if (props->latency >= (guint64) taps && props->latency > 0)
    error = g_strdup_printf ("latency=%" G_GUINT64_FORMAT " is not shorter "
        "than the mask (%d taps)", props->latency, taps);
  return error;
}

gboolean
gst_cuda_conv1d_props_is_mask (guint prop_id)
{
  return prop_id != GST_CUDA_CONV1D_PROP_GAIN
      && prop_id != GST_CUDA_CONV1D_PROP_MIX
      && prop_id != GST_CUDA_CONV1D_PROP_CROSSFADE;
}

/* A location whose file cannot be read: refused while running (returned);
 * otherwise kept with the reason, which start() reports. Takes `error`.
 * Called with object lock. */
gchar *
gst_cuda_conv1d_props_keep_unreadable_location (GstCudaConv1dProps * props,
    const GValue * value, gchar * error)
{
  GstCudaConv1dSettings *s = &props->settings;
  gchar *refused = NULL;

  if (props->started) {
    refused = error;
  } else {
    g_free (props->location);
    props->location = g_value_dup_string (value);
    gst_cuda_impulse_clear (&s->impulse);
    g_free (props->location_error);
    props->location_error = g_strdup (error);
    g_free (props->settings_error);
    props->settings_error = error;
  }
  return refused;
}

/* What a property change may have to undo. */
typedef struct
{
  GstCudaConv1dSettings settings;       /* shallow: only the field set moves */
  gchar *location, *location_error;
  guint64 latency;
  GstCudaConv1dAlgorithm algorithm;
} SavedSettings;

/* Stores one value, with the object lock held. */
static void
store_property (GstCudaConv1dProps * props, GObject * object, guint prop_id,
    const GValue * value, GstCudaImpulse * loaded, GParamSpec * pspec)
{
  GstCudaConv1dSettings *s = &props->settings;

  switch (prop_id) {
    case GST_CUDA_CONV1D_PROP_KERNEL:
      s->kernel = g_value_dup_string (value);
      break;
    case GST_CUDA_CONV1D_PROP_LOCATION:
      props->location = g_value_dup_string (value);
      s->impulse = *loaded;     /* empty when the location is unset */
      props->location_error = NULL;
      break;
    case GST_CUDA_CONV1D_PROP_PRESET:
      s->preset = g_value_get_enum (value);
      break;
    case GST_CUDA_CONV1D_PROP_CUTOFF:
      s->cutoff = g_value_get_double (value);
      break;
    case GST_CUDA_CONV1D_PROP_BANDWIDTH:
      s->bandwidth = g_value_get_double (value);
      break;
    case GST_CUDA_CONV1D_PROP_TAPS:
      s->taps = g_value_get_int (value);
      break;
    case GST_CUDA_CONV1D_PROP_WINDOW:
      s->window = g_value_get_enum (value);
      break;
    case GST_CUDA_CONV1D_PROP_NORMALIZE:
      s->normalize = g_value_get_boolean (value);
      break;
    case GST_CUDA_CONV1D_PROP_GAIN:
      props->gain = g_value_get_double (value);
      break;
    case GST_CUDA_CONV1D_PROP_MIX:
      props->mix = g_value_get_double (value);
      break;
    case GST_CUDA_CONV1D_PROP_LATENCY:
      props->latency = g_value_get_uint64 (value);
      break;
    case GST_CUDA_CONV1D_PROP_ALGORITHM:
      props->algorithm = g_value_get_enum (value);
      break;
    case GST_CUDA_CONV1D_PROP_OVERLAP:
      props->overlap = g_value_get_boolean (value);
      break;
    case GST_CUDA_CONV1D_PROP_MATRIX:
      s->matrix = g_value_dup_string (value);
      break;
    case GST_CUDA_CONV1D_PROP_OUT_CHANNELS:
      props->out_channels = g_value_get_uint (value);
      break;
    case GST_CUDA_CONV1D_PROP_CROSSFADE:
      props->crossfade = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* After a mask property changed (object lock held): a mask that does not
 * build is refused while running (the saved settings come back, the
 * reason is returned); otherwise the change stays, with its error if any
 * (the element then has the mask built: by its preparer while a stream
 * runs, at the first buffer otherwise). */
static gchar *
settle_mask_change (GstCudaConv1dProps * props, guint prop_id,
    SavedSettings * saved, const GstAudioInfo * info,
    GstCudaImpulse * dropped)
{
  GstCudaConv1dSettings *s = &props->settings;
  gchar *error = gst_cuda_conv1d_props_check (props, info);

  if (error && props->started) {
    if (prop_id == GST_CUDA_CONV1D_PROP_KERNEL)
      g_free (s->kernel);
    if (prop_id == GST_CUDA_CONV1D_PROP_MATRIX)
      g_free (s->matrix);
    if (prop_id == GST_CUDA_CONV1D_PROP_LOCATION) {
      g_free (props->location);
      *dropped = s->impulse;
      props->location_error = saved->location_error;
    }
    *s = saved->settings;
    props->location = saved->location;
    if (prop_id == GST_CUDA_CONV1D_PROP_LATENCY)
      props->latency = saved->latency;
    props->algorithm = saved->algorithm;
    return error;
  }
  if (prop_id == GST_CUDA_CONV1D_PROP_KERNEL)
    g_free (saved->settings.kernel);
  if (prop_id == GST_CUDA_CONV1D_PROP_MATRIX)
    g_free (saved->settings.matrix);
  if (prop_id == GST_CUDA_CONV1D_PROP_LOCATION) {
    g_free (saved->location);
    g_free (saved->location_error);
    *dropped = saved->settings.impulse;
  }
  g_free (props->settings_error);
  props->settings_error = error;
  return NULL;
}

gchar *
gst_cuda_conv1d_props_set (GstCudaConv1dProps * props, GObject * object,
    guint prop_id, const GValue * value, GstCudaImpulse * loaded,
    const GstAudioInfo * info, GParamSpec * pspec)
{
  SavedSettings saved;

  saved.settings = props->settings;
  saved.location = props->location;
  saved.location_error = props->location_error;
  saved.latency = props->latency;
  saved.algorithm = props->algorithm;
  store_property (props, object, prop_id, value, loaded, pspec);
  /* taken by the settings: `loaded` now carries what they let go of */
  if (prop_id == GST_CUDA_CONV1D_PROP_LOCATION)
    memset (loaded, 0, sizeof (*loaded));
  if (gst_cuda_conv1d_props_is_mask (prop_id))
    return settle_mask_change (props, prop_id, &saved, info, loaded);
  return NULL;
}

void
gst_cuda_conv1d_props_get (GstCudaConv1dProps * props, GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCudaConv1dSettings *s = &props->settings;

  switch (prop_id) {
    case GST_CUDA_CONV1D_PROP_KERNEL:
      g_value_set_string (value, s->kernel);
      break;
    case GST_CUDA_CONV1D_PROP_LOCATION:
      g_value_set_string (value, props->location);
      break;
    case GST_CUDA_CONV1D_PROP_PRESET:
      g_value_set_enum (value, s->preset);
      break;
    case GST_CUDA_CONV1D_PROP_CUTOFF:
      g_value_set_double (value, s->cutoff);
      break;
    case GST_CUDA_CONV1D_PROP_BANDWIDTH:
      g_value_set_double (value, s->bandwidth);
      break;
    case GST_CUDA_CONV1D_PROP_TAPS:
      g_value_set_int (value, s->taps);
      break;
    case GST_CUDA_CONV1D_PROP_WINDOW:
      g_value_set_enum (value, s->window);
      break;
    case GST_CUDA_CONV1D_PROP_NORMALIZE:
      g_value_set_boolean (value, s->normalize);
      break;
    case GST_CUDA_CONV1D_PROP_GAIN:
      g_value_set_double (value, props->gain);
      break;
    case GST_CUDA_CONV1D_PROP_MIX:
      g_value_set_double (value, props->mix);
      break;
    case GST_CUDA_CONV1D_PROP_LATENCY:
      g_value_set_uint64 (value, props->latency);
      break;
    case GST_CUDA_CONV1D_PROP_ALGORITHM:
      g_value_set_enum (value, props->algorithm);
      break;
    case GST_CUDA_CONV1D_PROP_OVERLAP:
      g_value_set_boolean (value, props->overlap);
      break;
    case GST_CUDA_CONV1D_PROP_MATRIX:
      g_value_set_string (value, s->matrix);
      break;
    case GST_CUDA_CONV1D_PROP_OUT_CHANNELS:
      g_value_set_uint (value, props->out_channels);
      break;
    case GST_CUDA_CONV1D_PROP_CROSSFADE:
      g_value_set_uint (value, props->crossfade);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}
