/* Streaming FIR filtering: the bookkeeping of both paths, written once for
 * both backends (fir_ops.h). See fir.h for the algorithms.
 *
 * FFT path state, per channel, in "stage" coordinates: stage[0, B) is the
 * last complete block (absolute index A - 1), stage[B, B + partial) the
 * block being filled (index A), new frames land after it. When a call
 * completes q blocks, the spectra of their 2B windows (a block and the one
 * before) enter a ring of spectra, and the tails of the next q blocks
 * (partitions 1..P-1) are computed at once: one batched FFT, one
 * multiply-accumulate kernel (which also files the new spectra in the
 * ring), one batched inverse FFT per call, whatever q.
 * `current` holds the tail of block A.
 *
 * A call of exactly one whole block (the steady state of a stream in
 * buffers of B frames) is one launch on CUDA: every partition, the head's
 * too, through the block's spectrum. That launch leaves `current` behind;
 * a call of any other length after one (last_step set) rebuilds it from
 * the ring first.
 *
 * Samples are floats or doubles (config f64): the bookkeeping counts
 * samples and turns them into bytes with `es`, the backends compute. */
#include <stdlib.h>
#include <string.h>

#include "fir.h"
#include "fir_ops.h"

/* last_step when no whole-block launch has run: never the block before any block
 * (blocks count from 0) */
#define NO_STEP (-2LL)

struct cf_fir
{
  cf_fir_config cfg;
  const cf_fir_ops *ops;
  cf_fir_backend *be;
  size_t es;                    /* bytes per sample: 4 or 8 (f64) */
  float *taps;                  /* host copy, masks x taps (float filter) */
  double *taps64;               /* host copy (double filter) */
  void *mask64;                 /* double filter: the taps the direct step
                                 * reads, in the backend's memory */

  /* direct path: a window sliding along a longer buffer, the taps - 1
   * frames of history at history_start, the new frames after them; the
   * history goes back to the front only when the window reaches the end */
  char *history;
  size_t history_pitch;
  size_t history_start;

  /* FFT path */
  cf_fir_layout l;
  cf_conv1d_mask head;          /* partition 0, run direct */
  void *head_taps;              /* host (float) or backend (double) memory */
  long long block_index;        /* A */
  int partial;                  /* frames of block A so far */
  int max_blocks;               /* blocks one call can complete */
  char *stage;
  size_t stage_pitch;
  char *windows, *times, *current;
  char *fresh, *ring, *spectra, *tails;  /* complex: 2 es bytes a bin */

  long long last_step;          /* block of the whole-block launch the last
                                 * call was, NO_STEP: another call (or none
                                 * yet), which keeps `current` */
};

int
cf_fir_max_block (const cf_conv1d_mask * mask)
{
  int b = 16;
  (void) mask;                  /* the head runs a few masks at a time */
  while (b * 2 <= CF_CONV1D_MAX_DIRECT_TAPS && b < 4096)
    b *= 2;
  return b;
}

int
cf_fir_pick_block (const cf_conv1d_mask * mask, int frames)
{
  int b = 64, top = cf_fir_max_block (mask);
  while (b < frames && b < top)
    b *= 2;
  return b < top ? b : top;
}

int
cf_fir_set_stream (cf_fir * f, cf_stream stream)
{
  if (!f)
    return CF_ERR_INVALID;
  f->cfg.stream = stream;
  return f->ops->set_stream ? f->ops->set_stream (f->be, stream) : CF_OK;
}

int
cf_fir_block (const cf_fir * fir)
{
  return fir->cfg.path == CF_FIR_FFT ? fir->l.block : 0;
}

/* n samples past `base`. */
static char *
at (const cf_fir * f, const void *base, size_t n)
{
  return (char *) base + n * f->es;
}

static int
alloc_zero (cf_fir * f, void **ptr, size_t bytes)
{
  int st = f->ops->alloc (f->be, ptr, bytes);
  if (st == CF_OK)
    st = f->ops->zero (f->be, *ptr, bytes);
  return st;
}

/* A copy of host memory in the backend's memory. */
static int
alloc_upload (cf_fir * f, void **ptr, const void *src, size_t bytes)
{
  int st = f->ops->alloc (f->be, ptr, bytes);
  if (st != CF_OK)
    *ptr = NULL;
  else
    st = f->ops->upload (f->be, *ptr, src, bytes);
  return st;
}

/* Tap k of mask m, whatever the precision. */
static double
tap (const cf_fir * f, int m, int k)
{
  size_t i = (size_t) m * f->cfg.mask.taps + k;
  return f->taps64 ? f->taps64[i] : f->taps[i];
}

/* The spectra by the backend's own kernel, from the taps as they are;
 * CF_ERR_UNSUPPORTED where it has none for this filter. */
static int
make_spectra_direct (cf_fir * f)
{
  const cf_conv1d_mask *m = &f->cfg.mask;
  void *d_taps = NULL;
  int st;

  if (!f->ops->spectra)
    return CF_ERR_UNSUPPORTED;
  st = alloc_upload (f, &d_taps, f->cfg.f64 ? (const void *) f->taps64
      : (const void *) f->taps, f->es * m->taps * m->masks);
  if (st == CF_OK)
    st = f->ops->spectra (f->be, &f->l, d_taps, m->taps, f->spectra);
  /* (freed in the order of the work on the GPU) */
  if (d_taps)
    f->ops->release (f->be, d_taps);
  return st;
}

/* The spectra of partitions 0..P-1 of every mask, each zero-padded to 2B. */
static int
make_spectra (cf_fir * f)
{
  const cf_fir_layout *l = &f->l;
  int n = 2 * l->block, taps = f->cfg.mask.taps, count = l->masks
      * l->partitions;
  size_t bytes = f->es * count * n;
  char *padded;
  void *d_padded = NULL;
  int st;

  if ((st = make_spectra_direct (f)) != CF_ERR_UNSUPPORTED)
    return st;
  if (!(padded = calloc (1, bytes)))
    return CF_ERR_NO_MEMORY;
  for (int m = 0; m < l->masks; m++)
    for (int p = 0; p < l->partitions; p++)
      for (int k = 0; k < l->block && p * l->block + k < taps; k++) {
        size_t i = ((size_t) m * l->partitions + p) * n + k;
        double v = tap (f, m, p * l->block + k);
        if (f->cfg.f64)
          ((double *) padded)[i] = v;
        else
          ((float *) padded)[i] = (float) v;
      }
  st = alloc_upload (f, &d_padded, padded, bytes);
  if (st == CF_OK)
    st = f->ops->rfft (f->be, d_padded, f->spectra, count);
  /* the transform is queued: d_padded must outlive it */
  if (st == CF_OK && f->cfg.cuda)
    st = cf_gpu_stream_sync (f->cfg.stream);
  if (d_padded)
    f->ops->release (f->be, d_padded);
  free (padded);
  return st;
}

/* Partition 0 of every mask, the FFT path's direct head: host taps for a
 * float filter (they travel as a kernel parameter), a copy in the
 * backend's memory for a double one. */
static int
make_head (cf_fir * f, int head)
{
  const cf_conv1d_mask *m = &f->cfg.mask;
  size_t bytes = f->es * head * m->masks;
  char *taps = malloc (bytes);
  int st = CF_OK;

  if (!taps)
    return CF_ERR_NO_MEMORY;
  for (int k = 0; k < m->masks; k++)
    memcpy (taps + k * head * f->es, f->cfg.f64
        ? (void *) (f->taps64 + (size_t) k * m->taps)
        : (void *) (f->taps + (size_t) k * m->taps), f->es * head);
  f->head.taps = head;
  f->head.masks = m->masks;
  if (!f->cfg.f64) {
    f->head_taps = taps;
    f->head.h = (const float *) taps;
    return CF_OK;
  }
  st = alloc_upload (f, &f->head_taps, taps, bytes);
  f->head.h64 = f->head_taps;
  /* the upload is queued: the host copy must outlive it */
  if (st == CF_OK && f->cfg.cuda)
    st = cf_gpu_stream_sync (f->cfg.stream);
  free (taps);
  return st;
}

static int
open_fft (cf_fir * f)
{
  cf_fir_layout *l = &f->l;
  const cf_conv1d_mask *m = &f->cfg.mask;
  int b = f->cfg.block, st;
  size_t c = f->cfg.channels, es = f->es;

  if (b == 0)
    b = cf_fir_pick_block (m, f->cfg.max_frames);
  if (b < 16 || (b & (b - 1)) || b > cf_fir_max_block (m))
    return CF_ERR_INVALID;
  l->channels = f->cfg.channels;
  l->masks = m->masks;
  l->block = b;
  l->partitions = (m->taps + b - 1) / b;
  l->bins = b + 1;
  f->max_blocks = (b - 1 + f->cfg.max_frames) / b;
  l->ring = l->partitions - 1 + f->max_blocks;

  st = f->ops->open (&f->be, f->cfg.stream, 2 * b,
      (int) (c * f->max_blocks > (size_t) m->masks * l->partitions
          ? c * f->max_blocks : (size_t) m->masks * l->partitions),
      f->cfg.f64);
  if (st != CF_OK)
    return st;
  if ((st = make_head (f, m->taps < b ? m->taps : b)) != CF_OK)
    return st;
  f->stage_pitch = 2 * b + f->cfg.max_frames;
  if ((st = alloc_zero (f, (void **) &f->stage,
              es * c * f->stage_pitch)) != CF_OK
      || (st = alloc_zero (f, (void **) &f->current, es * c * b)) != CF_OK)
    return st;
  if (l->partitions == 1)
    return CF_OK;               /* the head is the whole mask */
  if ((st = f->ops->alloc (f->be, (void **) &f->windows,
              es * c * f->max_blocks * 2 * b)) != CF_OK
      || (st = f->ops->alloc (f->be, (void **) &f->times,
              es * c * f->max_blocks * 2 * b)) != CF_OK
      || (st = f->ops->alloc (f->be, (void **) &f->fresh,
              2 * es * c * f->max_blocks * l->bins)) != CF_OK
      || (st = f->ops->alloc (f->be, (void **) &f->tails,
              2 * es * c * f->max_blocks * l->bins)) != CF_OK
      || (st = alloc_zero (f, (void **) &f->ring,
              2 * es * c * l->ring * l->bins)) != CF_OK
      || (st = f->ops->alloc (f->be, (void **) &f->spectra,
              2 * es * m->masks * l->partitions * l->bins)) != CF_OK)
    return st;
  return make_spectra (f);
}

static int
open_direct (cf_fir * f)
{
  const cf_conv1d_mask *m = &f->cfg.mask;
  size_t c = f->cfg.channels;
  int st = f->ops->open (&f->be, f->cfg.stream, 0, 0, f->cfg.f64);

  if (st != CF_OK)
    return st;
  if (f->cfg.f64) {
    st = alloc_upload (f, &f->mask64, f->taps64,
        sizeof (double) * m->taps * m->masks);
    f->cfg.mask.h64 = f->mask64;
    if (st != CF_OK)
      return st;
  }
  /* room for several calls before a move, and enough that the move back
   * to the front never overlaps: it happens with history_start beyond
   * pitch - (taps - 1) - max_frames >= taps - 1 */
  f->history_pitch = 2 * ((size_t) m->taps - 1)
      + 4 * (size_t) f->cfg.max_frames;
  return alloc_zero (f, (void **) &f->history,
      f->es * c * f->history_pitch);
}

/* The host copy of the taps of the filter's precision. */
static int
copy_taps (cf_fir * f)
{
  cf_conv1d_mask *m = &f->cfg.mask;
  size_t count = (size_t) m->taps * m->masks;

  if (f->cfg.f64) {
    f->taps64 = malloc (sizeof (double) * count);
    if (!f->taps64)
      return CF_ERR_NO_MEMORY;
    memcpy (f->taps64, m->h64, sizeof (double) * count);
  } else {
    f->taps = malloc (sizeof (float) * count);
    if (!f->taps)
      return CF_ERR_NO_MEMORY;
    memcpy (f->taps, m->h, sizeof (float) * count);
  }
  m->h = f->taps;
  m->h64 = f->taps64;
  return CF_OK;
}

int
cf_fir_new (cf_fir ** out, const cf_fir_config * config)
{
  const cf_conv1d_mask *m;
  cf_fir *f;
  int st;

  if (!out)
    return CF_ERR_INVALID;
  *out = NULL;
  if (!config)
    return CF_ERR_INVALID;
  m = &config->mask;
  if (config->channels < 1 || config->max_frames < 1
      || cf_conv1d_mask_check (m, config->channels) != CF_OK
      || (config->f64 ? !m->h64 : !m->h)
      || (config->path != CF_FIR_DIRECT && config->path != CF_FIR_FFT))
    return CF_ERR_INVALID;
  if (config->cuda && !cf_gpu_built_with_cuda ())
    return CF_ERR_NO_CUDA;
  if (config->cuda && config->path == CF_FIR_DIRECT
      && (size_t) m->taps * m->masks > CF_CONV1D_MAX_DIRECT_TAPS)
    return CF_ERR_UNSUPPORTED;

  f = calloc (1, sizeof (*f));
  if (!f)
    return CF_ERR_NO_MEMORY;
  f->cfg = *config;
  f->es = config->f64 ? sizeof (double) : sizeof (float);
  f->last_step = NO_STEP;
#if HAVE_CUDA
  f->ops = config->cuda ? &cf_fir_cuda_ops : &cf_fir_cpu_ops;
#else
  f->ops = &cf_fir_cpu_ops;     /* CUDA was refused above */
#endif
  st = copy_taps (f);
  if (st == CF_OK)
    st = config->path == CF_FIR_FFT ? open_fft (f) : open_direct (f);
  if (st != CF_OK) {
    cf_fir_free (f);
    return st;
  }
  *out = f;
  return CF_OK;
}

void
cf_fir_free (cf_fir * f)
{
  if (!f)
    return;
  if (f->be) {
    void *buffers[] = { f->history, f->stage, f->windows, f->times,
      f->current, f->fresh, f->ring, f->spectra, f->tails, f->mask64,
      f->cfg.f64 ? f->head_taps : NULL  /* a double head lives there */
    };
    for (size_t k = 0; k < sizeof (buffers) / sizeof (buffers[0]); k++)
      if (buffers[k])
        f->ops->release (f->be, buffers[k]);
    f->ops->close (f->be);
  }
  if (!f->cfg.f64)
    free (f->head_taps);
  free (f->taps);
  free (f->taps64);
  free (f);
}

int
cf_fir_reset (cf_fir * f)
{
  size_t c = f->cfg.channels, es = f->es;
  int st;

  f->last_step = NO_STEP;       /* `current` zeroed below, as the ring */
  if (f->cfg.path == CF_FIR_DIRECT) {
    f->history_start = 0;
    return f->ops->zero (f->be, f->history, es * c * f->history_pitch);
  }
  f->block_index = 0;
  f->partial = 0;
  st = f->ops->zero (f->be, f->stage, es * c * f->stage_pitch);
  if (st == CF_OK)
    st = f->ops->zero (f->be, f->current, es * c * f->l.block);
  if (st == CF_OK && f->ring)
    st = f->ops->zero (f->be, f->ring, 2 * es * c * f->l.ring * f->l.bins);
  return st;
}

int
cf_fir_recent (cf_fir * f, void *dst, size_t dst_pitch, int frames)
{
  const char *src;
  size_t pitch, es;
  int held, st;

  if (!f || !dst || frames < 0)
    return CF_ERR_INVALID;
  es = f->es;
  if (f->cfg.path == CF_FIR_DIRECT) {
    held = f->cfg.mask.taps - 1;
    src = at (f, f->history, f->history_start);
    pitch = f->history_pitch;
  } else {
    /* one block exactly, wherever the stream stands in it, so that what a
     * new filter gets does not depend on the buffer sizes */
    held = f->l.block;
    src = at (f, f->stage, f->partial);
    pitch = f->stage_pitch;
  }
  if (frames > held)
    frames = held;
  st = f->ops->move (f->be, dst, dst_pitch * es, at (f, src, held - frames),
      pitch * es, (size_t) frames * es, f->cfg.channels);
  return st == CF_OK ? frames : st;
}

/* Makes room for n new frames after the direct path's history. */
static int
direct_room (cf_fir * f, int n)
{
  size_t hist = (size_t) f->cfg.mask.taps - 1, hp = f->history_pitch;
  size_t es = f->es;
  int st;

  if (f->history_start + hist + (size_t) n <= hp)
    return CF_OK;
  st = f->ops->move (f->be, f->history, hp * es, at (f, f->history,
          f->history_start), hp * es, hist * es, f->cfg.channels);
  if (st == CF_OK)
    f->history_start = 0;
  return st;
}

static int
process_direct (cf_fir * f, const void *x, size_t x_pitch, void *y,
    size_t y_pitch, int n)
{
  const cf_fir_ops *o = f->ops;
  int hist = f->cfg.mask.taps - 1, c = f->cfg.channels;
  size_t hp = f->history_pitch, es = f->es;
  char *window;
  int st;

  st = direct_room (f, n);
  window = at (f, f->history, f->history_start);
  /* the frames are in place when the caller wrote them at cf_fir_input */
  if (st == CF_OK && x != at (f, window, hist))
    st = o->move (f->be, at (f, window, hist), hp * es, x, x_pitch * es,
        (size_t) n * es, c);
  if (st == CF_OK)
    st = o->direct (f->be, f->cfg.direct, &f->cfg.mask, c, window, hp,
        y, y_pitch, n);
  /* the last taps - 1 frames become the history */
  if (st == CF_OK)
    f->history_start += (size_t) n;
  return st;
}

int
cf_fir_input (cf_fir * f, int frames, void **x, size_t *pitch)
{
  int st;

  if (!f || !x || !pitch || frames < 1 || frames > f->cfg.max_frames)
    return CF_ERR_INVALID;
  if (f->cfg.path == CF_FIR_FFT) {
    *pitch = f->stage_pitch;
    *x = at (f, f->stage, f->l.block + f->partial);
    return CF_OK;
  }
  st = direct_room (f, frames);
  *pitch = f->history_pitch;
  *x = at (f, f->history, f->history_start + f->cfg.mask.taps - 1);
  return st;
}

/* The new frames after the partial block at position j (unless written
 * there through cf_fir_input). */
static int
frames_in (cf_fir * f, const void *x, size_t x_pitch, int n, int j)
{
  size_t sp = f->stage_pitch, es = f->es;
  char *fresh_at = at (f, f->stage, f->l.block + j);

  return x == fresh_at ? CF_OK : f->ops->move (f->be, fresh_at, sp * es, x,
      x_pitch * es, (size_t) n * es, f->l.channels);
}

/* Where the head reads the frames from position j: taps - 1 of history
 * before them. */
static const void *
head_window (const cf_fir * f, int j)
{
  return at (f, f->stage, f->l.block + j - (f->head.taps - 1));
}

/* The new frames in, and the head partition, direct, into y: per-channel
 * heads in groups of channels whose taps the direct convolution holds at
 * once. */
static int
head_steps (cf_fir * f, const void *x, size_t x_pitch, void *y,
    size_t y_pitch, int n, int j)
{
  int st = frames_in (f, x, x_pitch, n, j);
  int channels = f->l.channels, group = channels;

  if (f->head.masks > 1)
    group = CF_CONV1D_MAX_DIRECT_TAPS / f->head.taps;
  for (int c = 0; c < channels && st == CF_OK; c += group) {
    cf_conv1d_mask part = f->head;
    int count = channels - c < group ? channels - c : group;
    if (part.masks > 1) {
      part.masks = count;
      if (part.h)
        part.h += (size_t) c * part.taps;
      if (part.h64)
        part.h64 += (size_t) c * part.taps;
    }
    st = f->ops->direct (f->be, f->cfg.direct, &part, count,
        at (f, head_window (f, j), (size_t) c * f->stage_pitch),
        f->stage_pitch, at (f, y, (size_t) c * y_pitch), y_pitch, n);
  }
  return st;
}

/* The tails of the q blocks after block `first`, in `times` (unscaled):
 * the windows of the completed blocks, their spectra filed in the ring,
 * the multiply-accumulate along it and the inverse transforms. */
static int
tail_steps (cf_fir * f, long long first, int q)
{
  const cf_fir_ops *o = f->ops;
  const cf_fir_layout *l = &f->l;
  int st = o->gather (f->be, l, f->stage, f->stage_pitch, f->windows, q);

  if (st == CF_OK)
    st = o->rfft (f->be, f->windows, f->fresh, l->channels * q);
  if (st == CF_OK)
    st = o->mac (f->be, l, f->fresh, f->ring, f->spectra, f->tails, first, q);
  if (st == CF_OK)
    st = o->irfft (f->be, f->tails, f->times, l->channels * q);
  return st;
}

/* Keeps the last complete block and the `rest` frames after it. */
static int
keep_stage (cf_fir * f, int q, int rest)
{
  size_t sp = f->stage_pitch, es = f->es;
  int b = f->l.block;

  return f->ops->move (f->be, f->stage, sp * es, at (f, f->stage,
          (size_t) q * b), sp * es, (size_t) (b + rest) * es,
      f->l.channels);
}

/* The unscaled inverse FFT's factor back: 1 / 2B. */
static double
inverse_scale (const cf_fir * f)
{
  return 1.0 / (2.0 * f->l.block);
}

/* Whether a call of n frames is one whole block, on a block boundary, of a
 * mask longer than the head: what the one-launch step takes. */
static int
one_whole_block (const cf_fir * f, int n)
{
  return f->partial == 0 && n == f->l.block && f->l.partitions > 1;
}

/* `current` again, after whole-block launches that left it: the tail of
 * block A from the spectra in the ring, through the steps a call of one
 * block takes (the newest spectrum entered again as the fresh one). */
static int
restore_current (cf_fir * f)
{
  const cf_fir_ops *o = f->ops;
  const cf_fir_layout *l = &f->l;
  size_t bin_bytes = 2 * f->es * l->bins;
  long long newest = f->block_index - 1;
  int st;

  st = o->move (f->be, f->fresh, bin_bytes, f->ring + (size_t) (newest
          % l->ring) * bin_bytes, bin_bytes * l->ring, bin_bytes,
      l->channels);
  if (st == CF_OK)
    st = o->mac (f->be, l, f->fresh, f->ring, f->spectra, f->tails, newest,
        1);
  if (st == CF_OK)
    st = o->irfft (f->be, f->tails, f->times, l->channels);
  if (st == CF_OK)
    st = o->keep_tail (f->be, l, f->current, f->times, 1, inverse_scale (f));
  return st;
}

/* Queues the FFT path's steps for `n` new frames landing at partial
 * position j and completing q blocks; the bookkeeping is the caller's. */
static int
fft_steps (cf_fir * f, const void *x, size_t x_pitch, void *y,
    size_t y_pitch, int n, int j, int q, int rest)
{
  const cf_fir_ops *o = f->ops;
  const cf_fir_layout *l = &f->l;
  double scale = inverse_scale (f);
  int st = head_steps (f, x, x_pitch, y, y_pitch, n, j);

  /* the later partitions, through the ring of spectra */
  if (st == CF_OK && l->partitions > 1) {
    if (q > 0)
      st = tail_steps (f, f->block_index, q);
    if (st == CF_OK)
      st = o->add_tails (f->be, l, y, y_pitch, n, l->block + j, f->current,
          f->times, q, scale);
    if (st == CF_OK && q > 0)
      st = o->keep_tail (f->be, l, f->current, f->times, q, scale);
  }
  if (st == CF_OK && q > 0)
    st = keep_stage (f, q, rest);
  return st;
}

/* One whole block in and out in one launch, where the backend has it
 * (CF_ERR_UNSUPPORTED where not): from x into y, or interleaved through io.
 * The launch before, for the block before, may have summed part of this
 * one's delay line (chained). */
static int
whole_block (cf_fir * f, const cf_fir_interleaved * io, const void *x,
    size_t x_pitch, void *y, size_t y_pitch)
{
  const cf_fir_layout *l = &f->l;
  long long first = f->block_index;
  int st = !f->ops->block ? CF_ERR_UNSUPPORTED
      : io ? CF_OK : frames_in (f, x, x_pitch, l->block, 0);

  if (st == CF_OK)
    st = f->ops->block (f->be, l, f->stage, f->stage_pitch, f->ring,
        f->spectra, y, y_pitch, io, first, f->last_step == first - 1,
        inverse_scale (f));
  if (st != CF_ERR_UNSUPPORTED)
    f->last_step = st == CF_OK ? first : NO_STEP;
  return st;
}

int
cf_fir_process_interleaved (cf_fir * f, const cf_audio_layout * layout,
    const void *in, void *out, int frames)
{
  cf_fir_interleaved io;
  int st;

  if (!f || !layout || !in || !out || frames < 1
      || layout->channels != f->cfg.channels)
    return CF_ERR_INVALID;
  if (f->cfg.path != CF_FIR_FFT || !one_whole_block (f, frames)
      || !layout->interleaved)
    return CF_ERR_UNSUPPORTED;
  io.layout = *layout;
  io.in = in;
  io.out = out;
  st = whole_block (f, &io, NULL, 0, NULL, 0);
  if (st == CF_OK)
    f->block_index++;
  return st;
}

static int
process_fft (cf_fir * f, const void *x, size_t x_pitch, void *y,
    size_t y_pitch, int n)
{
  int b = f->l.block, j = f->partial;
  int q = (j + n) / b, rest = j + n - q * b;
  int st = CF_ERR_UNSUPPORTED;

  if (one_whole_block (f, n))
    st = whole_block (f, NULL, x, x_pitch, y, y_pitch);
  if (st == CF_ERR_UNSUPPORTED) {
    st = f->last_step != NO_STEP ? restore_current (f) : CF_OK;
    f->last_step = NO_STEP;
    if (st == CF_OK)
      st = fft_steps (f, x, x_pitch, y, y_pitch, n, j, q, rest);
  }
  f->block_index += q;
  f->partial = rest;
  return st;
}

int
cf_fir_process (cf_fir * f, const void *x, size_t x_pitch, void *y,
    size_t y_pitch, int frames)
{
  int st = CF_OK;

  if (!f || (frames > 0 && (!x || !y)) || frames < 0
      || (f->cfg.channels > 1 && (x_pitch < (size_t) frames
              || y_pitch < (size_t) frames)))
    return CF_ERR_INVALID;
  for (int done = 0; done < frames && st == CF_OK;) {
    int n = frames - done < f->cfg.max_frames ? frames - done
        : f->cfg.max_frames;
    st = f->cfg.path == CF_FIR_FFT
        ? process_fft (f, at (f, x, done), x_pitch, at (f, y, done), y_pitch,
        n)
        : process_direct (f, at (f, x, done), x_pitch, at (f, y, done),
        y_pitch, n);
    done += n;
  }
  return st;
}
