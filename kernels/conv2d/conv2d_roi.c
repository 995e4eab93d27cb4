/* Regions of a plane (conv2d_roi.h): the areas to filter, the crops their
 * masks read, and the CPU twin of the blend. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d_roi.h"

static int
overlap (const cf_rect * a, const cf_rect * b)
{
  return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h
      && b->y < a->y + a->h;
}

static cf_rect
around (const cf_rect * a, const cf_rect * b)
{
  int x0 = a->x < b->x ? a->x : b->x, y0 = a->y < b->y ? a->y : b->y;
  int x1 = a->x + a->w > b->x + b->w ? a->x + a->w : b->x + b->w;
  int y1 = a->y + a->h > b->y + b->h ? a->y + a->h : b->y + b->h;
  cf_rect r = { x0, y0, x1 - x0, y1 - y0 };
  return r;
}

/* `r` grown by gx either side across, gy down, and clipped to the plane;
 * w = 0 when nothing is left. */
static cf_rect
grow_clip (const cf_rect * r, int gx, int gy, int width, int height)
{
  long x0 = (long) r->x - gx, y0 = (long) r->y - gy;
  long x1 = (long) r->x + r->w + gx, y1 = (long) r->y + r->h + gy;
  cf_rect c = { 0, 0, 0, 0 };

  x0 = x0 < 0 ? 0 : x0;
  y0 = y0 < 0 ? 0 : y0;
  x1 = x1 > width ? width : x1;
  y1 = y1 > height ? height : y1;
  if (r->w <= 0 || r->h <= 0 || x1 <= x0 || y1 <= y0)
    return c;
  c.x = (int) x0;
  c.y = (int) y0;
  c.w = (int) (x1 - x0);
  c.h = (int) (y1 - y0);
  return c;
}

int
cf_roi_areas (const cf_rect * rects, int n, int fx, int fy, int width,
    int height, int merge, cf_rect * areas, int *owner)
{
  int count = 0, joined = 1;

  for (int k = 0; k < n; k++) {
    cf_rect a = grow_clip (&rects[k], fx, fy, width, height);
    if (a.w == 0)
      continue;
    areas[count] = a;
    owner[count++] = merge ? -1 : k;
  }
  while (merge && joined) {
    joined = 0;
    for (int i = 0; i < count && !joined; i++)
      for (int j = i + 1; j < count && !joined; j++)
        if (overlap (&areas[i], &areas[j])) {
          areas[i] = around (&areas[i], &areas[j]);
          areas[j] = areas[--count];
          joined = 1;
        }
  }
  return count;
}

cf_rect
cf_roi_crop (const cf_rect * area, int kw, int kh, cf_border border,
    int width, int height)
{
  cf_rect c = grow_clip (area, 0, 0, width, height);
  int rx = kw / 2, ry = kh / 2;
  long x0 = (long) c.x - rx, x1 = (long) c.x + c.w + rx;
  long y0 = (long) c.y - ry, y1 = (long) c.y + c.h + ry;

  if (border == CF_BORDER_WRAP && (x0 < 0 || x1 > width)) {
    x0 = 0;
    x1 = width;
  }
  if (border == CF_BORDER_WRAP && (y0 < 0 || y1 > height)) {
    y0 = 0;
    y1 = height;
  }
  c.x = (int) (x0 < 0 ? 0 : x0);
  c.y = (int) (y0 < 0 ? 0 : y0);
  c.w = (int) ((x1 > width ? width : x1) - c.x);
  c.h = (int) ((y1 > height ? height : y1) - c.y);
  return c;
}

static int
holds (const cf_roi_view * v, const cf_rect * a)
{
  return v && v->data && v->x <= a->x && v->y <= a->y;
}

static uint8_t *
at (const cf_roi_view * v, size_t pixel, int x, int y)
{
  return (uint8_t *) v->data + (size_t) (y - v->y) * v->stride
      + (size_t) (x - v->x) * pixel;
}

static float
load (const uint8_t * p, int u16)
{
  uint16_t v;
  if (!u16)
    return *p;
  memcpy (&v, p, 2);
  return v;
}

static void
store (uint8_t * p, int u16, float v)
{
  uint16_t w;
  if (!u16) {
    *p = (uint8_t) v;
    return;
  }
  w = (uint16_t) v;
  memcpy (p, &w, 2);
}

int
cf_conv2d_roi_blend_cpu (const cf_plane_format * f, const cf_rect * area,
    const cf_roi_view * filtered, const cf_roi_view * src,
    const cf_roi_view * dst, const cf_rect * rects, int n, int fx, int fy,
    int owner)
{
  int u16, bytes, n_near = 0, *near;
  size_t pixel;
  float top;

  if (cf_plane_format_check (f) != CF_OK || !area || !rects || n < 0
      || fx < 0 || fy < 0 || !holds (filtered, area) || !holds (src, area)
      || !holds (dst, area))
    return CF_ERR_INVALID;
  u16 = f->sample == CF_SAMPLE_U16;
  bytes = u16 ? 2 : 1;
  pixel = cf_plane_format_pixel_bytes (f);
  top = u16 ? 65535.0f : 255.0f;
  /* the rectangles whose feather reaches the area, in their order: the
   * others weigh 0 on all of it, and a pixel's owner is the same without
   * them */
  near = malloc (sizeof (int) * (n > 0 ? n : 1));
  if (!near)
    return CF_ERR_NO_MEMORY;
  for (int k = 0; k < n; k++) {
    cf_rect reach = rects[k];
    reach.x -= fx;
    reach.y -= fy;
    reach.w += 2 * fx;
    reach.h += 2 * fy;
    if (reach.x < area->x + area->w && area->x < reach.x + reach.w
        && reach.y < area->y + area->h && area->y < reach.y + reach.h)
      near[n_near++] = k;
  }
  for (int y = area->y; y < area->y + area->h; y++)
    for (int x = area->x; x < area->x + area->w; x++) {
      float w = 0.0f;
      int who = -1;
      for (int j = 0; j < n_near; j++) {
        float wk = cf_roi_weight (&rects[near[j]], fx, fy, x, y);
        if (wk > w) {
          w = wk;
          who = near[j];
        }
      }
      const uint8_t *s = at (src, pixel, x, y);
      const uint8_t *g = at (filtered, pixel, x, y);
      uint8_t *d = at (dst, pixel, x, y);
      if (owner >= 0 && who != owner)
        continue;
      if (w == 1.0f) {
        /* inside: the filtered value, exactly as the sum below gives it */
        for (int c = 0; c < f->channels; c++)
          memmove (d + c * bytes, (c == f->keep_channel ? s : g) + c * bytes,
              bytes);
        continue;
      }
      for (int c = 0; c < f->channels; c++) {
        float a = load (s + c * bytes, u16), v = a;
        if (c != f->keep_channel)
          v = a + (load (g + c * bytes, u16) - a) * w;
        v = rintf (v < 0.0f ? 0.0f : (v > top ? top : v));
        store (d + c * bytes, u16, v);
      }
    }
  free (near);
  return CF_OK;
}
