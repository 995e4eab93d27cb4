/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum on video: per frame, for each measured channel, the
 * integral images (kernels/integral/integral.h) and the channel's
 * statistics (kernels/reduce/reduce.h), then what leaves: the frame as it
 * came (the tables, with attach-meta, on it in a GstCudaIntegralMeta:
 * device memory of the element's table pool on the GPU, else host
 * memory), or its box means or adaptive threshold (kernels/integral/
 * boxmean.h). On the GPU, frames in host memory are box-filtered in
 * strips (gstcudastrips.h); without a GPU the CPU twins of the kernels do
 * the same. The messages are gstcudaprefixsumstats.h's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "boxmean.h"
#include "gstcudaintegralmeta.h"
#include "gstcudapin.h"
#include "gstcudaprefixsumstats.h"
#include "gstcudaprefixsumtables.h"
#include "gstcudaprefixsumvideo.h"
#include "reduce.h"

/* the element's category: the module logs as the element */
GST_DEBUG_CATEGORY_EXTERN (gst_cuda_prefix_sum_debug);
#define GST_CAT_DEFAULT gst_cuda_prefix_sum_debug

typedef GstCudaPrefixSumVideoSettings Settings;

static cf_integral_layout
channel_layout (GstCudaPrefixSumVideo * v, guint c, gsize in_pitch)
{
  gsize sum_pitch, sq_pitch, per;
  cf_integral_layout l = { 0 };

  gst_cuda_prefix_sum_video_table_layout (v, &sum_pitch, &sq_pitch, &per);
  l.type = v->type;
  l.width = GST_VIDEO_INFO_WIDTH (&v->info);
  l.height = GST_VIDEO_INFO_HEIGHT (&v->info);
  l.in_pitch = in_pitch;
  l.sum_pitch = sum_pitch;
  l.squares_pitch = sq_pitch;
  l.in_step = v->channels[c].step;
  return l;
}

static cf_reduce_layout
plane_reduce_layout (GstCudaPrefixSumVideo * v, gsize pitch)
{
  cf_reduce_layout r;

  r.type = v->type == CF_INTEGRAL_U8 ? CF_REDUCE_U8 : CF_REDUCE_U16;
  r.width = GST_VIDEO_INFO_WIDTH (&v->info);
  r.rows = GST_VIDEO_INFO_HEIGHT (&v->info);
  r.channels = v->channels[0].step;
  r.pitch = pitch;
  return r;
}

/* The element message of one frame; `tables` (a meta laid out over the
 * host tables) for the grid. */
static void
post_stats (GstCudaPrefixSumVideo * v, GstBuffer * buf, const cf_stats * st,
    const GstCudaIntegralMeta * tables, const Settings * s)
{
  gint samples[GST_CUDA_PREFIX_SUM_MAX_CHANNELS];

  for (guint c = 0; c < v->n_channels; c++)
    samples[c] = v->channels[c].sample;
  gst_cuda_prefix_sum_stats_post (v->owner, buf,
      GST_VIDEO_INFO_WIDTH (&v->info), GST_VIDEO_INFO_HEIGHT (&v->info),
      v->n_channels, samples, st, tables, s->columns, s->rows);
}

/* Whether this frame posts: the first, then one per `interval`. */
static gboolean
time_to_post (GstCudaPrefixSumVideo * v, GstBuffer * buf, guint64 interval)
{
  GstClockTime rt = gst_segment_to_running_time
      (&GST_BASE_TRANSFORM (v->owner)->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf));

  if (GST_CLOCK_TIME_IS_VALID (v->last_post)
      && GST_CLOCK_TIME_IS_VALID (rt) && rt < v->last_post + interval
      && rt >= v->last_post)
    return FALSE;
  v->last_post = GST_CLOCK_TIME_IS_VALID (rt) ? rt : 0;
  return TRUE;
}

static cf_box_params
box_params (const Settings * s, gsize pitch, gint step)
{
  cf_box_params p = { 0 };

  p.radius = s->radius;
  p.threshold = s->output == GST_CUDA_PREFIX_SUM_OUTPUT_ADAPTIVE_THRESHOLD;
  p.offset = s->offset;
  p.out_pitch = pitch;
  p.out_step = step;
  return p;
}

/* Box means straight from the frame, with no tables (boxmean.h's
 * cf_box_direct_cuda): one launch rather than five, for radii up to
 * CF_BOX_DIRECT_MAX_RADIUS, when the tables' scan is the element's own
 * (`algorithm=auto`; the others are there to be compared on tables) and
 * the tables do not leave with the frame. */
static gboolean
box_direct (GstCudaPrefixSumVideo * v, const Settings * s)
{
  return s->radius <= CF_BOX_DIRECT_MAX_RADIUS
      && s->algorithm == CF_SCAN_AUTO
      && v->n_channels <= CF_BOX_DIRECT_MAX_CHANNELS;
}

/* `view`: where the tables go on the host (NULL: nowhere). */
static GstFlowReturn
process_cpu (GstCudaPrefixSumVideo * v, GstVideoFrame * in, GstVideoFrame * out,
    GstBuffer * buf, GstCudaIntegralMeta * view, const Settings * s,
    gboolean post)
{
  const GstCudaPrefixSumChannel *ch0 = &v->channels[0];
  gsize pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in, ch0->plane);
  const guint8 *plane = GST_VIDEO_FRAME_PLANE_DATA (in, ch0->plane);
  cf_reduce_layout rl = plane_reduce_layout (v, pitch);
  cf_stats stats[4];

  if (post && cf_reduce_cpu (&rl, plane, stats) != CF_OK)
    goto failed;
  if (view) {
    for (guint c = 0; c < v->n_channels; c++) {
      cf_integral_layout l = channel_layout (v, c, pitch);
      if (cf_integral_cpu (&l, plane + v->channels[c].offset,
              (gpointer) view->sums[c], s->squares ? (gpointer)
              view->squares[c] : NULL) != CF_OK)
        goto failed;
    }
  }
  if (out) {
    gst_video_frame_copy (out, in);
    for (guint c = 0; s->output != GST_CUDA_PREFIX_SUM_OUTPUT_PASSTHROUGH
        && c < v->n_channels; c++) {
      cf_integral_layout l = channel_layout (v, c, pitch);
      cf_box_params p = box_params (s, GST_VIDEO_FRAME_PLANE_STRIDE (out,
              ch0->plane), v->channels[c].step);
      guint8 *dst = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out, ch0->plane)
          + v->channels[c].offset;
      if (cf_box_cpu (&l, plane + v->channels[c].offset, view->sums[c],
              &p, dst) != CF_OK)
        goto failed;
    }
  }
  if (post)
    post_stats (v, buf, stats, view, s);
  return GST_FLOW_OK;

failed:
  GST_ELEMENT_ERROR (v->owner, STREAM, FAILED, (NULL),
      ("the CPU kernels refused the frame"));
  return GST_FLOW_ERROR;
}

/* A frame on the GPU side: its planes and whether they are device memory
 * (CUDA memory of the element's context) or host memory. */
typedef struct
{
  GstVideoFrame *frame;
  gboolean on_device;
} Side;

/* Copies plane `p` from `in` to `out` on `stream`, or on the CPU when both
 * are in host memory. */
static int
copy_plane (const Side * in, const Side * out, guint p, cf_stream stream)
{
  static const cf_copy_kind kinds[2][2] = {
    {CF_COPY_HOST_TO_DEVICE, CF_COPY_HOST_TO_DEVICE},
    {CF_COPY_DEVICE_TO_HOST, CF_COPY_DEVICE_TO_DEVICE},
  };
  const GstVideoInfo *info = &in->frame->info;
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gsize row_bytes;

  if (!in->on_device && !out->on_device)
    return gst_video_frame_copy_plane (out->frame, in->frame, p)
        ? CF_OK : CF_ERR_INVALID;
  gst_video_format_info_component (info->finfo, p, comp);
  row_bytes = (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0])
      * GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
  return cf_gpu_copy_2d (GST_VIDEO_FRAME_PLANE_DATA (out->frame, p),
      GST_VIDEO_FRAME_PLANE_STRIDE (out->frame, p),
      GST_VIDEO_FRAME_PLANE_DATA (in->frame, p),
      GST_VIDEO_FRAME_PLANE_STRIDE (in->frame, p), row_bytes,
      GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]), kinds[in->on_device]
      [out->on_device], stream);
}

/* Device buffers of the element for this frame: the input and output
 * planes when they come in host memory, the tables when no pooled block
 * holds them, the statistics and the workspaces. */
static gboolean
ensure_workspace (GstCudaPrefixSumVideo * v, const Side * in, const Side * out,
    gboolean tables, GstCudaTableBlock * block, const Settings * s)
{
  GstCudaFilterBase *base = v->owner;
  guint plane = v->channels[0].plane;
  gsize pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in->frame, plane);
  gsize out_pitch = out ? GST_VIDEO_FRAME_PLANE_STRIDE (out->frame, plane) : 0;
  gint h = GST_VIDEO_INFO_HEIGHT (&v->info);
  cf_reduce_layout rl = plane_reduce_layout (v, pitch);
  gsize sum_pitch, sq_pitch, per;

  gst_cuda_prefix_sum_video_table_layout (v, &sum_pitch, &sq_pitch, &per);
  if ((!in->on_device && !gst_cuda_filter_base_ensure_device (base,
              &v->d_in, pitch * h))
      || (tables && !block && !gst_cuda_filter_base_ensure_device (base,
              &v->d_tables, per * v->n_channels))
      || !gst_cuda_filter_base_ensure_device (base, &v->d_stats,
          sizeof (cf_stats) * 4)
      || !gst_cuda_filter_base_ensure_device (base, &v->d_work,
          MAX (cf_reduce_workspace_size (&rl), 256))
      || (out && !out->on_device && !gst_cuda_filter_base_ensure_device (base,
              &v->d_out, out_pitch * h)))
    return FALSE;
  if (tables && s->algorithm != CF_SCAN_AUTO) {
    cf_integral_layout l = channel_layout (v, 0, pitch);
    void *before = v->d_scan.ptr;
    if (!gst_cuda_filter_base_ensure_device (base, &v->d_scan,
            cf_integral_scan_workspace_size (&l, s->algorithm)))
      return FALSE;
    /* a new scan workspace starts zeroed (scan.h), on the stream the
     * scans run on, ahead of them */
    if (v->d_scan.ptr != before
        && !gst_cuda_filter_base_check (base, cf_gpu_memset (v->d_scan.ptr,
                0, v->d_scan.size, gst_cuda_filter_base_streams
                (base)->compute), "clearing the scan workspace"))
      return FALSE;
  }
  return TRUE;
}

/* The integral tables of every channel, from the plane at d_in. */
static int
queue_tables (GstCudaPrefixSumVideo * v, const guint8 * d_in, gsize pitch,
    guint8 * d_tables, const Settings * s, cf_stream stream)
{
  gint h = GST_VIDEO_INFO_HEIGHT (&v->info);
  gsize sum_pitch, sq_pitch, per;
  int st = CF_OK;

  gst_cuda_prefix_sum_video_table_layout (v, &sum_pitch, &sq_pitch, &per);
  for (guint c = 0; c < v->n_channels && st == CF_OK; c++) {
    cf_integral_layout l = channel_layout (v, c, pitch);
    const guint8 *src = d_in + v->channels[c].offset;
    guint8 *sums = d_tables + c * per;
    guint8 *squares = s->squares ? sums + sum_pitch * (h + 1) : NULL;
    st = s->algorithm == CF_SCAN_AUTO
        ? cf_integral_cuda (&l, src, sums, squares, stream)
        : cf_integral_cuda_with_scan (&l, s->algorithm, src, sums, squares,
        v->d_scan.ptr, stream);
  }
  return st;
}

/* The measured channels as one layout of consecutive samples (the colours
 * of packed RGB, whatever their order, or the one grey or luma channel),
 * whose tables and box filter take one set of launches for them all;
 * *first: the sample the run starts at. FALSE when they are not
 * consecutive. */
static gboolean
channels_layout (GstCudaPrefixSumVideo * v, gsize pitch, gsize per,
    cf_integral_layout * l, gint * first)
{
  gint lo = G_MAXINT, hi = -1;

  for (guint c = 0; c < v->n_channels; c++) {
    lo = MIN (lo, v->channels[c].sample);
    hi = MAX (hi, v->channels[c].sample);
  }
  *l = channel_layout (v, 0, pitch);
  l->channels = v->n_channels;
  l->channel_stride = per;
  *first = lo;
  return hi - lo + 1 == (gint) v->n_channels;
}

/* The frame that leaves: box-filtered (`box`: from the tables, or from
 * the plane when `d_tables` is NULL) or the measured plane as it came,
 * and the other planes copied. */
static int
queue_output (GstCudaPrefixSumVideo * v, const Side * in, const Side * out,
    const guint8 * d_in, const guint8 * d_tables, gboolean box,
    const Settings * s, cf_stream stream)
{
  const GstCudaPrefixSumChannel *ch0 = &v->channels[0];
  guint plane = ch0->plane;
  gsize pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in->frame, plane);
  gsize out_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (out->frame, plane);
  gint h = GST_VIDEO_INFO_HEIGHT (&v->info);
  gsize row_bytes = (gsize) GST_VIDEO_INFO_WIDTH (&v->info)
      * GST_VIDEO_INFO_COMP_PSTRIDE (&v->info, 0);
  gsize sum_pitch, sq_pitch, per;
  guint8 *d_out = out->on_device ? GST_VIDEO_FRAME_PLANE_DATA (out->frame,
      plane) : v->d_out.ptr;
  cf_integral_layout all;
  gint lo;
  int st = CF_OK;

  gst_cuda_prefix_sum_video_table_layout (v, &sum_pitch, &sq_pitch, &per);
  if (box && !d_tables && channels_layout (v, pitch, 0, &all, &lo)) {
    /* every channel by one launch, the unmeasured samples (alpha) copied
     * by it */
    gsize sample = cf_integral_in_size (v->type);
    cf_box_params p = box_params (s, out_pitch, ch0->step);
    p.copy_others = ch0->step > (gint) v->n_channels;
    p.pixel_start = lo;
    st = cf_box_direct_cuda (&all, d_in + lo * sample, &p,
        d_out + lo * sample, stream);
  } else {
    /* unmeasured samples (alpha), or the whole plane, as they came */
    if (!box || ch0->step > 1)
      st = cf_gpu_copy_2d (d_out, out_pitch, d_in, pitch, row_bytes, h,
          CF_COPY_DEVICE_TO_DEVICE, stream);
    for (guint c = 0; box && c < v->n_channels && st == CF_OK; c++) {
      cf_integral_layout l = channel_layout (v, c, pitch);
      cf_box_params p = box_params (s, out_pitch, v->channels[c].step);
      const guint8 *from = d_in + v->channels[c].offset;
      guint8 *to = d_out + v->channels[c].offset;
      st = d_tables ? cf_box_cuda (&l, from, d_tables + c * per, &p, to,
          stream) : cf_box_direct_cuda (&l, from, &p, to, stream);
    }
  }
  if (st == CF_OK && !out->on_device)
    st = cf_gpu_copy_2d (GST_VIDEO_FRAME_PLANE_DATA (out->frame, plane),
        out_pitch, d_out, out_pitch, row_bytes, h, CF_COPY_DEVICE_TO_HOST,
        stream);
  /* the other planes (chroma) as they came */
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in->frame) && st == CF_OK;
      p++)
    if (p != plane)
      st = copy_plane (in, out, p, stream);
  return st;
}

/* Box means (or thresholds) of a frame in host memory, in strips
 * (gstcudastrips.h): while one strip is uploaded, the next is filtered and
 * a third downloaded. Each strip's tables are made from its own rows and
 * the halo its radius reaches (boxmean.h's `table_row`), so that a strip
 * waits for no other strip's tables; the halo rows are summed twice, once
 * for each strip they reach, and strips are kept at least twice the
 * radius high so that this stays at most as much again. */
typedef struct
{
  GstCudaPrefixSumVideo *v;
  const Settings *s;
  const guint8 *d_in;
  guint8 *d_out, *d_tables;
  gsize pitch, out_pitch;
} BoxStrips;

static int
box_strip (gpointer user, gint row_begin, gint row_end, cf_stream stream)
{
  const BoxStrips *b = user;
  GstCudaPrefixSumVideo *v = b->v;
  gint h = GST_VIDEO_INFO_HEIGHT (&v->info), r = b->s->radius;
  gint first = MAX (0, row_begin - r), last = MIN (h, row_end + r);
  gsize sample = cf_integral_in_size (v->type);
  gsize sum_pitch, sq_pitch, per;
  cf_integral_layout l, rows;
  cf_box_params p;
  const guint8 *in;
  gint lo;
  int st;

  gst_cuda_prefix_sum_video_table_layout (v, &sum_pitch, &sq_pitch, &per);
  if (!channels_layout (v, b->pitch, per, &l, &lo))
    return CF_ERR_UNSUPPORTED;
  rows = l;
  rows.height = last - first;
  p = box_params (b->s, b->out_pitch, v->channels[0].step);
  p.row_begin = row_begin;
  p.row_end = row_end;
  p.table_row = first;
  /* unmeasured samples (alpha) as they came, by the same kernel */
  p.copy_others = v->channels[0].step > (gint) v->n_channels;
  p.pixel_start = lo;
  in = b->d_in + lo * sample;
  if (box_direct (v, b->s))
    return cf_box_direct_cuda (&l, in, &p, b->d_out + lo * sample, stream);
  st = cf_integral_cuda (&rows, in + first * b->pitch, b->d_tables, NULL,
      stream);
  if (st == CF_OK)
    st = cf_box_cuda (&l, in, b->d_tables, &p, b->d_out + lo * sample,
        stream);
  return st;
}

static gint
box_strip_last_read (gpointer user, gint row_begin G_GNUC_UNUSED,
    gint row_end)
{
  const BoxStrips *b = user;

  return MIN (GST_VIDEO_INFO_HEIGHT (&b->v->info), row_end
      + b->s->radius) - 1;
}

static gboolean
consecutive_channels (GstCudaPrefixSumVideo * v)
{
  cf_integral_layout l;
  gint first;

  return channels_layout (v, 0, 0, &l, &first);
}

static GstFlowReturn
process_cuda_box_strips (GstCudaPrefixSumVideo * v, const Side * in,
    const Side * out, GstBuffer * buf, const Settings * s, gboolean post)
{
  GstCudaFilterBase *base = v->owner;
  const GstCudaStreams *streams = gst_cuda_filter_base_streams (base);
  guint plane = v->channels[0].plane;
  gsize pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in->frame, plane);
  cf_reduce_layout rl = plane_reduce_layout (v, pitch);
  GstCudaPlaneCopy copy = { 0 };
  BoxStrips job;
  cf_stats stats[4];
  int st;

  if (!ensure_workspace (v, in, out, !box_direct (v, s), NULL, s)
      || !GST_CUDA_FILTER_CHECK (v->owner, gst_cuda_strips_init (&v->strips),
          "creating events"))
    return GST_FLOW_ERROR;
  job.v = v;
  job.s = s;
  job.d_in = v->d_in.ptr;
  job.d_out = v->d_out.ptr;
  job.d_tables = v->d_tables.ptr;
  job.pitch = pitch;
  job.out_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (out->frame, plane);
  copy.src = GST_VIDEO_FRAME_PLANE_DATA (in->frame, plane);
  copy.src_stride = pitch;
  copy.dst = GST_VIDEO_FRAME_PLANE_DATA (out->frame, plane);
  copy.dst_stride = job.out_pitch;
  copy.d_src = v->d_in.ptr;
  copy.d_src_stride = pitch;
  copy.d_dst = v->d_out.ptr;
  copy.d_dst_stride = job.out_pitch;
  copy.row_bytes = (gsize) GST_VIDEO_INFO_WIDTH (&v->info)
      * GST_VIDEO_INFO_COMP_PSTRIDE (&v->info, 0);
  copy.height = GST_VIDEO_INFO_HEIGHT (&v->info);
  copy.min_rows = 2 * s->radius;
  st = gst_cuda_strips_enqueue (&v->strips, streams, &copy, box_strip,
      box_strip_last_read, &job);
  /* the statistics, once the last strip (and so every row) is up */
  if (st == CF_OK && post)
    st = cf_reduce_cuda (&rl, v->d_in.ptr, v->d_stats.ptr,
        v->d_work.ptr, streams->compute);
  if (st == CF_OK && post)
    st = cf_gpu_copy_2d (stats, sizeof (stats), v->d_stats.ptr,
        sizeof (stats), sizeof (cf_stats) * rl.channels, 1,
        CF_COPY_DEVICE_TO_HOST, streams->compute);
  /* the other planes (chroma) as they came, while the GPU works */
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in->frame) && st == CF_OK;
      p++)
    if (p != plane)
      st = copy_plane (in, out, p, streams->compute);
  if (!GST_CUDA_FILTER_CHECK (v->owner, st, "filtering a frame")
      || !gst_cuda_filter_base_sync (base))
    return GST_FLOW_ERROR;
  if (post)
    post_stats (v, buf, stats, NULL, s);
  return GST_FLOW_OK;
}

/* `view`: where the tables go (a meta over `block` when they stay on the
 * device, else host tables; NULL: nowhere). `out`: the frame written, by
 * the box filter or, in passthrough from one memory type to the other, as
 * a copy. */
static GstFlowReturn
process_cuda (GstCudaPrefixSumVideo * v, const Side * in, const Side * out,
    GstBuffer * buf, GstCudaIntegralMeta * view, GstCudaTableBlock * block,
    const Settings * s, gboolean post)
{
  GstCudaFilterBase *base = v->owner;
  cf_stream stream = gst_cuda_filter_base_streams (base)->compute;
  guint plane = v->channels[0].plane;
  gsize pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in->frame, plane);
  gsize row_bytes = (gsize) GST_VIDEO_INFO_WIDTH (&v->info)
      * GST_VIDEO_INFO_COMP_PSTRIDE (&v->info, 0);
  gsize tables_bytes, sum_pitch, sq_pitch;
  gboolean box = out && s->output != GST_CUDA_PREFIX_SUM_OUTPUT_PASSTHROUGH;
  gboolean direct = box && !view && box_direct (v, s);
  gboolean tables = view || (box && !direct);
  cf_reduce_layout rl = plane_reduce_layout (v, pitch);
  cf_stats stats[4];
  const guint8 *d_in;
  guint8 *d_tables;
  int st = CF_OK;

  /* box means of frames in host memory, tables by bands: in strips */
  if (box && !view && !in->on_device && !out->on_device
      && s->algorithm == CF_SCAN_AUTO && consecutive_channels (v))
    return process_cuda_box_strips (v, in, out, buf, s, post);
  gst_cuda_prefix_sum_video_table_layout (v, &sum_pitch, &sq_pitch,
      &tables_bytes);
  tables_bytes *= v->n_channels;
  if (!ensure_workspace (v, in, out, tables, block, s))
    return GST_FLOW_ERROR;
  d_tables = block ? block->device : v->d_tables.ptr;
  if (in->on_device) {
    d_in = GST_VIDEO_FRAME_PLANE_DATA (in->frame, plane);
  } else {
    d_in = v->d_in.ptr;
    st = cf_gpu_copy_2d (v->d_in.ptr, pitch,
        GST_VIDEO_FRAME_PLANE_DATA (in->frame, plane), pitch, row_bytes,
        GST_VIDEO_INFO_HEIGHT (&v->info), CF_COPY_HOST_TO_DEVICE, stream);
  }
  if (st == CF_OK && post)
    st = cf_reduce_cuda (&rl, d_in, v->d_stats.ptr, v->d_work.ptr,
        stream);
  if (st == CF_OK && tables)
    st = queue_tables (v, d_in, pitch, d_tables, s, stream);
  if (st == CF_OK && block)
    st = cf_gpu_event_record (block->written, stream);
  if (st == CF_OK && out)
    st = queue_output (v, in, out, d_in, tables ? d_tables : NULL, box,
        s, stream);
  /* what the host reads: the statistics, the host tables */
  if (st == CF_OK && post)
    st = cf_gpu_copy_2d (stats, sizeof (stats), v->d_stats.ptr,
        sizeof (stats), sizeof (cf_stats) * rl.channels, 1,
        CF_COPY_DEVICE_TO_HOST, stream);
  if (st == CF_OK && view && !block)
    st = cf_gpu_copy_2d ((gpointer) view->sums[0], tables_bytes, d_tables,
        tables_bytes, tables_bytes, 1, CF_COPY_DEVICE_TO_HOST, stream);
  if (!GST_CUDA_FILTER_CHECK (v->owner, st, "measuring a frame"))
    return GST_FLOW_ERROR;
  /* the statistics are read now; otherwise only what leaves must be done */
  if (!(post ? gst_cuda_filter_base_sync (base)
          : gst_cuda_filter_base_finish (base, in->frame->buffer,
              out ? out->frame->buffer : in->frame->buffer)))
    return GST_FLOW_ERROR;
  if (post)
    post_stats (v, buf, stats, view, s);
  return GST_FLOW_OK;
}

/* Maps `buffer` for the GPU path (device pointers for CUDA memory of the
 * element's context) or the CPU path. */
/* A frame mapped where it is: CUDA memory on the device, system memory
 * page-locked, so that the copies run at the bus's speed. */
static gboolean
map_side (GstCudaPrefixSumVideo * v, Side * side, GstVideoFrame * frame,
    GstBuffer * buffer, GstMapFlags flags)
{
  side->frame = frame;
  side->on_device = FALSE;
  if (!gst_cuda_filter_base_is_device_buffer (v->owner, buffer))
    gst_cuda_pin_buffer (buffer);
  return gst_cuda_filter_base_map_frame (v->owner, frame, &v->info, buffer,
      flags, &side->on_device);
}

static GstFlowReturn
no_tables (GstCudaPrefixSumVideo * v)
{
  GST_ELEMENT_ERROR (v->owner, STREAM, FAILED, (NULL),
      ("cannot attach the integral image meta"));
  return GST_FLOW_ERROR;
}

static GstFlowReturn
map_failed (GstCudaPrefixSumVideo * v)
{
  GST_ELEMENT_ERROR (v->owner, STREAM, FAILED, ("Cannot map a video frame."),
      (NULL));
  return GST_FLOW_ERROR;
}

/* The tables go on the buffer in device memory, or to the host for the
 * grid only; the meta is added before the frame is mapped, while the
 * buffer is writable. */
static GstFlowReturn
measure_frame_cuda (GstCudaPrefixSumVideo * v, GstBuffer * inbuf,
    GstBuffer * outbuf, const Settings * s, gboolean post)
{
  GstBuffer *buf = outbuf ? outbuf : inbuf;     /* the one that leaves */
  GstCudaIntegralMeta storage = { 0 }, *view = NULL;
  GstCudaTableBlock *block = NULL;
  GstVideoFrame in_frame, out_frame;
  Side in, out;
  GstFlowReturn ret;

  if (s->attach)
    view = gst_cuda_prefix_sum_video_device_tables (v, buf, &block);
  else if (post && s->columns > 0)
    view = gst_cuda_prefix_sum_video_host_tables (v, buf, FALSE, &storage);
  if (s->squares && !view)
    return no_tables (v);
  if (!map_side (v, &in, &in_frame, inbuf, GST_MAP_READ))
    return map_failed (v);
  if (outbuf && !map_side (v, &out, &out_frame, outbuf, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in_frame);
    return map_failed (v);
  }
  ret = process_cuda (v, &in, outbuf ? &out : NULL, buf, view, block, s,
      post);
  /* a failure may leave copies into or out of the frames queued: they are
   * done before the frames are unmapped (the error is posted) */
  if (ret != GST_FLOW_OK)
    gst_cuda_filter_base_sync (v->owner);
  if (outbuf)
    gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  return ret;
}

/* The tables in host memory, for the meta, the grid or the box filter. */
static GstFlowReturn
measure_frame_cpu (GstCudaPrefixSumVideo * v, GstBuffer * inbuf,
    GstBuffer * outbuf, const Settings * s, gboolean post)
{
  GstBuffer *buf = outbuf ? outbuf : inbuf;
  GstCudaIntegralMeta storage = { 0 }, *view = NULL;
  GstVideoFrame in, out;
  GstFlowReturn ret;

  if (s->squares || s->output != GST_CUDA_PREFIX_SUM_OUTPUT_PASSTHROUGH)
    view = gst_cuda_prefix_sum_video_host_tables (v, buf, s->attach, &storage);
  if (s->squares && !view)
    return no_tables (v);
  if (!gst_video_frame_map (&in, &v->info, inbuf, GST_MAP_READ))
    return map_failed (v);
  if (outbuf && !gst_video_frame_map (&out, &v->info, outbuf,
          GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in);
    return map_failed (v);
  }
  ret = process_cpu (v, &in, outbuf ? &out : NULL, buf, view, s, post);
  if (outbuf)
    gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&in);
  return ret;
}

GstFlowReturn
gst_cuda_prefix_sum_video_measure (GstCudaPrefixSumVideo * v,
    GstBuffer * inbuf, GstBuffer * outbuf,
    const GstCudaPrefixSumVideoSettings * set)
{
  Settings s = *set;
  gboolean post = s.post && time_to_post (v, inbuf, s.interval);

  /* the meta and the grid's variances need the squares; box means do not */
  s.squares = s.attach || (post && s.columns > 0);
  return v->measure_frame (v, inbuf, outbuf, &s, post);
}

/* ---- lifecycle ---------------------------------------------------------- */

/* The channels measured: the colour components of packed RGB, else the
 * first component (grey or luma). */
static void
describe_channels (GstCudaPrefixSumVideo * v, const GstVideoInfo * info)
{
  const GstVideoFormatInfo *f = info->finfo;
  gboolean rgb = GST_VIDEO_FORMAT_INFO_IS_RGB (f);
  gint bytes = GST_VIDEO_FORMAT_INFO_DEPTH (f, 0) > 8 ? 2 : 1;

  v->type = bytes == 2 ? CF_INTEGRAL_U16 : CF_INTEGRAL_U8;
  v->n_channels = rgb ? 3 : 1;
  for (guint c = 0; c < v->n_channels; c++) {
    GstCudaPrefixSumChannel *ch = &v->channels[c];
    ch->plane = GST_VIDEO_FORMAT_INFO_PLANE (f, c);
    ch->offset = GST_VIDEO_FORMAT_INFO_POFFSET (f, c);
    ch->step = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, c) / bytes;
    ch->sample = (gint) ch->offset / bytes;
  }
}

void
gst_cuda_prefix_sum_video_start (GstCudaPrefixSumVideo * v)
{
  v->last_post = GST_CLOCK_TIME_NONE;
}

void
gst_cuda_prefix_sum_video_configure (GstCudaPrefixSumVideo * v,
    GstCudaFilterBase * owner, const GstVideoInfo * info)
{
  v->owner = owner;
  /* the backend is fixed from start to stop: chosen once a stream */
  v->measure_frame = gst_cuda_filter_base_uses_cuda (owner)
      ? measure_frame_cuda : measure_frame_cpu;
  describe_channels (v, info);
  g_clear_pointer (&v->tables, g_free);
  g_clear_pointer (&v->table_pool, gst_cuda_table_pool_release);
}

void
gst_cuda_prefix_sum_video_free (GstCudaPrefixSumVideo * v, gboolean cuda)
{
  if (cuda) {
    gst_cuda_strips_clear (&v->strips);
    gst_cuda_filter_base_free_device (&v->d_in);
    gst_cuda_filter_base_free_device (&v->d_out);
    gst_cuda_filter_base_free_device (&v->d_tables);
    gst_cuda_filter_base_free_device (&v->d_stats);
    gst_cuda_filter_base_free_device (&v->d_work);
    gst_cuda_filter_base_free_device (&v->d_scan);
  }
  g_clear_pointer (&v->table_pool, gst_cuda_table_pool_release);
  g_clear_pointer (&v->tables, g_free);
}
