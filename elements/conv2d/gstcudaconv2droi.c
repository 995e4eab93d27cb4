/* cudaconv2d's regions: see gstcudaconv2droi.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudaconv2droi.h"

void
gst_cuda_conv2d_roi_copy (GstCudaConv2dRoi * dst, const GstCudaConv2dRoi * src)
{
  gchar *types = g_strdup (src->types);

  g_free (dst->types);
  *dst = *src;
  dst->types = types;
}

void
gst_cuda_conv2d_roi_clear (GstCudaConv2dRoi * roi)
{
  g_clear_pointer (&roi->types, g_free);
}

gchar *
gst_cuda_conv2d_roi_check_types (const gchar * types)
{
  gchar **names;
  gchar *error = NULL;

  if (!types || !types[0])
    return NULL;
  names = g_strsplit (types, ",", -1);
  for (guint k = 0; names[k] && !error; k++)
    if (!g_strstrip (names[k])[0])
      error = g_strdup_printf ("roi-types \"%s\": name %u is empty (names "
          "are separated by single commas)", types, k + 1);
  g_strfreev (names);
  return error;
}

/* Whether a meta's type is one of `types` (NULL: any), quarks of the
 * names, 0-terminated. */
static gboolean
wanted (const GQuark * types, GQuark type)
{
  if (!types)
    return TRUE;
  for (guint k = 0; types[k]; k++)
    if (types[k] == type)
      return TRUE;
  return FALSE;
}

/* roi-types as quarks (free with g_free), NULL for all types; a name no
 * meta has ever used is a quark no meta has, so it matches none. */
static GQuark *
type_quarks (const gchar * types)
{
  gchar **names;
  GQuark *quarks;
  guint n;

  if (!types || !types[0])
    return NULL;
  names = g_strsplit (types, ",", -1);
  n = g_strv_length (names);
  quarks = g_new0 (GQuark, n + 1);
  for (guint k = 0; k < n; k++)
    quarks[k] = g_quark_from_string (g_strstrip (names[k]));
  g_strfreev (names);
  return quarks;
}

void
gst_cuda_conv2d_roi_collect (GstBuffer * buffer, const GstCudaConv2dRoi * roi,
    GArray * rects, GArray * sigmas)
{
  gpointer state = NULL;
  GstMeta *meta;
  GQuark *types = NULL;
  gboolean parsed = FALSE;

  g_array_set_size (rects, 0);
  if (sigmas)
    g_array_set_size (sigmas, 0);
  while ((meta = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *m = (GstVideoRegionOfInterestMeta *) meta;
    gint64 x0 = (gint64) m->x - roi->grow, y0 = (gint64) m->y - roi->grow;
    gint64 x1 = (gint64) m->x + m->w + roi->grow;
    gint64 y1 = (gint64) m->y + m->h + roi->grow;
    cf_rect r;
    gdouble side;

    /* the list is read once a frame, and only for a frame with metas */
    if (!parsed) {
      types = type_quarks (roi->types);
      parsed = TRUE;
    }
    if (!wanted (types, m->roi_type) || m->w == 0 || m->h == 0)
      continue;
    /* far outside any frame: keep the numbers in int */
    r.x = (gint) CLAMP (x0, -G_MAXINT / 4, G_MAXINT / 4);
    r.y = (gint) CLAMP (y0, -G_MAXINT / 4, G_MAXINT / 4);
    r.w = (gint) CLAMP (x1 - x0, 0, G_MAXINT / 4);
    r.h = (gint) CLAMP (y1 - y0, 0, G_MAXINT / 4);
    g_array_append_val (rects, r);
    side = MIN (r.w, r.h);
    if (sigmas) {
      gdouble sigma = roi->sigma * side;
      g_array_append_val (sigmas, sigma);
    }
  }
  g_free (types);
}

void
gst_cuda_conv2d_roi_to_plane (const GstVideoInfo * info, guint p,
    const cf_rect * frame_rects, guint n, cf_rect * plane_rects,
    gint feather, gint * feather_x, gint * feather_y)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  guint ws, hs;

  gst_video_format_info_component (finfo, p, comp);
  ws = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comp[0]);
  hs = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comp[0]);
  for (guint k = 0; k < n; k++) {
    const cf_rect *r = &frame_rects[k];
    /* floor of the start, ceiling of the end: every sample touched */
    gint x0 = r->x >> ws, y0 = r->y >> hs;
    gint x1 = -((-(r->x + r->w)) >> ws), y1 = -((-(r->y + r->h)) >> hs);
    plane_rects[k].x = x0;
    plane_rects[k].y = y0;
    plane_rects[k].w = x1 - x0;
    plane_rects[k].h = y1 - y0;
  }
  /* rounded up: a feather of 1 frame pixel stays a feather */
  *feather_x = -((-feather) >> ws);
  *feather_y = -((-feather) >> hs);
}
