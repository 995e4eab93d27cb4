/* Scans of table columns in place, shared by both ways of building a table
 * (integral_cuda.cu): each column, over rows first_row, first_row + step,
 * ... (the last clamped to last_row), is cut into SEGMENTS segments that
 * threads sum in parallel; the segment totals are scanned in shared memory
 * and each segment swept again from its offset. */
#pragma once

#include <cstdint>

#include "dependent_launch.cuh"

namespace cf_integral
{

constexpr int SEGMENTS = 32;            /* per column */
constexpr int COLUMNS = 16;             /* per block: 2 blocks per SM at 4K */

/* The rows a column scan visits: row(k) = min (first + k * step, last), for
 * k = 0 .. count - 1. */
struct RowSet
{
  int first, step, count, last;
  __device__ int row (int k) const { return min (first + k * step, last); }
};

/* Entry x of rows k .. k + BATCH - 1 (zero from k_end on), all loads
 * issued before any is used: with the stores of a sweep between them, the
 * compiler would otherwise wait for each load in turn. */
constexpr int BATCH = 8;

template <typename S>
__device__ __forceinline__ void
load_batch (const uint8_t * table, size_t pitch, int x, RowSet rows, int k,
    int k_end, S (&v)[BATCH])
{
#pragma unroll
  for (int i = 0; i < BATCH; i++)
    v[i] = k + i < k_end
        ? ((const S *) (table + (size_t) rows.row (k + i) * pitch))[x] : S (0);
}

/* Columns 1..width of the rows in `rows`, in place: thread (tx, ty) sums
 * segment ty of column x, the segment totals are scanned down the column,
 * and each segment is swept again from its offset. */
template <typename S>
__device__ void
columns_in_place (uint8_t * table, size_t pitch, int width, RowSet rows,
    S (*totals)[COLUMNS + 1])
{
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * COLUMNS + tx + 1;
  const int seg = (rows.count + SEGMENTS - 1) / SEGMENTS;
  const int k0 = ty * seg, k1 = min (rows.count, k0 + seg);
  S t = 0;

  if (x <= width)
    for (int k = k0; k < k1; k += BATCH) {
      S v[BATCH];
      load_batch (table, pitch, x, rows, k, k1, v);
#pragma unroll
      for (int i = 0; i < BATCH; i++)
        t += v[i];
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
    for (int k = k0; k < k1; k += BATCH) {
      S v[BATCH];
      load_batch (table, pitch, x, rows, k, k1, v);
#pragma unroll
      for (int i = 0; i < BATCH; i++)
        if (k + i < k1) {
          run += v[i];
          ((S *) (table + (size_t) rows.row (k + i) * pitch))[x] = run;
        }
    }
  }
}

/* columns_in_place with its shared memory. */
template <typename S>
__device__ void
columns (uint8_t * table, size_t pitch, int width, RowSet rows)
{
  __shared__ S totals[SEGMENTS][COLUMNS + 1];
  columns_in_place<S> (table, pitch, width, rows, totals);
}

/* The columns of one table, COLUMNS a block. */
template <typename S>
__global__ void
columns_kernel (uint8_t * table, size_t pitch, int width, RowSet rows)
{
  let_next_start ();
  wait_for_previous ();         /* the rows come from the kernel before */
  columns<S> (table, pitch, width, rows);
}

/* Launches columns_kernel over every column of the table. */
template <typename S>
void
scan_columns (uint8_t * table, size_t pitch, int width, RowSet rows,
    cudaStream_t stream)
{
  launch_after (columns_kernel<S>, dim3 ((width + COLUMNS - 1) / COLUMNS),
      dim3 (COLUMNS, SEGMENTS), stream, table, pitch, width, rows);
}

}                               /* namespace cf_integral */
