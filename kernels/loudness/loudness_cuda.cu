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

struct Filter
{
  double shelf[5], highpass[5];
  double interp[SPAN * MAX_FACTOR];
  int factor;
};

__device__ inline double
biquad (const double *co, double *s, double x)
{
  double y = co[0] * x + s[0];
  s[0] = co[1] * x - co[3] * y + s[1];
  s[1] = co[2] * x - co[4] * y;
  return y;
}

__device__ inline double
cascade (const Filter & f, double *s, double x)
{
  return biquad (f.highpass, s + 2, biquad (f.shelf, s, x));
}

/* Frames a tile: a segment of SEGMENT frames for each lane of the
 * recursion's warp. */
constexpr int SEGMENT = 32;
constexpr int TILE = LANES * SEGMENT;
constexpr int ROW = SEGMENT + 1;        /* a lane's segment in shared memory,
                                         * padded off the banks of the next */
/* Warps a block: the recursion's, then the true peak's. */
constexpr int PEAK_WARPS = 3;
constexpr int THREADS = LANES * (1 + PEAK_WARPS);

/* Frame k of the tile in shared memory. */
__device__ inline double &
tile_at (double *xs, int k)
{
  return xs[k / SEGMENT * ROW + k % SEGMENT];
}

/* The sample at frame `at` of the buffer (negative: of the last one). */
__device__ inline double
frame_at (const cf_audio_layout & layout, const void *src, int c,
    const double *history, int at)
{
  return at >= 0 ? cf_sample_get (layout.format, src, cf_sample_index
      (&layout, c, at)) : history[c * KEPT + (-at - 1)];
}

/* One block a channel, reading the raw samples in `layout`. `energy` holds
 * a row a step, channel-minor, the first row the step at frame -offset of
 * this buffer (rows zeroed when collected); `peaks` each channel's sample
 * and true peak so far.
 *
 * The buffer goes by tiles of TILE frames, loaded by the whole block into
 * shared memory. In a tile, lane t of warp 0 takes segment t and runs it
 * from rest; lanes of warp 1 meanwhile find how a start state carries
 * through a whole segment, and through the tile's last, shorter one (4x4
 * matrices: the filters do not change, so one serves every segment of a
 * length); lane 0 chains the segments' start states from the tile's, and
 * each lane of warp 0 runs its segment again from its true start, summing
 * squares into the steps and taking the sample peak. The other warps take
 * the true peak of the tile's frames meanwhile, each thread a run of
 * frames with a window of the last SPAN samples in registers. Each
 * thread's work is chains of dependent double operations; the warps keep
 * them side by side. */
__global__ void __launch_bounds__ (THREADS)
measure_kernel (Filter f, cf_audio_layout layout, const void *src,
    int frames, int step, long long offset, int channels, double *state,
    double *history, double *energy, double *peaks)
{
  __shared__ double xs[LANES * ROW];
  __shared__ double carry[2][STATE][STATE];     /* whole and last segment */
  __shared__ double zero_end[STATE][LANES];
  __shared__ double start[LANES + 1][STATE];
  __shared__ double maxima[1 + PEAK_WARPS][2];
  const int c = blockIdx.x, tid = threadIdx.x;
  const int warp = tid / LANES, lane = tid % LANES;
  double sample_peak = 0.0, true_peak = 0.0;

  if (tid == 0)
    for (int r = 0; r < STATE; r++)
      start[LANES][r] = state[c * STATE + r];

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
    __syncthreads ();           /* the last tile is read */
#pragma unroll
    for (int q = 0; q < PER; q++)
      tile_at (xs, tid + q * THREADS) = v[q];
    __syncthreads ();

    const int from = min (n, lane * SEGMENT), to = min (n, from + SEGMENT);
    double s[STATE] = { 0, 0, 0, 0 };
    if (warp == 0) {
      /* 1. the segment from rest, with its samples */
      for (int i = from; i < to; i++)
        cascade (f, s, tile_at (xs, i));
      for (int r = 0; r < STATE; r++)
        zero_end[r][lane] = s[r];
    } else if (warp == 1 && lane < 2 * STATE) {
      /* a unit start state through a whole segment (lanes 0-3) and
       * through the tile's last, shorter one (lanes 4-7) */
      int j = lane % STATE, which = lane / STATE;
      int length = which == 0 ? SEGMENT : n % SEGMENT;
      double u[STATE] = { 0, 0, 0, 0 };
      u[j] = 1.0;
      for (int i = 0; i < length; i++)
        cascade (f, u, 0.0);
      for (int r = 0; r < STATE; r++)
        carry[which][r][j] = u[r];
    } else if (warp > 0) {
      /* the true peak of a run of the tile's frames */
      int runs = PEAK_WARPS * LANES - 2 * STATE;
      int k = tid - LANES - 2 * STATE;
      int per = (n + runs - 1) / runs;
      int a = min (n, k * per), b = min (n, a + per);
      double window[SPAN];      /* window[m]: frame i - m */
#pragma unroll
      for (int m = 1; m < SPAN; m++) {
        int at = a - m;
        window[m] = at >= 0 ? tile_at (xs, at) : frame_at (layout, src, c,
            history, tile + at);
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
      /* 2. the start of every segment, chained from the tile's start (the
       * end of the last tile's chain): start' = M start + zero_end, M the
       * whole segment's, the last one's, or none for an empty segment */
      if (lane == 0) {
        double whole[STATE][STATE], last[STATE][STATE], now[STATE];
        for (int r = 0; r < STATE; r++) {
          now[r] = start[0][r] = start[LANES][r];
          for (int j = 0; j < STATE; j++) {
            whole[r][j] = carry[0][r][j];
            last[r][j] = carry[1][r][j];
          }
        }
        /* (in registers: each step waits only on the one before) */
        for (int t = 0; t < LANES && t * SEGMENT < n; t++) {
          bool full = (t + 1) * SEGMENT <= n;
          double next[STATE];
#pragma unroll
          for (int r = 0; r < STATE; r++) {
            double acc = zero_end[r][t];
#pragma unroll
            for (int j = 0; j < STATE; j++)
              acc += (full ? whole[r][j] : last[r][j]) * now[j];
            next[r] = acc;
          }
#pragma unroll
          for (int r = 0; r < STATE; r++)
            now[r] = start[t + 1][r] = next[r];
        }
        /* segments past the tile's frames carry the state through */
        for (int t = (n + SEGMENT - 1) / SEGMENT; t < LANES; t++)
          for (int r = 0; r < STATE; r++)
            start[t + 1][r] = now[r];
      }
      __syncwarp ();

      /* 3. the segment again from its true start */
      for (int r = 0; r < STATE; r++)
        s[r] = start[lane][r];
      double sum = 0.0;
      long long piece = (offset + tile + from) / step;
      int into = (int) ((offset + tile + from) % step);  /* frames of the
                                                         * step before */
      for (int i = from; i < to; i++) {
        double x = tile_at (xs, i);
        double y = cascade (f, s, x);
        if (into == step) {
          atomicAdd (&energy[(size_t) piece * channels + c], sum);
          sum = 0.0;
          piece++;
          into = 0;
        }
        into++;
        sum += y * y;
        sample_peak = fmax (sample_peak, fabs (x));
      }
      if (to > from)
        atomicAdd (&energy[(size_t) piece * channels + c], sum);
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
    double kept[KEPT];
    for (int j = 0; j < KEPT; j++)
      kept[j] = frame_at (layout, src, c, history, frames - 1 - j);
    for (int j = 0; j < KEPT; j++)
      history[c * KEPT + j] = kept[j];
  }
}

}                               /* namespace cf_loudness_cuda */

using namespace cf_loudness_cuda;

struct cf_loudness_device
{
  double *state, *history, *energy, *peaks;     /* device */
  double *host;                 /* page-locked: rows, then the peaks */
  size_t rows;                  /* room in energy and host */
  long long queued;             /* frames queued since the last collection */
  cudaStream_t stream;          /* where they were queued */
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
    l->device = d;
    if ((st = zeroed (&d->state, sizeof (double) * STATE * ch, stream)) != 0
        || (st = zeroed (&d->history, sizeof (double) * KEPT * ch,
                stream)) != 0
        || (st = zeroed (&d->peaks, sizeof (double) * 2 * ch, stream)) != 0)
      return st;
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
  Filter f;
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
  for (int k = 0; k < 5; k++) {
    f.shelf[k] = l->shelf[k];
    f.highpass[k] = l->highpass[k];
  }
  for (int k = 0; k < SPAN * MAX_FACTOR; k++)
    f.interp[k] = l->interp[k];
  f.factor = l->factor;
  measure_kernel <<< (unsigned) l->channels, THREADS, 0, stream >>> (f,
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
