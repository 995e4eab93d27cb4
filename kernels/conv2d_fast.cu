/* Fast variant: the tiled algorithm tuned for throughput.
 *
 * - The mask is a __grid_constant__ kernel parameter (constant memory); its
 *   width is a template parameter, so each tap of a mask row is an
 *   immediate constant-bank operand of the multiply-add.
 * - Thread coarsening: each thread computes a run of 8 consecutive pixels of
 *   a row, holding a register sliding window: one mask row costs 8 + KW - 1
 *   shared loads for 8 * KW multiply-adds per channel.
 * - Each block walks down a column of 128 x 16 tiles (a segment of the
 *   plane), its input rows in a ring of 16 + KH - 1 shared rows: each step
 *   loads only the 16 new rows (no vertical halo is loaded twice), and
 *   issues their 16-byte loads before computing the current tile, so the
 *   DRAM round trip hides behind the arithmetic (conv2d_tile.cuh, bands).
 * - Samples are converted to float once, when they enter the ring; runs are
 *   stored as 16-byte vectors. Shared rows are padded so the coarsened
 *   threads do not conflict on banks.
 *
 * Cost: (128 + KW - 1)(S + KH - 1) pixel loads per 128-wide segment of S
 * rows, one store per pixel, KW * KH multiply-adds per channel. */
#include "conv2d_tile.cuh"

namespace cf {

constexpr int FAST_BX = 16, FAST_BY = 16;       /* 256 threads */
constexpr int FAST_THREADS = FAST_BX * FAST_BY;
constexpr int FAST_TW = FAST_BX * RUN;  /* 128 output columns per tile */
constexpr int FAST_TH = FAST_BY;        /* 16 output rows per step */
/* Blocks an SM should hold at once: the register cap (64 a thread for 4,
 * 85 for 3) keeps registers from limiting residency below what shared memory
 * allows; 4-channel pixels need the larger budget for their prefetched band
 * (they spill at 64). */
template <int C> constexpr int FAST_MIN_BLOCKS = C == 4 ? 3 : 4;
/* Segment rows: a block needs several steps for the prefetch to pay, and
 * the grid needs enough blocks to fill the GPU. */
constexpr int FAST_MAX_SEGMENT = 128;

template <typename T, int C, int KW, int NM>
__global__ void __launch_bounds__ (FAST_THREADS, FAST_MIN_BLOCKS<C>)
conv2d_fast_kernel (Image im, const __grid_constant__ Mask m, int segment)
{
  constexpr int NF = FILTERED_LANES<C>;
  constexpr int COLS = FAST_TW + KW - 1;
  constexpr int SROW = padded_row (COLS);
  constexpr int NB = band_loads<T, C, COLS> (FAST_TH, FAST_THREADS);
  extern __shared__ float4 smem[];
  Vec<C> *ring = reinterpret_cast<Vec<C> *>(smem);
  int rows = FAST_TH + m.kh - 1;        /* ring rows */
  int x0 = blockIdx.x * FAST_TW, gx0 = x0 - m.rx;
  int y_begin = im.row_begin + blockIdx.y * segment;
  int y_end = min (y_begin + segment, im.row_end);
  int tid = threadIdx.y * FAST_BX + threadIdx.x;
  bool chunks = im.chunk_loads;
  int c0 = threadIdx.x * RUN, oy = threadIdx.y;
  int x = x0 + c0;
  int start = 0;                /* ring row of input row y0 - ry */

  /* the first window: input rows y_begin - ry .. y_begin + 15 + ry */
  fill_tile<T, C, COLS, SROW> (im, m.border, ring, gx0, y_begin - m.ry, rows,
      tid, FAST_THREADS);
  __syncthreads ();

  for (int y0 = y_begin; y0 < y_end; y0 += FAST_TH) {
    bool more = y0 + FAST_TH < y_end;
    int next = y0 + FAST_TH + m.ry;     /* first input row of the next band */
    Band<NB> band;

    /* 1. issue the next band's loads */
    if constexpr (CHUNK_PX<T, C> > 0) {
      if (chunks && more)
        band_fetch<T, C, COLS, NB> (band, im, m.border, gx0, next, FAST_TH,
            tid, FAST_THREADS);
    }

    /* 2. compute and store a run of RUN pixels of row y0 + oy */
    if (x < im.width && y0 + oy < y_end) {
      float a[RUN][NF] = { }, b[RUN][NF] = { };
      for (int j = 0; j < m.kh; j++) {
        int slot = start + oy + j;
        slot -= slot >= rows ? rows : 0;
        const Vec<C> *srow = ring + slot * SROW + padded (c0);
        const float *wa = &m.taps[0][j * KW];
        const float *wb = &m.taps[1][j * KW];
#pragma unroll
        for (int i = 0; i < KW; i++) {
#pragma unroll
          for (int k = 0; k < RUN; k++) {
            Vec<C> v = srow[padded (k + i)];
#pragma unroll
            for (int l = 0; l < NF; l++) {
              a[k][l] = fmaf (wa[i], lane (v, l), a[k][l]);
              if (NM == 2)
                b[k][l] = fmaf (wb[i], lane (v, l), b[k][l]);
            }
          }
        }
      }
      int center = start + oy + m.ry;
      center -= center >= rows ? rows : 0;
      store_run<T, C, NM, NF> (im, m, x, y0 + oy, a, b,
          ring + center * SROW, c0 + m.rx);
    }
    if (!more)
      break;

    /* 3. the new band replaces the 16 oldest rows */
    __syncthreads ();
    if constexpr (CHUNK_PX<T, C> > 0) {
      if (chunks)
        band_commit<T, C, COLS, SROW, NB> (band, im, m.border, ring, gx0,
            next, FAST_TH, start, rows, tid, FAST_THREADS);
      else
        band_direct<T, C, COLS, SROW> (im, m.border, ring, gx0, next,
            FAST_TH, start, rows, tid, FAST_THREADS);
    } else {
      band_direct<T, C, COLS, SROW> (im, m.border, ring, gx0, next, FAST_TH,
          start, rows, tid, FAST_THREADS);
    }
    start += FAST_TH;
    start -= start >= rows ? rows : 0;
    __syncthreads ();
  }
}

template <typename T, int C, int KW, int NM>
static int
launch_fast (const Launch & L, const Mask & m)
{
  constexpr int SROW = padded_row (FAST_TW + KW - 1);
  auto kernel = conv2d_fast_kernel<T, C, KW, NM>;
  int rows = L.im.row_end - L.im.row_begin;
  int columns = (int) div_up (L.im.width, FAST_TW);
  size_t bytes = (size_t) (FAST_TH + m.kh - 1) * SROW * sizeof (Vec<C>);
  int status = allow_shared ((const void *) kernel, bytes);
  /* as many segments as fill every SM FAST_MIN_BLOCKS deep, each a whole
   * number of steps */
  int segments = max (1, (multiprocessors () * FAST_MIN_BLOCKS<C>) / columns);
  int segment = (int) div_up ((int) div_up (rows, segments), FAST_TH)
      * FAST_TH;

  if (status != CF_OK)
    return status;
  segment = min (max (segment, FAST_TH), FAST_MAX_SEGMENT);
  dim3 grid (columns, div_up (rows, segment));
  kernel<<<grid, dim3 (FAST_BX, FAST_BY), bytes, L.stream>>> (L.im, m,
      segment);
  return launch_status ();
}

template <typename T, int C>
struct Fast
{
  static int run (const Launch & L)
  {
    Mask m = make_mask (L.plan);
    int two = L.plan->magnitude;
    switch (L.plan->kw) {
#define CASE(k) case k: return two ? launch_fast<T, C, k, 2> (L, m) \
                                   : launch_fast<T, C, k, 1> (L, m);
      CF_ODD_SIZES (CASE)
#undef CASE
      default: return CF_ERR_INVALID;
    }
  }
};

}  /* namespace cf */

int
cf_conv2d_fast (const cf::Launch & launch, const cf_plane_format * f)
{
  return cf::dispatch_layout<cf::Fast> (f, launch);
}
