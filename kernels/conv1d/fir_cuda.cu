/* The FIR backend on device memory: cuFFT for the transforms, small
 * kernels for the data-parallel steps, and a whole block in one kernel
 * (fir_block.cu) for the steady state; everything
 * queued on the filter's stream. Each kernel is a template on the sample
 * type: float, or double for a filter opened with f64 (cuFFT's D2Z/Z2D
 * transforms then). The CPU twin is fir_cpu.c. */
#include "cf_fault.h"
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>

#include <cuda_runtime.h>

#include "cufft_library.h"
#include "gpu.h"

#include "fir_steady.cuh"
#include "fir_ops.h"

/* The backend fir.c holds through fir_ops.h: a C type, so outside the
 * namespace. */
struct cf_fir_backend
{
  cudaStream_t stream;
  int fft_size;
  bool f64;
  std::map<int, cufftHandle> forward, inverse;  /* plans by batch */
  void *scratch;                /* for overlapping moves */
  size_t scratch_bytes;

  /* the one-kernel block: exp(-i pi k / B), k = 0..B, in the sample
   * type; NULL when the kernel cannot take the block */
  void *twiddles;
  void *older;                  /* the part of the next block's delay line
                                 * each launch sums ahead */
  int clusters;                 /* interleaved samples in the kernel: 1 yes,
                                 * 0 no, -1 not asked yet */
};

namespace cf_fir {

constexpr int THREADS = 256;

static unsigned
blocks_for (size_t n)
{
  return (unsigned) ((n + THREADS - 1) / THREADS);
}

static int
status_of (cudaError_t err)
{
  return (int) err;
}

/* cuFFT plans are made and destroyed one at a time in the process:
 * filters opened on many threads at once (one per element instance) were
 * seen under memcheck to launch transforms that read outside every
 * allocation, while each thread keeps to its own plans as cuFFT asks. The
 * lock costs nothing in the steady state, where plans are cached. */
static std::mutex cufft_planner;

/* A cached plan of `batch` contiguous real transforms of fft_size. */
static int
plan_for (cf_fir_backend * be, bool inverse, int batch, cufftHandle * plan)
{
  auto &plans = inverse ? be->inverse : be->forward;
  auto it = plans.find (batch);
  int n = be->fft_size, bins = n / 2 + 1;

  if (it != plans.end ()) {
    *plan = it->second;
    return CF_OK;
  }
  cufftType type = be->f64 ? (inverse ? CUFFT_Z2D : CUFFT_D2Z)
      : (inverse ? CUFFT_C2R : CUFFT_R2C);
  const cf_cufft_api *fft = cf_cufft ();
  if (!fft)
    return CF_ERR_NO_CUFFT;
  std::lock_guard<std::mutex> hold (cufft_planner);
  if (fft->plan_many (plan, 1, &n, NULL, 1, inverse ? bins : n, NULL, 1,
          inverse ? n : bins, type, batch) != CUFFT_SUCCESS)
    return CF_ERR_FFT;
  if (fft->set_stream (*plan, be->stream) != CUFFT_SUCCESS) {
    fft->destroy (*plan);
    return CF_ERR_FFT;
  }
  plans[batch] = *plan;
  return CF_OK;
}

static int prepare_block (cf_fir_backend * be, int block);

static int
cuda_open (cf_fir_backend ** out, cf_stream stream, int fft_size,
    int max_batch, int f64)
{
  cf_fir_backend *be = new (std::nothrow) cf_fir_backend ();
  (void) max_batch;
  if (!be)
    return CF_ERR_NO_MEMORY;
  be->stream = (cudaStream_t) stream;
  be->clusters = -1;
  be->fft_size = fft_size;
  be->f64 = f64 != 0;
  *out = be;
  return fft_size > 0 ? prepare_block (be, fft_size / 2) : CF_OK;
}

/* The filter's memory is allocated and freed in the order of its stream
 * (cf_gpu_malloc_async): a filter made or freed beside one that plays
 * never waits for the device, nor makes the other's thread wait. */
static int
device_alloc (cf_fir_backend * be, void **ptr, size_t bytes)
{
  return cf_gpu_malloc_async (ptr, bytes ? bytes : 1, be->stream);
}

static void
device_free (cf_fir_backend * be, void *ptr)
{
  cf_gpu_free_async (ptr, be->stream);
}

static void
cuda_close (cf_fir_backend * be)
{
  if (!be->forward.empty () || !be->inverse.empty ()) {
    /* plans exist only where cuFFT was loaded */
    const cf_cufft_api *fft = cf_cufft ();
    std::lock_guard<std::mutex> hold (cufft_planner);
    for (auto &p : be->forward)
      fft->destroy (p.second);
    for (auto &p : be->inverse)
      fft->destroy (p.second);
  }
  device_free (be, be->twiddles);
  device_free (be, be->older);
  device_free (be, be->scratch);
  delete be;
}

static int
cuda_alloc (cf_fir_backend * be, void **ptr, size_t bytes)
{
  /* (injected faults included) */
  return status_of ((cudaError_t) device_alloc (be, ptr, bytes));
}

static void
cuda_release (cf_fir_backend * be, void *ptr)
{
  device_free (be, ptr);
}

static int
cuda_zero (cf_fir_backend * be, void *ptr, size_t bytes)
{
  return status_of ((cudaError_t) cf_fault_check (CF_FAULT_CLEAR,
          (int) cudaMemsetAsync (ptr, 0, bytes, be->stream)));
}

/* Uploads go in pieces: a response's spectra (megabytes, made while
 * another response plays) would otherwise hold the copy engine for
 * hundreds of microseconds, and the buffers' own small copies, on other
 * streams, wait behind them. Each piece is a copy from pageable memory,
 * which starts only once the stream's work before it is done: the
 * buffers' copies go between the pieces. */
static const size_t UPLOAD_PIECE = 256 << 10;

static int
cuda_upload (cf_fir_backend * be, void *dst, const void *src, size_t bytes)
{
  size_t piece = UPLOAD_PIECE;
  int st = CF_OK;

  for (size_t done = 0; done < bytes && st == CF_OK; done += piece) {
    size_t n = bytes - done < piece ? bytes - done : piece;
    st = status_of (cudaMemcpyAsync ((char *) dst + done, (const char *) src
            + done, n, cudaMemcpyHostToDevice, be->stream));
  }
  return st;
}

/* Whether any row of dst overlaps any row of src. Rows of equal pitch
 * (the usual case: a stage moving within itself) are checked row against
 * row, so that a block moving to the front of its own row is not taken for
 * an overlap. */
static bool
rows_overlap (const char *d0, size_t dst_pitch, const char *s0,
    size_t src_pitch, size_t row_bytes, size_t rows)
{
  const char *s1 = s0 + (rows - 1) * src_pitch + row_bytes;
  const char *d1 = d0 + (rows - 1) * dst_pitch + row_bytes;
  long long delta, p = (long long) src_pitch;

  if (d1 <= s0 || s1 <= d0)
    return false;
  if (dst_pitch != src_pitch)
    return true;
  /* dst row i meets src row j when |delta + (i - j) p| < row_bytes */
  delta = (long long) (d0 - s0);
  for (long long k = -(long long) rows + 1; k < (long long) rows; k++) {
    long long gap = delta + k * p;
    if (gap >= (long long) row_bytes)
      break;                    /* larger k only move further apart */
    if (-gap < (long long) row_bytes)
      return true;
  }
  return false;
}

/* Overlapping regions go through a scratch buffer: a 2D copy between
 * overlapping regions is undefined. */
static int
cuda_move (cf_fir_backend * be, void *dst, size_t dst_pitch, const void *src,
    size_t src_pitch, size_t row_bytes, size_t rows)
{
  cudaError_t err;

  if (rows == 0 || row_bytes == 0)
    return CF_OK;
  if (!rows_overlap ((const char *) dst, dst_pitch, (const char *) src,
          src_pitch, row_bytes, rows))
    return status_of (cudaMemcpy2DAsync (dst, dst_pitch, src, src_pitch,
            row_bytes, rows, cudaMemcpyDeviceToDevice, be->stream));
  if (be->scratch_bytes < row_bytes * rows) {
    device_free (be, be->scratch);
    be->scratch = NULL;
    be->scratch_bytes = 0;
    if ((err = (cudaError_t) device_alloc (be, &be->scratch,
                row_bytes * rows)) != cudaSuccess)
      return status_of (err);
    be->scratch_bytes = row_bytes * rows;
  }
  err = cudaMemcpy2DAsync (be->scratch, row_bytes, src, src_pitch,
      row_bytes, rows, cudaMemcpyDeviceToDevice, be->stream);
  if (err == cudaSuccess)
    err = cudaMemcpy2DAsync (dst, dst_pitch, be->scratch, row_bytes,
        row_bytes, rows, cudaMemcpyDeviceToDevice, be->stream);
  return status_of (err);
}

static int
cuda_direct (cf_fir_backend * be, cf_conv1d_algorithm algorithm,
    const cf_conv1d_mask * mask, int channels, const void *x,
    size_t x_pitch, void *y, size_t y_pitch, int frames)
{
  if (be->f64)
    return cf_conv1d_cuda_f64 (mask, channels, (const double *) x, x_pitch,
        (double *) y, y_pitch, frames, (cf_stream) be->stream);
  return cf_conv1d_cuda (algorithm, mask, channels, (const float *) x,
      x_pitch, (float *) y, y_pitch, frames, (cf_stream) be->stream);
}

static int
cuda_rfft (cf_fir_backend * be, const void *in, void *out, int batch)
{
  cufftHandle plan;
  int st = plan_for (be, false, batch, &plan);
  cufftResult r;

  if (st != CF_OK)
    return st;
  r = be->f64 ? cf_cufft ()->exec_d2z (plan, (cufftDoubleReal *) in,
      (cufftDoubleComplex *) out) : cf_cufft ()->exec_r2c (plan,
      (cufftReal *) in, (cufftComplex *) out);
  return r == CUFFT_SUCCESS ? CF_OK : CF_ERR_FFT;
}

static int
cuda_irfft (cf_fir_backend * be, const void *in, void *out, int batch)
{
  cufftHandle plan;
  int st = plan_for (be, true, batch, &plan);
  cufftResult r;

  if (st != CF_OK)
    return st;
  r = be->f64 ? cf_cufft ()->exec_z2d (plan, (cufftDoubleComplex *) in,
      (cufftDoubleReal *) out) : cf_cufft ()->exec_c2r (plan,
      (cufftComplex *) in, (cufftReal *) out);
  return r == CUFFT_SUCCESS ? CF_OK : CF_ERR_FFT;
}

template <typename T>
__global__ void
gather_kernel (cf_fir_layout l, const T * stage, size_t stage_pitch,
    T * windows, int q)
{
  size_t n = 2 * l.block, k = blockIdx.x * (size_t) THREADS + threadIdx.x;
  size_t per_channel = (size_t) q * n;
  if (k >= per_channel * l.channels)
    return;
  size_t c = k / per_channel, r = k % per_channel, i = r / n, s = r % n;
  windows[k] = stage[c * stage_pitch + i * l.block + s];
}

static int
cuda_gather (cf_fir_backend * be, const cf_fir_layout * l,
    const void *stage, size_t stage_pitch, void *windows, int q)
{
  size_t total = (size_t) l->channels * q * 2 * l->block;
  if (be->f64)
    gather_kernel<<<blocks_for (total), THREADS, 0, be->stream>>> (*l,
        (const double *) stage, stage_pitch, (double *) windows, q);
  else
    gather_kernel<<<blocks_for (total), THREADS, 0, be->stream>>> (*l,
        (const float *) stage, stage_pitch, (float *) windows, q);
  return cf_fault_check (CF_FAULT_LAUNCH, status_of (cudaGetLastError ()));
}

/* One thread per (channel, block, bin): files the new spectrum of its
 * block in the ring, then a complex dot product along the delay line,
 * partitions 1..P-1, the new blocks read where they were computed. A thread
 * writes one ring slot that no thread reads (the block it replaces is older
 * than any partition reaches), so filing and reading need no ordering.
 * Reads stream through memory (the spectra of a shared mask stay in L2
 * across channels and blocks). */
template <typename T>
__global__ void
mac_kernel (cf_fir_layout l, const typename Complex<T>::type * fresh,
    typename Complex<T>::type * ring,
    const typename Complex<T>::type * spectra,
    typename Complex<T>::type * out, long long first, int q)
{
  using C = typename Complex<T>::type;
  size_t k = blockIdx.x * (size_t) THREADS + threadIdx.x;
  size_t per_channel = (size_t) q * l.bins;
  if (k >= per_channel * l.channels)
    return;
  size_t c = k / per_channel, r = k % per_channel, i = r / l.bins,
      f = r % l.bins;
  const C *h = spectra + (l.masks == 1 ? 0 : c) * l.partitions * l.bins + f;
  const C *x = ring + c * l.ring * l.bins + f;
  const C *x_new = fresh + c * per_channel + f;
  T re = 0, im = 0;

  ring[(c * l.ring + (first + i) % l.ring) * l.bins + f] = fresh[k];
  for (int p = 1; p < l.partitions; p++) {
    long long b = first + 1 + (long long) i - p;
    if (b < 0)
      break;                    /* before the stream: zero */
    C xv = b >= first ? x_new[(b - first) * l.bins]
        : x[(b % l.ring) * l.bins];
    C hv = h[(size_t) p * l.bins];
    re = fma (xv.x, hv.x, fma (-xv.y, hv.y, re));
    im = fma (xv.x, hv.y, fma (xv.y, hv.x, im));
  }
  out[k].x = re;
  out[k].y = im;
}

static int
cuda_mac (cf_fir_backend * be, const cf_fir_layout * l, const void *fresh,
    void *ring, const void *spectra, void *out, long long first, int q)
{
  size_t total = (size_t) l->channels * q * l->bins;
  if (be->f64)
    mac_kernel<double><<<blocks_for (total), THREADS, 0, be->stream>>> (*l,
        (const double2 *) fresh, (double2 *) ring, (const double2 *) spectra,
        (double2 *) out, first, q);
  else
    mac_kernel<float><<<blocks_for (total), THREADS, 0, be->stream>>> (*l,
        (const float2 *) fresh, (float2 *) ring, (const float2 *) spectra,
        (float2 *) out, first, q);
  return cf_fault_check (CF_FAULT_LAUNCH, status_of (cudaGetLastError ()));
}

template <typename T>
__global__ void
add_tails_kernel (cf_fir_layout l, T * y, size_t y_pitch, int frames,
    int start, const T * current, const T * times, int q, T scale)
{
  size_t k = blockIdx.x * (size_t) THREADS + threadIdx.x;
  if (k >= (size_t) frames * l.channels)
    return;
  int c = (int) (k / frames), f = (int) (k % frames);
  int s = start + f, t = s / l.block, off = s % l.block;
  T tail = t == 1 ? current[(size_t) c * l.block + off]
      : scale * times[((size_t) c * q + t - 2) * 2 * l.block + l.block + off];
  y[c * y_pitch + f] += tail;
}

static int
cuda_add_tails (cf_fir_backend * be, const cf_fir_layout * l, void *y,
    size_t y_pitch, int frames, int start, const void *current,
    const void *times, int q, double scale)
{
  size_t total = (size_t) l->channels * frames;
  if (total == 0)
    return CF_OK;
  if (be->f64)
    add_tails_kernel<<<blocks_for (total), THREADS, 0, be->stream>>> (*l,
        (double *) y, y_pitch, frames, start, (const double *) current,
        (const double *) times, q, scale);
  else
    add_tails_kernel<<<blocks_for (total), THREADS, 0, be->stream>>> (*l,
        (float *) y, y_pitch, frames, start, (const float *) current,
        (const float *) times, q, (float) scale);
  return cf_fault_check (CF_FAULT_LAUNCH, status_of (cudaGetLastError ()));
}

template <typename T>
__global__ void
keep_tail_kernel (cf_fir_layout l, T * current, const T * times, int q,
    T scale)
{
  size_t k = blockIdx.x * (size_t) THREADS + threadIdx.x;
  if (k >= (size_t) l.channels * l.block)
    return;
  size_t c = k / l.block, off = k % l.block;
  current[k] = scale * times[(c * q + q - 1) * 2 * l.block + l.block + off];
}

static int
cuda_keep_tail (cf_fir_backend * be, const cf_fir_layout * l, void *current,
    const void *times, int q, double scale)
{
  size_t total = (size_t) l->channels * l->block;
  if (be->f64)
    keep_tail_kernel<<<blocks_for (total), THREADS, 0, be->stream>>> (*l,
        (double *) current, (const double *) times, q, scale);
  else
    keep_tail_kernel<<<blocks_for (total), THREADS, 0, be->stream>>> (*l,
        (float *) current, (const float *) times, q, (float) scale);
  return cf_fault_check (CF_FAULT_LAUNCH, status_of (cudaGetLastError ()));
}

/* ---- the steady state: one kernel a block (fir_block.cu) ---- */

/* exp(-i pi k / B), k = 0..B, computed in double, stored as T. */
template <typename T>
static int
upload_twiddles (cf_fir_backend * be, int block)
{
  using C = typename Complex<T>::type;
  C *host = (C *) malloc (sizeof (C) * (block + 1));
  int st;

  if (!host)
    return CF_ERR_NO_MEMORY;
  for (int k = 0; k <= block; k++) {
    double angle = -M_PI * k / block;
    host[k].x = (T) cos (angle);
    host[k].y = (T) sin (angle);
  }
  st = status_of ((cudaError_t) device_alloc (be, &be->twiddles,
          sizeof (C) * (block + 1)));
  /* from pageable memory: the call returns once `host` is read */
  if (st == CF_OK)
    st = status_of (cudaMemcpyAsync (be->twiddles, host, sizeof (C)
            * (block + 1), cudaMemcpyHostToDevice, be->stream));
  free (host);
  return st;
}

/* The one-kernel block, where it takes the block (with its twiddles);
 * without them the filter runs the steps one by one. */
static int
prepare_block (cf_fir_backend * be, int block)
{
  int st = be->f64 ? cf_fir_block_prepare<double> (block)
      : cf_fir_block_prepare<float> (block);

  if (st == CF_ERR_UNSUPPORTED)
    return CF_OK;
  if (st == CF_OK)
    st = be->f64 ? upload_twiddles<double> (be, block)
        : upload_twiddles<float> (be, block);
  return st;
}

static int
cuda_block (cf_fir_backend * be, const cf_fir_layout * l, void *stage,
    size_t stage_pitch, void *ring, const void *spectra, void *y,
    size_t y_pitch, const cf_fir_interleaved * io, long long first,
    int chained, double scale)
{
  size_t older_bytes = be->f64 ? cf_fir_block_older_bytes<double> (*l)
      : cf_fir_block_older_bytes<float> (*l);
  int st;

  if (!be->twiddles)
    return CF_ERR_UNSUPPORTED;
  if (io && be->clusters < 0)   /* once per filter, on its device */
    be->clusters = be->f64 ? cf_fir_block_clusters_fit<double> (*l)
        : cf_fir_block_clusters_fit<float> (*l);
  if (io && (!be->clusters || !io->layout.interleaved))
    return CF_ERR_UNSUPPORTED;
  /* once per filter: the layout does not change */
  if (older_bytes > 0 && !be->older) {
    if ((st = status_of ((cudaError_t) device_alloc (be, &be->older,
                    older_bytes))) != CF_OK)
      return st;
    chained = 0;
  }
  if (be->f64)
    return cf_fir_block<double> (*l, (double *) stage, stage_pitch,
        (double2 *) ring, (const double2 *) spectra, (double *) y, y_pitch,
        io, (const double2 *) be->twiddles, (double2 *) be->older, first,
        chained, scale, be->stream);
  return cf_fir_block<float> (*l, (float *) stage, stage_pitch,
      (float2 *) ring, (const float2 *) spectra, (float *) y, y_pitch,
      io, (const float2 *) be->twiddles, (float2 *) be->older, first, chained,
      (float) scale, be->stream);
}

/* On the block kernel's path (its twiddles made), by its own FFT: no
 * cuFFT plan is made for the filter. */
static int
cuda_spectra (cf_fir_backend * be, const cf_fir_layout * l, const void *h,
    int taps, void *spectra)
{
  if (!be->twiddles)
    return CF_ERR_UNSUPPORTED;
  if (be->f64)
    return cf_fir_block_spectra<double> (*l, (const double *) h, taps,
        (double2 *) spectra, (const double2 *) be->twiddles, be->stream);
  return cf_fir_block_spectra<float> (*l, (const float *) h, taps,
      (float2 *) spectra, (const float2 *) be->twiddles, be->stream);
}

static int
cuda_set_stream (cf_fir_backend * be, cf_stream stream)
{
  const cf_cufft_api *fft = cf_cufft ();

  be->stream = (cudaStream_t) stream;
  for (auto *plans : { &be->forward, &be->inverse })
    for (auto &p : *plans)
      if (fft->set_stream (p.second, be->stream) != CUFFT_SUCCESS)
        return CF_ERR_FFT;
  return CF_OK;
}

}  /* namespace cf_fir */

extern "C" const cf_fir_ops cf_fir_cuda_ops = {
  cf_fir::cuda_open, cf_fir::cuda_close, cf_fir::cuda_alloc,
  cf_fir::cuda_release, cf_fir::cuda_zero, cf_fir::cuda_upload,
  cf_fir::cuda_move, cf_fir::cuda_direct, cf_fir::cuda_rfft,
  cf_fir::cuda_irfft, cf_fir::cuda_gather, cf_fir::cuda_mac,
  cf_fir::cuda_add_tails, cf_fir::cuda_keep_tail, cf_fir::cuda_block,
  cf_fir::cuda_set_stream, cf_fir::cuda_spectra,
};
