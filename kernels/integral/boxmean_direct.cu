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
 * 3. Output. A thread a pixel: the windows' means (or the threshold) of
 *    its channels, its other samples copied from the input; a pixel of
 *    four bytes in one 4-byte store.
 *
 * Pixels of four 8-bit samples on word boundaries (RGBA, BGRx, ARGB ...:
 * what cudaprefixsum filters most) go to boxmean_words.cu instead, which
 * takes each pixel as one word: on a 4K RGBA frame 33 us at radius 1
 * against 95 here.
 *
 * The channel count is a template parameter, so that no index is divided
 * by a number known only at run time. With a thread a sample and the
 * count a run-time value, a 4K RGBA frame took 196 us at radius 1; with
 * both changed, 105; with the columns walked by pointer, 95 (H100).
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
#include "boxmean_words.h"

namespace cf_boxmean
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

/* Stores pixel x's samples: v[c] at channel c; with `copy_others` the
 * pixel's other samples from the input. `to` and `from` point at the
 * first filtered sample; with `words`, a pixel is one aligned 4-byte word
 * written at once. */
template <typename IN, int C>
__device__ __forceinline__ void
store_pixel (IN * to, const IN * from, const uint32_t (&v)[C],
    const cf_box_params & p, int out_step, bool words)
{
  if (sizeof (IN) == 1 && words) {
    uint32_t w = p.copy_others
        ? *(const uint32_t *) ((const uint8_t *) from - p.pixel_start) : 0u;
#pragma unroll
    for (int c = 0; c < C; c++) {
      const int at = 8 * (p.pixel_start + c);
      w = (w & ~(0xFFu << at)) | (v[c] << at);
    }
    *(uint32_t *) ((uint8_t *) to - p.pixel_start) = w;
    return;
  }
#pragma unroll
  for (int c = 0; c < C; c++)
    to[c] = (IN) v[c];
  if (p.copy_others)
    for (int k = -p.pixel_start; k < out_step - p.pixel_start; k++)
      if (k < 0 || k >= C)
        to[k] = from[k];
}

template <typename IN, int C>
__global__ void __launch_bounds__ (THREADS)
box_direct_kernel (cf_integral_layout l, const uint8_t * in, cf_box_params p,
    uint8_t * out, bool words)
{
  extern __shared__ uint32_t smem[];
  const int r = p.radius;
  const int in_step = l.in_step ? l.in_step : 1;
  const int out_step = p.out_step ? p.out_step : 1;
  const int cols = DX + 2 * r;
  const int x0 = blockIdx.x * DX, y0 = p.row_begin + blockIdx.y * DY;
  const int rows = min (DY, p.row_end - y0);
  uint32_t *colsum = smem;      /* [DY][cols][C] */
  uint32_t *winsum = smem + (size_t) DY * cols * C;     /* [DY][DX][C] */

  /* 1. column sums: column k of the tile is plane column x0 - r + k. The
   * rows a tile's windows reach are all in the plane except in the tiles
   * at its top and bottom: those check each row. */
  const int stride = cols * C;  /* between rows of colsum */
  const bool inner = y0 - r >= 0 && y0 + rows - 1 + r < l.height;
  for (int t = threadIdx.x; t < cols * C; t += THREADS) {
    const int c = t % C, k = t / C, x = x0 - r + k;
    uint32_t *to = colsum + k * C + c;
    if (x < 0 || x >= l.width) {
      for (int o = 0; o < rows; o++)
        to[o * stride] = 0;
      continue;
    }
    const uint8_t *column = in + ((size_t) x * in_step + c) * sizeof (IN);
    const int top = max (0, y0 - r), bottom = min (l.height, y0 + r + 1);
    const uint8_t *q = column + (size_t) top * l.in_pitch;
    uint32_t s = 0;
#pragma unroll 4
    for (int y = top; y < bottom; y++, q += l.in_pitch)
      s += *(const IN *) q;
    to[0] = s;
    if (inner) {
      /* q is row y0 + r + 1: the row the next window takes in */
      const uint8_t *gone = column + (size_t) (y0 - r) * l.in_pitch;
#pragma unroll 4
      for (int o = 1; o < rows; o++, q += l.in_pitch, gone += l.in_pitch) {
        s += (uint32_t) *(const IN *) q - *(const IN *) gone;
        to[o * stride] = s;
      }
      continue;
    }
    for (int o = 1; o < rows; o++) {
      const int below = y0 + o + r, above = y0 + o - r - 1;
      const uint32_t add = below < l.height
          ? sample_at<IN> (in, l.in_pitch, in_step, x, below, c) : 0u;
      const uint32_t sub = above >= 0
          ? sample_at<IN> (in, l.in_pitch, in_step, x, above, c) : 0u;
      s += add - sub;
      to[o * stride] = s;
    }
  }
  __syncthreads ();

  /* 2. row sums: output pixel i of the tile sums tile columns i .. i + 2r */
  for (int t = threadIdx.x; t < DY * C * (DX / RUN); t += THREADS) {
    const int run = t % (DX / RUN), c = t / (DX / RUN) % C;
    const int o = t / (DX / RUN) / C, i0 = run * RUN;
    if (o >= rows)
      continue;
    const uint32_t *from = colsum + o * stride + i0 * C + c;
    uint32_t *to = winsum + (o * DX + i0) * C + c;
    uint32_t s = 0;
    for (int k = 0; k <= 2 * r; k++)
      s += from[k * C];
    to[0] = s;
#pragma unroll
    for (int i = 1; i < RUN; i++) {
      s += from[(i + 2 * r) * C] - from[(i - 1) * C];
      to[i * C] = s;
    }
  }
  __syncthreads ();

  /* 3. the output, a pixel a thread */
  for (int t = threadIdx.x; t < rows * DX; t += THREADS) {
    const int i = t % DX, o = t / DX, x = x0 + i, y = y0 + o;
    if (x >= l.width)
      continue;
    int wx0, wy0, wx1, wy1;
    cf_box_window (x, y, r, l.width, l.height, &wx0, &wy0, &wx1, &wy1);
    const uint32_t count = (uint32_t) ((wx1 - wx0) * (wy1 - wy0));
    const IN *from = (const IN *) (in + (size_t) y * l.in_pitch)
        + (size_t) x * in_step;
    IN *to = (IN *) (out + (size_t) y * p.out_pitch) + (size_t) x * out_step;
    uint32_t v[C];
#pragma unroll
    for (int c = 0; c < C; c++) {
      const uint32_t s = winsum[(o * DX + i) * C + c];
      if (p.threshold)
        v[c] = cf_box_above ((double) from[c], s, count, p.offset)
            ? (IN) ~(IN) 0 : 0;
      else if (sizeof (IN) == 1)
        v[c] = cf_box_round_byte_mean (s, count);
      else
        v[c] = (uint32_t) cf_box_round_mean (s, count);
    }
    store_pixel<IN, C> (to, from, v, p, out_step, words);
  }
}

template <typename IN, int C>
static void
launch_direct (const cf_integral_layout & l, const void *in,
    const cf_box_params & rows, void *out, bool words, cudaStream_t stream)
{
  const size_t shared = direct_shared_words (rows.radius, C)
      * sizeof (uint32_t);
  dim3 grid ((l.width + DX - 1) / DX,
      (rows.row_end - rows.row_begin + DY - 1) / DY);
  box_direct_kernel<IN, C><<<grid, THREADS, shared, stream>>> (l,
      (const uint8_t *) in, rows, (uint8_t *) out, words);
}

template <typename IN>
static void
launch_channels (const cf_integral_layout & l, const void *in,
    const cf_box_params & rows, void *out, bool words, cudaStream_t stream)
{
  switch (cf_integral_channels (&l)) {
    case 1: launch_direct<IN, 1> (l, in, rows, out, words, stream); break;
    case 2: launch_direct<IN, 2> (l, in, rows, out, words, stream); break;
    case 3: launch_direct<IN, 3> (l, in, rows, out, words, stream); break;
    default: launch_direct<IN, 4> (l, in, rows, out, words, stream); break;
  }
}

}                               /* namespace cf_boxmean */

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
  /* pixels of four bytes written as words: whole pixels (their other
   * samples copied, or all four filtered), 4-byte aligned */
  const int channels = cf_integral_channels (l);
  const int step = p->out_step ? p->out_step : 1;
  const uintptr_t in_pixel = (uintptr_t) d_in - p->pixel_start;
  const uintptr_t out_pixel = (uintptr_t) d_out - p->pixel_start;
  const bool words = l->type == CF_INTEGRAL_U8 && step == 4
      && (p->copy_others || channels == 4)
      && (in_pixel | out_pixel | l->in_pitch | p->out_pitch) % 4 == 0;
  if (words && cf_boxmean::cf_box_words_cuda (*l, (const uint8_t *) d_in, rows,
          (uint8_t *) d_out, (cudaStream_t) stream))
    return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
  if (l->type == CF_INTEGRAL_U8)
    cf_boxmean::launch_channels<uint8_t> (*l, d_in, rows, d_out, words,
        (cudaStream_t) stream);
  else
    cf_boxmean::launch_channels<uint16_t> (*l, d_in, rows, d_out, words,
        (cudaStream_t) stream);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}
