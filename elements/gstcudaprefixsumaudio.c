/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum on audio: the buffer passes unchanged; its level statistics
 * (gstcudalevel.h) are measured block by block with the per-channel
 * reductions of kernels/reduce/reduce.h, on the GPU (one upload, a reduction
 * per block, sums written to page-locked host memory) or the CPU, and
 * posted as "level" messages.
 *
 * On the GPU a buffer that does not end an interval is not waited for: its
 * samples are staged in a page-locked slot, its copy and reduction queued,
 * and the buffer goes on. The buffer that ends the interval waits for all
 * of them and adds their sums in order before its own, so the messages are
 * the same, posted at the same buffer, as if each had been waited for. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudapin.h"
#include "gstcudaprefixsumaudio.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_prefix_sum_debug);
#define GST_CAT_DEFAULT gst_cuda_prefix_sum_debug

/* Beyond this many blocks in one buffer (an interval far shorter than the
 * buffers) the launches would cost more than the sums: the CPU sums them. */
#define MAX_GPU_BLOCKS 16

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

/* Page-locked room for the sums of n blocks, which the reductions write
 * straight into host memory. */
static gboolean
ensure_pinned_stats (GstCudaPrefixSum * self, guint n)
{
  guint channels = GST_AUDIO_INFO_CHANNELS (&self->level.info);
  void *p = NULL;

  if (n <= self->level_pinned_room)
    return TRUE;
  g_clear_pointer (&self->level_pinned, cf_gpu_host_free);
  self->level_pinned_room = 0;
  if (!GST_CUDA_FILTER_CHECK (self, cf_gpu_host_alloc (&p, sizeof (cf_stats)
              * channels * n), "allocating page-locked memory"))
    return FALSE;
  self->level_pinned = p;
  self->level_pinned_room = n;
  return TRUE;
}

/* *stats[k * channels + c]: block k, channel c, in page-locked memory the
 * reductions write. The samples go over by one
 * copy (a kernel reading them where they lie in host memory was measured
 * slower: each warp reads one channel of interleaved frames, strided
 * accesses the bus turns into many small transfers); the sums come back
 * written straight into page-locked host memory, with no copy. */
static gboolean
reduce_blocks_cuda (GstCudaPrefixSum * self, const guint8 * data,
    const guint * blocks, guint n, guint frames, cf_stats ** stats)
{
  GstCudaFilterBase *base = GST_CUDA_FILTER_BASE (self);
  cf_stream stream = gst_cuda_filter_base_streams (base)->compute;
  guint channels = GST_AUDIO_INFO_CHANNELS (&self->level.info);
  gsize bpf = GST_AUDIO_INFO_BPF (&self->level.info), offset = 0;
  gsize work = 256;
  cf_stats *sums;
  int st;

  for (guint k = 0; k < n; k++) {
    cf_reduce_layout l = block_layout (self, blocks[k]);
    work = MAX (work, cf_reduce_workspace_size (&l));
  }
  if (!gst_cuda_filter_base_enter (base)
      || !gst_cuda_filter_base_ensure_device (base, &self->d_in,
          frames * bpf)
      || !gst_cuda_filter_base_ensure_device (base, &self->d_work, work)
      || !ensure_pinned_stats (self, n))
    return FALSE;
  sums = cf_gpu_host_device_pointer (self->level_pinned);
  st = sums ? cf_gpu_copy_2d (self->d_in.ptr, frames * bpf, data,
      frames * bpf, frames * bpf, 1, CF_COPY_HOST_TO_DEVICE, stream)
      : CF_ERR_INVALID;
  for (guint k = 0; k < n && st == CF_OK; k++) {
    cf_reduce_layout l = block_layout (self, blocks[k]);
    st = cf_reduce_cuda (&l, (const guint8 *) self->d_in.ptr + offset,
        sums + (gsize) k * channels, self->d_work.ptr, stream);
    offset += blocks[k] * bpf;
  }
  if (st == CF_OK)
    st = cf_gpu_stream_sync (stream);
  *stats = self->level_pinned;
  return GST_CUDA_FILTER_CHECK (self, st, "measuring audio");
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

/* Adds the queued buffers' sums, in order, once the GPU has written them;
 * posts the messages they complete (none, unless a setting changed). */
static gboolean
take_queued (GstCudaPrefixSum * self, gboolean post)
{
  GstCudaFilterBase *base = GST_CUDA_FILTER_BASE (self);
  guint channels = GST_AUDIO_INFO_CHANNELS (&self->level.info);
  guint n = self->level_n_queued;

  if (n == 0)
    return TRUE;
  self->level_n_queued = 0;
  self->level_queued_total = 0;
  if (!gst_cuda_filter_base_enter (base)
      || !GST_CUDA_FILTER_CHECK (self, cf_gpu_stream_sync
          (gst_cuda_filter_base_streams (base)->compute), "measuring audio"))
    return FALSE;
  for (guint k = 0; k < n; k++) {
    guint frames = self->level_queued_frames[k];
    if (gst_cuda_level_add_block (&self->level, frames, frames,
            self->level_queued_stats + (gsize) k * channels))
      post_level (self, post);
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
  self->level_n_queued = 0;
  self->level_queued_total = 0;
  if (gst_cuda_filter_base_enter (base))
    cf_gpu_stream_sync (gst_cuda_filter_base_streams (base)->compute);
}

/* Whether a buffer of `frames` frames (`bytes` bytes) can join the queue
 * as it stands: a slot free and big enough, device room that need not
 * grow while queued work reads it. */
static gboolean
queue_has_room (GstCudaPrefixSum * self, guint frames, gsize bytes)
{
  cf_reduce_layout l = block_layout (self, frames);

  if (self->level_n_queued == 0)
    return TRUE;
  return self->level_n_queued < GST_CUDA_LEVEL_QUEUE
      && bytes <= self->level_slot_bytes && bytes <= self->d_in.size
      && cf_reduce_workspace_size (&l) <= self->d_work.size;
}

/* Stages a buffer of `frames` frames that ends no interval in the next
 * slot and queues its copy and reduction, without waiting. */
static gboolean
queue_buffer (GstCudaPrefixSum * self, const guint8 * data, guint frames)
{
  GstCudaFilterBase *base = GST_CUDA_FILTER_BASE (self);
  cf_stream stream = gst_cuda_filter_base_streams (base)->compute;
  guint channels = GST_AUDIO_INFO_CHANNELS (&self->level.info);
  gsize bytes = (gsize) frames * GST_AUDIO_INFO_BPF (&self->level.info);
  cf_reduce_layout l = block_layout (self, frames);
  guint k = self->level_n_queued;
  cf_stats *sums;
  guint8 *slot;
  int st;

  if (!gst_cuda_filter_base_enter (base)
      || !gst_cuda_filter_base_ensure_device (base, &self->d_in, bytes)
      || !gst_cuda_filter_base_ensure_device (base, &self->d_work,
          MAX (cf_reduce_workspace_size (&l), 256)))
    return FALSE;
  /* the slots grow only while empty (queue_has_room saw to that) */
  if (bytes > self->level_slot_bytes || !self->level_queued_stats) {
    void *staging = NULL, *stats = NULL;
    g_clear_pointer (&self->level_staging, cf_gpu_host_free);
    g_clear_pointer (&self->level_queued_stats, cf_gpu_host_free);
    self->level_slot_bytes = 0;
    if (!GST_CUDA_FILTER_CHECK (self, cf_gpu_host_alloc (&staging,
                bytes * GST_CUDA_LEVEL_QUEUE), "allocating page-locked memory")
        || !GST_CUDA_FILTER_CHECK (self, cf_gpu_host_alloc (&stats,
                sizeof (cf_stats) * channels * GST_CUDA_LEVEL_QUEUE),
            "allocating page-locked memory")) {
      if (staging)
        cf_gpu_host_free (staging);
      return FALSE;
    }
    self->level_staging = staging;
    self->level_queued_stats = stats;
    self->level_slot_bytes = bytes;
  }
  /* the buffer may go back upstream as soon as this returns: its samples
   * are copied on the CPU into the slot, which the queued copy reads */
  slot = self->level_staging + (gsize) k * self->level_slot_bytes;
  memcpy (slot, data, bytes);
  sums = cf_gpu_host_device_pointer (self->level_queued_stats
      + (gsize) k * channels);
  st = sums ? cf_gpu_copy_2d (self->d_in.ptr, bytes, slot, bytes, bytes, 1,
      CF_COPY_HOST_TO_DEVICE, stream) : CF_ERR_INVALID;
  if (st == CF_OK)
    st = cf_reduce_cuda (&l, self->d_in.ptr, sums, self->d_work.ptr, stream);
  if (!GST_CUDA_FILTER_CHECK (self, st, "measuring audio"))
    return FALSE;
  self->level_queued_frames[k] = frames;
  self->level_n_queued = k + 1;
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
  gboolean discont = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT);
  gboolean cuda = gst_cuda_filter_base_uses_cuda (GST_CUDA_FILTER_BASE (self));
  gboolean post, ok = TRUE, queue;
  guint frames, n, *blocks, unread;
  cf_stats *stats = NULL;
  GstMapInfo map;

  post = take_settings (self, &ok);
  if (cuda)
    gst_cuda_pin_buffer (buf);
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

  /* a GPU buffer inside the interval joins the queue; any other first
   * takes what is queued, so that blocks add up in order */
  queue = cuda && ok && !gap && !discont && frames > 0
      && self->level.frames + self->level_queued_total + frames
      < self->level.interval_frames;
  if (ok && (!queue || !queue_has_room (self, frames, map.size)))
    ok = take_queued (self, post);
  if (queue && ok) {
    gst_cuda_level_plan (&self->level, GST_BUFFER_PTS (buf), frames,
        make_room (self, frames));
    ok = queue_buffer (self, map.data, frames);
    gst_buffer_unmap (buf, &map);
    return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
  }

  if (discont)
    gst_cuda_level_restart (&self->level);
  blocks = make_room (self, frames);
  n = gst_cuda_level_plan (&self->level, GST_BUFFER_PTS (buf), frames,
      blocks);
  if (ok && !gap && n > 0) {
    if (cuda && n <= MAX_GPU_BLOCKS) {
      ok = reduce_blocks_cuda (self, map.data, blocks, n, frames, &stats);
    } else {
      stats = self->level_stats;
      ok = reduce_blocks_cpu (self, map.data, blocks, n, stats);
    }
  }
  gst_buffer_unmap (buf, &map);

  unread = frames;
  for (guint k = 0; k < n && ok; k++) {
    if (gst_cuda_level_add_block (&self->level, blocks[k], unread,
            stats ? stats + (gsize) k * channels : NULL))
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
  /* page-locked memory goes back in the context it came from */
  if (self->level_staging || self->level_pinned)
    gst_cuda_filter_base_enter (GST_CUDA_FILTER_BASE (self));
  drop_queued (self);
  g_clear_pointer (&self->level_staging, cf_gpu_host_free);
  g_clear_pointer (&self->level_queued_stats, cf_gpu_host_free);
  self->level_slot_bytes = 0;
  g_clear_pointer (&self->level_pinned, cf_gpu_host_free);
  self->level_pinned_room = 0;
  gst_cuda_level_clear (&self->level);
  g_clear_pointer (&self->level_blocks, g_free);
  g_clear_pointer (&self->level_stats, g_free);
  self->level_room = 0;
}
