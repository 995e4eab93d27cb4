/* CUDA integral images (see integral.h): a warp per row, then the columns
 * in place, each cut into 32 segments. */
#include "cf_fault.h"
#include <cstdint>

#include <cuda_runtime.h>

#include "integral.h"

namespace cfi
{

constexpr int ROWS_PER_BLOCK = 8;       /* one warp each */
constexpr int SEGMENTS = 32;            /* per column */
constexpr int COLUMNS = 16;             /* per block: 2 blocks per SM at 4K */

/* Row y of the input into row y + 1 of the tables: the warp walks the row
 * 32 samples at a time (coalesced reads and writes), scanning each group
 * with shuffles on top of the running total of the groups before. */
template <typename S>
__device__ S
warp_inclusive (S v)
{
  const int lane = threadIdx.x & 31;
  for (int off = 1; off < 32; off <<= 1) {
    S y = __shfl_up_sync (0xffffffffu, v, off);
    if (lane >= off)
      v += y;
  }
  return v;
}

template <typename IN, typename SUM, typename SQ>
__global__ void
rows_kernel (const uint8_t * in, cf_integral_layout l, uint8_t * sum,
    uint8_t * squares)
{
  const int lane = threadIdx.x & 31;
  const int y = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;

  /* row 0 of the tables is zeros: the first warp writes it (no launch of
   * its own) */
  if (blockIdx.x == 0 && threadIdx.x < 32)
    for (int x = lane; x <= l.width; x += 32) {
      ((SUM *) sum)[x] = 0;
      if (squares)
        ((SQ *) squares)[x] = 0;
    }
  if (y >= l.height)
    return;                     /* the whole warp */
  const IN *src = (const IN *) (in + (size_t) y * l.in_pitch);
  SUM *row = (SUM *) (sum + (size_t) (y + 1) * l.sum_pitch);
  SQ *q_row = squares ? (SQ *) (squares + (size_t) (y + 1) * l.squares_pitch)
      : nullptr;
  const int step = l.in_step ? l.in_step : 1;
  SUM carry = 0;
  SQ q_carry = 0;

  if (lane == 0) {
    row[0] = 0;
    if (q_row)
      q_row[0] = 0;
  }
#pragma unroll 4
  for (int x0 = 0; x0 < l.width; x0 += 32) {
    const int x = x0 + lane;
    IN v = x < l.width ? src[(size_t) x * step] : IN (0);
    SUM s = carry + warp_inclusive ((SUM) v);
    if (x < l.width)
      row[x + 1] = s;
    carry = __shfl_sync (0xffffffffu, s, 31);
    if (q_row) {
      SQ q = q_carry + warp_inclusive ((SQ) v * (SQ) v);
      if (x < l.width)
        q_row[x + 1] = q;
      q_carry = __shfl_sync (0xffffffffu, q, 31);
    }
  }
}

/* Columns 1..width of rows 1..height, in place: thread (tx, ty) sums
 * segment ty of column x, the segment totals are scanned down the column,
 * and each segment is swept again from its offset. */
template <typename S>
__device__ void
columns_in_place (uint8_t * table, size_t pitch, int width, int height,
    S (*totals)[COLUMNS + 1])
{
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * COLUMNS + tx + 1;
  const int seg = (height + SEGMENTS - 1) / SEGMENTS;
  const int r0 = 1 + ty * seg, r1 = min (height + 1, r0 + seg);
  S t = 0;

  if (x <= width) {
#pragma unroll 8
    for (int r = r0; r < r1; r++)
      t += ((const S *) (table + (size_t) r * pitch))[x];
  }
  totals[ty][tx] = t;
  __syncthreads ();
  if (ty == 0) {
    S run = 0;
    for (int k = 0; k < SEGMENTS; k++) {
      S v = totals[k][tx];
      totals[k][tx] = run;
      run += v;
    }
  }
  __syncthreads ();
  if (x <= width) {
    S run = totals[ty][tx];
#pragma unroll 8
    for (int r = r0; r < r1; r++) {
      S *p = (S *) (table + (size_t) r * pitch) + x;
      run += *p;
      *p = run;
    }
  }
}

/* The columns of the sums (blockIdx.y 0) and of the squares (blockIdx.y
 * 1, when there are any) in one launch. */
template <typename SUM, typename SQ>
__global__ void
columns_kernel (uint8_t * sum, size_t sum_pitch, uint8_t * squares,
    size_t squares_pitch, int width, int height)
{
  constexpr size_t cell = sizeof (SUM) > sizeof (SQ) ? sizeof (SUM)
      : sizeof (SQ);
  __shared__ alignas (8) unsigned char raw[SEGMENTS * (COLUMNS + 1) * cell];

  if (blockIdx.y == 0)
    columns_in_place<SUM> (sum, sum_pitch, width, height,
        (SUM (*)[COLUMNS + 1]) raw);
  else
    columns_in_place<SQ> (squares, squares_pitch, width, height,
        (SQ (*)[COLUMNS + 1]) raw);
}

template <typename IN, typename SUM, typename SQ>
static cudaError_t
run (const cf_integral_layout * l, const void *in, void *sum, void *squares,
    cudaStream_t stream)
{
  dim3 rows_grid ((l->height + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
  dim3 cols_grid ((l->width + COLUMNS - 1) / COLUMNS, squares ? 2 : 1);
  dim3 cols_block (COLUMNS, SEGMENTS);

  rows_kernel<IN, SUM, SQ><<<rows_grid, ROWS_PER_BLOCK * 32, 0, stream>>> (
      (const uint8_t *) in, *l, (uint8_t *) sum, (uint8_t *) squares);
  columns_kernel<SUM, SQ><<<cols_grid, cols_block, 0, stream>>> (
      (uint8_t *) sum, l->sum_pitch, (uint8_t *) squares, l->squares_pitch,
      l->width, l->height);
  return (cudaError_t) cf_fault_check (CF_FAULT_LAUNCH, cudaGetLastError ());
}

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
  dim3 cols_grid ((l->width + COLUMNS - 1) / COLUMNS);
  dim3 cols_block (COLUMNS, SEGMENTS);
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
  columns_kernel<S, S><<<cols_grid, cols_block, 0, stream>>> (table, pitch,
      nullptr, 0, l->width, l->height);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

}                               /* namespace cfi */

extern "C" int
cf_integral_cuda (const cf_integral_layout * l, const void *d_in,
    void *d_sum, void *d_squares, cf_stream stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  cudaError_t err;

  if (cf_integral_args_check (l, d_in, d_sum, d_squares) != CF_OK)
    return CF_ERR_INVALID;
  switch (l->type) {
    case CF_INTEGRAL_U8:
      err = cfi::run<uint8_t, uint32_t, uint64_t> (l, d_in, d_sum, d_squares,
          s);
      break;
    case CF_INTEGRAL_U16:
      err = cfi::run<uint16_t, uint64_t, uint64_t> (l, d_in, d_sum,
          d_squares, s);
      break;
    default:
      err = cfi::run<float, double, double> (l, d_in, d_sum, d_squares, s);
      break;
  }
  return (int) err;
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
      || !workspace || l->type == CF_INTEGRAL_F32 || algorithm < 0
      || algorithm >= CF_SCAN_N_ALGORITHMS)
    return CF_ERR_INVALID;
  if (l->type == CF_INTEGRAL_U8)
    st = cfi::table_with_scan<uint8_t, uint32_t> (l, algorithm, CF_SCAN_U32,
        d_in, 0, (uint8_t *) d_sum, l->sum_pitch, work, s);
  else
    st = cfi::table_with_scan<uint16_t, uint64_t> (l, algorithm, CF_SCAN_U64,
        d_in, 0, (uint8_t *) d_sum, l->sum_pitch, work, s);
  if (st == CF_OK && d_squares)
    st = l->type == CF_INTEGRAL_U8
        ? cfi::table_with_scan<uint8_t, uint64_t> (l, algorithm, CF_SCAN_U64,
        d_in, 1, (uint8_t *) d_squares, l->squares_pitch, work, s)
        : cfi::table_with_scan<uint16_t, uint64_t> (l, algorithm,
        CF_SCAN_U64, d_in, 1, (uint8_t *) d_squares, l->squares_pitch, work,
        s);
  return st;
}
