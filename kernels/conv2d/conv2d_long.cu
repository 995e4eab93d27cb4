/* The long path's CUDA kernels (conv2d_long.h): up to four launches a
 * plane, through work planes in device memory.
 *
 * - rows_weighted: a block takes ROW_GROUPS * RUN computed columns of one
 *   source row; the source samples they reach (border applied) go to
 *   shared memory as floats, a channel's apart, the row factor beside
 *   them; a warp takes a channel, a lane RUN neighbouring computed
 *   columns (sliding_dot).
 * - rows_box: a block takes 256 columns of one row; the samples
 *   they reach go to shared memory as prefix sums (a scan in warps), and a
 *   window's sum is a difference of two.
 * - cols_weighted: a thread takes one value (computed column and channel)
 *   and RUN computed rows, down the row pass's plane, neighbouring lanes
 *   on neighbouring values; where both steps are 1 it writes the output,
 *   else the column pass's plane.
 * - cols_box: a thread takes one value down a run of rows: the window's
 *   sum for the first, then a row added below and one taken off above.
 * - interpolate: a thread a pixel, between the four computed values
 *   around it.
 *
 * The factors go to the start of the work area, ahead of the planes, with
 * the first copy: a plan's taps (up to 8 KB) exceed a launch's parameters. */
#include <cuda_runtime.h>
#include <cstdint>

#include "cf_fault.h"
#include "conv2d_common.cuh"
#include "conv2d_long.h"

namespace cf_conv2d_long
{

constexpr int BOX_THREADS = 256;

struct Args
{
  const uint8_t *src;
  size_t src_stride;
  uint8_t *dst;
  size_t dst_stride;
  int width, height;
  int kw, kh;
  cf_border border;
  int step_x, step_y, nx, ny;
  int keep;                     /* channel copied, or -1 */
  float scale, offset;
  double weight;                /* boxes: taps over the divisor */
};

__device__ __forceinline__ int
position (int k, int step, int size)
{
  int at = k * step;
  return at < size - 1 ? at : size - 1;
}

template < typename T > __device__ __forceinline__ float
sample (const Args & a, int x, int y, int c, int channels)
{
  const T *row = (const T *) (a.src + (size_t) y * a.src_stride);
  return (float) row[(size_t) x * channels + c];
}

template < typename T > __device__ __forceinline__ void
store (const Args & a, int x, int y, int c, int channels, float v)
{
  const float top = sizeof (T) == 2 ? 65535.0f : 255.0f;
  T *row = (T *) (a.dst + (size_t) y * a.dst_stride);
  row[(size_t) x * channels + c] = (T) rintf (fminf (fmaxf (v, 0.0f), top));
}

template < typename T > __device__ __forceinline__ void
store_exact (const Args & a, int x, int y, int c, int channels, double v)
{
  const double top = sizeof (T) == 2 ? 65535.0 : 255.0;
  T *row = (T *) (a.dst + (size_t) y * a.dst_stride);
  row[(size_t) x * channels + c] = (T) rint (fmin (fmax (v, 0.0), top));
}

/* Shared-memory index of sample `i` of a channel's segment: a word of
 * padding every 32, so that lanes R * step samples apart meet different
 * banks. */
__device__ __forceinline__ int
padded (int i)
{
  return i + (i >> 5);
}

/* out[j] = sum over taps i of taps[i] * in[j * step + i], j < RUN, for a
 * run of outputs `step` apart: the taps in `step` phases, each a sliding
 * window of 2 RUN values in registers, so that RUN new samples serve RUN^2
 * multiply-adds. `in` must be readable up to (RUN + taps + 2 RUN) * step
 * and `taps` zero from `n` to n + 2 RUN * step. LOAD(k) reads in[k]. */
template < int RUN, typename Load > __device__ __forceinline__ void
sliding_dot (const float *taps, int n, int step, Load load, float *out)
{
#pragma unroll
  for (int j = 0; j < RUN; j++)
    out[j] = 0.0f;
  for (int p = 0; p < step; p++) {
    int taps_in_phase = (n - p + step - 1) / step;
    float v[2 * RUN];
#pragma unroll
    for (int t = 0; t < RUN; t++)
      v[t] = load (t * step + p);
    for (int m = 0; m < taps_in_phase; m += RUN) {
#pragma unroll
      for (int t = 0; t < RUN; t++)
        v[RUN + t] = load ((m + RUN + t) * step + p);
#pragma unroll
      for (int t = 0; t < RUN; t++) {
        float w = taps[(m + t) * step + p];
#pragma unroll
        for (int j = 0; j < RUN; j++)
          out[j] = fmaf (w, v[j + t], out[j]);
      }
#pragma unroll
      for (int t = 0; t < RUN; t++)
        v[t] = v[RUN + t];
    }
  }
}

constexpr int RUN = 8;          /* outputs a thread, ROW_GROUPS a warp */
constexpr int ROW_GROUPS = 32;

/* Samples of a row block's segment: its outputs' reach and the sliding
 * windows' overrun. */
__host__ __device__ __forceinline__ int
row_segment (int step, int kw)
{
  return (ROW_GROUPS * RUN + 2 * RUN) * step + kw;
}

/* A block: one source row, ROW_GROUPS * RUN computed columns, a warp a
 * channel. */
template < typename T, int C > __global__ void
rows_weighted (Args a, const float *__restrict__ row_taps,
    float *__restrict__ out)
{
  extern __shared__ float seg[];
  const int len = row_segment (a.step_x, a.kw);
  const int stride = padded (len) + 1;
  float *taps = seg + C * stride;
  int y = blockIdx.y, k0 = blockIdx.x * ROW_GROUPS * RUN;
  int first = k0 * a.step_x - a.kw / 2;
  int threads = blockDim.x;

  for (int i = threadIdx.x; i < a.kw + 2 * RUN * a.step_x; i += threads)
    taps[i] = i < a.kw ? row_taps[i] : 0.0f;
#pragma unroll 4
  for (int q = threadIdx.x; q < len; q += threads) {
    int x = cf_border_index (first + q, a.width, a.border);
#pragma unroll
    for (int c = 0; c < C; c++)
      seg[c * stride + padded (q)] = x < 0 ? 0.0f
          : sample < T > (a, x, y, c, C);
  }
  __syncthreads ();
  int c = threadIdx.x >> 5, group = threadIdx.x & 31;
  int k = k0 + group * RUN;
  if (k >= a.nx)
    return;
  const float *in = seg + c * stride;
  int base = group * RUN * a.step_x;
  float acc[RUN];
  sliding_dot < RUN > (taps, a.kw, a.step_x,[&](int i) {
        return in[padded (base + i)];}, acc);
  float *dst = out + (size_t) y * a.nx * C + c;
#pragma unroll
  for (int j = 0; j < RUN; j++)
    if (k + j < a.nx)
      dst[(size_t) (k + j) * C] = acc[j];
  /* the last computed column is the plane's last, not a step further;
   * its reach may start before the block's segment (when it is the
   * block's first column), so it reads the plane itself */
  int last = a.nx - 1, at = last * a.step_x;
  if (last >= k && last < k + RUN && at != a.width - 1) {
    float sum = 0.0f;
    for (int i = 0; i < a.kw; i++) {
      int x = cf_border_index (a.width - 1 - a.kw / 2 + i, a.width,
          a.border);
      sum = fmaf (taps[i], x < 0 ? 0.0f : sample < T > (a, x, y, c, C), sum);
    }
    dst[(size_t) last * C] = sum;
  }
}

/* Exclusive prefix of `v` over the block's threads (a multiple of 32), in
 * warps, then the warps' totals; `spare` holds a total a warp. */
__device__ __forceinline__ int
block_prefix (int v, int *spare)
{
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, inclusive = v;

  for (int d = 1; d < 32; d <<= 1) {
    int up = __shfl_up_sync (0xffffffffu, inclusive, d);
    if (lane >= d)
      inclusive += up;
  }
  if (lane == 31)
    spare[warp] = inclusive;
  __syncthreads ();
  int before = 0;
  for (int w = 0; w < warp; w++)
    before += spare[w];
  __syncthreads ();
  return before + inclusive - v;
}

template < typename T, int C > __global__ void
rows_box (Args a, int32_t * __restrict__ out, int per_block)
{
  extern __shared__ int32_t prefix[];
  __shared__ int spare[BOX_THREADS / 32];
  int y = blockIdx.y, x0 = blockIdx.x * per_block;
  int outputs = min (per_block, a.width - x0);
  int len = outputs + a.kw - 1;
  int chunk = (len + blockDim.x - 1) / blockDim.x;
  int p0 = threadIdx.x * chunk, p1 = min (p0 + chunk, len);

  /* each thread sums its chunk of samples, in place */
  int own[C];
#pragma unroll
  for (int c = 0; c < C; c++)
    own[c] = 0;
  for (int p = p0; p < p1; p++) {
    int x = cf_border_index (x0 - a.kw / 2 + p, a.width, a.border);
#pragma unroll
    for (int c = 0; c < C; c++) {
      own[c] += x < 0 ? 0 : (int) sample < T > (a, x, y, c, C);
      prefix[(p + 1) * C + c] = own[c];
    }
  }
  if (threadIdx.x == 0)
#pragma unroll
    for (int c = 0; c < C; c++)
      prefix[c] = 0;
#pragma unroll
  for (int c = 0; c < C; c++) {
    int before = block_prefix (own[c], spare);
    for (int p = p0; p < p1; p++)
      prefix[(p + 1) * C + c] += before;
  }
  __syncthreads ();
  int32_t *dst = out + ((size_t) y * a.width + x0) * C;
  for (int i = threadIdx.x; i < outputs * C; i += blockDim.x)
    dst[i] = prefix[i + a.kw * C] - prefix[i];
}

/* A thread: one value (computed column and channel), RUN computed rows,
 * neighbouring lanes on neighbouring values; the rows of the row pass's
 * plane read through the border. */
template < typename T, int C, bool DIRECT > __global__ void
cols_weighted (Args a, const float *__restrict__ col_taps,
    const float *__restrict__ rows, float *__restrict__ cols)
{
  extern __shared__ float taps[];
  int len = a.nx * C;
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  int m0 = (blockIdx.y * blockDim.y + threadIdx.y) * RUN;

  for (int i = threadIdx.y * blockDim.x + threadIdx.x;
      i < a.kh + 2 * RUN * a.step_y; i += blockDim.x * blockDim.y)
    taps[i] = i < a.kh ? col_taps[i] : 0.0f;
  __syncthreads ();
  if (v >= len || m0 >= a.ny)
    return;
  int first = m0 * a.step_y - a.kh / 2;
  const float *column = rows + v;
  float acc[RUN];
  sliding_dot < RUN > (taps, a.kh, a.step_y,[&](int i) {
        int r = cf_border_index (first + i, a.height, a.border);
        return r < 0 ? 0.0f : __ldg (column + (size_t) r * len);}, acc);
  /* the last computed row is the plane's last, not a step further */
  int last = a.ny - 1;
  if (last >= m0 && last < m0 + RUN && last * a.step_y != a.height - 1) {
    float sum = 0.0f;
    for (int i = 0; i < a.kh; i++) {
      int r = cf_border_index (a.height - 1 - a.kh / 2 + i, a.height,
          a.border);
      sum = fmaf (taps[i], r < 0 ? 0.0f : __ldg (column + (size_t) r * len),
          sum);
    }
    acc[last - m0] = sum;
  }
#pragma unroll
  for (int j = 0; j < RUN; j++) {
    int m = m0 + j;
    if (m >= a.ny)
      break;
    if (!DIRECT) {
      cols[(size_t) m * len + v] = acc[j];
      continue;
    }
    int x = v / C, c = v % C, y = m;
    if (c == a.keep)
      store < T > (a, x, y, c, C, sample < T > (a, x, y, c, C));
    else
      store < T > (a, x, y, c, C, fmaf (acc[j], a.scale, a.offset));
  }
}

template < typename T, int C > __global__ void
cols_box (Args a, const int32_t * __restrict__ rows, int run)
{
  int len = a.width * C;
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  int y0 = blockIdx.y * run, y1 = min (y0 + run, a.height);
  if (v >= len)
    return;
  int ry = a.kh / 2, x = v / C, c = v % C;
  long long sum = 0;
  for (int k = y0 - ry; k <= y0 + ry; k++) {
    int r = cf_border_index (k, a.height, a.border);
    sum += r < 0 ? 0 : rows[(size_t) r * len + v];
  }
#pragma unroll 4
  for (int y = y0; y < y1; y++) {
    if (c == a.keep)
      store < T > (a, x, y, c, C, sample < T > (a, x, y, c, C));
    else
      store_exact < T > (a, x, y, c, C, (double) sum * a.weight + a.offset);
    int in = cf_border_index (y + 1 + ry, a.height, a.border);
    int out = cf_border_index (y - ry, a.height, a.border);
    sum += (in < 0 ? 0 : rows[(size_t) in * len + v])
        - (out < 0 ? 0 : rows[(size_t) out * len + v]);
  }
}

/* The interpolation's cell and weight for output coordinate x. */
__device__ __forceinline__ void
locate (int x, int step, int n, int size, int &k, float &t)
{
  if (n == 1) {
    k = 0;
    t = 0.0f;
    return;
  }
  k = min (x / step, n - 2);
  int a = position (k, step, size), b = position (k + 1, step, size);
  t = (float) (x - a) / (float) (b - a);
}

template < typename T, int C > __global__ void
interpolate (Args a, const float *__restrict__ cols)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= a.width)
    return;
  int len = a.nx * C, m, k;
  float ty, tx;
  locate (y, a.step_y, a.ny, a.height, m, ty);
  locate (x, a.step_x, a.nx, a.width, k, tx);
  const float *q = cols + (size_t) m * len;
  const float *q2 = a.ny > 1 ? q + len : q;
#pragma unroll
  for (int c = 0; c < C; c++) {
    int i = k * C + c, j = a.nx > 1 ? i + C : i;
    float top = (1.0f - tx) * __ldg (q + i) + tx * __ldg (q + j);
    float bottom = (1.0f - tx) * __ldg (q2 + i) + tx * __ldg (q2 + j);
    float sum = (1.0f - ty) * top + ty * bottom;
    if (c == a.keep)
      store < T > (a, x, y, c, C, sample < T > (a, x, y, c, C));
    else
      store < T > (a, x, y, c, C, fmaf (sum, a.scale, a.offset));
  }
}

static size_t
taps_bytes (const cf_conv2d_plan * p)
{
  return ((p->kw + p->kh) * sizeof (float) + 255) / 256 * 256;
}

static int
launched ()
{
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}

template < typename T, int C > static int
run (const Args & a, const cf_conv2d_plan * p, uint8_t * work,
    cudaStream_t s)
{
  float *row_taps = (float *) work, *col_taps = row_taps + p->kw;
  uint8_t *planes = work + taps_bytes (p);
  int status;

  if (p->box) {
    /* 1024 outputs a block for masks over 255 (halo read 2x, not 5x) was
     * slower: 1338 us at 4K for box 1023 against 941 */
    int per_block = 256;
    dim3 grid ((a.width + per_block - 1) / per_block, a.height);
    size_t shared = (size_t) (per_block + a.kw) * C * sizeof (int32_t);
    rows_box < T, C > <<<grid, BOX_THREADS, shared, s>>> (a,
        (int32_t *) planes, per_block);
    if ((status = launched ()) != CF_OK)
      return status;
    /* runs long enough that the first window's sum (kh rows) costs a few
     * rows of the run at most */
    int run = a.kh <= 128 ? 128 : 512;
    dim3 grid2 ((a.width * C + 127) / 128, (a.height + run - 1) / run);
    cols_box < T, C > <<<grid2, 128, 0, s>>> (a, (const int32_t *) planes,
        run);
    return launched ();
  }

  const int per_block = ROW_GROUPS * RUN;
  dim3 grid ((a.nx + per_block - 1) / per_block, a.height);
  int len = row_segment (a.step_x, a.kw);
  size_t shared = ((size_t) (len + (len >> 5) + 2) * C + a.kw
      + 2 * RUN * a.step_x) * sizeof (float);
  float *rows = (float *) planes;
  float *cols = rows + (size_t) a.nx * C * a.height;
  if ((status = cf_conv2d::allow_shared ((const void *) rows_weighted < T,
              C >, shared)) != CF_OK)
    return status;
  rows_weighted < T, C > <<<grid, 32 * C, shared, s>>> (a, row_taps, rows);
  if ((status = launched ()) != CF_OK)
    return status;
  dim3 block (32, 4);
  dim3 grid2 ((a.nx * C + 31) / 32, (a.ny + 4 * RUN - 1) / (4 * RUN));
  size_t col_shared = (a.kh + 2 * RUN * a.step_y) * sizeof (float);
  if (a.step_x == 1 && a.step_y == 1) {
    cols_weighted < T, C, true > <<<grid2, block, col_shared, s>>> (a,
        col_taps, rows, NULL);
    return launched ();
  }
  cols_weighted < T, C, false > <<<grid2, block, col_shared, s>>> (a,
      col_taps, rows, cols);
  if ((status = launched ()) != CF_OK)
    return status;
  dim3 grid3 ((a.width + 127) / 128, a.height);
  interpolate < T, C > <<<grid3, 128, 0, s>>> (a, cols);
  return launched ();
}

}  /* namespace cf_conv2d_long */

extern "C" int
cf_conv2d_long_cuda (const cf_conv2d_plan * plan,
    const cf_plane_format * f, const void *d_src, size_t src_stride,
    void *d_dst, size_t dst_stride, void *d_work, cf_stream stream)
{
  using namespace cf_conv2d_long;
  int status = cf_plane_format_check (f);
  cudaStream_t s = (cudaStream_t) stream;
  cf_conv2d_long_grid g;
  size_t row_bytes;
  Args a;

  if (status != CF_OK)
    return status;
  row_bytes = f->width * cf_plane_format_pixel_bytes (f);
  if (!plan || !plan->long_mask || !d_src || !d_dst || !d_work
      || f->height > CF_CONV2D_LONG_MAX_HEIGHT
      || src_stride < row_bytes || dst_stride < row_bytes
      || (f->sample == CF_SAMPLE_U16
          && (((uintptr_t) d_src | (uintptr_t) d_dst | src_stride
                  | dst_stride) & 1)))
    return CF_ERR_INVALID;

  cf_conv2d_long_grid_init (&g, plan, f);
  a.src = (const uint8_t *) d_src;
  a.src_stride = src_stride;
  a.dst = (uint8_t *) d_dst;
  a.dst_stride = dst_stride;
  a.width = f->width;
  a.height = f->height;
  a.kw = plan->kw;
  a.kh = plan->kh;
  a.border = plan->border;
  a.step_x = g.step_x;
  a.step_y = g.step_y;
  a.nx = g.nx;
  a.ny = g.ny;
  a.keep = f->channels == 4 ? f->keep_channel : -1;
  a.scale = plan->scale;
  a.offset = plan->offset;
  a.weight = plan->box_weight;

  status = cf_fault_check (CF_FAULT_COPY, (int) cudaMemcpyAsync (d_work,
          plan->row, plan->kw * sizeof (float), cudaMemcpyHostToDevice, s));
  if (status == CF_OK)
    status = cf_fault_check (CF_FAULT_COPY, (int) cudaMemcpyAsync ((float *)
            d_work + plan->kw, plan->col, plan->kh * sizeof (float),
            cudaMemcpyHostToDevice, s));
  if (status != CF_OK)
    return status;

  uint8_t *work = (uint8_t *) d_work;
  if (f->sample == CF_SAMPLE_U16)
    return run < uint16_t, 1 > (a, plan, work, s);
  switch (f->channels) {
    case 1: return run < uint8_t, 1 > (a, plan, work, s);
    case 2: return run < uint8_t, 2 > (a, plan, work, s);
    case 3: return run < uint8_t, 3 > (a, plan, work, s);
    default: return run < uint8_t, 4 > (a, plan, work, s);
  }
}
