/* Box means and thresholds of small radii straight from the input (see
 * boxmean.h), one launch. A block takes a tile of DX x DY output pixels,
 * every channel:
 *
 * 1. Column sums. A thread takes one column of the tile and its halo, for
 *    one channel, and slides a window of 2r + 1 rows down it: the sum of
 *    the first output row's window, then a row added below and one taken
 *    off above for each next row. Columns and rows outside the plane add
 *    nothing, so the sums are those of the clipped windows.
 * 2. Row sums. A thread takes a run of RUN output pixels of one row and
 *    channel and slides a window of 2r + 1 column sums along it.
 * 3. Output. A thread a sample of the output pixels, consecutive samples
 *    on consecutive threads: the window's mean (or the threshold), or the
 *    sample copied from the input.
 *
 * Sums stay below 2^32: at most 33^2 x 65535. Shared memory: the column
 * sums, DY x (DX + 2r) x channels, then the window sums, DY x DX x
 * channels, 40 KB at most. The outputs are those of cf_box_cuda, whose
 * rounding helpers (boxmean_common.h) both use. */
#include "cf_fault.h"
#include <cstdint>

#include <cuda_runtime.h>

#include "boxmean.h"
#include "boxmean_common.h"

namespace cfb
{

constexpr int DX = 64;          /* output pixels a tile */
constexpr int DY = 16;          /* output rows a tile */
constexpr int RUN = 8;          /* output pixels a thread, row sums */
constexpr int THREADS = 256;

static_assert (DX % RUN == 0, "runs cover the tile");

__host__ __device__ inline size_t
direct_shared_words (int radius, int channels)
{
  return (size_t) DY * (DX + 2 * radius) * channels
      + (size_t) DY * DX * channels;
}

template <typename IN>
__device__ __forceinline__ uint32_t
sample_at (const uint8_t * in, size_t pitch, int step, int x, int y, int c)
{
  return ((const IN *) (in + (size_t) y * pitch))[(size_t) x * step + c];
}

template <typename IN>
__global__ void __launch_bounds__ (THREADS)
box_direct_kernel (cf_integral_layout l, const uint8_t * in, cf_box_params p,
    uint8_t * out)
{
  extern __shared__ uint32_t smem[];
  const int r = p.radius, C = l.channels > 1 ? l.channels : 1;
  const int in_step = l.in_step ? l.in_step : 1;
  const int out_step = p.out_step ? p.out_step : 1;
  const int cols = DX + 2 * r;
  const int x0 = blockIdx.x * DX, y0 = p.row_begin + blockIdx.y * DY;
  const int rows = min (DY, p.row_end - y0);
  uint32_t *colsum = smem;      /* [DY][cols][C] */
  uint32_t *winsum = smem + (size_t) DY * cols * C;     /* [DY][DX][C] */

  /* 1. column sums: column k of the tile is plane column x0 - r + k */
  for (int t = threadIdx.x; t < cols * C; t += THREADS) {
    const int c = t % C, k = t / C, x = x0 - r + k;
    uint32_t *to = colsum + (size_t) k * C + c;
    if (x < 0 || x >= l.width) {
      for (int o = 0; o < rows; o++)
        to[(size_t) o * cols * C] = 0;
      continue;
    }
    const int top = max (0, y0 - r), bottom = min (l.height, y0 + r + 1);
    uint32_t s = 0;
#pragma unroll 8
    for (int y = top; y < bottom; y++)
      s += sample_at<IN> (in, l.in_pitch, in_step, x, y, c);
    to[0] = s;
#pragma unroll 4
    for (int o = 1; o < rows; o++) {
      const int below = y0 + o + r, above = y0 + o - r - 1;
      const uint32_t add = below < l.height
          ? sample_at<IN> (in, l.in_pitch, in_step, x, below, c) : 0u;
      const uint32_t sub = above >= 0
          ? sample_at<IN> (in, l.in_pitch, in_step, x, above, c) : 0u;
      s += add - sub;
      to[(size_t) o * cols * C] = s;
    }
  }
  __syncthreads ();

  /* 2. row sums: output pixel i of the tile sums tile columns i .. i + 2r */
  for (int t = threadIdx.x; t < DY * C * (DX / RUN); t += THREADS) {
    const int run = t % (DX / RUN), c = t / (DX / RUN) % C;
    const int o = t / (DX / RUN) / C, i0 = run * RUN;
    if (o >= rows)
      continue;
    const uint32_t *from = colsum + (size_t) o * cols * C + c;
    uint32_t *to = winsum + ((size_t) o * DX + i0) * C + c;
    uint32_t s = 0;
    for (int k = 0; k <= 2 * r; k++)
      s += from[(size_t) (i0 + k) * C];
    to[0] = s;
#pragma unroll
    for (int i = 1; i < RUN; i++) {
      s += from[(size_t) (i0 + i + 2 * r) * C] - from[(size_t) (i0 + i - 1)
          * C];
      to[(size_t) i * C] = s;
    }
  }
  __syncthreads ();

  /* 3. the output samples: the filtered channels, and with copy_others the
   * pixel's other samples; sample k of a pixel is channel k - pixel_start */
  const int per_pixel = p.copy_others ? out_step : C;
  const int first = p.copy_others ? p.pixel_start : 0;
  for (int t = threadIdx.x; t < rows * DX * per_pixel; t += THREADS) {
    const int ch = t % per_pixel - first, i = t / per_pixel % DX;
    const int o = t / per_pixel / DX, x = x0 + i, y = y0 + o;
    if (x >= l.width)
      continue;
    IN *to = (IN *) (out + (size_t) y * p.out_pitch) + (size_t) x * out_step
        + ch;
    if (ch < 0 || ch >= C) {
      *to = (IN) sample_at<IN> (in, l.in_pitch, in_step, x, y, ch);
      continue;
    }
    int wx0, wy0, wx1, wy1;
    cf_box_window (x, y, r, l.width, l.height, &wx0, &wy0, &wx1, &wy1);
    const uint32_t count = (uint32_t) ((wx1 - wx0) * (wy1 - wy0));
    const uint32_t s = winsum[((size_t) o * DX + i) * C + ch];
    uint32_t v;
    if (p.threshold)
      v = cf_box_above ((double) sample_at<IN> (in, l.in_pitch, in_step, x,
              y, ch), s, count, p.offset) ? (IN) ~(IN) 0 : 0;
    else if (sizeof (IN) == 1)
      v = cf_box_round_byte_mean (s, count);
    else
      v = (uint32_t) cf_box_round_mean (s, count);
    *to = (IN) v;
  }
}

}                               /* namespace cfb */

extern "C" int
cf_box_direct_cuda (const cf_integral_layout * l, const void *d_in,
    const cf_box_params * p, void *d_out, cf_stream stream)
{
  if (cf_box_direct_args_check (l, d_in, p, d_out) != CF_OK)
    return CF_ERR_INVALID;
  /* the kernel takes the row range resolved */
  cf_box_params rows = *p;
  cf_box_rows (p->row_begin, p->row_end, l->height, &rows.row_begin,
      &rows.row_end);
  const size_t shared = cfb::direct_shared_words (p->radius,
      cf_integral_channels (l)) * sizeof (uint32_t);
  dim3 grid ((l->width + cfb::DX - 1) / cfb::DX,
      (rows.row_end - rows.row_begin + cfb::DY - 1) / cfb::DY);
  if (l->type == CF_INTEGRAL_U8)
    cfb::box_direct_kernel<uint8_t><<<grid, cfb::THREADS, shared,
        (cudaStream_t) stream>>> (*l, (const uint8_t *) d_in, rows,
        (uint8_t *) d_out);
  else
    cfb::box_direct_kernel<uint16_t><<<grid, cfb::THREADS, shared,
        (cudaStream_t) stream>>> (*l, (const uint8_t *) d_in, rows,
        (uint8_t *) d_out);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}
