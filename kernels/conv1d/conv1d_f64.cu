/* Double precision direct convolution, for streams whose samples are
 * doubles or 32-bit integers: the tiled algorithm with double accumulation.
 * The taps are read from device memory (a double mask of 8000 taps would
 * not fit the 32 KB kernel parameter the float variants use), a chunk at a
 * time into shared memory beside the samples that chunk reaches, so shared
 * memory stays small whatever the length. */
#include "cf_fault.h"
#include "conv1d_common.cuh"

namespace {

constexpr int OUT = 128;        /* outputs per block, one per thread */
constexpr int CHUNK = 1024;     /* taps per pass through shared memory */

__global__ void __launch_bounds__ (OUT)
conv1d_f64_kernel (const double *x_all, size_t x_pitch, double *y_all,
    size_t y_pitch, int frames, const double *h_all, int taps, int masks)
{
  __shared__ double tile[OUT + CHUNK - 1];
  __shared__ double h[CHUNK];
  int n0 = blockIdx.x * OUT, c = blockIdx.y, n = threadIdx.x;
  int count = min (OUT, frames - n0);
  const double *hc = h_all + (masks == 1 ? 0 : (size_t) c * taps);
  /* sample of output n0 + i at tap k: x[n0 + i + taps - 1 - k] */
  const double *x = x_all + c * x_pitch + n0;
  double acc = 0.0;

  for (int k0 = 0; k0 < taps; k0 += CHUNK) {
    int width = min (CHUNK, taps - k0);
    /* taps k0 .. k0 + width - 1 reach samples from
     * n0 + taps - k0 - width to n0 + count - 1 + taps - 1 - k0 */
    int first = taps - k0 - width;
    __syncthreads ();
    for (int i = n; i < width; i += OUT)
      h[i] = hc[k0 + i];
    for (int i = n; i < count + width - 1; i += OUT)
      tile[i] = x[first + i];
    __syncthreads ();
    if (n < count) {
      const double *cur = tile + n + width - 1;
      for (int k = 0; k < width; k++)
        acc = fma (h[k], cur[-k], acc);
    }
  }
  if (n < count)
    y_all[c * y_pitch + n0 + n] = acc;
}

}  /* namespace */

extern "C" int
cf_conv1d_cuda_f64 (const cf_conv1d_mask * m, int channels,
    const double *d_x, size_t x_pitch, double *d_y, size_t y_pitch,
    int frames, cf_stream stream)
{
  if (!m || !m->h64 || m->taps < 1 || channels < 1
      || (m->masks != 1 && m->masks != channels) || !d_x || !d_y
      || frames < 0 || (channels > 1 && (x_pitch < (size_t) (frames
                  + m->taps - 1) || y_pitch < (size_t) frames)))
    return CF_ERR_INVALID;
  if (frames == 0)
    return CF_OK;
  dim3 grid (cf_conv1d::div_up (frames, OUT), channels);
  conv1d_f64_kernel<<<grid, OUT, 0, (cudaStream_t) stream>>> (d_x, x_pitch,
      d_y, y_pitch, frames, m->h64, m->taps, m->masks);
  return cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
}
