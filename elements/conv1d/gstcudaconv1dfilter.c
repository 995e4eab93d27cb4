/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaconv1d's filter: see gstcudaconv1dfilter.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudaconv1dfilter.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_conv1d_filter_debug);
#define GST_CAT_DEFAULT gst_cuda_conv1d_filter_debug

/* `overlap`: from this many frames a buffer, the conversions run as
 * kernels of their own (their GPU time, 27 µs at 4096 frames, is below the
 * one launch's 28-30 µs; docs/performance-log.md, "An output thread"). */
#define OVERLAP_SPLIT 4096
/* Frames filtered at a time; buffers longer are cut. */
#define MIN_CHUNK 4096


static cf_stream
stream_of (GstCudaConv1dFilter * f)
{
  return gst_cuda_filter_base_streams (f->owner)->compute;
}

/* Whether outputs go to the output thread (`overlap`, on the GPU). */
gboolean
gst_cuda_conv1d_filter_overlapping (GstCudaConv1dFilter * f)
{
  return f->overlap && f->backend->cuda;
}

/* F64 and S32 streams are filtered in double: a float would round their
 * samples to 24 bits. */
static gboolean
computes_in_double (GstCudaConv1dFilter * f)
{
  GstAudioFormat format = GST_AUDIO_INFO_FORMAT (&f->info);
  return format == GST_AUDIO_FORMAT_F64LE || format == GST_AUDIO_FORMAT_S32LE;
}

/* Sample n of a plane of the working type (n may be negative). */
static guint8 *
sample_at (GstCudaConv1dFilter * f, gpointer plane, gssize n)
{
  return (guint8 *) plane + n * (gssize) f->buf.es;
}

/* The working buffers in the order they are allocated. */
static void **
buffer_slot (GstCudaConv1dBuffers * b, guint k)
{
  void **slots[] = { &b->raw_in, &b->raw_out, (void **) &b->stage,
    (void **) &b->wet, (void **) &b->wet_next
  };
  return slots[k];
}

static void
free_buffers (GstCudaConv1dFilter * f)
{
  GstCudaConv1dBuffers *b = &f->buf;

  for (guint k = 0; k < G_N_ELEMENTS (b->device); k++)
    f->backend->release (&b->device[k], buffer_slot (b, k));
  memset (b, 0, sizeof (*b));
}

/* Room for `chunk` frames: raw samples in and out, and the stage (history
 * + chunk) and wet signal of every channel, in float or double. The stage
 * has a row per output channel too: those past the input's stay silent,
 * the dry signal of outputs with no input of their number. */
static gboolean
alloc_buffers (GstCudaConv1dFilter * f)
{
  GstCudaConv1dBuffers *b = &f->buf;
  gint rows = MAX (GST_AUDIO_INFO_CHANNELS (&f->info),
      GST_AUDIO_INFO_CHANNELS (&f->out_info));
  gsize sizes[5];

  free_buffers (f);
  b->es = computes_in_double (f) ? sizeof (gdouble) : sizeof (gfloat);
  b->rows = rows;
  b->stage_pitch = f->history + f->chunk;
  b->wet_pitch = f->chunk;
  sizes[0] = (gsize) f->chunk * GST_AUDIO_INFO_BPF (&f->info);
  sizes[1] = (gsize) f->chunk * GST_AUDIO_INFO_BPF (&f->out_info);
  sizes[2] = b->es * rows * b->stage_pitch;
  sizes[3] = b->es * rows * b->wet_pitch;
  sizes[4] = sizes[3];
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    if (!f->backend->alloc (f->owner, &b->device[k], sizes[k],
            buffer_slot (b, k), stream_of (f)))
      return FALSE;
  return TRUE;
}

GstCudaConv1dChainSpec
gst_cuda_conv1d_filter_spec (GstCudaConv1dFilter * f,
    GstCudaConv1dAlgorithm algorithm, gint typical_frames)
{
  GstCudaConv1dChainSpec spec;

  spec.owner = f->owner;
  spec.backend = f->backend;
  spec.chunk = f->chunk;
  spec.f64 = computes_in_double (f);
  spec.typical_frames = typical_frames;
  spec.algorithm = algorithm;
  spec.stream = NULL;
  return spec;
}

gboolean
gst_cuda_conv1d_filter_ready (GstCudaConv1dFilter * f)
{
  return f->chain.fir != NULL;
}

gint
gst_cuda_conv1d_filter_tail (GstCudaConv1dFilter * f)
{
  return MAX (f->chain.taps.taps, f->next.taps.taps) - 1;
}

/* The crossfade ends: the next chain alone. The old one is freed off the
 * streaming thread where it can be, its device memory in the order of
 * the stream; else here, once its work (a queued output's) is done. */
static gboolean
end_fade (GstCudaConv1dFilter * f)
{
  int st = CF_OK;

  if (!f->retire || !f->retire (f->retire_data, &f->chain)) {
    st = f->backend->wait (stream_of (f));
    gst_cuda_conv1d_chain_clear (&f->chain);
  }
  f->chain = f->next;
  memset (&f->next, 0, sizeof (f->next));
  f->fade_at = f->fade_frames = 0;
  return GST_CUDA_FILTER_CHECK (f->owner, st, "changing the mask");
}

gboolean
gst_cuda_conv1d_filter_take_over (GstCudaConv1dFilter * f,
    GstCudaConv1dChain * chain, guint64 fade_frames, guint64 * starts_in)
{
  GstCudaConv1dChainSpec spec = gst_cuda_conv1d_filter_spec (f,
      GST_CUDA_CONV1D_ALGORITHM_AUTO, f->chunk);
  gint primed = 0;
  gboolean missing;
  gint64 warm_up;

  /* a change during a crossfade: the one coming in plays alone now */
  if (f->next.fir && !end_fade (f)) {
    gst_cuda_conv1d_chain_clear (chain);
    return FALSE;
  }
  if (f->chain.fir && !gst_cuda_conv1d_chain_prime (chain, &f->chain,
          &spec, &primed)) {
    gst_cuda_conv1d_chain_clear (chain);
    return FALSE;
  }
  /* input its mask reaches that was not fed (the stream had more than
   * was primed): it filters alongside the current chain, unheard, until
   * that input is out of its reach, taps - 1 - primed frames on */
  missing = f->chain.fir && f->frames_in > (guint64) primed;
  warm_up = missing ? MAX (0, (gint64) chain->taps.taps - 1 - primed) : 0;
  *starts_in = (guint64) warm_up;
  f->next = *chain;
  memset (chain, 0, sizeof (*chain));
  if (!f->chain.fir || (fade_frames == 0 && warm_up == 0))
    return end_fade (f);
  f->fade_at = -warm_up;
  f->fade_frames = fade_frames;
  return TRUE;
}

/* Builds a chain for `taps` (taken) and puts it in at once: the first of
 * a stream (the working buffers made for it first), or a change applied
 * on the streaming thread. A filter already running hands over its input
 * history. FALSE after posting an error. */
gboolean
gst_cuda_conv1d_filter_set_taps (GstCudaConv1dFilter * f,
    GstCudaConv1dTaps * taps, GstCudaConv1dAlgorithm algorithm,
    gint typical_frames)
{
  GstCudaConv1dChainSpec spec;
  GstCudaConv1dChain chain;

  /* the input is kept as long as the latency, for the dry signal */
  if (!f->chain.fir) {
    f->history = (gint) f->latency;
    f->chunk = MAX (MIN_CHUNK, f->history);
    if (!alloc_buffers (f)) {
      gst_cuda_conv1d_taps_clear (taps);
      return FALSE;
    }
  }
  spec = gst_cuda_conv1d_filter_spec (f, algorithm, typical_frames);
  if (!gst_cuda_conv1d_chain_build (&chain, &spec, taps))
    return FALSE;
  guint64 starts_in;

  return gst_cuda_conv1d_filter_take_over (f, &chain, 0, &starts_in);
}

/* Forgets the stream: no history, the next buffer starts the timeline.
 * FALSE after posting an error. */
gboolean
gst_cuda_conv1d_filter_reset (GstCudaConv1dFilter * f)
{
  gsize stage = f->buf.es * f->buf.rows * f->buf.stage_pitch;
  int st;

  f->start_ts = GST_CLOCK_TIME_NONE;
  f->start_offset = GST_BUFFER_OFFSET_NONE;
  f->frames_in = f->frames_out = 0;
  f->reset_pending = FALSE;
  /* a crossfade under way ends: the response coming in plays alone */
  if (f->next.fir && !end_fade (f)) {
    f->reset_pending = TRUE;
    return FALSE;
  }
  if (!f->chain.fir)
    return TRUE;
  st = cf_fir_reset (f->chain.fir);
  if (st == CF_OK)
    st = f->backend->clear (f->buf.stage, stage, stream_of (f));
  /* until a reset succeeds, the old stream's history is still there */
  f->reset_pending = st != CF_OK;
  return GST_CUDA_FILTER_CHECK (f->owner, st, "clearing the history");
}

/* ---- filtering ---------------------------------------------------------------- */

/* The negotiated samples (the input's or the output's) as the conversion
 * kernels see them. */
static cf_audio_layout
audio_layout (GstCudaConv1dFilter * f, const GstAudioInfo * info)
{
  GstAudioFormat format = GST_AUDIO_INFO_FORMAT (info);
  cf_audio_layout layout;

  layout.format = format == GST_AUDIO_FORMAT_F64LE ? CF_AUDIO_F64
      : format == GST_AUDIO_FORMAT_S16LE ? CF_AUDIO_S16
      : format == GST_AUDIO_FORMAT_S32LE ? CF_AUDIO_S32 : CF_AUDIO_F32;
  layout.channels = GST_AUDIO_INFO_CHANNELS (info);
  layout.interleaved = GST_AUDIO_INFO_LAYOUT (info)
      != GST_AUDIO_LAYOUT_NON_INTERLEAVED;
  layout.plane_pitch = f->chunk;
  return layout;
}

/* Step 1: `frames` samples from `in` (planes, or one interleaved run; NULL:
 * silence) into x, in the working type; `mapped`: the interleaved run's
 * device address in page-locked memory, or NULL. With `gather`, x gets the
 * routes' inputs, in the same pass. */
static int
samples_in (GstCudaConv1dFilter * f, gpointer * in, const void *mapped,
    gint frames, void *x, size_t x_pitch, const cf_audio_plane_sums * gather)
{
  GstCudaConv1dBuffers *b = &f->buf;
  cf_audio_layout layout = audio_layout (f, &f->info);
  gsize bps = GST_AUDIO_INFO_BPS (&f->info);
  gsize bpf = GST_AUDIO_INFO_BPF (&f->info);
  gsize run = frames * (layout.interleaved ? bpf : bps);
  gint n_planes = layout.interleaved ? 1 : layout.channels;
  const GstCudaConv1dBackend *be = f->backend;
  cf_stream stream = stream_of (f);
  const void *raw = b->raw_in;
  int st = CF_OK;

  /* interleaved samples in page-locked memory: the conversion reads them
   * there, one copy less a buffer */
  if (mapped) {
    raw = mapped;
    n_planes = 0;
  }
  for (gint p = 0; p < n_planes && st == CF_OK; p++) {
    guint8 *dst = (guint8 *) b->raw_in + p * f->chunk * bps;
    st = in ? be->upload (dst, in[p], run, stream)
        : be->clear (dst, run, stream);
  }
  if (st == CF_OK && gather)
    st = be->to_planes_routed (&layout, raw, frames, gather, x, x_pitch,
        b->es == 8, stream);
  else if (st == CF_OK)
    st = be->to_planar (&layout, raw, frames, x, x_pitch, b->es == 8,
        stream);
  return st;
}

/* Step 4: `kept` filtered frames, from frame `drop` of `planes` (the wet
 * signal, or with `scatter` the routes' outputs, summed into the output
 * channels on the way), to `out` at frame `out_at`; `mapped`: the device
 * address of that frame of an interleaved run in page-locked memory, or
 * NULL. */
static int
samples_out (GstCudaConv1dFilter * f, gint drop, gint kept, gpointer * out,
    void *mapped, gint out_at, void *planes,
    const cf_audio_plane_sums * scatter)
{
  GstCudaConv1dBuffers *b = &f->buf;
  cf_audio_layout layout = audio_layout (f, &f->out_info);
  gsize bps = GST_AUDIO_INFO_BPS (&f->out_info);
  gsize bpf = GST_AUDIO_INFO_BPF (&f->out_info);
  gsize step = layout.interleaved ? bpf : bps;
  gint n_planes = layout.interleaved ? 1 : layout.channels;
  const GstCudaConv1dBackend *be = f->backend;
  cf_stream stream = stream_of (f);
  void *src = sample_at (f, planes, drop);
  /* interleaved output to page-locked memory (our pool's): written there
   * by the conversion, one copy less a buffer */
  void *raw = mapped ? mapped : b->raw_out;
  int st;

  st = scatter ? be->from_planes_routed (&layout, src, b->wet_pitch, kept,
      scatter, raw, b->es == 8, stream) : be->from_planar (&layout, src,
      b->wet_pitch, kept, raw, b->es == 8, stream);
  if (mapped)
    return st;
  for (gint p = 0; p < n_planes && st == CF_OK; p++) {
    const guint8 *plane = (const guint8 *) b->raw_out + p * f->chunk * bps;
    guint8 *dst = (guint8 *) out[p] + out_at * step;
    st = be->download (dst, plane, kept * step, stream);
  }
  return st;
}

/* Step 5: the last `history` input frames move to the front of the
 * stage, for the dry signal of the next chunk. */
static int
keep_history (GstCudaConv1dFilter * f, gint frames)
{
  GstCudaConv1dBuffers *b = &f->buf;
  gint channels = GST_AUDIO_INFO_CHANNELS (&f->info);
  gsize es = b->es;

  /* (stage rows past the input's channels stay silent) */

  /* the wet buffer, written out by now, serves as scratch */
  return f->backend->shift_rows (b->stage, b->stage_pitch * es, frames * es,
      f->history * es, channels, b->wet, b->wet_pitch * es, stream_of (f));
}

/* Step 2 while crossfading: the chunk through the next chain too, and the
 * output moved from the current chain's towards it. */
static int
crossfade (GstCudaConv1dFilter * f, const void *x, size_t x_pitch,
    gint frames)
{
  GstCudaConv1dBuffers *b = &f->buf;
  cf_stream stream = stream_of (f);
  int st = gst_cuda_conv1d_chain_run (&f->next, x, x_pitch, frames,
      b->wet_next, b->wet_pitch, b->es == 8, stream);

  if (st == CF_OK)
    st = f->backend->crossfade (GST_AUDIO_INFO_CHANNELS (&f->out_info),
        frames, b->wet, b->wet_pitch, b->wet_next, b->wet_pitch, b->wet,
        b->wet_pitch, (long long) f->fade_at, (long long) f->fade_frames,
        b->es == 8, stream);
  f->fade_at += frames;
  return st;
}

/* After a chunk's work was queued (status `st`): on success, waits for it
 * unless the output thread does; on failure always, since the caller
 * unmaps the buffers next and copies into them may still be queued. */
static gboolean
finish_chunk (GstCudaConv1dFilter * f, int st)
{
  if (st != CF_OK || !f->queued_output) {
    int synced = f->backend->wait (stream_of (f));
    st = st != CF_OK ? st : synced;
  }
  return GST_CUDA_FILTER_CHECK (f->owner, st, "filtering audio");
}

/* A chunk through the routes of the one chain, with nothing dropped (see
 * filter_chunk). */
static gboolean
filter_routes (GstCudaConv1dFilter * f, gpointer * in, const void *mapped_in,
    gint frames, gpointer * out, void *mapped_out, gint out_at)
{
  GstCudaConv1dChain *c = &f->chain;
  void *x;
  size_t x_pitch;
  int st = cf_fir_input (c->fir, frames, &x, &x_pitch);

  if (st == CF_OK)
    st = samples_in (f, in, mapped_in, frames, x, x_pitch, &c->gather);
  if (st == CF_OK)
    st = cf_fir_process (c->fir, x, x_pitch, c->routed, f->buf.wet_pitch,
        frames);
  if (st == CF_OK && out)
    st = samples_out (f, 0, frames, out, mapped_out, out_at, c->routed,
        &c->scatter);
  return finish_chunk (f, st);
}

/* One chunk of `frames` frames: samples from `in` (planes, or one
 * interleaved run), filtered, mixed, and the last `frames - drop` written to
 * `out` at frame `out_at`. `in` NULL filters silence (the tail). */
static gboolean
filter_chunk (GstCudaConv1dFilter * f, gpointer * in, gint frames, gint drop,
    gpointer * out, gint out_at, gdouble dry1, gdouble wet1)
{
  GstCudaConv1dBuffers *b = &f->buf;
  gint channels = GST_AUDIO_INFO_CHANNELS (&f->out_info);
  gboolean fading = f->next.fir != NULL;
  /* the fast paths: one chain, each channel through its own mask */
  gboolean plain = !fading && f->chain.taps.routing.diagonal;
  cf_stream stream = stream_of (f);
  gint kept = frames - drop;
  gboolean mixing = dry1 != 0.0 || wet1 != 1.0 || f->dry_gain != 0.0
      || f->wet_gain != 1.0;
  void *x = sample_at (f, b->stage, f->history);
  size_t x_pitch = b->stage_pitch;
  cf_audio_layout layout = audio_layout (f, &f->info);
  /* interleaved samples in page-locked memory, read and written there by
   * the GPU: their device addresses (NULL: elsewhere) */
  gboolean bus = f->backend->cuda && layout.interleaved;
  const void *mapped_in = bus && in ? cf_gpu_host_device_pointer (in[0])
      : NULL;
  void *mapped_out = bus && kept > 0 ? cf_gpu_host_device_pointer ((guint8 *)
      out[0] + out_at * GST_AUDIO_INFO_BPF (&f->out_info)) : NULL;
  int st = CF_ERR_UNSUPPORTED;

  /* 0. both so, nothing to mix or drop: where the filter takes the chunk
   * whole, it converts the samples itself, in its one launch (not for a
   * queued output of OVERLAP_SPLIT frames or more: there the GPU's time is
   * what counts, and separate conversions take less of it) */
  if (plain && mapped_in && mapped_out && kept == frames
      && f->history == 0 && !mixing && !(f->queued_output && frames >= OVERLAP_SPLIT))
    st = cf_fir_process_interleaved (f->chain.fir, &layout, mapped_in,
        mapped_out, frames);
  if (st != CF_ERR_UNSUPPORTED)
    return finish_chunk (f, st);
  st = CF_OK;

  /* 0b. routes alone, nothing to mix or keep: the conversions gather the
   * routes' inputs where the filter reads them and sum the routes' outputs
   * into the output channels, two launches fewer */
  if (!fading && !plain && f->history == 0 && !mixing)
    return filter_routes (f, in, mapped_in, frames, out, mapped_out,
        out_at);

  /* 1. samples in, as float or double: after the history kept for the dry
   * signal, or, with none to keep, straight where the filter reads them (one
   * device copy less) */
  if (plain && f->history == 0 && !mixing)
    st = cf_fir_input (f->chain.fir, frames, &x, &x_pitch);
  if (st == CF_OK)
    st = samples_in (f, in, mapped_in, frames, x, x_pitch, NULL);

  /* 2. filter (while crossfading, through both chains, from the one to the
   * other); 3. mix with the input delayed by the latency */
  if (st == CF_OK)
    st = gst_cuda_conv1d_chain_run (&f->chain, x, x_pitch, frames, b->wet,
        b->wet_pitch, b->es == 8, stream);
  if (st == CF_OK && fading)
    st = crossfade (f, x, x_pitch, frames);
  if (st == CF_OK && mixing) {
    const void *dry = sample_at (f, x, -(gssize) f->latency);
    st = f->backend->mix (channels, frames, dry, b->stage_pitch, b->wet,
        b->wet_pitch, b->wet, b->wet_pitch, f->dry_gain, dry1, f->wet_gain,
        wet1, b->es == 8, stream);
  }
  f->dry_gain = dry1;
  f->wet_gain = wet1;

  /* 4. samples out, past the dropped ones; 5. history for the next */
  if (st == CF_OK && kept > 0)
    st = samples_out (f, drop, kept, out, mapped_out, out_at, b->wet, NULL);
  if (st == CF_OK && f->history > 0)
    st = keep_history (f, frames);

  if (!finish_chunk (f, st))
    return FALSE;
  return !fading || f->fade_at < (gint64) f->fade_frames || end_fade (f);
}

/* Frames of the next `frames` generated that are still to be dropped. */
static gint
frames_to_drop (GstCudaConv1dFilter * f, gint frames)
{
  guint64 left = f->frames_out < f->latency
      ? f->latency - f->frames_out : 0;
  return (gint) MIN ((guint64) frames, left);
}

/* Frames that come out of the next `frames` filtered: the first
 * `latency` of the stream are dropped. */
gint
gst_cuda_conv1d_filter_kept (GstCudaConv1dFilter * f, gint frames)
{
  guint64 left = f->frames_out < f->latency
      ? f->latency - f->frames_out : 0;

  return frames - (gint) MIN ((guint64) frames, left);
}

/* Timestamps of an output buffer of `frames` frames, following the ones
 * before it since the last reset. */
void
gst_cuda_conv1d_filter_stamp (GstCudaConv1dFilter * f, GstBuffer * buf,
    gint frames)
{
  gint rate = GST_AUDIO_INFO_RATE (&f->info);
  guint64 index = f->frames_out > f->latency
      ? f->frames_out - f->latency : 0;
  GstClockTime start = f->start_ts;

  if (GST_CLOCK_TIME_IS_VALID (start)) {
    GST_BUFFER_PTS (buf) = start + gst_util_uint64_scale_int (index,
        GST_SECOND, rate);
    GST_BUFFER_DURATION (buf) = start + gst_util_uint64_scale_int (index
        + frames, GST_SECOND, rate) - GST_BUFFER_PTS (buf);
  }
  if (f->start_offset != GST_BUFFER_OFFSET_NONE) {
    GST_BUFFER_OFFSET (buf) = f->start_offset + index;
    GST_BUFFER_OFFSET_END (buf) = f->start_offset + index + frames;
  }
}

/* A buffer for `frames` output frames, from our pool (pinned memory on the
 * GPU path), planes tight for non-interleaved audio. */
GstBuffer *
gst_cuda_conv1d_filter_new_output (GstCudaConv1dFilter * f, gint frames)
{
  gsize bpf = GST_AUDIO_INFO_BPF (&f->out_info);
  gsize size = MAX (1, frames) * bpf;
  GstBuffer *buf = NULL;

  if (f->pool) {
    GstStructure *config = gst_buffer_pool_get_config (f->pool);
    guint pool_size;
    gst_buffer_pool_config_get_params (config, NULL, &pool_size, NULL, NULL);
    gst_structure_free (config);
    if (pool_size < size) {
      gst_buffer_pool_set_active (f->pool, FALSE);
      gst_clear_object (&f->pool);
    }
  }
  if (!f->pool) {
    GstAllocator *allocator = f->backend->output_allocator ();
    GstStructure *config;
    f->pool = gst_buffer_pool_new ();
    config = gst_buffer_pool_get_config (f->pool);
    gst_buffer_pool_config_set_params (config, NULL, MAX (size,
            (gsize) MIN_CHUNK * bpf), 4, 0);
    if (allocator) {
      gst_buffer_pool_config_set_allocator (config, allocator, NULL);
      gst_object_unref (allocator);
    }
    if (!gst_buffer_pool_set_config (f->pool, config)
        || !gst_buffer_pool_set_active (f->pool, TRUE)) {
      gst_clear_object (&f->pool);
      return NULL;
    }
  }
  if (gst_buffer_pool_acquire_buffer (f->pool, &buf, NULL) != GST_FLOW_OK)
    return NULL;
  gst_buffer_resize (buf, 0, (gssize) frames * bpf);
  if (frames > 0
      && GST_AUDIO_INFO_LAYOUT (&f->out_info)
      == GST_AUDIO_LAYOUT_NON_INTERLEAVED)
    gst_buffer_add_audio_meta (buf, &f->out_info, frames, NULL);
  return buf;
}

/* Filters `frames` frames (in chunks) into `out` (already sized for the
 * frames kept). Returns FALSE after posting an error. */
gboolean
gst_cuda_conv1d_filter_process (GstCudaConv1dFilter * f, gpointer * in,
    gint frames,
    gpointer * out, gdouble dry1, gdouble wet1)
{
  gboolean planar = GST_AUDIO_INFO_LAYOUT (&f->info)
      == GST_AUDIO_LAYOUT_NON_INTERLEAVED;
  gint n_planes = planar ? GST_AUDIO_INFO_CHANNELS (&f->info) : 1;
  gsize step = planar ? GST_AUDIO_INFO_BPS (&f->info)
      : GST_AUDIO_INFO_BPF (&f->info);
  gint out_at = 0;

  for (gint done = 0; done < frames;) {
    gint n = MIN (f->chunk, frames - done), drop = frames_to_drop (f, n);
    for (gint p = 0; p < n_planes && in; p++)
      f->chunk_planes[p] = (guint8 *) in[p] + done * step;
    if (!filter_chunk (f, in ? f->chunk_planes : NULL, n, drop, out,
            out_at, dry1, wet1))
      return FALSE;
    f->frames_out += n;
    out_at += n - drop;
    done += n;
  }
  return TRUE;
}

void
gst_cuda_conv1d_filter_init (GstCudaConv1dFilter * f,
    GstCudaFilterBase * owner)
{
  static gsize debug_once;

  if (g_once_init_enter (&debug_once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_conv1d_filter_debug,
        "cudaconv1dfilter", 0, "cudaconv1d's filter");
    g_once_init_leave (&debug_once, 1);
  }
  memset (f, 0, sizeof (*f));
  f->owner = owner;
  f->backend = gst_cuda_conv1d_backend_get (FALSE);
  f->start_ts = GST_CLOCK_TIME_NONE;
}

void
gst_cuda_conv1d_filter_clear (GstCudaConv1dFilter * f)
{
  gst_cuda_conv1d_chain_clear (&f->chain);
  gst_cuda_conv1d_chain_clear (&f->next);
  f->fade_at = f->fade_frames = 0;
  free_buffers (f);
  f->history = f->chunk = 0;
  if (f->pool) {
    gst_buffer_pool_set_active (f->pool, FALSE);
    gst_clear_object (&f->pool);
  }
}

void
gst_cuda_conv1d_filter_finalize (GstCudaConv1dFilter * f)
{
  gst_cuda_conv1d_filter_clear (f);
  g_clear_pointer (&f->chunk_planes, g_free);
}

gboolean
gst_cuda_conv1d_filter_configure (GstCudaConv1dFilter * f,
    const GstAudioInfo * info, const GstAudioInfo * out_info)
{
  gst_cuda_conv1d_filter_clear (f);
  /* the backend is fixed from start to stop: chosen once a stream */
  f->backend = gst_cuda_conv1d_backend_get
      (gst_cuda_filter_base_uses_cuda (f->owner));
  f->info = *info;
  f->out_info = *out_info;
  /* as many chunk starts as planes: any channel count */
  g_free (f->chunk_planes);
  f->chunk_planes = g_new (gpointer, GST_AUDIO_INFO_CHANNELS (info));
  return gst_cuda_conv1d_filter_reset (f);
}
