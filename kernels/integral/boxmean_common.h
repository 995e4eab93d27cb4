/* The arithmetic of one box-filtered pixel, shared by the CPU twin and the
 * CUDA kernel (compiled as C and as CUDA). Internal to the kernels
 * library. */
#ifndef CF_BOXMEAN_COMMON_H
#define CF_BOXMEAN_COMMON_H

#include <stdint.h>

#ifdef __CUDACC__
#define CF_BOX_FN static __host__ __device__ inline
#else
#define CF_BOX_FN static inline
#endif

/* Sum over [x0, x1) x [y0, y1) from a table of entries of type T (32- or
 * 64-bit unsigned): wrapping arithmetic gives the exact sum whenever it
 * fits the type, as a window's always does. */
#define CF_BOX_WINDOW_SUM(T, table, pitch, x0, y0, x1, y1)                 \
  ((T) (((const T *) ((const uint8_t *) (table) + (size_t) (y1) * (pitch)))[x1] \
      - ((const T *) ((const uint8_t *) (table) + (size_t) (y1) * (pitch)))[x0] \
      - ((const T *) ((const uint8_t *) (table) + (size_t) (y0) * (pitch)))[x1] \
      + ((const T *) ((const uint8_t *) (table) + (size_t) (y0) * (pitch)))[x0]))

/* The window of pixel (x, y), clipped: [x0, x1) x [y0, y1). */
CF_BOX_FN void
cf_box_window (int x, int y, int r, int w, int h, int *x0, int *y0, int *x1,
    int *y1)
{
  *x0 = x - r < 0 ? 0 : x - r;
  *y0 = y - r < 0 ? 0 : y - r;
  *x1 = x + r + 1 > w ? w : x + r + 1;
  *y1 = y + r + 1 > h ? h : y + r + 1;
}

/* Output rows [*begin, *end) of the box parameters' range on a plane of
 * `height` rows. */
CF_BOX_FN void
cf_box_rows (int row_begin, int row_end, int height, int *begin, int *end)
{
  *begin = row_begin;
  *end = row_end ? row_end : height;
}

/* Whether sample k of a pixel is one to copy: a pixel of `step` samples
 * whose filtered channels are `channels` from sample `start`. */
CF_BOX_FN int
cf_box_copied (int k, int step, int start, int channels)
{
  return k < step && (k < start || k >= start + channels);
}

/* Mean rounded to nearest, halves up. */
CF_BOX_FN uint64_t
cf_box_round_mean (uint64_t sum, uint64_t count)
{
  return (2 * sum + count) / (2 * count);
}

#ifdef __CUDACC__
/* cf_box_round_mean() for byte windows, whose sums stay below 2^31
 * (2049^2 x 255), without a 64-bit division: a float quotient, within one
 * of the truth, corrected with 32-bit products that cannot overflow (the
 * mean is at most 255). Exact; measured 294 -> 287 µs for the tables and
 * box means of a 4K RGBA frame. CUDA only. */
static __device__ __forceinline__ uint32_t
cf_box_round_byte_mean (uint32_t sum, uint32_t count)
{
  const uint32_t num = 2 * sum + count, den = 2 * count;
  uint32_t q = __float2uint_rz (__fdividef ((float) num, (float) den));
  if (q * den > num)
    q--;
  else if ((q + 1) * den <= num)
    q++;
  return q;
}
#endif

CF_BOX_FN int
cf_box_above (double v, uint64_t sum, uint64_t count, double offset)
{
  return v > (double) sum / (double) count - offset;
}

#endif
