/* CUDA integral images (see integral.h): the entry points. The table is
 * built in bands of rows (integral_bands.cu); the scan path below builds it
 * from a scan of the whole plane instead, for comparing the scan variants. */
#include "cf_fault.h"
#include <cstdint>

#include <cuda_runtime.h>

#include "integral.h"
#include "integral_bands.h"
#include "integral_columns.cuh"

namespace cf_integral
{

/* The scan path: the samples of channel `step` widened (and squared) into
 * a flat array of width x height... */
template <typename IN, typename S>
__global__ void
widen_kernel (const uint8_t * in, cf_integral_layout l, int square, S * flat)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= l.width)
    return;
  const IN v = ((const IN *) (in + (size_t) y * l.in_pitch))[(size_t) x
      * (l.in_step ? l.in_step : 1)];
  flat[(size_t) y * l.width + x] = square ? (S) v * (S) v : (S) v;
}

/* ...scanned as one array, then each row less the running total before it
 * into the table, whose column 0 is zero. */
template <typename S>
__global__ void
rebase_kernel (const S * flat, int width, uint8_t * table, size_t pitch)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x > width)
    return;
  S *row = (S *) (table + (size_t) (y + 1) * pitch);
  const size_t start = (size_t) y * width;
  const S before = start ? flat[start - 1] : S (0);
  row[x] = x ? flat[start + x - 1] - before : S (0);
}

template <typename IN, typename S>
static int
table_with_scan (const cf_integral_layout * l, cf_scan_algorithm a,
    cf_scan_type type, const void *in, int square, uint8_t * table,
    size_t pitch, uint8_t * work, cudaStream_t stream)
{
  const size_t n = (size_t) l->width * l->height;
  S *flat = (S *) work;
  void *scan_work = work + ((n * sizeof (S) + 255) / 256) * 256;
  dim3 grid_in ((l->width + 255) / 256, l->height);
  dim3 grid_out ((l->width + 256) / 256, l->height);
  int st;

  if (cudaMemsetAsync (table, 0, ((size_t) l->width + 1) * sizeof (S),
          stream) != cudaSuccess)
    return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
  widen_kernel<IN, S><<<grid_in, 256, 0, stream>>> ((const uint8_t *) in,
      *l, square, flat);
  st = cf_scan_cuda (a, type, 1, flat, flat, n, scan_work,
      (cf_stream) stream);
  if (st != CF_OK)
    return st;
  rebase_kernel<S><<<grid_out, 256, 0, stream>>> (flat, l->width, table,
      pitch);
  scan_columns<S> (table, pitch, l->width,
      RowSet { 1, 1, l->height, l->height }, stream);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

}                               /* namespace cf_integral */

extern "C" int
cf_integral_cuda (const cf_integral_layout * l, const void *d_in,
    void *d_sum, void *d_squares, cf_stream stream)
{
  if (cf_integral_args_check (l, d_in, d_sum, d_squares) != CF_OK)
    return CF_ERR_INVALID;
  return cf_integral::cf_integral_bands (l, d_in, d_sum, d_squares,
      (cudaStream_t) stream);
}

extern "C" size_t
cf_integral_scan_workspace_size (const cf_integral_layout * l,
    cf_scan_algorithm algorithm)
{
  const size_t n = (size_t) l->width * l->height;
  static const cf_scan_type tables[] = { CF_SCAN_U32, CF_SCAN_U64,
    CF_SCAN_F64
  };
  size_t scan = 0;
  /* a flat array of the widest table type, then the scan's own for
   * whichever table type the layout has (CUB's differs by type) */
  for (size_t k = 0; k < sizeof (tables) / sizeof (tables[0]); k++) {
    size_t b = cf_scan_workspace_size (algorithm, tables[k], n);
    scan = b > scan ? b : scan;
  }
  return ((n * 8 + 255) / 256) * 256 + scan;
}

extern "C" int
cf_integral_cuda_with_scan (const cf_integral_layout * l,
    cf_scan_algorithm algorithm, const void *d_in, void *d_sum,
    void *d_squares, void *workspace, cf_stream stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  uint8_t *work = (uint8_t *) workspace;
  int st;

  if (cf_integral_args_check (l, d_in, d_sum, d_squares) != CF_OK
      || !workspace || l->type == CF_INTEGRAL_F32 || l->channels > 1
      || algorithm < 0
      || algorithm >= CF_SCAN_N_ALGORITHMS)
    return CF_ERR_INVALID;
  if (l->type == CF_INTEGRAL_U8)
    st = cf_integral::table_with_scan<uint8_t, uint32_t> (l, algorithm,
        CF_SCAN_U32, d_in, 0, (uint8_t *) d_sum, l->sum_pitch, work, s);
  else
    st = cf_integral::table_with_scan<uint16_t, uint64_t> (l, algorithm,
        CF_SCAN_U64, d_in, 0, (uint8_t *) d_sum, l->sum_pitch, work, s);
  if (st == CF_OK && d_squares)
    st = l->type == CF_INTEGRAL_U8
        ? cf_integral::table_with_scan<uint8_t, uint64_t> (l, algorithm,
        CF_SCAN_U64, d_in, 1, (uint8_t *) d_squares, l->squares_pitch, work,
        s)
        : cf_integral::table_with_scan<uint16_t, uint64_t> (l, algorithm,
        CF_SCAN_U64, d_in, 1, (uint8_t *) d_squares, l->squares_pitch, work,
        s);
  return st;
}
