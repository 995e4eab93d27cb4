/* Regions of a plane (conv2d_roi.h) on the CPU: the areas to filter (each
 * rectangle grown by the feather and clipped; merged where they overlap),
 * the crops masks read (wrap reaching the far side), and the blend
 * against a weight computed here from the documentation, on random
 * rectangles and planes of every layout. Outputs outside every area must
 * stay as poisoned. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d_roi.h"
#include "test_util.h"

#define W 97
#define H 61

/* The documented weight: 1 inside; outside, t = sqrt((dx / fx)^2 +
 * (dy / fy)^2), the raised cosine (1 + cos(pi t)) / 2 below 1, else 0;
 * 0 outside where either feather is 0. */
static double
weight (const cf_rect * r, int fx, int fy, int x, int y)
{
  int dx = x < r->x ? r->x - x : (x >= r->x + r->w ? x - (r->x + r->w) + 1 : 0);
  int dy = y < r->y ? r->y - y : (y >= r->y + r->h ? y - (r->y + r->h) + 1 : 0);
  double t;
  if (dx == 0 && dy == 0)
    return 1;
  if (fx == 0 || fy == 0)
    return 0;
  t = sqrt ((double) dx * dx / ((double) fx * fx)
      + (double) dy * dy / ((double) fy * fy));
  return t >= 1 ? 0 : 0.5 * (1 + cos (M_PI * t));
}

/* Feathers of 0 to max - 1, the same both ways in half the draws (as on
 * planes subsampled both ways or neither), else each its own (Y42B's
 * chroma: half across). */
static void
random_feather (int max, int *fx, int *fy)
{
  *fx = test_rand_int (max);
  *fy = test_rand_int (2) ? *fx : test_rand_int (max);
}

static int
inside (const cf_rect * r, int x, int y)
{
  return x >= r->x && x < r->x + r->w && y >= r->y && y < r->y + r->h;
}

static void
random_rects (cf_rect * rects, int n)
{
  for (int k = 0; k < n; k++) {
    rects[k].x = test_rand_int (W + 40) - 20;
    rects[k].y = test_rand_int (H + 40) - 20;
    rects[k].w = 1 + test_rand_int (30);
    rects[k].h = 1 + test_rand_int (30);
  }
}

/* Areas: inside the plane, covering every pixel of weight > 0, disjoint
 * when merged; unmerged, one per rectangle that reaches the plane. */
static void
check_areas (void)
{
  for (int t = 0; t < 200; t++) {
    cf_rect rects[6], areas[6];
    int owner[6], n = 1 + test_rand_int (6), fx, fy;
    int merge = t % 2, count, bad = 0;

    random_feather (8, &fx, &fy);
    random_rects (rects, n);
    count = cf_roi_areas (rects, n, fx, fy, W, H, merge, areas, owner);
    for (int a = 0; a < count; a++) {
      bad += areas[a].x < 0 || areas[a].y < 0 || areas[a].w < 1
          || areas[a].x + areas[a].w > W || areas[a].h < 1
          || areas[a].y + areas[a].h > H;
      bad += merge ? owner[a] != -1 : owner[a] < 0 || owner[a] >= n;
      for (int b = a + 1; merge && b < count; b++)
        bad += areas[a].x < areas[b].x + areas[b].w
            && areas[b].x < areas[a].x + areas[a].w
            && areas[a].y < areas[b].y + areas[b].h
            && areas[b].y < areas[a].y + areas[a].h;
    }
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        for (int k = 0; k < n; k++) {
          int covered = 0;
          if (weight (&rects[k], fx, fy, x, y) == 0)
            continue;
          for (int a = 0; a < count; a++)
            covered |= inside (&areas[a], x, y)
                && (merge || owner[a] == k);
          bad += !covered;
        }
    if (!test_check (bad == 0, "areas of %d rectangles (feather %d x %d, "
            "%s): %d faults", n, fx, fy, merge ? "merged" : "one each", bad))
      return;
  }
  test_check (1, "areas of random rectangles");
}

/* Crops: the area and the mask's reach, clipped; wrap takes the whole
 * side where the reach passes an edge. */
static void
check_crops (void)
{
  for (int t = 0; t < 400; t++) {
    cf_rect area, crop;
    int kw = 1 + 2 * test_rand_int (20), kh = 1 + 2 * test_rand_int (20);
    cf_border border = (cf_border) test_rand_int (4);
    int rx = kw / 2, ry = kh / 2, wrap_x, wrap_y, ok;

    area.x = test_rand_int (W);
    area.y = test_rand_int (H);
    area.w = 1 + test_rand_int (W - area.x);
    area.h = 1 + test_rand_int (H - area.y);
    crop = cf_roi_crop (&area, kw, kh, border, W, H);
    wrap_x = border == CF_BORDER_WRAP
        && (area.x - rx < 0 || area.x + area.w + rx > W);
    wrap_y = border == CF_BORDER_WRAP
        && (area.y - ry < 0 || area.y + area.h + ry > H);
    ok = crop.x == (wrap_x ? 0 : (area.x - rx < 0 ? 0 : area.x - rx))
        && crop.x + crop.w == (wrap_x ? W : (area.x + area.w + rx > W ? W
            : area.x + area.w + rx))
        && crop.y == (wrap_y ? 0 : (area.y - ry < 0 ? 0 : area.y - ry))
        && crop.y + crop.h == (wrap_y ? H : (area.y + area.h + ry > H ? H
            : area.y + area.h + ry));
    if (!test_check (ok, "crop of %dx%d at (%d, %d), mask %dx%d, border %d: "
            "%dx%d at (%d, %d)", area.w, area.h, area.x, area.y, kw, kh,
            border, crop.w, crop.h, crop.x, crop.y))
      return;
  }
  test_check (1, "crops of random areas");
}

/* The blend of each area, merged or owned, against the weights here. */
static void
check_blend (int channels, cf_sample sample, int keep)
{
  cf_plane_format f = { W, H, channels, sample, keep };
  size_t pixel = cf_plane_format_pixel_bytes (&f), stride = W * pixel + 5;
  size_t bytes = stride * H;
  uint8_t *src = malloc (bytes), *filt = malloc (bytes), *dst = malloc (bytes);
  uint8_t *poison = malloc (bytes);
  int u16 = sample == CF_SAMPLE_U16;
  double top = u16 ? 65535 : 255;

  for (int t = 0; t < 40; t++) {
    cf_rect rects[5], areas[5];
    int owner[5], n = 1 + test_rand_int (5), fx, fy;
    int merge = t % 2, count, bad = 0;
    cf_roi_view vf = { filt, stride, 0, 0 }, vs = { src, stride, 0, 0 };
    cf_roi_view vd = { dst, stride, 0, 0 };

    test_fill_random (src, bytes);
    test_fill_random (filt, bytes);
    test_fill_random (poison, bytes);
    memcpy (dst, poison, bytes);
    random_feather (9, &fx, &fy);
    random_rects (rects, n);
    count = cf_roi_areas (rects, n, fx, fy, W, H, merge, areas, owner);
    for (int a = 0; a < count; a++)
      bad += cf_conv2d_roi_blend_cpu (&f, &areas[a], &vf, &vs, &vd, rects, n,
          fx, fy, owner[a]) != CF_OK;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        double best = 0;
        int written = 0;
        for (int k = 0; k < n; k++)
          best = fmax (best, weight (&rects[k], fx, fy, x, y));
        /* merged areas write every pixel they hold; owned ones only the
         * pixels a rectangle owns (weight above 0) */
        for (int a = 0; a < count; a++)
          written |= inside (&areas[a], x, y) && (merge || best > 0);
        for (int c = 0; c < channels; c++) {
          size_t at = (size_t) y * stride + ((size_t) x * channels + c)
              * (u16 ? 2 : 1);
          double s, g, d, p, want;
          uint16_t v;
          if (u16) {
            memcpy (&v, src + at, 2), s = v;
            memcpy (&v, filt + at, 2), g = v;
            memcpy (&v, dst + at, 2), d = v;
            memcpy (&v, poison + at, 2), p = v;
          } else {
            s = src[at], g = filt[at], d = dst[at], p = poison[at];
          }
          if (!written) {
            bad += d != p;
            continue;
          }
          want = c == keep ? s : s + (g - s) * best;
          want = want < 0 ? 0 : (want > top ? top : want);
          /* weights in float here and in the blend: within 1 between */
          bad += fabs (d - want) > (best == 0 || best == 1 || c == keep
              ? 0.5 + 1e-9 : 1.0);
        }
      }
    if (!test_check (bad == 0, "blend of %d rectangles (feather %d x %d, "
            "%s) on %d x %d-bit: %d samples wrong", n, fx, fy, merge
            ? "merged" : "owned", channels, u16 ? 16 : 8, bad))
      break;
  }
  test_check (1, "blends on %d x %d-bit", channels, u16 ? 16 : 8);
  free (src);
  free (filt);
  free (dst);
  free (poison);
}

int
main (void)
{
  const char *name = "conv2d-roi-cpu";
  cf_plane_format f = { W, H, 1, CF_SAMPLE_U8, -1 };
  cf_rect area = { 10, 10, 5, 5 }, r = { 10, 10, 5, 5 };
  uint8_t plane[W * H];
  cf_roi_view v = { plane, W, 0, 0 }, late = { plane, W, 11, 10 };

  test_seed_from_env (name);
  check_areas ();
  check_crops ();
  check_blend (1, CF_SAMPLE_U8, -1);
  check_blend (3, CF_SAMPLE_U8, -1);
  check_blend (4, CF_SAMPLE_U8, 3);
  check_blend (4, CF_SAMPLE_U8, 0);
  check_blend (1, CF_SAMPLE_U16, -1);
  test_check (cf_conv2d_roi_blend_cpu (&f, &area, &late, &v, &v, &r, 1, 0,
          0, -1) == CF_ERR_INVALID, "a view that does not hold the area "
      "refused");
  test_check (cf_conv2d_roi_blend_cpu (&f, &area, &v, &v, &v, &r, -1, 0, 0,
          -1) == CF_ERR_INVALID, "a negative count refused");
  test_check (cf_conv2d_roi_blend_cpu (&f, &area, &v, &v, &v, &r, 1, 2, -1,
          -1) == CF_ERR_INVALID, "a negative feather refused");
  return test_finish (name);
}
