/* Filtering only regions of a plane: the weights of the rectangles a
 * detector marks, the areas to filter, and the blend of a filtered area
 * into the output. The filtering itself is any conv2d path run on a crop.
 *
 * A pixel's weight for a rectangle is 1 inside it; outside, at offsets dx
 * and dy (to the nearest pixel of the rectangle), with the feather fx
 * across and fy down (a plane subsampled one way only has a feather of
 * its own each way) and d = sqrt(dx^2 + (dy fx / fy)^2): below fx, the
 * raised cosine (1 + cos(pi d / fx)) / 2; 0 beyond (an ellipse; with
 * fx = fy, the distance's circle; a feather of 0 either way is none). A pixel's weight over several
 * rectangles is the largest. The output is
 *
 *   source + (filtered - source) * weight, rounded, saturated
 *
 * so that a pixel outside every rectangle's reach keeps its value and a
 * pixel inside one takes the filtered value, exactly. */
#ifndef CF_CONV2D_ROI_H
#define CF_CONV2D_ROI_H

#include <math.h>

#include "conv2d.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  int x, y, w, h;
} cf_rect;

/* A buffer holding a plane's pixels from (x, y) on: pixel (x + i, y + j)
 * of the plane at data + j * stride + i * pixel bytes. */
typedef struct
{
  void *data;
  size_t stride;
  int x, y;
} cf_roi_view;

/* The weight of pixel (x, y) for rectangle `r`, feather fx across and fy
 * down. */
CF_HOST_DEVICE float
cf_roi_weight (const cf_rect * r, int fx, int fy, int x, int y)
{
  int dx = x < r->x ? r->x - x : (x >= r->x + r->w ? x - (r->x + r->w - 1)
      : 0);
  int dy = y < r->y ? r->y - y : (y >= r->y + r->h ? y - (r->y + r->h - 1)
      : 0);
  float ey, d;

  if (dx == 0 && dy == 0)
    return 1.0f;
  if (dx >= fx || dy >= fy || fx == 0 || fy == 0)
    return 0.0f;
  /* exact for fx = fy: dy * fx is an integer a float holds */
  ey = (float) dy * (float) fx / (float) fy;
  d = sqrtf ((float) (dx * dx) + ey * ey);
  return d >= (float) fx ? 0.0f
      : 0.5f * (1.0f + cosf (3.14159265358979f * d / (float) fx));
}

/* The rectangle `owner` blends at pixel (x, y): the first of the largest
 * weight, -1 where every weight is 0; *weight gets that weight. */
CF_HOST_DEVICE int
cf_roi_owner (const cf_rect * rects, int n, int fx, int fy, int x, int y,
    float *weight)
{
  int owner = -1;
  *weight = 0.0f;
  for (int k = 0; k < n; k++) {
    float w = cf_roi_weight (&rects[k], fx, fy, x, y);
    if (w > *weight) {
      *weight = w;
      owner = k;
    }
  }
  return owner;
}

/* The areas to filter, in a plane of width x height: each rectangle
 * grown by the feather (fx either side across, fy down) and clipped; with `merge`, areas that overlap are
 * replaced by the rectangle around both, until none overlap (one mask
 * for all: a pixel is filtered once). `areas` has room for n; returns how
 * many were written. `owner[k]` gets the rectangle area k belongs to
 * without `merge`, -1 with it. Rectangles outside the plane give none. */
int cf_roi_areas (const cf_rect * rects, int n, int fx, int fy, int width,
    int height, int merge, cf_rect * areas, int *owner);

/* The part of the plane a mask of kw x kh reads to filter `area`: its
 * reach either side, clipped; with the wrap border, the whole width
 * (height) where the reach passes an edge, as it reads the other side. */
cf_rect cf_roi_crop (const cf_rect * area, int kw, int kh, cf_border border,
    int width, int height);

/* Blends `area` of the output. `filtered` holds the filter's output over a
 * crop containing the area, `src` the source over it; `dst` receives the
 * area. owner >= 0: only pixels whose owner (cf_roi_owner) is rectangle
 * `owner` are written, with its weight; owner < 0: every pixel of the
 * area, with the largest weight. The kept channel is copied from `src`.
 * CF_ERR_INVALID for bad pointers or views that do not hold the area. */
int cf_conv2d_roi_blend_cpu (const cf_plane_format * format,
    const cf_rect * area, const cf_roi_view * filtered,
    const cf_roi_view * src, const cf_roi_view * dst, const cf_rect * rects,
    int n, int fx, int fy, int owner);
/* The same on the device. Up to CF_ROI_LAUNCH_RECTS rectangles go with
 * the launch from `rects` (host memory: nothing is copied, nothing waits);
 * more are read from `d_rects`, a copy in device memory. */
#define CF_ROI_LAUNCH_RECTS 64
int cf_conv2d_roi_blend_cuda (const cf_plane_format * format,
    const cf_rect * area, const cf_roi_view * filtered,
    const cf_roi_view * src, const cf_roi_view * dst, const cf_rect * rects,
    const cf_rect * d_rects, int n, int fx, int fy, int owner,
    cf_stream stream);

#ifdef __cplusplus
}
#endif
#endif
