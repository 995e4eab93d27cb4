/* The blend of a filtered area into the output on the device
 * (conv2d_roi.h): a thread a pixel, the rectangles (passed with the
 * launch, or read from device memory past CF_ROI_LAUNCH_RECTS) for each
 * pixel's weight. */
#include <cuda_runtime.h>
#include <cstdint>

#include "cf_fault.h"
#include "conv2d_roi.h"

namespace cf_conv2d_roi
{

constexpr int BLOCK_X = 32, BLOCK_Y = 8;

struct Blend
{
  cf_rect area;
  cf_roi_view filtered, src, dst;
  const cf_rect *rects;         /* more than CF_ROI_LAUNCH_RECTS */
  cf_rect launch_rects[CF_ROI_LAUNCH_RECTS];
  int n, fx, fy, owner;
  int channels, keep;
};

template < typename T > __device__ __forceinline__ T *
at (const cf_roi_view & v, int channels, int x, int y)
{
  return (T *) ((uint8_t *) v.data + (size_t) (y - v.y) * v.stride)
      + (size_t) (x - v.x) * channels;
}

template < typename T > __global__ void
blend (Blend b)
{
  int x = b.area.x + (int) (blockIdx.x * BLOCK_X + threadIdx.x);
  int y = b.area.y + (int) (blockIdx.y * BLOCK_Y + threadIdx.y);
  const float top = sizeof (T) == 2 ? 65535.0f : 255.0f;
  float w;

  if (x >= b.area.x + b.area.w || y >= b.area.y + b.area.h)
    return;
  int who = cf_roi_owner (b.n <= CF_ROI_LAUNCH_RECTS ? b.launch_rects
      : b.rects, b.n, b.fx, b.fy, x, y, &w);
  if (b.owner >= 0 && who != b.owner)
    return;
  const T *s = at < T > (b.src, b.channels, x, y);
  const T *g = at < T > (b.filtered, b.channels, x, y);
  T *d = at < T > (b.dst, b.channels, x, y);
  for (int c = 0; c < b.channels; c++) {
    float a = s[c], v = a;
    if (c != b.keep)
      v = a + ((float) g[c] - a) * w;
    d[c] = (T) rintf (fminf (fmaxf (v, 0.0f), top));
  }
}

}                               /* namespace cf_conv2d_roi */

extern "C" int
cf_conv2d_roi_blend_cuda (const cf_plane_format * f, const cf_rect * area,
    const cf_roi_view * filtered, const cf_roi_view * src,
    const cf_roi_view * dst, const cf_rect * rects, const cf_rect * d_rects,
    int n, int fx, int fy, int owner, cf_stream stream)
{
  using namespace cf_conv2d_roi;
  Blend b;

  if (cf_plane_format_check (f) != CF_OK || !area || !filtered || !src
      || !dst || !filtered->data || !src->data || !dst->data
      || (n > 0 && !rects) || (n > CF_ROI_LAUNCH_RECTS && !d_rects)
      || n < 0 || fx < 0 || fy < 0
      || filtered->x > area->x || filtered->y > area->y
      || src->x > area->x || src->y > area->y || dst->x > area->x
      || dst->y > area->y)
    return CF_ERR_INVALID;
  if (area->w <= 0 || area->h <= 0)
    return CF_OK;
  b.area = *area;
  b.filtered = *filtered;
  b.src = *src;
  b.dst = *dst;
  b.rects = d_rects;
  for (int k = 0; k < n && k < CF_ROI_LAUNCH_RECTS; k++)
    b.launch_rects[k] = rects[k];
  b.n = n;
  b.fx = fx;
  b.fy = fy;
  b.owner = owner;
  b.channels = f->channels;
  b.keep = f->keep_channel;
  dim3 grid ((area->w + BLOCK_X - 1) / BLOCK_X,
      (area->h + BLOCK_Y - 1) / BLOCK_Y);
  if (f->sample == CF_SAMPLE_U16)
    blend < uint16_t > <<<grid, dim3 (BLOCK_X, BLOCK_Y), 0,
        (cudaStream_t) stream >>> (b);
  else
    blend < uint8_t > <<<grid, dim3 (BLOCK_X, BLOCK_Y), 0,
        (cudaStream_t) stream >>> (b);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}
