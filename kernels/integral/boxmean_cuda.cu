/* CUDA box means and thresholds: one thread per output pixel and channel,
 * four table reads each (see boxmean.h). */
#include "cf_fault.h"
#include <cstdint>

#include <cuda_runtime.h>

#include "boxmean.h"
#include "boxmean_common.h"

namespace cf_boxmean
{

template <typename IN, typename SUM>
__global__ void
box_kernel (cf_integral_layout l, const uint8_t * in, const uint8_t * sum,
    cf_box_params p, uint8_t * out)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = p.row_begin + blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= l.width || y >= p.row_end)
    return;
  /* channel blockIdx.z: a sample further on, its own table */
  in += blockIdx.z * sizeof (IN);
  out += blockIdx.z * sizeof (IN);
  sum += blockIdx.z * l.channel_stride;
  int x0, y0, x1, y1;
  cf_box_window (x, y, p.radius, l.width, l.height, &x0, &y0, &x1, &y1);
  const uint64_t count = (uint64_t) (x1 - x0) * (uint64_t) (y1 - y0);
  const uint64_t s = CF_BOX_WINDOW_SUM (SUM, sum, l.sum_pitch, x0,
      y0 - p.table_row, x1, y1 - p.table_row);
  const int in_step = l.in_step ? l.in_step : 1;
  const int out_step = p.out_step ? p.out_step : 1;
  uint64_t v;

  if (p.threshold) {
    const IN px = ((const IN *) (in + (size_t) y * l.in_pitch))
        [(size_t) x * in_step];
    v = cf_box_above ((double) px, s, count, p.offset) ? (IN) ~(IN) 0 : 0;
  } else if (sizeof (IN) == 1) {
    v = cf_box_round_byte_mean ((uint32_t) s, (uint32_t) count);
  } else {
    v = cf_box_round_mean (s, count);
  }
  ((IN *) (out + (size_t) y * p.out_pitch))[(size_t) x * out_step] = (IN) v;
  /* the first channel's thread copies the pixel's other samples */
  if (p.copy_others && blockIdx.z == 0) {
    const IN *from = (const IN *) (in + (size_t) y * l.in_pitch)
        + (size_t) x * out_step - p.pixel_start;
    IN *to = (IN *) (out + (size_t) y * p.out_pitch) + (size_t) x * out_step
        - p.pixel_start;
    for (int k = 0; k < out_step; k++)
      if (cf_box_copied (k, out_step, p.pixel_start, l.channels > 1
              ? l.channels : 1))
        to[k] = from[k];
  }
}

}                               /* namespace cf_boxmean */

extern "C" int
cf_box_cuda (const cf_integral_layout * l, const void *d_in,
    const void *d_sum, const cf_box_params * p, void *d_out,
    cf_stream stream)
{
  dim3 block (32, 8);

  if (cf_box_args_check (l, d_in, d_sum, p, d_out) != CF_OK)
    return CF_ERR_INVALID;
  /* the kernel takes the row range resolved */
  cf_box_params rows = *p;
  cf_box_rows (p->row_begin, p->row_end, l->height, &rows.row_begin,
      &rows.row_end);
  dim3 grid ((l->width + 31) / 32, (rows.row_end - rows.row_begin + 7) / 8,
      cf_integral_channels (l));
  if (l->type == CF_INTEGRAL_U8)
    cf_boxmean::box_kernel<uint8_t, uint32_t><<<grid, block, 0,
        (cudaStream_t) stream>>> (*l, (const uint8_t *) d_in,
        (const uint8_t *) d_sum, rows, (uint8_t *) d_out);
  else
    cf_boxmean::box_kernel<uint16_t, uint64_t><<<grid, block, 0,
        (cudaStream_t) stream>>> (*l, (const uint8_t *) d_in,
        (const uint8_t *) d_sum, rows, (uint8_t *) d_out);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}
