/* Loudness, the CUDA twin (see loudness.h): the K-weighting, the sums of
 * squares of each 100 ms step and the peaks of a buffer on the GPU, the
 * steps' accounting (gates, windows, range) on the host as the CPU twin
 * does it. Buffers are queued without waiting: their sums go into rows of
 * steps counted from the last collection, and the peaks into running
 * maxima, all on the device until cf_loudness_collect_cuda reads them.
 *
 * The K-weighting is a recursion (two biquads, four state values a
 * channel): one warp a channel cuts the buffer into 32 segments; each lane
 * runs its segment from a zero state and finds how a start state would
 * carry through it (a 4x4 matrix); lane 0 chains the segments' start
 * states; each lane then runs its segment again from its true start,
 * summing squares into the steps they fall in. The true peak reads the
 * samples and the 12 before them (the last buffer's, kept on the device).
 * All in double. */
#include "cf_fault.h"

#include <cuda_runtime.h>

#include "gpu.h"
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

__device__ inline double
sample (const void *src, size_t at, bool f64)
{
  return f64 ? static_cast<const double *> (src)[at]
      : static_cast<const float *> (src)[at];
}

/* One block (one warp) a channel. `energy` holds a row a step,
 * channel-minor, the first row the step at frame -offset of this buffer
 * (rows zeroed when collected); `peaks` each channel's sample and true
 * peak so far. */
__global__ void
measure_kernel (Filter f, const void *src, size_t pitch, int frames,
    bool f64, int step, long long offset, int channels, double *state,
    double *history, double *energy, double *peaks)
{
  __shared__ double carry[STATE][STATE][LANES];       /* M[r][c] per lane */
  __shared__ double zero_end[STATE][LANES];
  __shared__ double start[LANES + 1][STATE];
  int c = blockIdx.x, lane = threadIdx.x;
  int seg = (frames + LANES - 1) / LANES;
  int from = min (frames, lane * seg), to = min (frames, from + seg);
  size_t base = (size_t) c * pitch;
  double s[STATE] = { 0, 0, 0, 0 };

  /* 1. the segment from rest, and from each unit start state */
  for (int i = from; i < to; i++)
    cascade (f, s, sample (src, base + i, f64));
  for (int r = 0; r < STATE; r++)
    zero_end[r][lane] = s[r];
  for (int j = 0; j < STATE; j++) {
    double u[STATE] = { 0, 0, 0, 0 };
    u[j] = 1.0;
    for (int i = from; i < to; i++)
      cascade (f, u, 0.0);
    for (int r = 0; r < STATE; r++)
      carry[r][j][lane] = u[r];
  }
  __syncwarp ();

  /* 2. the start of every segment, chained from the buffer's start */
  if (lane == 0) {
    for (int r = 0; r < STATE; r++)
      start[0][r] = state[c * STATE + r];
    for (int t = 0; t < LANES; t++)
      for (int r = 0; r < STATE; r++) {
        double v = zero_end[r][t];
        for (int j = 0; j < STATE; j++)
          v += carry[r][j][t] * start[t][j];
        start[t + 1][r] = v;
      }
    for (int r = 0; r < STATE; r++)
      state[c * STATE + r] = start[LANES][r];
  }
  __syncwarp ();

  /* 3. the segment again from its true start: squares into steps, peaks */
  for (int r = 0; r < STATE; r++)
    s[r] = start[lane][r];
  double sum = 0.0, sample_peak = 0.0, true_peak = 0.0;
  long long piece = (offset + from) / step;
  for (int i = from; i < to; i++) {
    double x = sample (src, base + i, f64);
    double y = cascade (f, s, x);
    long long p = (offset + i) / step;
    if (p != piece) {
      atomicAdd (&energy[(size_t) piece * channels + c], sum);
      sum = 0.0;
      piece = p;
    }
    sum += y * y;
    sample_peak = fmax (sample_peak, fabs (x));
    for (int ph = 0; ph < f.factor; ph++) {
      double v = 0.0;
      for (int k = 0; k < SPAN; k++) {
        int at = i - k;
        double xk = at >= 0 ? sample (src, base + at, f64)
            : history[c * KEPT + (-at - 1)];
        v += f.interp[ph * SPAN + k] * xk;
      }
      true_peak = fmax (true_peak, fabs (v));
    }
  }
  if (to > from)
    atomicAdd (&energy[(size_t) piece * channels + c], sum);
  true_peak = fmax (true_peak, sample_peak);
  for (int o = LANES / 2; o > 0; o /= 2) {
    sample_peak = fmax (sample_peak, __shfl_down_sync (0xffffffffu,
            sample_peak, o));
    true_peak = fmax (true_peak, __shfl_down_sync (0xffffffffu, true_peak,
            o));
  }
  __syncwarp ();

  /* 4. the last samples for the next buffer's true peak (newest first) */
  if (lane == 0) {
    peaks[c * 2] = fmax (peaks[c * 2], sample_peak);
    peaks[c * 2 + 1] = fmax (peaks[c * 2 + 1], true_peak);
    double kept[KEPT];
    for (int j = 0; j < KEPT; j++) {
      int at = frames - 1 - j;
      kept[j] = at >= 0 ? sample (src, base + at, f64)
          : history[c * KEPT + (-at - 1)];
    }
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
cf_loudness_queue_cuda (cf_loudness * l, const void *src, size_t pitch,
    int frames, int f64, cf_stream stream_)
{
  cudaStream_t stream = reinterpret_cast<cudaStream_t> (stream_);
  cf_loudness_device *d;
  size_t rows;
  Filter f;
  int st;

  if (!l || (!src && frames > 0) || frames < 0)
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
  measure_kernel <<< (unsigned) l->channels, LANES, 0, stream >>> (f, src,
      pitch, frames, f64 != 0, l->step, l->step_frames + d->queued,
      l->channels, d->state, d->history, d->energy, d->peaks);
  if ((st = cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ())) != 0)
    return st;
  d->queued += frames;
  d->stream = stream;
  return CF_OK;
}

extern "C" int
cf_loudness_add_cuda (cf_loudness * l, const void *src, size_t pitch,
    int frames, int f64, cf_stream stream)
{
  int st = cf_loudness_queue_cuda (l, src, pitch, frames, f64, stream);
  return st != CF_OK ? st : cf_loudness_collect_cuda (l);
}
