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
    (void **) &b->wet
  };
  return slots[k];
}

static void
free_buffers (GstCudaConv1dFilter * f)
{
  GstCudaConv1dBuffers *b = &f->buf;

  for (guint k = 0; k < G_N_ELEMENTS (b->device); k++)
    f->backend->release (&b->device[k], buffer_slot (b, k));
  f->backend->release (&b->routed_device, (void **) &b->routed);
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
  gsize sizes[4];

  free_buffers (f);
  b->es = computes_in_double (f) ? sizeof (gdouble) : sizeof (gfloat);
  b->rows = rows;
  b->stage_pitch = f->history + f->chunk;
  b->wet_pitch = f->chunk;
  sizes[0] = (gsize) f->chunk * GST_AUDIO_INFO_BPF (&f->info);
  sizes[1] = (gsize) f->chunk * GST_AUDIO_INFO_BPF (&f->out_info);
  sizes[2] = b->es * rows * b->stage_pitch;
  sizes[3] = b->es * rows * b->wet_pitch;
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    if (!f->backend->alloc (f->owner, &b->device[k], sizes[k],
            buffer_slot (b, k), stream_of (f)))
      return FALSE;
  return TRUE;
}

/* The path and direct variant for the mask. */
static void
choose_path (GstCudaConv1dFilter * f, GstCudaConv1dAlgorithm algorithm,
    gsize taps, cf_fir_config * cfg)
{
  /* longer masks direct would take seconds a buffer on either backend */
  gboolean fits = taps <= CF_CONV1D_MAX_DIRECT_TAPS;
  gint direct_max = f->backend->direct_max_taps;

  cfg->direct = CF_CONV1D_FAST;
  switch (algorithm) {
    case GST_CUDA_CONV1D_ALGORITHM_FFT:
      cfg->path = CF_FIR_FFT;
      break;
    case GST_CUDA_CONV1D_ALGORITHM_AUTO:
      cfg->path = fits && cfg->mask.taps <= direct_max ? CF_FIR_DIRECT
          : CF_FIR_FFT;
      break;
    default:
      cfg->path = fits ? CF_FIR_DIRECT : CF_FIR_FFT;
      cfg->direct = (cf_conv1d_algorithm) algorithm;
      break;
  }
}

/* FIR channels: one per route, or per channel where the routing is
 * diagonal. */
static gint
fir_channels (const GstCudaConv1dRouting * routing)
{
  return routing->diagonal ? routing->in_channels : routing->n_routes;
}

/* Runs the input the old filter still holds (up to the new mask's length)
 * through a new filter, so that it continues the stream instead of
 * starting from silence. With the same channels the wet buffer carries
 * the frames; where the routes change, each new route takes the history
 * of an old one with its input (none: silence), in buffers of the
 * moment. */
static gboolean
prime_filter (GstCudaConv1dFilter * f, cf_fir * old, cf_fir * fir,
    const GstCudaConv1dTaps * taps)
{
  GstCudaConv1dBuffers *b = &f->buf;
  const GstCudaConv1dRouting *from = &f->taps.routing, *to = &taps->routing;
  gboolean same = from->diagonal && to->diagonal;
  gint old_rows = fir_channels (from), new_rows = fir_channels (to);
  gint n = MIN (taps->taps - 1, f->chunk), frames;
  GstCudaDeviceBuffer dev[3] = { 0 };
  void *mem[3] = { NULL, NULL, NULL };
  gsize plane = b->es * f->chunk;
  cf_audio_plane_sums carry;
  cf_stream stream = stream_of (f);
  gboolean allocated;
  int st = CF_OK;

  if (same) {
    frames = cf_fir_recent (old, b->wet, b->wet_pitch, n);
    if (frames <= 0)
      return GST_CUDA_FILTER_CHECK (f->owner, MIN (frames, 0),
          "reading the history");
    return GST_CUDA_FILTER_CHECK (f->owner, cf_fir_process (fir, b->wet,
            b->wet_pitch, sample_at (f, b->stage, f->history),
            b->stage_pitch, frames), "priming the filter");
  }
  gst_cuda_conv1d_routes_carry (from, to, &carry);
  if (!cf_audio_plane_sums_ok (&carry))
    return TRUE;                /* too many channels to carry: silence */
  allocated = f->backend->alloc (f->owner, &dev[0], plane * old_rows,
      &mem[0], stream) && f->backend->alloc (f->owner, &dev[1], plane
      * new_rows, &mem[1], stream) && f->backend->alloc (f->owner, &dev[2],
      plane * new_rows, &mem[2], stream);
  frames = allocated ? cf_fir_recent (old, mem[0], f->chunk, n) : 0;
  if (frames < 0)
    st = frames;
  if (st == CF_OK && frames > 0)
    st = f->backend->sum_planes (&carry, mem[0], f->chunk, frames, mem[1],
        f->chunk, b->es == 8, stream);
  if (st == CF_OK && frames > 0)
    st = cf_fir_process (fir, mem[1], f->chunk, mem[2], f->chunk, frames);
  if (st == CF_OK)
    st = f->backend->wait (stream);
  for (guint k = 0; k < G_N_ELEMENTS (dev); k++)
    f->backend->release (&dev[k], &mem[k]);
  /* an allocation's failure is posted already */
  return allocated && GST_CUDA_FILTER_CHECK (f->owner, st,
      "priming the filter");
}

/* The masks as the FIR takes them: as given where the routing is
 * diagonal, else one per route (its response's row, copied). */
static gdouble *
fir_masks (const GstCudaConv1dTaps * taps, gint * masks)
{
  const GstCudaConv1dRouting *g = &taps->routing;
  gsize row = (gsize) taps->taps;
  gdouble *h;

  if (g->diagonal) {
    *masks = taps->masks;
    return g_memdup2 (taps->h, sizeof (gdouble) * row * taps->masks);
  }
  *masks = g->n_routes;
  h = g_new (gdouble, row * g->n_routes);
  for (gint k = 0; k < g->n_routes; k++)
    memcpy (h + k * row, taps->h + g->route[k].ir * row,
        sizeof (gdouble) * row);
  return h;
}

/* Room for the routes' filtered chunks where the routing mixes channels
 * (none where it is diagonal). */
static gboolean
alloc_routed (GstCudaConv1dFilter * f, const GstCudaConv1dRouting * g)
{
  GstCudaConv1dBuffers *b = &f->buf;

  f->backend->release (&b->routed_device, (void **) &b->routed);
  if (g->diagonal)
    return TRUE;
  gst_cuda_conv1d_routes_gather (g, &f->gather);
  gst_cuda_conv1d_routes_scatter (g, &f->scatter);
  return f->backend->alloc (f->owner, &b->routed_device, b->es
      * g->n_routes * b->wet_pitch, (void **) &b->routed, stream_of (f));
}

/* (Re)builds the mask from the settings and a filter for it. A filter
 * already running hands over its input history, so a mask change applies
 * at this buffer with no glitch beyond the new filter's own start. FALSE
 * after posting an error. */
gboolean
gst_cuda_conv1d_filter_set_taps (GstCudaConv1dFilter * f,
    GstCudaConv1dTaps * new_taps, GstCudaConv1dAlgorithm algorithm,
    gint typical_frames)
{
  GstCudaConv1dTaps taps = *new_taps;
  cf_fir_config cfg = { 0 };
  gfloat *taps32 = NULL;
  gdouble *h;
  cf_fir *fir;
  int st;

  memset (new_taps, 0, sizeof (*new_taps));
  cfg.channels = fir_channels (&taps.routing);
  h = fir_masks (&taps, &cfg.mask.masks);
  cfg.mask.taps = taps.taps;
  cfg.f64 = computes_in_double (f);
  if (cfg.f64) {
    cfg.mask.h64 = h;
  } else {
    gsize n = (gsize) taps.taps * cfg.mask.masks;
    taps32 = g_new (gfloat, n);
    for (gsize k = 0; k < n; k++)
      taps32[k] = (gfloat) h[k];
    cfg.mask.h = taps32;
  }
  choose_path (f, algorithm, cfg.mask.taps * (gsize) cfg.mask.masks, &cfg);
  cfg.block = cfg.path == CF_FIR_FFT ? f->backend->pick_block (&cfg.mask,
      typical_frames) : 0;
  cfg.cuda = f->backend->cuda;
  cfg.stream = stream_of (f);

  /* the input is kept as long as the latency, for the dry signal */
  if (!f->fir) {
    f->history = (gint) f->latency;
    f->chunk = MAX (MIN_CHUNK, f->history);
    if (!alloc_buffers (f))
      return FALSE;
  }
  cfg.max_frames = f->chunk;
  st = cf_fir_new (&fir, &cfg);
  g_free (taps32);              /* the filter keeps its own copy */
  g_free (h);
  if (!GST_CUDA_FILTER_CHECK (f->owner, st, "creating the filter")) {
    gst_cuda_conv1d_taps_clear (&taps);
    return FALSE;
  }
  if (f->fir && !prime_filter (f, f->fir, fir, &taps)) {
    cf_fir_free (fir);
    gst_cuda_conv1d_taps_clear (&taps);
    return FALSE;
  }
  /* the old filter's memory goes once its work (a queued output's) is done */
  if (f->fir && !GST_CUDA_FILTER_CHECK (f->owner,
          f->backend->wait (cfg.stream), "changing the mask")) {
    cf_fir_free (fir);
    gst_cuda_conv1d_taps_clear (&taps);
    return FALSE;
  }
  if (!alloc_routed (f, &taps.routing)) {
    cf_fir_free (fir);
    gst_cuda_conv1d_taps_clear (&taps);
    return FALSE;
  }
  if (f->fir)
    cf_fir_free (f->fir);
  f->fir = fir;
  gst_cuda_conv1d_taps_clear (&f->taps);
  f->taps = taps;
  GST_INFO_OBJECT (f->owner, "%d taps x %d masks, %d routes%s, %s path %s "
      "(block %d)", taps.taps, taps.masks, taps.routing.n_routes,
      taps.routing.diagonal ? " (diagonal)" : "", cfg.path == CF_FIR_FFT
      ? "FFT" : "direct", f->backend->where, cf_fir_block (fir));
  return TRUE;
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
  if (!f->fir)
    return TRUE;
  st = cf_fir_reset (f->fir);
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
 * device address in page-locked memory, or NULL. */
static int
samples_in (GstCudaConv1dFilter * f, gpointer * in, const void *mapped,
    gint frames, void *x, size_t x_pitch)
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
  if (st == CF_OK)
    st = be->to_planar (&layout, raw, frames, x, x_pitch, b->es == 8,
        stream);
  return st;
}

/* Step 4: `kept` filtered frames, from frame `drop` of the wet signal, to
 * `out` at frame `out_at`; `mapped`: the device address of that frame of
 * an interleaved run in page-locked memory, or NULL. */
static int
samples_out (GstCudaConv1dFilter * f, gint drop, gint kept, gpointer * out,
    void *mapped, gint out_at)
{
  GstCudaConv1dBuffers *b = &f->buf;
  cf_audio_layout layout = audio_layout (f, &f->out_info);
  gsize bps = GST_AUDIO_INFO_BPS (&f->out_info);
  gsize bpf = GST_AUDIO_INFO_BPF (&f->out_info);
  gsize step = layout.interleaved ? bpf : bps;
  gint n_planes = layout.interleaved ? 1 : layout.channels;
  const GstCudaConv1dBackend *be = f->backend;
  cf_stream stream = stream_of (f);
  int st;

  /* interleaved output to page-locked memory (our pool's): written there
   * by the conversion, one copy less a buffer */
  if (mapped)
    return be->from_planar (&layout, sample_at (f, b->wet,
            drop), b->wet_pitch, kept, mapped, b->es == 8, stream);
  st = be->from_planar (&layout, sample_at (f, b->wet, drop), b->wet_pitch,
      kept, b->raw_out, b->es == 8, stream);
  for (gint p = 0; p < n_planes && st == CF_OK; p++) {
    const guint8 *src = (const guint8 *) b->raw_out + p * f->chunk * bps;
    guint8 *dst = (guint8 *) out[p] + out_at * step;
    st = be->download (dst, src, kept * step, stream);
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

/* Step 2 where routes mix channels: each route's input from the stage
 * (at x) gathered where the filter reads it, filtered, and the routes'
 * outputs summed into the output channels' wet rows. */
static int
filter_routes (GstCudaConv1dFilter * f, const void *x, gint frames)
{
  GstCudaConv1dBuffers *b = &f->buf;
  const GstCudaConv1dBackend *be = f->backend;
  cf_stream stream = stream_of (f);
  void *routes_in;
  size_t pitch;
  int st = cf_fir_input (f->fir, frames, &routes_in, &pitch);

  if (st == CF_OK)
    st = be->sum_planes (&f->gather, x, b->stage_pitch, frames, routes_in,
        pitch, b->es == 8, stream);
  if (st == CF_OK)
    st = cf_fir_process (f->fir, routes_in, pitch, b->routed, b->wet_pitch,
        frames);
  if (st == CF_OK)
    st = be->sum_planes (&f->scatter, b->routed, b->wet_pitch, frames,
        b->wet, b->wet_pitch, b->es == 8, stream);
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

/* One chunk of `frames` frames: samples from `in` (planes, or one
 * interleaved run), filtered, mixed, and the last `frames - drop` written to
 * `out` at frame `out_at`. `in` NULL filters silence (the tail). */
static gboolean
filter_chunk (GstCudaConv1dFilter * f, gpointer * in, gint frames, gint drop,
    gpointer * out, gint out_at, gdouble dry1, gdouble wet1)
{
  GstCudaConv1dBuffers *b = &f->buf;
  gint channels = GST_AUDIO_INFO_CHANNELS (&f->out_info);
  gboolean diagonal = f->taps.routing.diagonal;
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
  if (diagonal && mapped_in && mapped_out && kept == frames
      && f->history == 0 && !mixing && !(f->queued_output && frames >= OVERLAP_SPLIT))
    st = cf_fir_process_interleaved (f->fir, &layout, mapped_in,
        mapped_out, frames);
  if (st != CF_ERR_UNSUPPORTED)
    return finish_chunk (f, st);
  st = CF_OK;

  /* 1. samples in, as float or double: after the history kept for the dry
   * signal, or, with none to keep, straight where the filter reads them (one
   * device copy less) */
  if (diagonal && f->history == 0 && !mixing)
    st = cf_fir_input (f->fir, frames, &x, &x_pitch);
  if (st == CF_OK)
    st = samples_in (f, in, mapped_in, frames, x, x_pitch);

  /* 2. filter (routes that mix channels: each route's input gathered
   * where the filter reads it, the outputs summed by channel); 3. mix
   * with the input delayed by the latency */
  if (st == CF_OK && diagonal)
    st = cf_fir_process (f->fir, x, x_pitch, b->wet, b->wet_pitch,
        frames);
  else if (st == CF_OK)
    st = filter_routes (f, x, frames);
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
    st = samples_out (f, drop, kept, out, mapped_out, out_at);
  if (st == CF_OK && f->history > 0)
    st = keep_history (f, frames);

  return finish_chunk (f, st);
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
  if (f->fir)
    cf_fir_free (f->fir);
  f->fir = NULL;
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
  gst_cuda_conv1d_taps_clear (&f->taps);
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
