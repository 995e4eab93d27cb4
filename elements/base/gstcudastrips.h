/* Upload, filter and download a plane in horizontal strips, on three
 * streams, so that the copies in both directions and the kernels overlap:
 * while strip s is filtered, strip s + 1 is uploaded and strip s - 1
 * downloaded. A strip is filtered once every source row it reads (its halo
 * included) has arrived. */
#ifndef __GST_CUDA_STRIPS_H__
#define __GST_CUDA_STRIPS_H__

#include <glib.h>

#include "gstcudafilterbase.h"

G_BEGIN_DECLS

#define GST_CUDA_STRIPS_MAX 8

typedef struct
{
  cf_event uploaded[GST_CUDA_STRIPS_MAX];
  cf_event computed[GST_CUDA_STRIPS_MAX];
  gboolean ready;
} GstCudaStrips;

/* One plane: host source and destination, and the device planes the
 * kernels read and write. A NULL `src` means the source is already on the
 * device (CUDA memory): nothing to upload; a NULL `dst`, that the kernels
 * write the destination itself: nothing to download. */
typedef struct
{
  const guint8 *src;
  gsize src_stride;
  guint8 *dst;
  gsize dst_stride;
  guint8 *d_src, *d_dst;
  gsize d_src_stride, d_dst_stride;
  gsize row_bytes;
  gint height;
  gint min_rows;                /* strips of at least this many rows (0: any) */
} GstCudaPlaneCopy;

/* Filters output rows [row_begin, row_end) on `stream`; returns a status. */
typedef int (*GstCudaStripCompute) (gpointer user, gint row_begin,
    gint row_end, cf_stream stream);
/* The last source row that output rows [row_begin, row_end) read. */
typedef gint (*GstCudaStripLastRead) (gpointer user, gint row_begin,
    gint row_end);

/* Strips start on a multiple of this many rows and all but the last span
 * a multiple of it. A kernel lays its tiles (at most this many rows high)
 * from a strip's first row, so they end with the strip and read no source
 * row beyond the halo the strip waits for: a taller last tile would read
 * rows whose upload may still be running (harmless to the results, which
 * those rows do not feed, but reads of memory no copy has finished). */
#define GST_CUDA_STRIP_ALIGN 64

/* The order of work for one plane: strip k (rows [k rows, (k + 1) rows),
 * the last shorter) is uploaded, then every kernel j with after[j] == k
 * waits for upload wait[j] and filters output rows [begin[j], end[j]). */
typedef struct
{
  gint n;                       /* strips, and kernels */
  gint rows;                    /* rows a strip */
  gint begin[GST_CUDA_STRIPS_MAX], end[GST_CUDA_STRIPS_MAX];
  gint wait[GST_CUDA_STRIPS_MAX], after[GST_CUDA_STRIPS_MAX];
} GstCudaStripPlan;

int gst_cuda_strips_init (GstCudaStrips * strips);
void gst_cuda_strips_clear (GstCudaStrips * strips);

/* Cuts a plane of `height` rows of `row_bytes` bytes into strips. */
void gst_cuda_strips_plan (GstCudaStripPlan * plan, gsize row_bytes,
    gint height, gint min_rows, GstCudaStripLastRead last_read,
    gpointer user);

/* Enqueues the whole plane; returns a status. The work is finished once
 * the element's streams are synchronised. */
int gst_cuda_strips_enqueue (GstCudaStrips * strips,
    const GstCudaStreams * streams, const GstCudaPlaneCopy * plane,
    GstCudaStripCompute compute, GstCudaStripLastRead last_read,
    gpointer user);

G_END_DECLS

#endif
