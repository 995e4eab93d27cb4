/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GStreamer CUDA filters: FIR convolution of audio
 */

/**
 * SECTION:element-cudaconv1d
 * @title: cudaconv1d
 *
 * Convolves every channel of an audio stream with a mask on the GPU: a
 * filter preset, taps given inline, or an impulse response read from a sound
 * file (convolution reverb, speaker or cabinet simulation, room
 * correction). The output is the causal FIR
 *
 *   y[n] = sum over k of h[k] * x[n - k]
 *
 * as audiofirfilter computes it. Short masks run direct; long ones (impulse
 * responses of seconds) through a partitioned FFT convolution whose
 * partition follows the buffer size, so the output never waits for more
 * input than a buffer however long the response.
 *
 * `latency` shifts the output earlier by that many frames (for centred
 * masks, half their length) and is reported in the latency query; the first
 * `latency` frames are dropped. At EOS the remaining taps - 1 frames of the
 * convolution are pushed before the EOS, so a file in gives the whole
 * convolution out. A DISCONT (or a timestamp gap of more than 5 ms) pushes
 * them too and starts afresh; a flush starts afresh without them.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=dry.wav ! wavparse ! audioconvert ! cudaconv1d location=hall.wav mix=0.4 ! audioconvert ! autoaudiosink
 * ]| Convolution reverb with a room's impulse response, 40% wet.
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! cudaconv1d preset=low-pass cutoff=2000 taps=255 latency=127 ! autoaudiosink
 * ]| A windowed-sinc low-pass, its delay compensated.
 * |[
 * gst-launch-1.0 audiotestsrc ! cudaconv1d kernel="0.25 0.5 0.25" ! autoaudiosink
 * ]| Three taps inline.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "audio_convert.h"
#include "gstcudaconv1d.h"
#include "gstcudamaskparse.h"
#include "gstcudapin.h"
#include "gstcudapinnedallocator.h"

GST_DEBUG_CATEGORY (gst_cuda_conv1d_debug);
#define GST_CAT_DEFAULT gst_cuda_conv1d_debug

#define CONV1D_CAPS "audio/x-raw, format = (string) { F32LE, F64LE, S16LE, " \
    "S32LE }, rate = (int) [ 1, MAX ], channels = (int) [ 1, MAX ], " \
    "layout = (string) { interleaved, non-interleaved }"

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

/* A timestamp this far from the expected one is a discontinuity, as in
 * audiofirfilter. */
#define RESYNC_THRESHOLD (5 * GST_MSECOND)

enum
{
  PROP_0,
  PROP_KERNEL,
  PROP_LOCATION,
  PROP_PRESET,
  PROP_CUTOFF,
  PROP_BANDWIDTH,
  PROP_TAPS,
  PROP_WINDOW,
  PROP_NORMALIZE,
  PROP_GAIN,
  PROP_MIX,
  PROP_LATENCY,
  PROP_ALGORITHM,
  PROP_OVERLAP,
};

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

#define gst_cuda_conv1d_parent_class parent_class
G_DEFINE_TYPE (GstCudaConv1d, gst_cuda_conv1d, GST_TYPE_CUDA_FILTER_BASE);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudaconv1d, "cudaconv1d",
    GST_RANK_NONE, GST_TYPE_CUDA_CONV1D,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_conv1d_debug, "cudaconv1d", 0,
        "CUDA FIR convolution of audio"));

static void gst_cuda_conv1d_finalize (GObject * object);
static void gst_cuda_conv1d_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_conv1d_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_cuda_conv1d_start (GstCudaFilterBase * base);
static void gst_cuda_conv1d_stop (GstCudaFilterBase * base);
static gboolean gst_cuda_conv1d_set_info (GstCudaFilterBase * base,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_cuda_conv1d_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_cuda_conv1d_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static GstFlowReturn gst_cuda_conv1d_prepare_output_buffer (GstBaseTransform
    * trans, GstBuffer * inbuf, GstBuffer ** outbuf);
static GstFlowReturn gst_cuda_conv1d_generate_output (GstBaseTransform *
    trans, GstBuffer ** outbuf);
static GstFlowReturn gst_cuda_conv1d_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf);

/* Where the mask comes from: taps, a file or a preset. */
static void
install_mask_source_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  /**
   * GstCudaConv1d:kernel:
   *
   * Taps separated by spaces or commas, h[0] (the current frame) first, e.g.
   * "0.25 0.5 0.25"; one mask for every channel, or one per channel
   * separated by `;` (all of the same length). When set, it is used instead
   * of `location` and `preset`.
   */
  g_object_class_install_property (gobject_class, PROP_KERNEL,
      g_param_spec_string ("kernel", "Kernel",
          "Taps, h[0] first (e.g. \"0.25 0.5 0.25\"); one mask per channel "
          "separated by ';'. Overrides location and preset", DEFAULT_KERNEL,
          flags));

  /**
   * GstCudaConv1d:location:
   *
   * An impulse response file, read with libsndfile (WAV, FLAC, AIFF,
   * Ogg/Vorbis, ...). A mono response filters every channel; one with as
   * many channels as the stream maps channel to channel. A response at
   * another sample rate is resampled to the stream's. Used when `kernel` is
   * empty; overrides `preset`.
   */
  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "Impulse response file (WAV, FLAC, AIFF, Ogg...): mono, or one "
          "channel per stream channel", DEFAULT_LOCATION, flags));

  /**
   * GstCudaConv1d:preset:
   *
   * A windowed-sinc filter of `taps` taps (centred: set `latency` to
   * (taps - 1) / 2 to compensate its delay), used when `kernel` and
   * `location` are empty. `none` with neither copies the stream.
   */
  gst_cuda_filter_base_class_install_enum (gobject_class, PROP_PRESET,
      "preset", "Preset", "Windowed-sinc filter, used when kernel and location are empty",
      GST_TYPE_CUDA_CONV1D_PRESET, DEFAULT_PRESET, 0);
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
  g_object_class_install_property (gobject_class, PROP_CUTOFF,
      g_param_spec_double ("cutoff", "Cutoff",
          "Preset cutoff, or band centre, in Hz", 0.0, 1e6, DEFAULT_CUTOFF,
          flags));

  /**
   * GstCudaConv1d:bandwidth:
   *
   * Width in Hz of the band-pass and band-stop presets.
   */
  g_object_class_install_property (gobject_class, PROP_BANDWIDTH,
      g_param_spec_double ("bandwidth", "Bandwidth",
          "Band width of band-pass/band-stop, in Hz", 0.0, 1e6,
          DEFAULT_BANDWIDTH, flags));

  /**
   * GstCudaConv1d:taps:
   *
   * Odd length of the presets.
   */
  g_object_class_install_property (gobject_class, PROP_TAPS,
      g_param_spec_int ("taps", "Taps", "Odd length of the presets", 1,
          GST_CUDA_CONV1D_MAX_TAPS - 1, DEFAULT_TAPS, flags));

  /**
   * GstCudaConv1d:window:
   *
   * The presets' window.
   */
  gst_cuda_filter_base_class_install_enum (gobject_class, PROP_WINDOW,
      "window", "Window", "Window of the presets",
      GST_TYPE_CUDA_CONV1D_WINDOW, DEFAULT_WINDOW, 0);

  /**
   * GstCudaConv1d:normalize:
   *
   * Scale each mask to unit gain at DC (kernel and presets) or to unit
   * energy, the square root of the sum of the squared taps (impulse
   * response files). A mask whose taps sum to zero is left as it is.
   */
  g_object_class_install_property (gobject_class, PROP_NORMALIZE,
      g_param_spec_boolean ("normalize", "Normalize",
          "Scale masks to unit DC gain (kernel, presets) or unit energy "
          "(impulse response files)", DEFAULT_NORMALIZE, flags));
}

/* What leaves the element: wet gain, dry/wet mix, alignment, and the path\n * that computes it. */
static void
install_output_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  /**
   * GstCudaConv1d:gain:
   *
   * Linear gain of the filtered (wet) signal. Changes glide across a buffer.
   */
  g_object_class_install_property (gobject_class, PROP_GAIN,
      g_param_spec_double ("gain", "Gain", "Linear gain of the filtered "
          "signal", 0.0, 1000.0, DEFAULT_GAIN, flags | GST_PARAM_CONTROLLABLE));

  /**
   * GstCudaConv1d:mix:
   *
   * Share of the filtered signal: 0 passes the input (delayed by `latency`),
   * 1 the filtered signal only. Changes glide across a buffer.
   */
  g_object_class_install_property (gobject_class, PROP_MIX,
      g_param_spec_double ("mix", "Mix", "Dry/wet mix: 0 dry, 1 wet", 0.0,
          1.0, DEFAULT_MIX, flags | GST_PARAM_CONTROLLABLE));

  /**
   * GstCudaConv1d:latency:
   *
   * Frames the output is shifted earlier, at most taps - 1: (taps - 1) / 2
   * aligns a centred (linear-phase) mask with its input. The first
   * `latency` frames are dropped and the latency is reported.
   */
  g_object_class_install_property (gobject_class, PROP_LATENCY,
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
  gst_cuda_filter_base_class_install_enum (gobject_class, PROP_ALGORITHM,
      "algorithm", "Algorithm", "Direct variant or FFT (auto: by mask length)",
      GST_TYPE_CUDA_CONV1D_ALGORITHM, DEFAULT_ALGORITHM, 0);

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
  g_object_class_install_property (gobject_class, PROP_OVERLAP,
      g_param_spec_boolean ("overlap", "Overlap", "GPU: push outputs from "
          "a thread of the element's own as soon as they are done, while "
          "the next buffer is taken in (throughput)", DEFAULT_OVERLAP,
          flags | GST_PARAM_MUTABLE_READY));
}

static void
gst_cuda_conv1d_class_init (GstCudaConv1dClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaFilterBaseClass *base_class = GST_CUDA_FILTER_BASE_CLASS (klass);

  gobject_class->finalize = gst_cuda_conv1d_finalize;
  gobject_class->set_property = gst_cuda_conv1d_set_property;
  gobject_class->get_property = gst_cuda_conv1d_get_property;

  install_mask_source_properties (gobject_class);
  install_preset_properties (gobject_class);
  install_output_properties (gobject_class);

  gst_cuda_filter_base_class_add_templates (element_class,
      gst_caps_from_string (CONV1D_CAPS));
  gst_element_class_set_static_metadata (element_class,
      "CUDA FIR convolution", "Filter/Effect/Audio",
      "Convolves audio with a mask on the GPU: FIR filters, impulse response "
      "reverb, room correction", "gst-cuda-filters");

  base_class->start = GST_DEBUG_FUNCPTR (gst_cuda_conv1d_start);
  base_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_conv1d_stop);
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_conv1d_set_info);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_conv1d_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_conv1d_query);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_conv1d_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_conv1d_transform);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_cuda_conv1d_generate_output);

}

static void
gst_cuda_conv1d_init (GstCudaConv1d * self)
{
  GstCudaConv1dSettings *s = &self->settings;

  s->kernel = g_strdup (DEFAULT_KERNEL);
  s->preset = DEFAULT_PRESET;
  s->cutoff = DEFAULT_CUTOFF;
  s->bandwidth = DEFAULT_BANDWIDTH;
  s->taps = DEFAULT_TAPS;
  s->window = DEFAULT_WINDOW;
  s->normalize = DEFAULT_NORMALIZE;
  self->location = g_strdup (DEFAULT_LOCATION);
  self->gain = DEFAULT_GAIN;
  self->mix = DEFAULT_MIX;
  self->latency = DEFAULT_LATENCY;
  self->algorithm = DEFAULT_ALGORITHM;
  self->overlap = DEFAULT_OVERLAP;
  gst_cuda_conv1d_outputs_init (&self->outputs, GST_CUDA_FILTER_BASE (self));
  gst_cuda_conv1d_filter_init (&self->filter, GST_CUDA_FILTER_BASE (self));
  self->filter.start_ts = GST_CLOCK_TIME_NONE;
}

static void
gst_cuda_conv1d_finalize (GObject * object)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (object);

  g_free (self->settings.kernel);
  gst_cuda_impulse_clear (&self->settings.impulse);
  g_free (self->location);
  g_free (self->settings_error);
  g_free (self->location_error);
  gst_cuda_conv1d_filter_finalize (&self->filter);
  gst_cuda_conv1d_outputs_finalize (&self->outputs);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ---- properties ---------------------------------------------------------- */

/* Why the settings make no usable mask, or NULL. With negotiated caps the
 * whole mask is built; before, only what needs no stream (the kernel string
 * parses). Called with object lock. */
static gchar *
check_settings (GstCudaConv1d * self)
{
  GstCudaConv1dTaps taps;
  gchar *error = NULL;

  /* an unreadable file stays the reason until the location changes or a
   * kernel replaces it */
  if (self->location_error
      && !gst_cuda_mask_text_is_set (self->settings.kernel))
    return g_strdup (self->location_error);
  if (!self->have_info) {
    gdouble *values = NULL;
    gint rows, cols;
    if (gst_cuda_mask_text_is_set (self->settings.kernel)
        && !gst_cuda_parse_matrix (self->settings.kernel, &values, &rows,
            &cols, &error)) {
      gchar *why = error;
      error = g_strdup_printf ("kernel \"%s\": %s", self->settings.kernel,
          why);
      g_free (why);
    }
    g_free (values);
    return error;
  }
  if (!gst_cuda_conv1d_build (&self->settings,
          GST_AUDIO_INFO_RATE (&self->info),
          GST_AUDIO_INFO_CHANNELS (&self->info), &taps, &error, NULL))
    return error;
  if (self->latency >= (guint64) taps.taps && self->latency > 0)
    error = g_strdup_printf ("latency=%" G_GUINT64_FORMAT " is not shorter "
        "than the mask (%d taps)", self->latency, taps.taps);
  gst_cuda_conv1d_taps_clear (&taps);
  return error;
}

static gboolean
is_mask_property (guint prop_id)
{
  return prop_id != PROP_GAIN && prop_id != PROP_MIX;
}

/* A location whose file cannot be read: refused while running (returned);
 * otherwise kept with the reason, which start() reports. Takes `error`. */
static gchar *
keep_unreadable_location (GstCudaConv1d * self, const GValue * value,
    gchar * error)
{
  GstCudaConv1dSettings *s = &self->settings;
  gchar *refused = NULL;

  GST_OBJECT_LOCK (self);
  if (self->started) {
    refused = error;
  } else {
    g_free (self->location);
    self->location = g_value_dup_string (value);
    gst_cuda_impulse_clear (&s->impulse);
    g_free (self->location_error);
    self->location_error = g_strdup (error);
    g_free (self->settings_error);
    self->settings_error = error;
  }
  GST_OBJECT_UNLOCK (self);
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
store_property (GstCudaConv1d * self, guint prop_id, const GValue * value,
    GstCudaImpulse * loaded, GParamSpec * pspec)
{
  GstCudaConv1dSettings *s = &self->settings;

  switch (prop_id) {
    case PROP_KERNEL:
      s->kernel = g_value_dup_string (value);
      break;
    case PROP_LOCATION:
      self->location = g_value_dup_string (value);
      s->impulse = *loaded;     /* empty when the location is unset */
      self->location_error = NULL;
      break;
    case PROP_PRESET:
      s->preset = g_value_get_enum (value);
      break;
    case PROP_CUTOFF:
      s->cutoff = g_value_get_double (value);
      break;
    case PROP_BANDWIDTH:
      s->bandwidth = g_value_get_double (value);
      break;
    case PROP_TAPS:
      s->taps = g_value_get_int (value);
      break;
    case PROP_WINDOW:
      s->window = g_value_get_enum (value);
      break;
    case PROP_NORMALIZE:
      s->normalize = g_value_get_boolean (value);
      break;
    case PROP_GAIN:
      self->gain = g_value_get_double (value);
      break;
    case PROP_MIX:
      self->mix = g_value_get_double (value);
      break;
    case PROP_LATENCY:
      self->latency = g_value_get_uint64 (value);
      break;
    case PROP_ALGORITHM:
      self->algorithm = g_value_get_enum (value);
      break;
    case PROP_OVERLAP:
      self->overlap = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (self, prop_id, pspec);
      break;
  }
}

/* After a mask property changed (object lock held): a mask that does not
 * build is refused while running (the saved settings come back, the
 * reason is returned); otherwise the change stays, with its error if any,
 * and the mask is rebuilt. */
static gchar *
settle_mask_change (GstCudaConv1d * self, guint prop_id,
    SavedSettings * saved)
{
  GstCudaConv1dSettings *s = &self->settings;
  gchar *error = check_settings (self);

  if (error && self->started) {
    if (prop_id == PROP_KERNEL)
      g_free (s->kernel);
    if (prop_id == PROP_LOCATION) {
      g_free (self->location);
      gst_cuda_impulse_clear (&s->impulse);
      self->location_error = saved->location_error;
    }
    *s = saved->settings;
    self->location = saved->location;
    if (prop_id == PROP_LATENCY)
      self->latency = saved->latency;
    self->algorithm = saved->algorithm;
    return error;
  }
  if (prop_id == PROP_KERNEL)
    g_free (saved->settings.kernel);
  if (prop_id == PROP_LOCATION) {
    g_free (saved->location);
    g_free (saved->location_error);
    gst_cuda_impulse_clear (&saved->settings.impulse);
  }
  g_free (self->settings_error);
  self->settings_error = error;
  self->rebuild = TRUE;
  return NULL;
}

static void
gst_cuda_conv1d_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (object);
  GstCudaImpulse loaded = { 0 };
  SavedSettings saved;
  gchar *error = NULL, *refused = NULL;

  /* reading a file is done before taking the lock */
  if (prop_id == PROP_LOCATION && g_value_get_string (value)
      && !gst_cuda_impulse_load (g_value_get_string (value), &loaded,
          &error)) {
    refused = keep_unreadable_location (self, value, error);
    goto done;
  }

  GST_OBJECT_LOCK (self);
  if ((prop_id == PROP_LATENCY || prop_id == PROP_OVERLAP)
      && gst_cuda_filter_base_is_running (GST_CUDA_FILTER_BASE (self))) {
    /* the reported latency, the history kept, the frames dropped and the
     * way outputs leave are fixed for a run: the streaming thread reads
     * them from the copy start took */
    refused = g_strdup ("it can change only in the NULL or READY state");
    GST_OBJECT_UNLOCK (self);
    goto done;
  }
  saved.settings = self->settings;
  saved.location = self->location;
  saved.location_error = self->location_error;
  saved.latency = self->latency;
  saved.algorithm = self->algorithm;
  store_property (self, prop_id, value, &loaded, pspec);
  if (is_mask_property (prop_id))
    refused = settle_mask_change (self, prop_id, &saved);
  GST_OBJECT_UNLOCK (self);

done:
  if (refused && prop_id == PROP_LOCATION) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("Refused location \"%s\": %s. The current mask stays.",
            g_value_get_string (value), refused), (NULL));
  } else if (refused) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("Refused %s: %s. The current mask stays.", pspec->name, refused),
        (NULL));
  }
  g_free (refused);
}

static void
gst_cuda_conv1d_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (object);
  GstCudaConv1dSettings *s = &self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL:
      g_value_set_string (value, s->kernel);
      break;
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_PRESET:
      g_value_set_enum (value, s->preset);
      break;
    case PROP_CUTOFF:
      g_value_set_double (value, s->cutoff);
      break;
    case PROP_BANDWIDTH:
      g_value_set_double (value, s->bandwidth);
      break;
    case PROP_TAPS:
      g_value_set_int (value, s->taps);
      break;
    case PROP_WINDOW:
      g_value_set_enum (value, s->window);
      break;
    case PROP_NORMALIZE:
      g_value_set_boolean (value, s->normalize);
      break;
    case PROP_GAIN:
      g_value_set_double (value, self->gain);
      break;
    case PROP_MIX:
      g_value_set_double (value, self->mix);
      break;
    case PROP_LATENCY:
      g_value_set_uint64 (value, self->latency);
      break;
    case PROP_ALGORITHM:
      g_value_set_enum (value, self->algorithm);
      break;
    case PROP_OVERLAP:
      g_value_set_boolean (value, self->overlap);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ---- the mask ------------------------------------------------------------ */

static gboolean build_taps (GstCudaConv1d * self, GstCudaConv1dTaps * taps,
    GstCudaConv1dAlgorithm * algorithm);

/* (Re)builds the mask from the settings and hands it to the filter.
 * FALSE after posting an error. */
static gboolean
apply_settings (GstCudaConv1d * self, gint typical_frames)
{
  GstCudaConv1dAlgorithm algorithm;
  GstCudaConv1dTaps taps;
  gint tail;

  if (!build_taps (self, &taps, &algorithm))
    return FALSE;
  tail = taps.taps - 1 - (gint) self->filter.latency;
  if (!gst_cuda_conv1d_filter_set_taps (&self->filter, &taps, algorithm,
          typical_frames)) {
    gst_cuda_conv1d_taps_clear (&taps);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  self->tail_frames = tail;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* The taps the properties describe, read under the lock and built outside
 * it, and the algorithm asked for. FALSE after posting an error. */
static gboolean
build_taps (GstCudaConv1d * self, GstCudaConv1dTaps * taps,
    GstCudaConv1dAlgorithm * algorithm)
{
  GstCudaConv1dSettings s;
  gchar *error = NULL, *note = NULL;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  s = self->settings;
  s.kernel = g_strdup (s.kernel);
  gst_cuda_impulse_copy (&s.impulse, &self->settings.impulse);
  *algorithm = self->algorithm;
  self->rebuild = FALSE;
  GST_OBJECT_UNLOCK (self);

  ok = gst_cuda_conv1d_build (&s, GST_AUDIO_INFO_RATE (&self->info),
      GST_AUDIO_INFO_CHANNELS (&self->info), taps, &error, &note);
  if (note)
    GST_INFO_OBJECT (self, "%s", note);
  if (ok && self->filter.latency >= (guint64) taps->taps
      && self->filter.latency > 0) {
    error = g_strdup_printf ("latency=%" G_GUINT64_FORMAT " is not shorter "
        "than the mask (%d taps)", self->filter.latency, taps->taps);
    ok = FALSE;
  }
  if (!ok) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Invalid mask: %s.", error),
        (NULL));
    gst_cuda_conv1d_taps_clear (taps);
  }
  g_free (error);
  g_free (note);
  g_free (s.kernel);
  gst_cuda_impulse_clear (&s.impulse);
  return ok;
}

/* Pushes the rest of the convolution (taps - 1 frames of filtered
 * silence) and forgets the stream. */
static GstFlowReturn
drain (GstCudaConv1d * self)
{
  GstFlowReturn ret = gst_cuda_conv1d_wait_sent (&self->outputs);
  GstAudioBuffer abuf;
  GstBuffer *buf;
  gint frames, kept;
  gboolean ok;

  if (ret != GST_FLOW_OK)
    return ret;
  if (!self->filter.fir || !GST_CLOCK_TIME_IS_VALID (self->filter.start_ts)
      || self->filter.frames_in == 0)
    return gst_cuda_conv1d_filter_reset (&self->filter) ? GST_FLOW_OK : GST_FLOW_ERROR;
  /* one buffer, however long the tail: a buffer stamped after the input's
   * end must not come before the EOS that follows it (chunks are the
   * filter's business, not the stream's) */
  frames = self->filter.taps.taps - 1;
  kept = gst_cuda_conv1d_filter_kept (&self->filter, frames);
  if (kept == 0) {
    ok = gst_cuda_conv1d_filter_process (&self->filter, NULL, frames, NULL, self->filter.dry_gain,
        self->filter.wet_gain);
    return ok && gst_cuda_conv1d_filter_reset (&self->filter) ? GST_FLOW_OK : GST_FLOW_ERROR;
  }
  if (!(buf = gst_cuda_conv1d_filter_new_output (&self->filter, kept)))
    return GST_FLOW_ERROR;
  gst_cuda_conv1d_filter_stamp (&self->filter, buf, kept);
  if (!gst_audio_buffer_map (&abuf, &self->info, buf, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot map an audio "
            "buffer for the tail."), (NULL));
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  ok = gst_cuda_conv1d_filter_process (&self->filter, NULL, frames, abuf.planes, self->filter.dry_gain,
      self->filter.wet_gain);
  gst_audio_buffer_unmap (&abuf);
  if (!ok) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
  if (!gst_cuda_conv1d_filter_reset (&self->filter) && ret == GST_FLOW_OK)
    ret = GST_FLOW_ERROR;
  return ret;
}

/* ---- GstBaseTransform ---------------------------------------------------------- */

static gboolean
gst_cuda_conv1d_start (GstCudaFilterBase * base)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (base);
  gchar *error;

  GST_OBJECT_LOCK (self);
  error = g_strdup (self->settings_error);
  GST_OBJECT_UNLOCK (self);
  if (error) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Invalid mask: %s.", error),
        (NULL));
    g_free (error);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  self->started = TRUE;
  /* fixed for the run: refused by state from now on */
  self->filter.latency = self->latency;
  self->filter.overlap = self->overlap;
  /* gain and mix set before the start hold from the first frame: only
   * changes while running glide */
  self->filter.dry_gain = 1.0 - self->mix;
  self->filter.wet_gain = self->gain * self->mix;
  GST_OBJECT_UNLOCK (self);
  return gst_cuda_conv1d_filter_reset (&self->filter);
}

static void
gst_cuda_conv1d_stop (GstCudaFilterBase * base)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (base);

  gst_cuda_conv1d_stop_outputs (&self->outputs);
  gst_cuda_conv1d_filter_clear (&self->filter);
  GST_OBJECT_LOCK (self);
  self->started = FALSE;
  self->tail_frames = 0;
  self->have_info = FALSE;
  self->rebuild = TRUE;
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_cuda_conv1d_set_info (GstCudaFilterBase * base, GstCaps * incaps,
    GstCaps * outcaps G_GNUC_UNUSED)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (base);
  GstAudioInfo info;
  gchar *error;

  if (!gst_audio_info_from_caps (&info, incaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot filter caps %" GST_PTR_FORMAT ".", incaps), (NULL));
    return FALSE;
  }
  /* a running stream ends here: its tail goes out in the old format (or
   * nowhere, when the source pad is flushing or unlinked: the new caps
   * still stand) */
  if (self->filter.fir && drain (self) <= GST_FLOW_NOT_NEGOTIATED)
    return FALSE;

  GST_OBJECT_LOCK (self);
  self->info = info;
  self->have_info = TRUE;
  error = check_settings (self);
  GST_OBJECT_UNLOCK (self);
  if (error) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Cannot filter this "
            "stream: %s.", error), (NULL));
    g_free (error);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  self->rebuild = TRUE;
  GST_OBJECT_UNLOCK (self);
  return gst_cuda_conv1d_filter_configure (&self->filter, &info);
}

static gboolean
gst_cuda_conv1d_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:{
      /* the tail of the convolution goes out before the EOS; after an
       * error (posted) or a flush, the EOS goes no further */
      GstFlowReturn ret = drain (self);
      if (ret <= GST_FLOW_NOT_NEGOTIATED || ret == GST_FLOW_FLUSHING) {
        GST_DEBUG_OBJECT (self, "tail not pushed (%s): EOS dropped",
            gst_flow_get_name (ret));
        gst_event_unref (event);
        return FALSE;
      }
      break;
    }
    case GST_EVENT_FLUSH_START:
      gst_cuda_conv1d_discard (&self->outputs);
      break;
    case GST_EVENT_FLUSH_STOP:
      gst_cuda_conv1d_resume (&self->outputs);
      if (!gst_cuda_conv1d_filter_reset (&self->filter)) {
        gst_event_unref (event);
        return FALSE;
      }
      break;
    default:
      /* queued outputs go before any event that follows their input */
      if (GST_EVENT_IS_SERIALIZED (event))
        gst_cuda_conv1d_wait_sent (&self->outputs);
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* The tail pushed at EOS counts in the duration: the stream out is longer
 * than the stream in by taps - 1 - latency frames. */
static void
add_tail (GstCudaConv1d * self, GstQuery * query)
{
  GstFormat format;
  gint64 duration;
  gint tail, rate, bpf;

  gst_query_parse_duration (query, &format, &duration);
  GST_OBJECT_LOCK (self);
  tail = self->have_info ? self->tail_frames : 0;
  rate = GST_AUDIO_INFO_RATE (&self->info);
  bpf = GST_AUDIO_INFO_BPF (&self->info);
  GST_OBJECT_UNLOCK (self);
  if (duration < 0 || tail <= 0)
    return;
  if (format == GST_FORMAT_TIME)
    duration += gst_util_uint64_scale_int (tail, GST_SECOND, rate);
  else if (format == GST_FORMAT_DEFAULT)
    duration += tail;
  else if (format == GST_FORMAT_BYTES)
    duration += (gint64) tail * bpf;
  else
    return;
  gst_query_set_duration (query, format, duration);
}

static gboolean
gst_cuda_conv1d_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (trans);
  gboolean have_info, live;
  GstClockTime min, max, ours;

  if (direction != GST_PAD_SRC)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
        query);
  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_LATENCY:
      GST_OBJECT_LOCK (self);
      have_info = self->have_info;
      ours = have_info ? gst_util_uint64_scale_round (self->latency,
          GST_SECOND, GST_AUDIO_INFO_RATE (&self->info)) : 0;
      GST_OBJECT_UNLOCK (self);
      if (!have_info)
        break;
      if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (trans), query))
        return FALSE;
      gst_query_parse_latency (query, &live, &min, &max);
      min += ours;
      if (GST_CLOCK_TIME_IS_VALID (max))
        max += ours;
      gst_query_set_latency (query, live, min, max);
      return TRUE;
    case GST_QUERY_DURATION:
      if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (trans), query))
        return FALSE;
      add_tail (self, query);
      return TRUE;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

/* Frames in `inbuf`: its GstAudioMeta says, where planes lie apart. */
static gint
input_frames (GstCudaConv1d * self, GstBuffer * inbuf)
{
  GstAudioMeta *meta = gst_buffer_get_audio_meta (inbuf);
  gsize bpf = GST_AUDIO_INFO_BPF (&self->info);

  if (meta)
    return (gint) meta->samples;
  return bpf ? (gint) (gst_buffer_get_size (inbuf) / bpf) : 0;
}

/* Per buffer, before the output exists: discontinuities, new masks, and
 * the size of what comes out. */
static GstFlowReturn
gst_cuda_conv1d_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (trans);
  GstClockTime ts = GST_BUFFER_PTS (inbuf);
  gint frames = input_frames (self, inbuf);
  gboolean rebuild, gap = FALSE;
  gint kept;

  if (!self->have_info)
    return GST_FLOW_NOT_NEGOTIATED;

  /* a DISCONT, or a timestamp 5 ms off the sample count, ends the stream */
  if (GST_CLOCK_TIME_IS_VALID (self->filter.start_ts) && GST_CLOCK_TIME_IS_VALID (ts)) {
    GstClockTime expected = self->filter.start_ts + gst_util_uint64_scale_int
        (self->filter.frames_in, GST_SECOND, GST_AUDIO_INFO_RATE (&self->info));
    gap = ts > expected + RESYNC_THRESHOLD
        || ts + RESYNC_THRESHOLD < expected;
  }
  if (GST_BUFFER_IS_DISCONT (inbuf) || gap) {
    GstFlowReturn ret = drain (self);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  if (!GST_CLOCK_TIME_IS_VALID (self->filter.start_ts)) {
    if (!GST_CLOCK_TIME_IS_VALID (ts)) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Buffer without a "
              "timestamp."), (NULL));
      return GST_FLOW_ERROR;
    }
    self->filter.start_ts = ts;
    self->filter.start_offset = GST_BUFFER_OFFSET (inbuf);
  }

  GST_OBJECT_LOCK (self);
  rebuild = self->rebuild || !self->filter.fir;
  GST_OBJECT_UNLOCK (self);
  if (rebuild && !apply_settings (self, MAX (frames, 64)))
    return GST_FLOW_ERROR;

  kept = gst_cuda_conv1d_filter_kept (&self->filter, frames);
  *outbuf = gst_cuda_conv1d_filter_new_output (&self->filter, kept);
  if (!*outbuf)
    return GST_FLOW_ERROR;
  gst_buffer_copy_into (*outbuf, inbuf, GST_BUFFER_COPY_FLAGS, 0, -1);
  gst_cuda_conv1d_filter_stamp (&self->filter, *outbuf, kept);
  return GST_FLOW_OK;
}

/* `overlap`: the output made for this input goes to the output thread. */
static GstFlowReturn
gst_cuda_conv1d_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (trans);
  GstBuffer *in = trans->queued_buf;
  GstFlowReturn ret;

  if (!in || !gst_cuda_conv1d_filter_overlapping (&self->filter))
    return GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
        outbuf);
  gst_buffer_ref (in);
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
      outbuf);
  if (ret != GST_FLOW_OK || !*outbuf) {
    gst_buffer_unref (in);
    return ret;
  }
  ret = gst_cuda_conv1d_send (&self->outputs, in, *outbuf);
  *outbuf = NULL;
  return ret;
}

static GstFlowReturn
gst_cuda_conv1d_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaConv1d *self = GST_CUDA_CONV1D (trans);
  GstAudioBuffer in, out;
  gboolean have_out = gst_buffer_get_size (outbuf) > 0;
  gdouble dry1, wet1;
  gint frames;
  gboolean ok;

  /* GStreamer's rule: planes of non-interleaved audio are found through
   * the GstAudioMeta a buffer carries; without it they cannot be */
  if (GST_AUDIO_INFO_LAYOUT (&self->info) == GST_AUDIO_LAYOUT_NON_INTERLEAVED
      && !gst_buffer_get_audio_meta (inbuf)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("A non-interleaved audio "
            "buffer came without a GstAudioMeta: its planes cannot be found."),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (gst_cuda_filter_base_uses_cuda (GST_CUDA_FILTER_BASE (self)))
    gst_cuda_pin_buffer (inbuf);
  if (!gst_audio_buffer_map (&in, &self->info, inbuf, GST_MAP_READ))
    goto map_failed;
  if (have_out
      && !gst_audio_buffer_map (&out, &self->info, outbuf, GST_MAP_WRITE)) {
    gst_audio_buffer_unmap (&in);
    goto map_failed;
  }
  GST_OBJECT_LOCK (self);
  dry1 = 1.0 - self->mix;
  wet1 = self->gain * self->mix;
  GST_OBJECT_UNLOCK (self);

  frames = (gint) in.n_samples;
  /* an output the output thread pushes is waited for there */
  self->filter.queued_output = have_out && gst_cuda_conv1d_filter_overlapping (&self->filter);
  ok = gst_cuda_conv1d_filter_process (&self->filter, in.planes, frames, have_out ? out.planes : NULL,
      dry1, wet1);
  self->filter.queued_output = FALSE;
  self->filter.frames_in += frames;
  if (have_out)
    gst_audio_buffer_unmap (&out);
  gst_audio_buffer_unmap (&in);
  if (!ok)
    return GST_FLOW_ERROR;
  /* the first `latency` frames are dropped */
  return have_out ? GST_FLOW_OK : GST_BASE_TRANSFORM_FLOW_DROPPED;

  /* ERRORS */
map_failed:
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot map an audio buffer."),
      (NULL));
  return GST_FLOW_ERROR;
}
