/* Strip pipelining of a plane through the GPU; see gstcudastrips.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudastrips.h"

/* Strips of at least this many bytes: each strip costs a few API calls on
 * the host, so strips must be large enough for the copies to dominate. */
#define MIN_STRIP_BYTES (2u << 20)

int
gst_cuda_strips_init (GstCudaStrips * s)
{
  int status = CF_OK;

  if (s->ready)
    return CF_OK;
  for (int k = 0; k < GST_CUDA_STRIPS_MAX && status == CF_OK; k++) {
    status = cf_gpu_event_create (&s->uploaded[k]);
    if (status == CF_OK)
      status = cf_gpu_event_create (&s->computed[k]);
  }
  s->ready = status == CF_OK;
  if (!s->ready)
    gst_cuda_strips_clear (s);
  return status;
}

void
gst_cuda_strips_clear (GstCudaStrips * s)
{
  for (int k = 0; k < GST_CUDA_STRIPS_MAX; k++) {
    if (s->uploaded[k])
      cf_gpu_event_destroy (s->uploaded[k]);
    if (s->computed[k])
      cf_gpu_event_destroy (s->computed[k]);
    s->uploaded[k] = s->computed[k] = NULL;
  }
  s->ready = FALSE;
}

static gint
round_up (gint n, gint to)
{
  return (n + to - 1) / to * to;
}

void
gst_cuda_strips_plan (GstCudaStripPlan * plan, gsize row_bytes, gint height,
    gint min_rows, GstCudaStripLastRead last_read, gpointer user)
{
  gint n = CLAMP ((gint) (row_bytes * height / MIN_STRIP_BYTES), 1,
      GST_CUDA_STRIPS_MAX);
  gint rows = round_up (MAX ((height + n - 1) / n, min_rows),
      GST_CUDA_STRIP_ALIGN);
  gint lag, computed = 0;

  n = (height + rows - 1) / rows;
  /* Kernels' strips sit `lag` rows above the uploaded ones, lag being the
   * rows a strip reads below its own (rounded to whole tiles): then the
   * rows that kernel k reads have all come with uploads 0 .. k, and it
   * need not wait for upload k + 1 too (a border that reads the far edge,
   * wrap, keeps them aligned). */
  lag = round_up (MAX (0, last_read (user, 0, rows) - (rows - 1)),
      GST_CUDA_STRIP_ALIGN);
  if (lag >= rows || n == 1)
    lag = 0;
  plan->n = n;
  plan->rows = rows;
  /* In strip order, so that the first download is queued as early as it
   * can be, not after every kernel (the host's calls take time too): after
   * the upload of strip k, the kernels whose rows have all been queued for
   * upload by then. */
  for (gint k = 0; k < n; k++) {
    for (; computed < n; computed++) {
      gint b = MAX (0, computed * rows - lag);
      gint e = computed == n - 1 ? height : (computed + 1) * rows - lag;
      gint need = MIN (last_read (user, b, e) / rows, n - 1);

      if (need > k)
        break;
      plan->begin[computed] = b;
      plan->end[computed] = e;
      plan->wait[computed] = need;
      plan->after[computed] = k;
    }
  }
}

int
gst_cuda_strips_enqueue (GstCudaStrips * s, const GstCudaStreams * st,
    const GstCudaPlaneCopy * p, GstCudaStripCompute compute,
    GstCudaStripLastRead last_read, gpointer user)
{
  GstCudaStripPlan plan;
  gint j = 0;
  int status = CF_OK;

  if (!p->src && !p->dst)
    return compute (user, 0, p->height, st->compute);
  gst_cuda_strips_plan (&plan, p->row_bytes, p->height, p->min_rows,
      last_read, user);
  /* An event is recorded before any stream waits on it. */
  for (gint k = 0; k < plan.n && status == CF_OK; k++) {
    gint r0 = k * plan.rows, r1 = MIN (p->height, r0 + plan.rows);
    if (p->src) {
      status = cf_gpu_copy_2d (p->d_src + r0 * p->d_src_stride,
          p->d_src_stride, p->src + r0 * p->src_stride, p->src_stride,
          p->row_bytes, r1 - r0, CF_COPY_HOST_TO_DEVICE, st->upload);
      if (status == CF_OK)
        status = cf_gpu_event_record (s->uploaded[k], st->upload);
    }
    for (; j < plan.n && plan.after[j] == k && status == CF_OK; j++) {
      gint c0 = plan.begin[j], c1 = plan.end[j];
      if (p->src)
        status = cf_gpu_stream_wait (st->compute, s->uploaded[plan.wait[j]]);
      if (status == CF_OK)
        status = compute (user, c0, c1, st->compute);
      if (status == CF_OK && p->dst)
        status = cf_gpu_event_record (s->computed[j], st->compute);
      if (status == CF_OK && p->dst)
        status = cf_gpu_stream_wait (st->download, s->computed[j]);
      if (status == CF_OK && p->dst)
        status = cf_gpu_copy_2d (p->dst + c0 * p->dst_stride, p->dst_stride,
            p->d_dst + c0 * p->d_dst_stride, p->d_dst_stride, p->row_bytes,
            c1 - c0, CF_COPY_DEVICE_TO_HOST, st->download);
    }
  }
  return status;
}
