/* Box means and thresholds of radius 1 on pixels of four 8-bit samples:
 * the windows summed directly, with no running sums. A window row of 3
 * words takes fewer additions than the sliding windows of
 * boxmean_words.cu spend on their bookkeeping: on a 4K RGBA frame (H100)
 * 33 us against 40 for the sliding windows. At radius 2 the sliding
 * windows were as fast (40 against 42 us), so they take it.
 *
 * A block of BX x BY threads takes 64 x 16 output pixels. The tile and a
 * halo of 16 bytes either side go into shared memory as they are (zeros
 * outside the plane, which add nothing to the clipped windows). A thread
 * owns 4 pixels (16 bytes) over ROWS rows: it takes the input rows its
 * windows reach one after the other, splits each row's words into even
 * and odd bytes (16-bit lanes), sums every window row of its 4 pixels
 * with 3-way adds, and adds those into each output row the input row
 * reaches, in registers. Sums of 9 bytes fit a lane with room. */
#include <cstdint>

#include <cuda_runtime.h>

#include "boxmean_words.cuh"

namespace cf_boxmean
{

constexpr int SMALL_BX = 16;    /* threads along a row, 4 pixels each */
constexpr int SMALL_BY = 8;
/* output rows a thread: 4 (and blocks of 64 threads) ran 1% faster on a
 * 4K frame and 20% slower on a 1080p strip */
constexpr int SMALL_ROWS = 2;
constexpr int SMALL_TW = 4 * SMALL_BX;  /* output pixels a tile row */
constexpr int SMALL_TH = SMALL_BY * SMALL_ROWS;
constexpr int SMALL_HALO = 4;   /* words either side: one 16-byte chunk */
constexpr int SMALL_THREADS = SMALL_BX * SMALL_BY;
constexpr int SMALL_R = 1;      /* the radius this kernel takes */
constexpr int SMALL_SROW = SMALL_TW + 2 * SMALL_HALO;   /* words a row */

/* Step 3 of the kernel below: the ROWS rows of 4 output words from their
 * window sums, the pixels' own words read again from the tile (`own`, row
 * ys) rather than held through the sums. */
template <int KEEP, bool THRESHOLD, bool INSIDE>
__device__ __forceinline__ void
store_rows (const WordsArgs & a, const uint32_t (&even)[SMALL_ROWS][4],
    const uint32_t (&odd)[SMALL_ROWS][4], const uint32_t * own, int xs,
    int ys)
{
#pragma unroll
  for (int o = 0; o < SMALL_ROWS; o++) {
    const int y = ys + o;
    if (y >= a.row_end)
      break;
    const uint4 q = *reinterpret_cast<const uint4 *>(own + o * SMALL_SROW);
    const uint32_t src[4] = { q.x, q.y, q.z, q.w };
    uint32_t px[4];
#pragma unroll
    for (int k = 0; k < 4; k++) {
      Sums<false> s;
      s.e = even[o][k];
      s.o = odd[o][k];
      px[k] = output_word<KEEP, false, THRESHOLD, INSIDE> (a, s, src[k],
          xs + k, y);
    }
    store_words (a, (uint32_t *) (a.out + (size_t) y * a.out_pitch), xs, px);
  }
}

template <int R, int KEEP, bool THRESHOLD>
__global__ void __launch_bounds__ (SMALL_THREADS)
box_small_kernel (const WordsArgs a)
{
  constexpr int IN_ROWS = SMALL_TH + 2 * R;
  constexpr int CHUNKS_A_ROW = SMALL_SROW / 4;
  constexpr int CHUNKS = IN_ROWS * CHUNKS_A_ROW;
  constexpr int PER_THREAD = (CHUNKS + SMALL_THREADS - 1) / SMALL_THREADS;
  constexpr int WIN = 4 + 2 * R;
  __shared__ alignas (16) uint32_t tile[IN_ROWS][SMALL_SROW];
  const int x0 = blockIdx.x * SMALL_TW;
  const int y0 = a.row_begin + blockIdx.y * SMALL_TH;
  const int tid = threadIdx.y * SMALL_BX + threadIdx.x;

  /* 1. the tile: plane rows y0 - R .., columns x0 - 4 .. x0 + 67, every
   * load issued before the first is stored */
  uint4 v[PER_THREAD];
  const uint8_t *first = inside_tile (a, x0 - SMALL_HALO, y0 - R,
      CHUNKS_A_ROW, IN_ROWS);
  if (first) {
#pragma unroll
    for (int b = 0; b < PER_THREAD; b++) {
      const int t = tid + b * SMALL_THREADS, j = t / CHUNKS_A_ROW;
      v[b] = t < CHUNKS ? inside_chunk (a, first, j, t % CHUNKS_A_ROW)
          : make_uint4 (0, 0, 0, 0);
    }
  } else {
#pragma unroll
    for (int b = 0; b < PER_THREAD; b++) {
      const int t = tid + b * SMALL_THREADS, j = t / CHUNKS_A_ROW;
      const int x = x0 - SMALL_HALO + 4 * (t % CHUNKS_A_ROW), y = y0 - R + j;
      v[b] = t < CHUNKS ? tile_chunk (a, x, y) : make_uint4 (0, 0, 0, 0);
    }
  }
#pragma unroll
  for (int b = 0; b < PER_THREAD; b++)
    if (tid + b * SMALL_THREADS < CHUNKS)
      reinterpret_cast<uint4 *>(&tile[0][0])[tid + b * SMALL_THREADS] = v[b];
  __syncthreads ();

  /* 2. ROWS rows of 4 pixels */
  const int xs = x0 + 4 * threadIdx.x, ys = y0 + SMALL_ROWS * threadIdx.y;
  if (xs >= a.width || ys >= a.row_end)
    return;
  uint32_t even[SMALL_ROWS][4], odd[SMALL_ROWS][4];
#pragma unroll
  for (int o = 0; o < SMALL_ROWS; o++)
#pragma unroll
    for (int k = 0; k < 4; k++)
      even[o][k] = odd[o][k] = 0;
#pragma unroll
  for (int j = 0; j < SMALL_ROWS + 2 * R; j++) {
    const uint32_t *row = &tile[SMALL_ROWS * threadIdx.y + j]
        [SMALL_HALO + 4 * threadIdx.x];
    const uint4 mine = *reinterpret_cast<const uint4 *>(row);
    uint32_t w[WIN];
    w[R] = mine.x;
    w[R + 1] = mine.y;
    w[R + 2] = mine.z;
    w[R + 3] = mine.w;
#pragma unroll
    for (int k = 0; k < R; k++) {
      w[k] = row[k - R];
      w[R + 4 + k] = row[4 + k];
    }
    uint32_t e[WIN], od[WIN];
#pragma unroll
    for (int k = 0; k < WIN; k++) {
      e[k] = even_bytes (w[k]);
      od[k] = odd_bytes (w[k]);
    }
    /* the window row of pixel k: words k .. k + 2R */
    uint32_t he[4], ho[4];
#pragma unroll
    for (int k = 0; k < 4; k++) {
      he[k] = e[k];
      ho[k] = od[k];
#pragma unroll
      for (int d = 1; d <= 2 * R; d++) {
        he[k] += e[k + d];
        ho[k] += od[k + d];
      }
    }
    /* into the output rows whose windows take input row j */
#pragma unroll
    for (int o = 0; o < SMALL_ROWS; o++)
      if (j - o >= 0 && j - o <= 2 * R)
#pragma unroll
        for (int k = 0; k < 4; k++) {
          even[o][k] += he[k];
          odd[o][k] += ho[k];
        }
  }

  /* 3. the means, or the thresholds: one branch a thread, so that the
   * windows inside the plane (all but the edge threads') take the short
   * form with no test a pixel */
  const uint32_t *own = &tile[SMALL_ROWS * threadIdx.y + R][SMALL_HALO + 4
      * threadIdx.x];
  if (xs - R >= 0 && xs + 3 + R < a.width && ys - R >= 0
      && ys + SMALL_ROWS - 1 + R < a.height)
    store_rows<KEEP, THRESHOLD, true> (a, even, odd, own, xs, ys);
  else
    store_rows<KEEP, THRESHOLD, false> (a, even, odd, own, xs, ys);
}

template <int R, int KEEP>
static void
launch_radius (const WordsArgs & a, cudaStream_t stream)
{
  dim3 grid ((a.width + SMALL_TW - 1) / SMALL_TW,
      (a.row_end - a.row_begin + SMALL_TH - 1) / SMALL_TH);
  dim3 block (SMALL_BX, SMALL_BY);
  if (a.threshold)
    box_small_kernel<R, KEEP, true><<<grid, block, 0, stream>>> (a);
  else
    box_small_kernel<R, KEEP, false><<<grid, block, 0, stream>>> (a);
}

void
launch_small (const WordsArgs & a, int keep, cudaStream_t stream)
{
  if (keep == 4)
    launch_radius<SMALL_R, 4> (a, stream);
  else if (keep == 3)
    launch_radius<SMALL_R, 3> (a, stream);
  else
    launch_radius<SMALL_R, 0> (a, stream);
}

}                               /* namespace cf_boxmean */
