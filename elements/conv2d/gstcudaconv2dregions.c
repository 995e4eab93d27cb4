/* cudaconv2d's regions: see gstcudaconv2dregions.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaconv2dregions.h"
#include "conv2d_long.h"
#include "gstcudamaskparse.h"
#include "gstcudaconv2dplane.h"
#include "gstcudaconv2dplanes.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_conv2d_debug);
#define GST_CAT_DEFAULT gst_cuda_conv2d_debug

/* A plane's regions: the rectangles in its coordinates, the areas to
 * filter and whose mask each takes. */
typedef struct
{
  cf_plane_format format;
  cf_rect *rects, *areas;
  gint *owner;                  /* the rectangle of each area, -1: merged */
  gint n_rects, n_areas;
  gint feather_x, feather_y;    /* the plane's, across and down */
  /* each area's crop, and where its filtered copy lies in the scratch
   * buffer (lay_out_crops) */
  cf_rect *crops;
  gsize *offsets, *pitches;
} PlaneRegions;

/* Whether rectangles take masks of their own (roi-sigma on the gaussian
 * preset). */
static gboolean
own_masks (GstCudaConv2d * self)
{
  const GstCudaConv2dSettings *s = &self->frame_settings;
  return self->frame_roi.sigma > 0
      && s->preset == GST_CUDA_CONV2D_PRESET_GAUSSIAN
      && !gst_cuda_mask_text_is_set (s->kernel)
      && !(s->mask_location && s->mask_location[0]);
}

static void
plane_regions (GstCudaConv2d * self, const GstVideoInfo * info, guint p,
    PlaneRegions * pr)
{
  guint n = self->rects->len;

  gst_cuda_conv2d_describe_plane (info, p, &pr->format);
  pr->rects = g_new (cf_rect, MAX (n, 1));
  pr->areas = g_new (cf_rect, MAX (n, 1));
  pr->owner = g_new (gint, MAX (n, 1));
  pr->crops = g_new (cf_rect, MAX (n, 1));
  pr->offsets = g_new (gsize, MAX (n, 1));
  pr->pitches = g_new (gsize, MAX (n, 1));
  gst_cuda_conv2d_roi_to_plane (info, p, (cf_rect *) self->rects->data, n,
      pr->rects, self->frame_roi.feather, &pr->feather_x, &pr->feather_y);
  pr->n_rects = n;
  pr->n_areas = cf_roi_areas (pr->rects, n, pr->feather_x, pr->feather_y,
      pr->format.width, pr->format.height, !own_masks (self), pr->areas,
      pr->owner);
}

static void
plane_regions_free (PlaneRegions * pr)
{
  g_free (pr->rects);
  g_free (pr->areas);
  g_free (pr->owner);
  g_free (pr->crops);
  g_free (pr->offsets);
  g_free (pr->pitches);
}

/* The mask of area k: the element's, or with roi-sigma a Gaussian of its
 * rectangle's own sigma, built into self->region_plan. Those are at least
 * 33 taps a side, so that they run the long path, which takes any plane. */
static const cf_conv2d_plan *
area_plan (GstCudaConv2d * self, const PlaneRegions * pr, gint k)
{
  GstCudaConv2dSettings s;
  gchar *error = NULL;
  gdouble sigma;
  cf_conv2d_plan *own;

  if (pr->owner[k] < 0)
    return self->plan;
  if (!self->region_plan)
    self->region_plan = g_new (cf_conv2d_plan, 1);
  own = self->region_plan;
  s = self->frame_settings;
  sigma = g_array_index (self->sigmas, gdouble, pr->owner[k]);
  s.sigma = CLAMP (sigma, 0.05, 170.0);
  s.size = MAX (gst_cuda_conv2d_gaussian_size (s.sigma),
      CF_CONV2D_MAX_SIZE + 2);
  if (!gst_cuda_conv2d_build_plan (&s, own, &error)) {
    GST_WARNING_OBJECT (self, "region mask: %s", error);
    g_free (error);
    return self->plan;
  }
  return own;
}

/* Widens [*at, *at + *n) of a side of `size` to `want`, away from the
 * plane's edges (an edge the span touches stays touched), at most the
 * whole side. More of the plane in a crop changes nothing inside its area:
 * the mask reads the same samples. */
static void
widen (gint * at, gint * n, gint want, gint size)
{
  want = MIN (want, size);
  if (*n >= want)
    return;
  *at = MIN (*at, size - want);
  *n = want;
}

/* Spectral crops are sized in steps of this, so that regions of about one
 * size (a face tracked from frame to frame) share their transforms. */
#define SPECTRAL_CROP_STEP 64

/* The crop a mask reads for `area`: at least the mask's size where the
 * short path runs it (crops at the plane's edge are clipped there), a
 * multiple of SPECTRAL_CROP_STEP where the spectral path does. */
static cf_rect
area_crop (const cf_conv2d_plan * plan, const cf_rect * area,
    const cf_plane_format * f)
{
  cf_rect c = cf_roi_crop (area, plan->kw, plan->kh, plan->border,
      f->width, f->height);

  if (plan->spectral) {
    widen (&c.x, &c.w, GST_ROUND_UP_N (c.w, SPECTRAL_CROP_STEP), f->width);
    widen (&c.y, &c.h, GST_ROUND_UP_N (c.h, SPECTRAL_CROP_STEP), f->height);
  } else if (!plan->long_mask) {
    widen (&c.x, &c.w, plan->kw, f->width);
    widen (&c.y, &c.h, plan->kh, f->height);
  }
  return c;
}

/* Each area's crop, and where its filtered copy goes in the scratch
 * buffer, rows padded to `align` bytes: `stacked`, one after the other
 * (in place, every crop is filtered before any area is blended, so that
 * each crop reads the pixels the frame came with); else all at its start
 * (into a copy, the source stays as it came: each area is filtered and
 * blended in turn). Returns the scratch buffer's bytes. */
static gsize
lay_out_crops (GstCudaConv2d * self, PlaneRegions * pr, gsize align,
    gboolean stacked)
{
  gsize pixel = cf_plane_format_pixel_bytes (&pr->format), total = 0;

  for (gint k = 0; k < pr->n_areas; k++) {
    const cf_rect *c = &pr->crops[k];
    gsize bytes;

    pr->crops[k] = area_crop (area_plan (self, pr, k), &pr->areas[k],
        &pr->format);
    pr->pitches[k] = GST_ROUND_UP_N (c->w * pixel, align);
    bytes = pr->pitches[k] * c->h;
    pr->offsets[k] = stacked ? total : 0;
    total = stacked ? total + bytes : MAX (total, bytes);
  }
  return total;
}

/* Rows of the GPU path's scratch buffers are padded to this. */
#define DEVICE_ROW_ALIGN 256

/* Crops held at once may take this much even where a frame is smaller. */
#define IN_PLACE_SCRATCH_FLOOR (16u << 20)

gboolean
gst_cuda_conv2d_regions_fit_in_place (GstCudaConv2d * self)
{
  const GstVideoInfo *info = &self->info;
  gsize align = gst_cuda_filter_base_uses_cuda (GST_CUDA_FILTER_BASE (self))
      ? DEVICE_ROW_ALIGN : 1, total = 0;

  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    PlaneRegions pr;

    if (!gst_cuda_conv2d_plane_filtered (p, self->frame_planes)
        || self->rects->len == 0)
      continue;
    plane_regions (self, info, p, &pr);
    total += lay_out_crops (self, &pr, align, TRUE);
    plane_regions_free (&pr);
  }
  return total <= MAX (GST_VIDEO_INFO_SIZE (info), IN_PLACE_SCRATCH_FLOOR);
}

/* Area k's crop of plane `p` of `in`, filtered into its place in
 * cpu_filtered. */
static int
filter_area_cpu (GstCudaConv2d * self, const GstVideoFrame * in, guint p,
    const PlaneRegions * pr, gint k)
{
  const cf_rect *crop = &pr->crops[k];
  gsize pixel = cf_plane_format_pixel_bytes (&pr->format);
  GstCudaConv2dCpuJob job;

  job.plan = area_plan (self, pr, k);
  job.format = pr->format;
  job.format.width = crop->w;
  job.format.height = crop->h;
  job.src_stride = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);
  job.src = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (in, p)
      + crop->y * job.src_stride + crop->x * pixel;
  job.dst = (guint8 *) self->cpu_filtered + pr->offsets[k];
  job.dst_stride = pr->pitches[k];
  return gst_cuda_conv2d_filter_plane_cpu (self, &job, -1);
}

/* Area k blended into plane `p` of `out`, which holds the source there:
 * each pixel is blended by one area. */
static int
blend_area_cpu (GstCudaConv2d * self, GstVideoFrame * out, guint p,
    const PlaneRegions * pr, gint k)
{
  cf_roi_view filtered = { (guint8 *) self->cpu_filtered + pr->offsets[k],
    pr->pitches[k], pr->crops[k].x, pr->crops[k].y
  };
  cf_roi_view frame = { GST_VIDEO_FRAME_PLANE_DATA (out, p),
    GST_VIDEO_FRAME_PLANE_STRIDE (out, p), 0, 0
  };

  return cf_conv2d_roi_blend_cpu (&pr->format, &pr->areas[k], &filtered,
      &frame, &frame, pr->rects, pr->n_rects, pr->feather_x, pr->feather_y,
      pr->owner[k]);
}

GstFlowReturn
gst_cuda_conv2d_regions_cpu (GstCudaConv2d * self, const GstVideoFrame * in,
    GstVideoFrame * out)
{
  gboolean in_place = in == out;
  int status = CF_OK;

  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in) && status == CF_OK;
      p++) {
    PlaneRegions pr;
    gsize bytes;

    if (!in_place)
      gst_cuda_conv2d_copy_plane (in, out, p);
    if (!gst_cuda_conv2d_plane_filtered (p, self->frame_planes)
        || self->rects->len == 0)
      continue;
    plane_regions (self, &in->info, p, &pr);
    bytes = lay_out_crops (self, &pr, 1, in_place);
    if (bytes > self->cpu_filtered_size) {
      g_free (self->cpu_filtered);
      self->cpu_filtered = g_try_malloc (bytes);
      self->cpu_filtered_size = self->cpu_filtered ? bytes : 0;
      if (!self->cpu_filtered)
        status = CF_ERR_NO_MEMORY;
    }
    if (in_place) {
      for (gint k = 0; k < pr.n_areas && status == CF_OK; k++)
        status = filter_area_cpu (self, in, p, &pr, k);
      for (gint k = 0; k < pr.n_areas && status == CF_OK; k++)
        status = blend_area_cpu (self, out, p, &pr, k);
    } else {
      for (gint k = 0; k < pr.n_areas && status == CF_OK; k++) {
        status = filter_area_cpu (self, in, p, &pr, k);
        if (status == CF_OK)
          status = blend_area_cpu (self, out, p, &pr, k);
      }
    }
    plane_regions_free (&pr);
  }
  return status == CF_OK ? GST_FLOW_OK
      : gst_cuda_conv2d_filter_failed (self, status);
}

/* A plane's regions on the GPU: crops read from the source (on the
 * device, or uploaded into d_crop), filtered into d_filtered, areas
 * blended into the output (on the device, or uploaded into d_area, blended
 * and downloaded). */
typedef struct
{
  const GstVideoFrame *in, *out;
  gboolean in_on_device, out_on_device;
  guint p;
  PlaneRegions *pr;
  cf_stream stream;
} RegionJob;

/* The transforms of a crop's size: crops of regions alike (faces of one
 * size, a plate) share them, so they are kept, a few sizes, until the mask
 * or the caps change; the oldest goes when a new size needs room. */
static cf_conv2d_spectral_gpu *
crop_transforms (GstCudaConv2d * self, const cf_conv2d_plan * plan,
    const cf_plane_format * f, cf_stream stream, int *status)
{
  CropTransforms *slot = NULL;

  for (guint k = 0; k < N_CROP_TRANSFORMS; k++) {
    CropTransforms *c = &self->crop_transforms[k];
    if (c->spectral && c->plan == plan && c->width == f->width
        && c->height == f->height && c->channels == f->channels
        && c->sample == (gint) f->sample && c->keep == f->keep_channel) {
      c->used = ++self->crop_clock;
      *status = CF_OK;
      return c->spectral;
    }
    if (!slot || !c->spectral || (slot->spectral && c->used < slot->used))
      slot = c;
  }
  g_clear_pointer (&slot->spectral, cf_conv2d_spectral_cuda_free);
  *status = cf_conv2d_spectral_cuda_new (&slot->spectral, plan, f, stream);
  if (*status != CF_OK)
    return NULL;
  slot->plan = plan;
  slot->width = f->width;
  slot->height = f->height;
  slot->channels = f->channels;
  slot->sample = f->sample;
  slot->keep = f->keep_channel;
  slot->used = ++self->crop_clock;
  return slot->spectral;
}

static int
filter_crop_cuda (GstCudaConv2d * self, const cf_conv2d_plan * plan,
    const cf_plane_format * f, const guint8 * d_src, gsize src_pitch,
    guint8 * d_dst, gsize dst_pitch, cf_stream stream)
{
  cf_conv2d_spectral_gpu *spectral;
  int status;

  if (plan->long_mask) {
    if (!gst_cuda_filter_base_ensure_device_ordered (GST_CUDA_FILTER_BASE
            (self), &self->d_work, cf_conv2d_long_work_bytes (plan, f),
            stream))
      return CF_ERR_NO_MEMORY;
    return cf_conv2d_long_cuda (plan, f, d_src, src_pitch, d_dst, dst_pitch,
        self->d_work.ptr, stream);
  }
  if (!plan->spectral)
    return cf_conv2d_cuda (CF_CONV2D_AUTO, plan, f, d_src, src_pitch, d_dst,
        dst_pitch, 0, f->height, stream);
  spectral = crop_transforms (self, plan, f, stream, &status);
  if (spectral)
    status = cf_conv2d_spectral_cuda (spectral, d_src, src_pitch, d_dst,
        dst_pitch, stream);
  return status;
}

static int
copy_rect (void *dst, gsize dst_pitch, const void *src, gsize src_pitch,
    gsize row_bytes, gint rows, cf_copy_kind kind, cf_stream stream)
{
  return cf_gpu_copy_2d (dst, dst_pitch, src, src_pitch, row_bytes, rows,
      kind, stream);
}

/* Area k's crop, filtered into its place in d_filtered. */
static int
filter_area_cuda (GstCudaConv2d * self, const RegionJob * rj, gint k)
{
  const PlaneRegions *pr = rj->pr;
  const cf_rect *crop = &pr->crops[k];
  gsize pixel = cf_plane_format_pixel_bytes (&pr->format);
  const guint8 *in_data = GST_VIDEO_FRAME_PLANE_DATA (rj->in, rj->p);
  gsize in_stride = GST_VIDEO_FRAME_PLANE_STRIDE (rj->in, rj->p);
  const guint8 *d_src = in_data + crop->y * in_stride + crop->x * pixel;
  gsize src_pitch = in_stride;
  cf_plane_format cf = pr->format;
  int status = CF_OK;

  if (!rj->in_on_device) {
    /* d_crop is used again by the next crop's upload, which the stream
     * orders after this crop's filter */
    status = copy_rect (self->d_crop.ptr, pr->pitches[k], d_src, in_stride,
        crop->w * pixel, crop->h, CF_COPY_HOST_TO_DEVICE, rj->stream);
    d_src = self->d_crop.ptr;
    src_pitch = pr->pitches[k];
  }
  cf.width = crop->w;
  cf.height = crop->h;
  if (status == CF_OK)
    status = filter_crop_cuda (self, area_plan (self, pr, k), &cf, d_src,
        src_pitch, (guint8 *) self->d_filtered.ptr + pr->offsets[k],
        pr->pitches[k], rj->stream);
  return status;
}

/* Area k blended into the output, which holds the source there: each
 * pixel is blended by one area. */
static int
blend_area_cuda (GstCudaConv2d * self, const RegionJob * rj, gint k)
{
  const PlaneRegions *pr = rj->pr;
  const cf_rect *area = &pr->areas[k];
  gsize pixel = cf_plane_format_pixel_bytes (&pr->format);
  guint8 *out_data = GST_VIDEO_FRAME_PLANE_DATA (rj->out, rj->p);
  gsize out_stride = GST_VIDEO_FRAME_PLANE_STRIDE (rj->out, rj->p);
  gsize area_pitch = GST_ROUND_UP_N (area->w * pixel, DEVICE_ROW_ALIGN);
  guint8 *area_data = out_data + area->y * out_stride + area->x * pixel;
  cf_roi_view filtered = { (guint8 *) self->d_filtered.ptr + pr->offsets[k],
    pr->pitches[k], pr->crops[k].x, pr->crops[k].y
  };
  cf_roi_view frame = { out_data, out_stride, 0, 0 };
  int status = CF_OK;

  if (!rj->out_on_device) {
    /* the area as the output holds it: pixels other areas own stay */
    status = copy_rect (self->d_area.ptr, area_pitch, area_data, out_stride,
        area->w * pixel, area->h, CF_COPY_HOST_TO_DEVICE, rj->stream);
    frame = (cf_roi_view) { self->d_area.ptr, area_pitch, area->x, area->y};
  }
  if (status == CF_OK)
    status = cf_conv2d_roi_blend_cuda (&pr->format, area, &filtered, &frame,
        &frame, pr->rects, self->d_rects.ptr, pr->n_rects, pr->feather_x,
        pr->feather_y, pr->owner[k], rj->stream);
  if (status == CF_OK && !rj->out_on_device)
    status = copy_rect (area_data, out_stride, self->d_area.ptr, area_pitch,
        area->w * pixel, area->h, CF_COPY_DEVICE_TO_HOST, rj->stream);
  return status;
}

/* The scratch planes a plane's regions need, and its rectangles on the
 * device when a launch cannot carry them all. */
static int
prepare_regions_cuda (GstCudaConv2d * self, const RegionJob * rj)
{
  GstCudaFilterBase *base = GST_CUDA_FILTER_BASE (self);
  PlaneRegions *pr = rj->pr;
  gsize pixel = cf_plane_format_pixel_bytes (&pr->format);
  gsize filtered = lay_out_crops (self, pr, DEVICE_ROW_ALIGN,
      rj->in == rj->out), crop = 0, area = 0;

  for (gint k = 0; k < pr->n_areas; k++) {
    crop = MAX (crop, pr->pitches[k] * pr->crops[k].h);
    area = MAX (area, GST_ROUND_UP_N (pr->areas[k].w * pixel,
            DEVICE_ROW_ALIGN) * pr->areas[k].h);
  }
  if (!gst_cuda_filter_base_ensure_device_ordered (base, &self->d_filtered,
          filtered, rj->stream)
      || (!rj->in_on_device && !gst_cuda_filter_base_ensure_device_ordered
          (base, &self->d_crop, crop, rj->stream))
      || (!rj->out_on_device && !gst_cuda_filter_base_ensure_device_ordered
          (base, &self->d_area, area, rj->stream)))
    return CF_ERR_NO_MEMORY;
  if (pr->n_rects <= CF_ROI_LAUNCH_RECTS)
    return CF_OK;
  if (!gst_cuda_filter_base_ensure_device_ordered (base, &self->d_rects,
          sizeof (cf_rect) * pr->n_rects, rj->stream))
    return CF_ERR_NO_MEMORY;
  return copy_rect (self->d_rects.ptr, sizeof (cf_rect) * pr->n_rects,
      pr->rects, sizeof (cf_rect) * pr->n_rects,
      sizeof (cf_rect) * pr->n_rects, 1, CF_COPY_HOST_TO_DEVICE, rj->stream);
}

/* The regions of every filtered plane on the GPU, on the compute stream:
 * the frame copied (on the device where either side is) unless it is
 * filtered in place (`out` is `in`), every area's crop filtered, then
 * each area blended in. */
GstFlowReturn
gst_cuda_conv2d_regions_cuda (GstCudaConv2d * self, const GstVideoFrame * in,
    gboolean in_on_device, GstVideoFrame * out, gboolean out_on_device)
{
  cf_stream stream =
      gst_cuda_filter_base_streams (GST_CUDA_FILTER_BASE (self))->compute;
  gboolean in_place = in == out, copy_failed = FALSE;
  int status = CF_OK;

  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in) && status == CF_OK;
      p++) {
    RegionJob rj = { in, out, in_on_device, out_on_device, p, NULL, stream };
    PlaneRegions pr;

    if (in_place) {
      /* nothing to copy */
    } else if (!in_on_device && !out_on_device) {
      gst_cuda_conv2d_copy_plane (in, out, p);
    } else if (!gst_cuda_conv2d_copy_plane_cuda (self, in, in_on_device,
            out, out_on_device, p)) {
      copy_failed = TRUE;       /* posted */
      break;
    }
    if (!gst_cuda_conv2d_plane_filtered (p, self->frame_planes)
        || self->rects->len == 0)
      continue;
    plane_regions (self, &in->info, p, &pr);
    rj.pr = &pr;
    if (pr.n_areas > 0)
      status = prepare_regions_cuda (self, &rj);
    if (in_place) {
      for (gint k = 0; k < pr.n_areas && status == CF_OK; k++)
        status = filter_area_cuda (self, &rj, k);
      for (gint k = 0; k < pr.n_areas && status == CF_OK; k++)
        status = blend_area_cuda (self, &rj, k);
    } else {
      /* one crop at a time in d_filtered: the stream orders the next
       * crop's filter after this area's blend */
      for (gint k = 0; k < pr.n_areas && status == CF_OK; k++) {
        status = filter_area_cuda (self, &rj, k);
        if (status == CF_OK)
          status = blend_area_cuda (self, &rj, k);
      }
    }
    /* a copy from pageable memory has read it when it returns */
    plane_regions_free (&pr);
  }
  if (copy_failed)
    return GST_FLOW_ERROR;
  return GST_CUDA_FILTER_CHECK (self, status, "filtering regions")
      ? GST_FLOW_OK : GST_FLOW_ERROR;
}
