/* Loudness, the CUDA twin (see loudness.h): the K-weighting, the sums of
 * squares of each 100 ms step and the peaks of a buffer on the GPU, the
 * steps' accounting (gates, windows, range) on the host as the CPU twin
 * does it. Buffers are queued without waiting: their sums go into rows of
 * steps counted from the last collection, and the peaks into running
 * maxima, all on the device until cf_loudness_collect_cuda reads them.
 *
 * The K-weighting is a recursion (two biquads, four state values a
 * channel): one warp a channel takes the buffer in tiles of 32 segments
 * of 32 frames (see measure_kernel), reading the raw samples (any format,
 * interleaved or planar) where the caller put them on the device. The true
 * peak reads the samples and the 12 before them (the last buffer's, kept
 * on the device). All in double. */
#include "cf_fault.h"

#include <cuda_runtime.h>

#include "gpu.h"
#include "audio_sample.h"
#include "loudness_private.h"

namespace cf_loudness_cuda
{

constexpr int LANES = 32;
constexpr int STATE = 4;
constexpr int KEPT = SPAN - 1;  /* samples of the last buffer kept */

/* Frames a tile: a segment of SEGMENT frames for each lane of the
 * recursion's warp. */
constexpr int SEGMENT = 32;
constexpr int TILE = LANES * SEGMENT;
constexpr int ROW = SEGMENT + 1;        /* a lane's segment in shared memory,
                                         * padded off the banks of the next */
/* Warps a block: the recursion's, then the true peak's (enough that a
 * thread's share of the oversampling is a few frames: with three, their
 * runs set the kernel's time). */
constexpr int PEAK_WARPS = 15;
constexpr int THREADS = LANES * (1 + PEAK_WARPS);
/* Squarings of a whole segment's carry the scan of the segments' starts
 * takes: M, M^2, M^4, ..., M^(LANES / 2). */
constexpr int POWERS = 5;
/* Steps a tile's frames touch at most: a step is 100 ms, 800 frames or
 * more (8 kHz on). */
constexpr int MIN_STEP = 800;
constexpr int PIECES = (TILE - 1) / MIN_STEP + 2;

struct Filter
{
  double shelf[5], highpass[5];
  double interp[SPAN * MAX_FACTOR];
  int factor;
  /* reach[i][j]: output i of a segment run from unit state j with no
   * input; powers[k]: a unit state through 2^k whole segments */
  double reach[SEGMENT][STATE];
  double powers[POWERS][STATE][STATE];
};

__host__ __device__ inline double
biquad (const double *co, double *s, double x)
{
  double y = co[0] * x + s[0];
  s[0] = co[1] * x - co[3] * y + s[1];
  s[1] = co[2] * x - co[4] * y;
  return y;
}

__host__ __device__ inline double
cascade (const double *shelf, const double *highpass, double *s, double x)
{
  return biquad (highpass, s + 2, biquad (shelf, s, x));
}

__host__ __device__ inline double
cascade (const Filter & f, double *s, double x)
{
  return cascade (f.shelf, f.highpass, s, x);
}

/* Frame k of the tile in shared memory. */
__device__ inline double &
tile_at (double *xs, int k)
{
  return xs[k / SEGMENT * ROW + k % SEGMENT];
}

/* The sample at frame `at` of the buffer (negative: of the last one,
 * `kept` holding the channel's last samples, newest first). */
__device__ inline double
frame_at (const cf_audio_layout & layout, const void *src, int c,
    const double *kept, int at)
{
  return at >= 0 ? cf_sample_get (layout.format, src, cf_sample_index
      (&layout, c, at)) : kept[-at - 1];
}

/* v += m w */
__device__ inline void
add_product (double (&v)[STATE], const double (&m)[STATE][STATE],
    const double (&w)[STATE])
{
#pragma unroll
  for (int r = 0; r < STATE; r++)
#pragma unroll
    for (int j = 0; j < STATE; j++)
      v[r] = fma (m[r][j], w[j], v[r]);
}

/* One block a channel, reading the raw samples in `layout`. `energy` holds
 * a row a step, channel-minor, the first row the step at frame -offset of
 * this buffer (rows zeroed when collected); `peaks` each channel's sample
 * and true peak so far.
 *
 * The buffer goes by tiles of TILE frames, loaded by the whole block into
 * shared memory. The filters are linear: a segment's outputs from a start
 * state s are its outputs from rest plus reach x s, and its end state its
 * end from rest plus M s (M: a whole segment's carry; reach and the powers
 * of M are the filters' own, made once on the host). So, in a tile:
 *   1. lane t of warp 0 runs segment t from rest, keeping its outputs and
 *      end state, while the other warps take the true peak of the tile's
 *      frames (each thread a run of frames, a window of the last SPAN
 *      samples in registers) and four lanes find the carry of the tile's
 *      last, shorter segment;
 *   2. warp 0 scans the segments' start states from the tile's, five
 *      steps of 4x4 products by the powers of M instead of 32 in a chain;
 *   3. every thread corrects a run of outputs by reach x its segment's
 *      start and sums their squares into the steps.
 * Only step 1 is a chain of dependent operations as long as a segment. */
__global__ void __launch_bounds__ (THREADS)
measure_kernel (const Filter * filter, cf_audio_layout layout, const void *src,
    int frames, int step, long long offset, int channels, double *state,
    double *history, double *energy, double *peaks)
{
  __shared__ double xs[LANES * ROW];    /* the tile's samples */
  __shared__ double ys[LANES * ROW];    /* their outputs from rest */
  /* the filters, read once from device memory (as a parameter, their
   * 2 KB made every launch slower) */
  __shared__ Filter f;
  __shared__ double last_carry[STATE][STATE];
  __shared__ double zero_end[LANES][STATE];
  __shared__ double start[LANES + 1][STATE];    /* [LANES]: the next tile's */
  __shared__ double maxima[1 + PEAK_WARPS][2];
  /* the last buffer's last samples, read once: a thread a sample, where
   * one thread reading them in turn waited for each */
  __shared__ double kept[KEPT];
  const int c = blockIdx.x, tid = threadIdx.x;
  const int warp = tid / LANES, lane = tid % LANES;
  double sample_peak = 0.0, true_peak = 0.0;

  for (int k = tid; k < (int) (sizeof (Filter) / sizeof (double));
      k += THREADS)
    reinterpret_cast<double *> (&f)[k] =
        reinterpret_cast<const double *> (filter)[k];
  if (tid < STATE)
    start[LANES][tid] = state[c * STATE + tid];
  if (tid < KEPT)
    kept[tid] = history[c * KEPT + tid];

  for (int tile = 0; tile < frames; tile += TILE) {
    const int n = min (TILE, frames - tile);
    constexpr int PER = TILE / THREADS;

    /* every load of the tile in flight at once, then into shared memory */
    double v[PER];
#pragma unroll
    for (int q = 0; q < PER; q++) {
      int k = tid + q * THREADS;
      v[q] = k < n ? cf_sample_get (layout.format, src, cf_sample_index
          (&layout, c, tile + k)) : 0.0;
    }
    __syncthreads ();           /* the last tile is done with */
#pragma unroll
    for (int q = 0; q < PER; q++)
      tile_at (xs, tid + q * THREADS) = v[q];
    __syncthreads ();

    if (warp == 0) {
      /* 1. the segment from rest: its outputs, its end state */
      const int from = min (n, lane * SEGMENT), to = min (n, from + SEGMENT);
      double s[STATE] = { 0, 0, 0, 0 }, shelf[5], highpass[5];
      /* (in registers: the chain waits on no shared load) */
#pragma unroll
      for (int k = 0; k < 5; k++) {
        shelf[k] = f.shelf[k];
        highpass[k] = f.highpass[k];
      }
      for (int i = from; i < to; i++) {
        double x = tile_at (xs, i);
        tile_at (ys, i) = cascade (shelf, highpass, s, x);
        sample_peak = fmax (sample_peak, fabs (x));
      }
#pragma unroll
      for (int r = 0; r < STATE; r++)
        zero_end[lane][r] = s[r];
    } else if (warp == 1 && lane < STATE) {
      /* a unit start state through the tile's last, shorter segment */
      double u[STATE] = { 0, 0, 0, 0 };
      u[lane] = 1.0;
      for (int i = 0; i < n % SEGMENT; i++)
        cascade (f, u, 0.0);
#pragma unroll
      for (int r = 0; r < STATE; r++)
        last_carry[r][lane] = u[r];
    } else if (warp > 0) {
      /* the true peak of a run of the tile's frames */
      int runs = PEAK_WARPS * LANES - STATE;
      int k = tid - LANES - STATE;
      int per = (n + runs - 1) / runs;
      int a = min (n, k * per), b = min (n, a + per);
      double window[SPAN];      /* window[m]: frame i - m */
#pragma unroll
      for (int m = 1; m < SPAN; m++) {
        int at = a - m;
        window[m] = at >= 0 ? tile_at (xs, at) : frame_at (layout, src, c,
            kept, tile + at);
      }
      for (int i = a; i < b; i++) {
        window[0] = tile_at (xs, i);
#pragma unroll
        for (int ph = 0; ph < MAX_FACTOR; ph++) {
          if (ph < f.factor) {
            double sum = 0.0;
#pragma unroll
            for (int m = 0; m < SPAN; m++)
              sum += f.interp[ph * SPAN + m] * window[m];
            true_peak = fmax (true_peak, fabs (sum));
          }
        }
#pragma unroll
        for (int m = SPAN - 1; m > 0; m--)
          window[m] = window[m - 1];
      }
    }
    __syncthreads ();

    if (warp == 0) {
      /* 2. the segments' starts: lane t ends with the start of segment
       * t + 1 as if every segment up to t were whole, the sum over i <= t
       * of M^(t - i) times segment i's end from rest, the tile's start
       * folded into segment 0's */
      const int segments = (n + SEGMENT - 1) / SEGMENT;
      double sum[STATE], tile_start[STATE];
#pragma unroll
      for (int r = 0; r < STATE; r++) {
        tile_start[r] = start[LANES][r];
        sum[r] = zero_end[lane][r];
      }
      if (lane == 0)
        add_product (sum, f.powers[0], tile_start);
#pragma unroll
      for (int k = 0; k < POWERS; k++) {
        double below[STATE];
#pragma unroll
        for (int r = 0; r < STATE; r++)
          below[r] = __shfl_up_sync (0xffffffffu, sum[r], 1 << k);
        if (lane >= (1 << k))
          add_product (sum, f.powers[k], below);
      }
      double mine[STATE];
#pragma unroll
      for (int r = 0; r < STATE; r++) {
        double before = __shfl_up_sync (0xffffffffu, sum[r], 1);
        mine[r] = lane == 0 ? tile_start[r] : before;
        start[lane][r] = mine[r];
      }
      __syncwarp ();
      /* the next tile's start: the last segment's end, whole or not */
      if (lane == segments - 1) {
        if (n % SEGMENT != 0) {
#pragma unroll
          for (int r = 0; r < STATE; r++)
            sum[r] = zero_end[lane][r];
          add_product (sum, last_carry, mine);
        }
#pragma unroll
        for (int r = 0; r < STATE; r++)
          start[LANES][r] = sum[r];
      }
    }
    __syncthreads ();

    /* 3. a run of PER frames a thread (inside one segment), its outputs
     * corrected by its segment's start, their squares summed by step */
    {
      const int a = tid * PER, b = min (n, a + PER);
      const long long first_piece = (offset + tile) / step;
      double sums[PIECES] = { };
      if (a < n) {
        double st[STATE];
        /* the step of frame a, and frames of it before a (one division a
         * run: 64-bit divisions are long sequences of instructions) */
        long long at = offset + tile + a;
        int p = (int) (at / step - first_piece), into = (int) (at % step);
#pragma unroll
        for (int r = 0; r < STATE; r++)
          st[r] = start[a / SEGMENT][r];
        for (int i = a; i < b; i++, into++) {
          double y = tile_at (ys, i);
#pragma unroll
          for (int r = 0; r < STATE; r++)
            y = fma (f.reach[i % SEGMENT][r], st[r], y);
          if (into == step) {
            p++;
            into = 0;
          }
          if (p >= PIECES)      /* steps shorter than MIN_STEP */
            atomicAdd (&energy[(size_t) (first_piece + p) * channels + c],
                y * y);
#pragma unroll
          for (int q = 0; q < PIECES; q++)
            sums[q] += q == p ? y * y : 0.0;
        }
      }
      /* a warp's sums, then one atomic a warp and piece */
#pragma unroll
      for (int q = 0; q < PIECES; q++) {
        double v = sums[q];
        for (int o = LANES / 2; o > 0; o /= 2)
          v += __shfl_down_sync (0xffffffffu, v, o);
        /* (a piece no frame reached sums to 0 exactly: no row to touch) */
        if (lane == 0 && v != 0.0)
          atomicAdd (&energy[(size_t) (first_piece + q) * channels + c], v);
      }
    }
  }

  /* the peaks of the block: a warp's, then the warps' */
  for (int o = LANES / 2; o > 0; o /= 2) {
    sample_peak = fmax (sample_peak, __shfl_down_sync (0xffffffffu,
            sample_peak, o));
    true_peak = fmax (true_peak, __shfl_down_sync (0xffffffffu, true_peak,
            o));
  }
  if (lane == 0) {
    maxima[warp][0] = sample_peak;
    maxima[warp][1] = true_peak;
  }
  __syncthreads ();

  /* 4. the filters' state, the peaks, and the last samples (newest
   * first) for the next buffer */
  if (tid == 0) {
    for (int r = 0; r < STATE; r++)
      state[c * STATE + r] = start[LANES][r];
    for (int w = 0; w <= PEAK_WARPS; w++) {
      sample_peak = fmax (sample_peak, maxima[w][0]);
      true_peak = fmax (true_peak, maxima[w][1]);
    }
    /* the samples themselves count towards the true peak, as in the CPU
     * twin */
    true_peak = fmax (true_peak, sample_peak);
    peaks[c * 2] = fmax (peaks[c * 2], sample_peak);
    peaks[c * 2 + 1] = fmax (peaks[c * 2 + 1], true_peak);
  }
  /* a thread a kept sample, from the last tile where it lies there (only
   * the shared copy of the old ones is read: no thread reads what another
   * writes) */
  if (tid < KEPT) {
    const int last = (frames - 1) / TILE * TILE, at = frames - 1 - tid;
    history[c * KEPT + tid] = at >= last ? tile_at (xs, at - last)
        : frame_at (layout, src, c, kept, at);
  }
}

/* The filters as the kernel takes them, with their reach and the powers
 * of a whole segment's carry, worked out on the host once a meter. */
static void
make_filter (const cf_loudness * l, Filter * f)
{
  double m[STATE][STATE];

  for (int k = 0; k < 5; k++) {
    f->shelf[k] = l->shelf[k];
    f->highpass[k] = l->highpass[k];
  }
  for (int k = 0; k < SPAN * MAX_FACTOR; k++)
    f->interp[k] = l->interp[k];
  f->factor = l->factor;
  for (int j = 0; j < STATE; j++) {
    double u[STATE] = { 0, 0, 0, 0 };
    u[j] = 1.0;
    for (int i = 0; i < SEGMENT; i++)
      f->reach[i][j] = cascade (*f, u, 0.0);
    for (int r = 0; r < STATE; r++)
      m[r][j] = u[r];
  }
  for (int k = 0; k < POWERS; k++) {
    double sq[STATE][STATE];
    for (int r = 0; r < STATE; r++)
      for (int j = 0; j < STATE; j++) {
        f->powers[k][r][j] = m[r][j];
        sq[r][j] = 0.0;
      }
    for (int r = 0; r < STATE; r++)
      for (int j = 0; j < STATE; j++)
        for (int q = 0; q < STATE; q++)
          sq[r][j] += m[r][q] * m[q][j];
    for (int r = 0; r < STATE; r++)
      for (int j = 0; j < STATE; j++)
        m[r][j] = sq[r][j];
  }
}

}                               /* namespace cf_loudness_cuda */

using namespace cf_loudness_cuda;

struct cf_loudness_device
{
  double *state, *history, *energy, *peaks;     /* device */
  Filter *filter_dev;           /* `filter`, where the kernel reads it */
  double *host;                 /* page-locked: rows, then the peaks */
  size_t rows;                  /* room in energy and host */
  long long queued;             /* frames queued since the last collection */
  cudaStream_t stream;          /* where they were queued */
  Filter filter;                /* as the kernel takes it */
};

void
cf_loudness_device_free (cf_loudness_device * d)
{
  if (!d)
    return;
  /* (cudaFree waits for the device: no queued buffer still writes) */
  cudaFree (d->state);
  cudaFree (d->history);
  cudaFree (d->energy);
  cudaFree (d->peaks);
  cudaFree (d->filter_dev);
  cudaFreeHost (d->host);
  free (d);
}

/* Zeroed device memory of `bytes`, queued on `stream`. */
static int
zeroed (double **ptr, size_t bytes, cudaStream_t stream)
{
  int st = cf_fault_check (CF_FAULT_ALLOC, (int) cudaMalloc (ptr, bytes));
  return st != 0 ? st : (int) cudaMemsetAsync (*ptr, 0, bytes, stream);
}

/* The state and room for `rows` steps; rows grow only with nothing
 * queued. */
static int
ensure_device (cf_loudness * l, size_t rows, cudaStream_t stream)
{
  cf_loudness_device *d = l->device;
  size_t ch = (size_t) l->channels;
  int st;

  if (!d) {
    d = static_cast<cf_loudness_device *> (calloc (1, sizeof (*d)));
    if (!d)
      return CF_ERR_NO_MEMORY;
    make_filter (l, &d->filter);
    if ((st = zeroed (&d->state, sizeof (double) * STATE * ch, stream)) != 0
        || (st = zeroed (&d->history, sizeof (double) * KEPT * ch,
                stream)) != 0
        || (st = zeroed (&d->peaks, sizeof (double) * 2 * ch, stream)) != 0
        || (st = cf_fault_check (CF_FAULT_ALLOC, (int) cudaMalloc
                (&d->filter_dev, sizeof (Filter)))) != 0
        || (st = (int) cudaMemcpyAsync (d->filter_dev, &d->filter,
                sizeof (Filter), cudaMemcpyHostToDevice, stream)) != 0) {
      /* (no half-made state stays for the next buffer to launch on, and no
       * failed allocation's error for the next launch's check to report) */
      cf_loudness_device_free (d);
      cudaGetLastError ();
      return st;
    }
    l->device = d;
  }
  if (rows > d->rows) {
    cudaFree (d->energy);
    cudaFreeHost (d->host);
    d->energy = d->host = nullptr;
    d->rows = 0;
    if ((st = (int) cudaMallocHost (&d->host, sizeof (double) * (rows + 2)
                * ch)) != 0
        || (st = zeroed (&d->energy, sizeof (double) * rows * ch,
                stream)) != 0)
      return st;
    d->rows = rows;
  }
  return CF_OK;
}

/* Rows the steps of the queued frames and `frames` more touch. */
static size_t
rows_for (const cf_loudness * l, long long frames)
{
  long long end = l->step_frames + (l->device ? l->device->queued : 0)
      + frames;
  return (size_t) ((end - 1) / l->step + 1);
}

extern "C" int
cf_loudness_collect_cuda (cf_loudness * l)
{
  cf_loudness_device *d = l ? l->device : nullptr;
  size_t ch, rows;
  long long left;
  int st;

  if (!l)
    return CF_ERR_INVALID;
  if (!d || d->queued == 0)
    return CF_OK;
  ch = (size_t) l->channels;
  rows = rows_for (l, 0);
  left = d->queued;
  d->queued = 0;
  if ((st = (int) cudaMemcpyAsync (d->host, d->energy, sizeof (double)
              * rows * ch, cudaMemcpyDeviceToHost, d->stream)) != 0
      || (st = (int) cudaMemcpyAsync (d->host + rows * ch, d->peaks,
              sizeof (double) * 2 * ch, cudaMemcpyDeviceToHost,
              d->stream)) != 0
      || (st = cf_fault_check (CF_FAULT_SYNC,
              (int) cudaStreamSynchronize (d->stream))) != 0
      || (st = (int) cudaMemsetAsync (d->energy, 0, sizeof (double) * rows
              * ch, d->stream)) != 0)
    return st;

  /* the steps on the host, as the CPU twin accounts them */
  for (size_t p = 0; p < rows; p++) {
    long long n = l->step - l->step_frames < left ? l->step - l->step_frames
        : left;
    if ((st = cf_loudness_take_energy (l, d->host + p * ch, (int) n))
        != CF_OK)
      return st;
    left -= n;
  }
  for (size_t c = 0; c < ch; c++) {
    const double *pk = d->host + rows * ch + 2 * c;
    l->sample_peak[c] = fmax (l->sample_peak[c], pk[0]);
    l->true_peak[c] = fmax (l->true_peak[c], pk[1]);
  }
  return CF_OK;
}

extern "C" int
cf_loudness_queue_cuda (cf_loudness * l, const cf_audio_layout * layout,
    const void *src, int frames, cf_stream stream_)
{
  cudaStream_t stream = reinterpret_cast<cudaStream_t> (stream_);
  cf_loudness_device *d;
  size_t rows;
  int st;

  if (!l || !layout || layout->channels != l->channels
      || (unsigned) layout->format > CF_AUDIO_S32 || (!src && frames > 0)
      || frames < 0 || (!layout->interleaved && layout->channels > 1
          && layout->plane_pitch < (size_t) frames))
    return CF_ERR_INVALID;
  if (frames == 0)
    return CF_OK;
  /* queued on another stream, or no room: what is queued is read first */
  if (l->device && l->device->queued > 0 && (l->device->stream != stream
          || rows_for (l, frames) > l->device->rows)
      && (st = cf_loudness_collect_cuda (l)) != CF_OK)
    return st;
  rows = rows_for (l, frames);
  if ((st = ensure_device (l, rows < 64 ? 64 : rows, stream)) != CF_OK)
    return st;
  d = l->device;
  measure_kernel <<< (unsigned) l->channels, THREADS, 0, stream >>> (d->filter_dev,
      *layout, src, frames, l->step, l->step_frames + d->queued,
      l->channels, d->state, d->history, d->energy, d->peaks);
  if ((st = cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ())) != 0)
    return st;
  d->queued += frames;
  d->stream = stream;
  return CF_OK;
}

extern "C" int
cf_loudness_add_cuda (cf_loudness * l, const cf_audio_layout * layout,
    const void *src, int frames, cf_stream stream)
{
  int st = cf_loudness_queue_cuda (l, layout, src, frames, stream);
  return st != CF_OK ? st : cf_loudness_collect_cuda (l);
}
