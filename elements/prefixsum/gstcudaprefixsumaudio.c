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
 * is queued the same way, then waits for the whole queue and adds its
 * blocks in order: the messages are the same, posted at the same buffer,
 * as if each buffer had been waited for. (A kernel reading the interleaved
 * frames where they lie, in host memory, was measured slower: each warp
 * reads one channel, strided accesses the bus turns into many small
 * transfers.) GAP buffers, and buffers of more blocks than
 * GST_CUDA_LEVEL_MAX_GPU_BLOCKS (intervals far shorter than the buffers),
 * are summed on the CPU, after the queue. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudaprefixsumaudio.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_prefix_sum_debug);
#define GST_CAT_DEFAULT gst_cuda_prefix_sum_debug

static cf_reduce_layout
block_layout (GstCudaPrefixSum * self, guint frames)
{
  cf_reduce_layout l;

  l.type = self->audio_type;
  l.width = (int) frames;
  l.rows = 1;
  l.channels = GST_AUDIO_INFO_CHANNELS (&self->level.info);
  l.pitch = (gsize) frames * GST_AUDIO_INFO_BPF (&self->level.info);
  return l;
}

static void
post_level (GstCudaPrefixSum * self, gboolean post)
{
  GstStructure *s = gst_cuda_level_take_message (&self->level,
      &GST_BASE_TRANSFORM (self)->segment);

  if (s && post)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), s));
  else if (s)
    gst_structure_free (s);
}

/* Waits for the queued buffers' sums and adds their blocks, in order,
 * posting the messages they end. */
static gboolean
take_queued (GstCudaPrefixSum * self, gboolean post)
{
  GstCudaFilterBase *base = GST_CUDA_FILTER_BASE (self);
  guint channels = GST_AUDIO_INFO_CHANNELS (&self->level.info);
  guint n = self->level_n_queued, block = 0;

  if (n == 0)
    return TRUE;
  self->level_n_queued = self->level_n_blocks = 0;
  self->level_queued_total = 0;
  if (!GST_CUDA_FILTER_CHECK (self, cf_gpu_stream_sync
          (gst_cuda_filter_base_streams (base)->compute), "measuring audio"))
    return FALSE;
  for (guint k = 0; k < n; k++) {
    guint unread = self->level_queued_frames[k];
    for (guint b = 0; b < self->level_queued_n[k]; b++, block++) {
      guint frames = self->level_queued_blocks[block];
      if (gst_cuda_level_add_block (&self->level, frames, unread,
              self->level_queued_stats + (gsize) block * channels))
        post_level (self, post);
      unread -= frames;
    }
  }
  return TRUE;
}

/* Forgets the queued buffers (a flush, new caps), once the GPU is done
 * with their slots. */
static void
drop_queued (GstCudaPrefixSum * self)
{
  GstCudaFilterBase *base = GST_CUDA_FILTER_BASE (self);

  if (self->level_n_queued == 0)
    return;
  self->level_n_queued = self->level_n_blocks = 0;
  self->level_queued_total = 0;
  cf_gpu_stream_sync (gst_cuda_filter_base_streams (base)->compute);
}

/* Whether a buffer of `frames` frames can join the queue as it stands: a
 * slot free and big enough, device memory that need not grow while queued
 * work reads it. */
static gboolean
queue_has_room (GstCudaPrefixSum * self, guint frames)
{
  cf_reduce_layout l = block_layout (self, frames);
  gsize bytes = (gsize) frames * GST_AUDIO_INFO_BPF (&self->level.info);

  if (self->level_n_queued == 0)
    return TRUE;
  return self->level_n_queued < GST_CUDA_LEVEL_QUEUE
      && bytes <= self->level_slot_bytes && bytes <= self->d_in.size
      && cf_reduce_workspace_size (&l) <= self->d_work.size;
}

/* Page-locked slots of `bytes` for the samples, and room for the sums;
 * they grow only while nothing is queued. */
static gboolean
ensure_slots (GstCudaPrefixSum * self, gsize bytes)
{
  guint channels = GST_AUDIO_INFO_CHANNELS (&self->level.info);
  void *staging = NULL, *stats = NULL;

  if (bytes <= self->level_slot_bytes && self->level_queued_stats)
    return TRUE;
  g_clear_pointer (&self->level_staging, cf_gpu_host_free);
  g_clear_pointer (&self->level_queued_stats, cf_gpu_host_free);
  self->level_slot_bytes = 0;
  if (!GST_CUDA_FILTER_CHECK (self, cf_gpu_host_alloc (&staging,
              bytes * GST_CUDA_LEVEL_QUEUE), "allocating page-locked memory")
      || !GST_CUDA_FILTER_CHECK (self, cf_gpu_host_alloc (&stats,
              sizeof (cf_stats) * channels * G_N_ELEMENTS
              (self->level_queued_blocks)), "allocating page-locked memory")) {
    if (staging)
      cf_gpu_host_free (staging);
    return FALSE;
  }
  self->level_staging = staging;
  self->level_queued_stats = stats;
  self->level_queued_dev = cf_gpu_host_device_pointer (stats);
  self->level_slot_bytes = bytes;
  return self->level_queued_dev != NULL
      || GST_CUDA_FILTER_CHECK (self, CF_ERR_INVALID, "mapping page-locked "
      "memory");
}

/* Stages a buffer of `frames` frames (its `n` blocks planned) in the next
 * slot and queues its copy and one reduction a block, without waiting. */
static gboolean
queue_buffer (GstCudaPrefixSum * self, const guint8 * data, guint frames,
    const guint * blocks, guint n)
{
  GstCudaFilterBase *base = GST_CUDA_FILTER_BASE (self);
  cf_stream stream = gst_cuda_filter_base_streams (base)->compute;
  guint channels = GST_AUDIO_INFO_CHANNELS (&self->level.info);
  gsize bpf = GST_AUDIO_INFO_BPF (&self->level.info);
  gsize bytes = (gsize) frames * bpf, offset = 0, work = 256;
  guint k = self->level_n_queued;
  guint8 *slot;
  int st = CF_OK;

  for (guint b = 0; b < n; b++) {
    cf_reduce_layout l = block_layout (self, blocks[b]);
    work = MAX (work, cf_reduce_workspace_size (&l));
  }
  if (!gst_cuda_filter_base_ensure_device (base, &self->d_in, bytes)
      || !gst_cuda_filter_base_ensure_device (base, &self->d_work, work)
      || !ensure_slots (self, bytes))
    return FALSE;
  /* the buffer may go back upstream as soon as this returns: its samples
   * are copied on the CPU into the slot, which the queued copy reads */
  slot = self->level_staging + (gsize) k * self->level_slot_bytes;
  memcpy (slot, data, bytes);
  st = cf_gpu_copy_2d (self->d_in.ptr, bytes, slot, bytes, bytes, 1,
      CF_COPY_HOST_TO_DEVICE, stream);
  for (guint b = 0; b < n && st == CF_OK; b++) {
    cf_reduce_layout l = block_layout (self, blocks[b]);
    guint at = self->level_n_blocks + b;
    st = cf_reduce_cuda (&l, (const guint8 *) self->d_in.ptr + offset,
        self->level_queued_dev + (gsize) at * channels, self->d_work.ptr,
        stream);
    self->level_queued_blocks[at] = blocks[b];
    offset += blocks[b] * bpf;
  }
  if (!GST_CUDA_FILTER_CHECK (self, st, "measuring audio"))
    return FALSE;
  self->level_queued_frames[k] = frames;
  self->level_queued_n[k] = n;
  self->level_n_queued = k + 1;
  self->level_n_blocks += n;
  self->level_queued_total += frames;
  return TRUE;
}

static gboolean
reduce_blocks_cpu (GstCudaPrefixSum * self, const guint8 * data,
    const guint * blocks, guint n, cf_stats * stats)
{
  guint channels = GST_AUDIO_INFO_CHANNELS (&self->level.info);
  gsize bpf = GST_AUDIO_INFO_BPF (&self->level.info);

  for (guint k = 0; k < n; k++) {
    cf_reduce_layout l = block_layout (self, blocks[k]);
    /* a block of no frames (gst_cuda_level_plan): no samples, no peak */
    if (blocks[k] == 0) {
      memset (stats + (gsize) k * channels, 0, channels * sizeof (cf_stats));
      continue;
    }
    if (cf_reduce_cpu (&l, data, stats + (gsize) k * channels) != CF_OK) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
          ("the CPU reduction refused a block of %u frames", blocks[k]));
      return FALSE;
    }
    data += blocks[k] * bpf;
  }
  return TRUE;
}

/* The properties the level state follows, taken for this buffer (after
 * the queued buffers, measured under the old ones); returns whether
 * messages are posted, or FALSE in *ok when the queued ones failed. */
static gboolean
take_settings (GstCudaPrefixSum * self, gboolean * ok)
{
  GstClockTime interval, ttl;
  gdouble falloff;
  gboolean post;

  GST_OBJECT_LOCK (self);
  post = self->post_messages;
  interval = self->interval;
  ttl = self->peak_ttl;
  falloff = self->peak_falloff;
  GST_OBJECT_UNLOCK (self);
  if (interval != self->level_interval || ttl != self->level.peak_ttl
      || falloff != self->level.peak_falloff)
    *ok = take_queued (self, post);
  self->level.peak_ttl = ttl;
  self->level.peak_falloff = falloff;
  if (interval != self->level_interval) {
    gst_cuda_level_set_interval (&self->level, interval);
    self->level_interval = interval;
  }
  return post;
}

/* Room for the blocks of a buffer of `frames` frames and their sums, kept
 * from buffer to buffer. */
static guint *
make_room (GstCudaPrefixSum * self, guint frames)
{
  guint channels = GST_AUDIO_INFO_CHANNELS (&self->level.info);
  guint n = gst_cuda_level_max_blocks (&self->level, frames);

  if (n > self->level_room) {
    self->level_blocks = g_renew (guint, self->level_blocks, n);
    self->level_stats = g_renew (cf_stats, self->level_stats,
        (gsize) n * channels);
    self->level_room = n;
  }
  return self->level_blocks;
}

GstFlowReturn
gst_cuda_prefix_sum_measure_audio (GstCudaPrefixSum * self, GstBuffer * buf)
{
  guint channels = GST_AUDIO_INFO_CHANNELS (&self->level.info);
  gsize bpf = GST_AUDIO_INFO_BPF (&self->level.info);
  gboolean gap = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP);
  gboolean cuda = gst_cuda_filter_base_uses_cuda (GST_CUDA_FILTER_BASE (self));
  gboolean post, ok = TRUE;
  guint frames, n, *blocks, unread;
  GstMapInfo map;

  post = take_settings (self, &ok);
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot map an audio buffer."),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (map.size % bpf) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
        ("a buffer of %" G_GSIZE_FORMAT " bytes is not a whole number of "
            "%" G_GSIZE_FORMAT "-byte frames", map.size, bpf));
    gst_buffer_unmap (buf, &map);
    return GST_FLOW_ERROR;
  }
  frames = (guint) (map.size / bpf);
  blocks = make_room (self, frames);

  /* a DISCONT ends what came before: the queued buffers first */
  if (ok && GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT)) {
    ok = take_queued (self, post);
    gst_cuda_level_restart (&self->level);
  }

  /* on the GPU a buffer joins the queue, and only one that ends an
   * interval waits (for the whole queue); the samples of a GAP buffer are
   * not read, so it and the CPU's buffers follow what is queued */
  if (ok && cuda && !gap && frames > 0
      && !queue_has_room (self, frames))
    ok = take_queued (self, post);
  n = gst_cuda_level_plan (&self->level, GST_BUFFER_PTS (buf), frames,
      self->level_queued_total, blocks);
  /* (a first block of no frames, after the interval shrank, goes the
   * CPU's way) */
  if (ok && cuda && !gap && frames > 0 && blocks[0] > 0
      && n <= GST_CUDA_LEVEL_MAX_GPU_BLOCKS) {
    ok = queue_buffer (self, map.data, frames, blocks, n);
    gst_buffer_unmap (buf, &map);
    if (ok && self->level.frames + self->level_queued_total
        >= self->level.interval_frames)
      ok = take_queued (self, post);
    return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
  }

  if (ok)
    ok = take_queued (self, post);
  if (ok && !gap)
    ok = reduce_blocks_cpu (self, map.data, blocks, n, self->level_stats);
  gst_buffer_unmap (buf, &map);
  unread = frames;
  for (guint k = 0; k < n && ok; k++) {
    if (gst_cuda_level_add_block (&self->level, blocks[k], unread, gap
            ? NULL : self->level_stats + (gsize) k * channels))
      post_level (self, post);
    unread -= blocks[k];
  }
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

void
gst_cuda_prefix_sum_finish_audio (GstCudaPrefixSum * self)
{
  gboolean post;

  GST_OBJECT_LOCK (self);
  post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  if (take_queued (self, post))
    post_level (self, post);
}

void
gst_cuda_prefix_sum_flush_audio (GstCudaPrefixSum * self)
{
  drop_queued (self);
  gst_cuda_level_restart (&self->level);
}

void
gst_cuda_prefix_sum_free_audio (GstCudaPrefixSum * self)
{
  /* page-locked memory goes back in the context it came from (pushed by
   * the base around stop) */
  drop_queued (self);
  g_clear_pointer (&self->level_staging, cf_gpu_host_free);
  g_clear_pointer (&self->level_queued_stats, cf_gpu_host_free);
  self->level_queued_dev = NULL;
  self->level_slot_bytes = 0;
  gst_cuda_level_clear (&self->level);
  g_clear_pointer (&self->level_blocks, g_free);
  g_clear_pointer (&self->level_stats, g_free);
  self->level_room = 0;
}
