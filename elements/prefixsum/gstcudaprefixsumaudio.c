/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum on audio: the buffer passes unchanged; its level statistics
 * (gstcudalevel.h) are measured block by block with the per-channel
 * reductions of kernels/reduce/reduce.h, on the GPU or the CPU, and posted
 * as "level" messages.
 *
 * On the GPU nothing waits for a buffer that ends no interval: its samples
 * are copied on the CPU into a page-locked slot, and their copy to the
 * device and one reduction a block are queued, writing the sums into
 * page-locked memory; the buffer goes on. The buffer that ends an interval
 * is queued the same way, then (at gst_cuda_prefix_sum_audio_settle, once
 * the loudness meter has queued its work on the same copy) waits for the
 * whole queue and adds its blocks in order: the messages are the same,
 * posted at the same buffer, as if each buffer had been waited for. (A
 * kernel reading the interleaved frames where they lie, in host memory,
 * was measured slower: each warp reads one channel, strided accesses the
 * bus turns into many small transfers.) GAP buffers, and buffers of more blocks than
 * GST_CUDA_LEVEL_MAX_GPU_BLOCKS (intervals far shorter than the buffers),
 * are summed on the CPU, after the queue. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudaprefixsumaudio.h"

static cf_reduce_layout
block_layout (GstCudaPrefixSumAudio * a, guint frames)
{
  cf_reduce_layout l;

  l.type = a->type;
  l.width = (int) frames;
  l.rows = 1;
  l.channels = GST_AUDIO_INFO_CHANNELS (&a->level.info);
  l.pitch = (gsize) frames * GST_AUDIO_INFO_BPF (&a->level.info);
  return l;
}

static void
post_level (GstCudaPrefixSumAudio * a, gboolean post)
{
  GstStructure *s = gst_cuda_level_take_message (&a->level,
      &GST_BASE_TRANSFORM (a->owner)->segment);

  if (s && post)
    gst_element_post_message (GST_ELEMENT (a->owner),
        gst_message_new_element (GST_OBJECT (a->owner), s));
  else if (s)
    gst_structure_free (s);
}

/* Waits for the queued buffers' sums and adds their blocks, in order,
 * posting the messages they end. */
static gboolean
take_queued (GstCudaPrefixSumAudio * a, gboolean post)
{
  GstCudaFilterBase *base = a->owner;
  guint channels = GST_AUDIO_INFO_CHANNELS (&a->level.info);
  guint n = a->n_queued, block = 0;

  a->take_due = FALSE;
  if (n == 0)
    return TRUE;
  a->n_queued = a->n_blocks = 0;
  a->queued_total = 0;
  if (!GST_CUDA_FILTER_CHECK (a->owner, cf_gpu_stream_sync
          (gst_cuda_filter_base_streams (base)->compute), "measuring audio"))
    return FALSE;
  for (guint k = 0; k < n; k++) {
    guint unread = a->queued_frames[k];
    for (guint b = 0; b < a->queued_n[k]; b++, block++) {
      guint frames = a->queued_blocks[block];
      if (gst_cuda_level_add_block (&a->level, frames, unread,
              a->queued_stats + (gsize) block * channels))
        post_level (a, post);
      unread -= frames;
    }
  }
  return TRUE;
}

/* Forgets the queued buffers (a flush, new caps), once the GPU is done
 * with their slots. */
static void
drop_queued (GstCudaPrefixSumAudio * a)
{
  GstCudaFilterBase *base = a->owner;

  a->take_due = FALSE;
  a->on_device = NULL;
  if (a->n_queued == 0)
    return;
  a->n_queued = a->n_blocks = 0;
  a->queued_total = 0;
  cf_gpu_stream_sync (gst_cuda_filter_base_streams (base)->compute);
}

/* Whether a buffer of `frames` frames can join the queue as it stands: a
 * slot free and big enough, device memory that need not grow while queued
 * work reads it. */
static gboolean
queue_has_room (GstCudaPrefixSumAudio * a, guint frames)
{
  cf_reduce_layout l = block_layout (a, frames);
  gsize bytes = (gsize) frames * GST_AUDIO_INFO_BPF (&a->level.info);

  if (a->n_queued == 0)
    return TRUE;
  return a->n_queued < GST_CUDA_LEVEL_QUEUE
      && bytes <= a->slot_bytes && bytes <= a->d_in.size
      && cf_reduce_workspace_size (&l) <= a->d_work.size;
}

/* Page-locked slots of `bytes` for the samples, and room for the sums;
 * they grow only while nothing is queued. */
static gboolean
ensure_slots (GstCudaPrefixSumAudio * a, gsize bytes)
{
  guint channels = GST_AUDIO_INFO_CHANNELS (&a->level.info);
  void *staging = NULL, *stats = NULL;

  if (bytes <= a->slot_bytes && a->queued_stats)
    return TRUE;
  g_clear_pointer (&a->staging, cf_gpu_host_free);
  g_clear_pointer (&a->queued_stats, cf_gpu_host_free);
  a->slot_bytes = 0;
  if (!GST_CUDA_FILTER_CHECK (a->owner, cf_gpu_host_alloc (&staging,
              bytes * GST_CUDA_LEVEL_QUEUE), "allocating page-locked memory")
      || !GST_CUDA_FILTER_CHECK (a->owner, cf_gpu_host_alloc (&stats,
              sizeof (cf_stats) * channels * G_N_ELEMENTS
              (a->queued_blocks)), "allocating page-locked memory")) {
    if (staging)
      cf_gpu_host_free (staging);
    return FALSE;
  }
  a->staging = staging;
  a->queued_stats = stats;
  a->queued_dev = cf_gpu_host_device_pointer (stats);
  a->slot_bytes = bytes;
  return a->queued_dev != NULL
      || GST_CUDA_FILTER_CHECK (a->owner, CF_ERR_INVALID, "mapping page-locked "
      "memory");
}

/* Stages a buffer of `frames` frames (its `n` blocks planned) in the next
 * slot and queues its copy and one reduction a block, without waiting. */
static gboolean
queue_buffer (GstCudaPrefixSumAudio * a, const guint8 * data, guint frames,
    const guint * blocks, guint n)
{
  GstCudaFilterBase *base = a->owner;
  cf_stream stream = gst_cuda_filter_base_streams (base)->compute;
  guint channels = GST_AUDIO_INFO_CHANNELS (&a->level.info);
  gsize bpf = GST_AUDIO_INFO_BPF (&a->level.info);
  gsize bytes = (gsize) frames * bpf, offset = 0, work = 256;
  guint k = a->n_queued;
  guint8 *slot;
  int st = CF_OK;

  for (guint b = 0; b < n; b++) {
    cf_reduce_layout l = block_layout (a, blocks[b]);
    work = MAX (work, cf_reduce_workspace_size (&l));
  }
  if (!gst_cuda_filter_base_ensure_device (base, &a->d_in, bytes)
      || !gst_cuda_filter_base_ensure_device (base, &a->d_work, work)
      || !ensure_slots (a, bytes))
    return FALSE;
  /* the buffer may go back upstream as soon as this returns: its samples
   * are copied on the CPU into the slot, which the queued copy reads */
  slot = a->staging + (gsize) k * a->slot_bytes;
  memcpy (slot, data, bytes);
  st = cf_gpu_copy_2d (a->d_in.ptr, bytes, slot, bytes, bytes, 1,
      CF_COPY_HOST_TO_DEVICE, stream);
  for (guint b = 0; b < n && st == CF_OK; b++) {
    cf_reduce_layout l = block_layout (a, blocks[b]);
    guint at = a->n_blocks + b;
    st = cf_reduce_cuda (&l, (const guint8 *) a->d_in.ptr + offset,
        a->queued_dev + (gsize) at * channels, a->d_work.ptr,
        stream);
    a->queued_blocks[at] = blocks[b];
    offset += blocks[b] * bpf;
  }
  if (!GST_CUDA_FILTER_CHECK (a->owner, st, "measuring audio"))
    return FALSE;
  a->queued_frames[k] = frames;
  a->queued_n[k] = n;
  a->n_queued = k + 1;
  a->n_blocks += n;
  a->queued_total += frames;
  return TRUE;
}

static gboolean
reduce_blocks_cpu (GstCudaPrefixSumAudio * a, const guint8 * data,
    const guint * blocks, guint n, cf_stats * stats)
{
  guint channels = GST_AUDIO_INFO_CHANNELS (&a->level.info);
  gsize bpf = GST_AUDIO_INFO_BPF (&a->level.info);

  for (guint k = 0; k < n; k++) {
    cf_reduce_layout l = block_layout (a, blocks[k]);
    /* a block of no frames (gst_cuda_level_plan): no samples, no peak */
    if (blocks[k] == 0) {
      memset (stats + (gsize) k * channels, 0, channels * sizeof (cf_stats));
      continue;
    }
    if (cf_reduce_cpu (&l, data, stats + (gsize) k * channels) != CF_OK) {
      GST_ELEMENT_ERROR (a->owner, STREAM, FAILED, (NULL),
          ("the CPU reduction refused a block of %u frames", blocks[k]));
      return FALSE;
    }
    data += blocks[k] * bpf;
  }
  return TRUE;
}

/* The settings the level state follows, taken for this buffer (after the
 * queued buffers, measured under the old ones); FALSE in *ok when the
 * queued ones failed. */
static void
apply_settings (GstCudaPrefixSumAudio * a,
    const GstCudaPrefixSumAudioSettings * set, gboolean * ok)
{
  if (set->interval != a->interval || set->peak_ttl != a->level.peak_ttl
      || set->peak_falloff != a->level.peak_falloff)
    *ok = take_queued (a, set->post) && *ok;
  a->level.peak_ttl = set->peak_ttl;
  a->level.peak_falloff = set->peak_falloff;
  if (set->interval != a->interval) {
    gst_cuda_level_set_interval (&a->level, set->interval);
    a->interval = set->interval;
  }
}

/* Room for the blocks of a buffer of `frames` frames and their sums, kept
 * from buffer to buffer. */
static guint *
make_room (GstCudaPrefixSumAudio * a, guint frames)
{
  guint channels = GST_AUDIO_INFO_CHANNELS (&a->level.info);
  guint n = gst_cuda_level_max_blocks (&a->level, frames);

  if (n > a->room) {
    a->blocks = g_renew (guint, a->blocks, n);
    a->stats = g_renew (cf_stats, a->stats,
        (gsize) n * channels);
    a->room = n;
  }
  return a->blocks;
}

GstFlowReturn
gst_cuda_prefix_sum_audio_measure (GstCudaPrefixSumAudio * a,
    GstBuffer * buf, const GstCudaPrefixSumAudioSettings * set)
{
  guint channels = GST_AUDIO_INFO_CHANNELS (&a->level.info);
  gsize bpf = GST_AUDIO_INFO_BPF (&a->level.info);
  gboolean gap = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP);
  gboolean cuda = a->on_gpu;
  gboolean post = set->post, ok = TRUE;
  guint frames, n, *blocks, unread;
  GstMapInfo map;

  a->on_device = NULL;
  /* (an interval ended by the last buffer and not yet settled) */
  if (a->take_due)
    ok = take_queued (a, a->take_post);
  apply_settings (a, set, &ok);
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (a->owner, STREAM, FAILED,
        ("Cannot map an audio buffer."), (NULL));
    return GST_FLOW_ERROR;
  }
  if (map.size % bpf) {
    GST_ELEMENT_ERROR (a->owner, STREAM, FORMAT, (NULL),
        ("a buffer of %" G_GSIZE_FORMAT " bytes is not a whole number of "
            "%" G_GSIZE_FORMAT "-byte frames", map.size, bpf));
    gst_buffer_unmap (buf, &map);
    return GST_FLOW_ERROR;
  }
  frames = (guint) (map.size / bpf);
  blocks = make_room (a, frames);

  /* a DISCONT ends what came before: the queued buffers first */
  if (ok && GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT)) {
    ok = take_queued (a, post);
    gst_cuda_level_restart (&a->level);
  }

  /* on the GPU a buffer joins the queue, and only one that ends an
   * interval waits (for the whole queue); the samples of a GAP buffer are
   * not read, so it and the CPU's buffers follow what is queued */
  if (ok && cuda && !gap && frames > 0
      && !queue_has_room (a, frames))
    ok = take_queued (a, post);
  n = gst_cuda_level_plan (&a->level, GST_BUFFER_PTS (buf), frames,
      a->queued_total, blocks);
  /* (a first block of no frames, after the interval shrank, goes the
   * CPU's way) */
  if (ok && cuda && !gap && frames > 0 && blocks[0] > 0
      && n <= GST_CUDA_LEVEL_MAX_GPU_BLOCKS) {
    ok = queue_buffer (a, map.data, frames, blocks, n);
    gst_buffer_unmap (buf, &map);
    if (ok)
      a->on_device = a->d_in.ptr;
    if (ok && a->level.frames + a->queued_total
        >= a->level.interval_frames) {
      a->take_due = TRUE;
      a->take_post = post;
    }
    return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
  }

  if (ok)
    ok = take_queued (a, post);
  if (ok && !gap)
    ok = reduce_blocks_cpu (a, map.data, blocks, n, a->stats);
  gst_buffer_unmap (buf, &map);
  unread = frames;
  for (guint k = 0; k < n && ok; k++) {
    if (gst_cuda_level_add_block (&a->level, blocks[k], unread, gap
            ? NULL : a->stats + (gsize) k * channels))
      post_level (a, post);
    unread -= blocks[k];
  }
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

GstFlowReturn
gst_cuda_prefix_sum_audio_settle (GstCudaPrefixSumAudio * a)
{
  if (!a->take_due)
    return GST_FLOW_OK;
  return take_queued (a, a->take_post) ? GST_FLOW_OK : GST_FLOW_ERROR;
}

gconstpointer
gst_cuda_prefix_sum_audio_on_device (GstCudaPrefixSumAudio * a)
{
  return a->on_device;
}

void
gst_cuda_prefix_sum_audio_finish (GstCudaPrefixSumAudio * a, gboolean post)
{
  if (take_queued (a, post))
    post_level (a, post);
}

void
gst_cuda_prefix_sum_audio_flush (GstCudaPrefixSumAudio * a)
{
  drop_queued (a);
  gst_cuda_level_restart (&a->level);
}

void
gst_cuda_prefix_sum_audio_free (GstCudaPrefixSumAudio * a)
{
  /* page-locked memory goes back in the context it came from (pushed by
   * the base around stop and caps) */
  drop_queued (a);
  g_clear_pointer (&a->staging, cf_gpu_host_free);
  g_clear_pointer (&a->queued_stats, cf_gpu_host_free);
  a->queued_dev = NULL;
  a->slot_bytes = 0;
  gst_cuda_level_clear (&a->level);
  g_clear_pointer (&a->blocks, g_free);
  g_clear_pointer (&a->stats, g_free);
  a->room = 0;
  gst_cuda_filter_base_free_device (&a->d_in);
  gst_cuda_filter_base_free_device (&a->d_work);
  a->configured = FALSE;
}

gboolean
gst_cuda_prefix_sum_audio_configure (GstCudaPrefixSumAudio * a,
    GstCudaFilterBase * owner, const GstAudioInfo * info,
    const GstCudaPrefixSumAudioSettings * set)
{
  cf_reduce_type type;

  if (!gst_cuda_level_reduce_type (info, &type))
    return FALSE;
  /* the old stream's queued buffers end its last messages */
  if (a->configured)
    take_queued (a, set->post);
  /* the channel count may change: no room sized for the old one stays */
  gst_cuda_prefix_sum_audio_free (a);
  a->owner = owner;
  /* the backend is fixed from start to stop: chosen once a stream */
  a->on_gpu = gst_cuda_filter_base_uses_cuda (owner);
  a->type = type;
  gst_cuda_level_init (&a->level, info, set->interval);
  a->interval = set->interval;
  a->configured = TRUE;
  return TRUE;
}
