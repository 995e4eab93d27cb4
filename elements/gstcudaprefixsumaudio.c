/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum on audio: the buffer passes unchanged; its level statistics
 * (gstcudalevel.h) are measured block by block with the per-channel
 * reductions of kernels/reduce/reduce.h, on the GPU (one upload, a reduction
 * per block, sums written to page-locked host memory) or the CPU, and
 * posted as "level" messages. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

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

/* The properties the level state follows, taken for this buffer; returns
 * whether messages are posted. */
static gboolean
take_settings (GstCudaPrefixSum * self)
{
  GstClockTime interval;
  gboolean post;

  GST_OBJECT_LOCK (self);
  post = self->post_messages;
  interval = self->interval;
  self->level.peak_ttl = self->peak_ttl;
  self->level.peak_falloff = self->peak_falloff;
  GST_OBJECT_UNLOCK (self);
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
  gboolean post, ok = TRUE;
  guint frames, n, *blocks, unread;
  cf_stats *stats = NULL;
  GstMapInfo map;

  post = take_settings (self);
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT))
    gst_cuda_level_restart (&self->level);
  if (gst_cuda_level_due (&self->level))
    post_level (self, post);

  if (gst_cuda_filter_base_uses_cuda (GST_CUDA_FILTER_BASE (self)))
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
  blocks = make_room (self, frames);
  n = gst_cuda_level_plan (&self->level, GST_BUFFER_PTS (buf), frames,
      blocks);
  if (!gap && n > 0) {
    if (gst_cuda_filter_base_uses_cuda (GST_CUDA_FILTER_BASE (self))
        && n <= MAX_GPU_BLOCKS) {
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
  post_level (self, post);
}
