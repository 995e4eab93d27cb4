/* The spectral path on the GPU (conv2d_spectral.h): cuFFT's 2D real
 * transforms, in place, every filtered channel in one batch, in float or
 * in double as the size's error bound says. Four launches a plane: the
 * channels laid out with their borders, the forward transform, the
 * product with the mask's spectrum, the inverse, the output. */
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#include "cf_fault.h"
#include "conv2d_spectral.h"
#include "cufft_library.h"

struct cf_conv2d_spectral_gpu
{
  cf_conv2d_spectral_size size;
  cf_plane_format format;
  int kw, kh;
  cf_border border;
  float offset;
  void *planes;                 /* channels x ny x pitch reals */
  void *spectrum;               /* ny x (nx / 2 + 1) complex */
  cufftHandle forward, inverse;
  int have_forward, have_inverse;
};

namespace cf_conv2d_spectral
{

constexpr int BLOCK_X = 32, BLOCK_Y = 8;

struct Frame
{
  const uint8_t *src;
  size_t src_stride;
  uint8_t *dst;
  size_t dst_stride;
  int width, height, channels, keep;
  int kw, kh;
  cf_border border;
  int nx, ny, pitch, n_filtered;
  int channel[4];
  float offset;
};

template < typename T > __device__ __forceinline__ T
load (const Frame & f, int x, int y, int c)
{
  const T *row = (const T *) (f.src + (size_t) y * f.src_stride);
  return row[(size_t) x * f.channels + c];
}

/* Channel k's plane at (x, y): source (x - rx, y - ry) with the border,
 * zero beyond the mask's reach. */
template < typename T, typename R > __global__ void
lay_out (Frame f, R * planes)
{
  int x = blockIdx.x * BLOCK_X + threadIdx.x;
  int y = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (x >= f.nx || y >= f.ny)
    return;
  int sx = x < f.width + f.kw - 1
      ? cf_border_index (x - f.kw / 2, f.width, f.border) : -1;
  int sy = y < f.height + f.kh - 1
      ? cf_border_index (y - f.kh / 2, f.height, f.border) : -1;
  size_t at = (size_t) y * f.pitch + x, plane = (size_t) f.ny * f.pitch;
  for (int k = 0; k < f.n_filtered; k++)
    planes[k * plane + at] = sx < 0 || sy < 0 ? (R) 0
        : (R) load < T > (f, sx, sy, f.channel[k]);
}

/* The mask at (-i, -j) modulo the sizes, times `gain`, into a zeroed
 * plane. */
template < typename R > __global__ void
place_mask (const float *taps, int kw, int kh, int nx, int ny, int pitch,
    double gain, R * plane)
{
  int i = blockIdx.x * BLOCK_X + threadIdx.x;
  int j = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (i >= kw || j >= kh)
    return;
  plane[(size_t) ((ny - j) % ny) * pitch + (nx - i) % nx] =
      (R) (taps[j * kw + i] * gain);
}

template < typename C > __global__ void
multiply (C * planes, const C * spectrum, size_t bins, int n_filtered)
{
  size_t b = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= bins)
    return;
  C s = spectrum[b];
  for (int k = 0; k < n_filtered; k++) {
    C p = planes[k * bins + b];
    planes[k * bins + b] = C { p.x * s.x - p.y * s.y, p.x * s.y + p.y * s.x };
  }
}

template < typename T, typename R > __global__ void
output (Frame f, const R * planes)
{
  int x = blockIdx.x * BLOCK_X + threadIdx.x;
  int y = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (x >= f.width || y >= f.height)
    return;
  const R top = sizeof (T) == 2 ? 65535 : 255;
  T *row = (T *) (f.dst + (size_t) y * f.dst_stride) + (size_t) x * f.channels;
  size_t at = (size_t) y * f.pitch + x, plane = (size_t) f.ny * f.pitch;
  for (int k = 0; k < f.n_filtered; k++) {
    R v = planes[k * plane + at] + (R) f.offset;
    row[f.channel[k]] = (T) rint (v < 0 ? (R) 0 : (v > top ? top : v));
  }
  if (f.keep >= 0)
    row[f.keep] = load < T > (f, x, y, f.keep);
}

static size_t
plane_reals (const cf_conv2d_spectral_size & z)
{
  return (size_t) z.ny * z.pitch;
}

static size_t
bins (const cf_conv2d_spectral_size & z)
{
  return (size_t) z.ny * (z.nx / 2 + 1);
}

static int
make_plan (cufftHandle * h, const cf_conv2d_spectral_size & z, int batch,
    int inverse, int use_double)
{
  const cf_cufft_api *fft = cf_cufft ();
  int n[2] = { z.ny, z.nx }, real[2] = { z.ny, z.pitch };
  int cx[2] = { z.ny, z.nx / 2 + 1 };
  cufftType type = use_double ? (inverse ? CUFFT_Z2D : CUFFT_D2Z)
      : (inverse ? CUFFT_C2R : CUFFT_R2C);

  if (!fft)
    return CF_ERR_NO_CUFFT;
  if (inverse)
    return fft->plan_many (h, 2, n, cx, 1, (int) bins (z), real, 1,
        (int) plane_reals (z), type, batch) == CUFFT_SUCCESS
        ? CF_OK : CF_ERR_FFT;
  return fft->plan_many (h, 2, n, real, 1, (int) plane_reals (z), cx, 1,
      (int) bins (z), type, batch) == CUFFT_SUCCESS ? CF_OK : CF_ERR_FFT;
}

static int
execute (cufftHandle h, void *data, int inverse, int use_double)
{
  const cf_cufft_api *fft = cf_cufft ();
  cufftResult r;

  if (use_double)
    r = inverse ? fft->exec_z2d (h, (cufftDoubleComplex *) data,
        (cufftDoubleReal *) data) : fft->exec_d2z (h, (cufftDoubleReal *)
        data, (cufftDoubleComplex *) data);
  else
    r = inverse ? fft->exec_c2r (h, (cufftComplex *) data, (cufftReal *) data)
        : fft->exec_r2c (h, (cufftReal *) data, (cufftComplex *) data);
  return r == CUFFT_SUCCESS ? CF_OK : CF_ERR_FFT;
}

/* The mask's spectrum: laid out in the first plane, transformed by a
 * plan of one, copied aside. Waits for the stream (the taps come from the
 * host and are freed here). */
template < typename R > static int
mask_spectrum (cf_conv2d_spectral_gpu * s, const cf_conv2d_plan * plan,
    cudaStream_t stream)
{
  const cf_conv2d_spectral_size & z = s->size;
  size_t tap_bytes = (size_t) plan->kw * plan->kh * sizeof (float);
  double gain = (double) plan->scale / ((double) z.nx * z.ny);
  float *d_taps = NULL;
  cufftHandle one;
  int status;

  status = cf_fault_check (CF_FAULT_ALLOC, (int) cudaMalloc ((void **)
          &d_taps, tap_bytes));
  if (status != CF_OK)
    return status;
  status = make_plan (&one, z, 1, 0, sizeof (R) == 8);
  if (status != CF_OK) {
    cudaFree (d_taps);
    return status;
  }
  cf_cufft ()->set_stream (one, stream);
  status = cf_fault_check (CF_FAULT_COPY, (int) cudaMemcpyAsync (d_taps,
          plan->wide, tap_bytes, cudaMemcpyHostToDevice, stream));
  if (status == CF_OK)
    status = (int) cudaMemsetAsync (s->planes, 0, plane_reals (z) * sizeof (R),
        stream);
  if (status == CF_OK) {
    dim3 grid ((plan->kw + BLOCK_X - 1) / BLOCK_X,
        (plan->kh + BLOCK_Y - 1) / BLOCK_Y);
    place_mask < R > <<<grid, dim3 (BLOCK_X, BLOCK_Y), 0, stream >>> (d_taps,
        plan->kw, plan->kh, z.nx, z.ny, z.pitch, gain, (R *) s->planes);
    status = cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
  }
  if (status == CF_OK)
    status = execute (one, s->planes, 0, sizeof (R) == 8);
  if (status == CF_OK)
    status = (int) cudaMemcpyAsync (s->spectrum, s->planes,
        bins (z) * 2 * sizeof (R), cudaMemcpyDeviceToDevice, stream);
  if (status == CF_OK)
    status = cf_fault_check (CF_FAULT_SYNC, (int) cudaStreamSynchronize
        (stream));
  else
    cudaStreamSynchronize (stream);
  cf_cufft ()->destroy (one);
  cudaFree (d_taps);
  return status;
}

template < typename T, typename R > static int
run (cf_conv2d_spectral_gpu * s, const Frame & f, cudaStream_t stream)
{
  typedef typename std::conditional < sizeof (R) == 8, double2,
      float2 >::type C;
  const cf_conv2d_spectral_size & z = s->size;
  dim3 block (BLOCK_X, BLOCK_Y);
  dim3 pad ((z.nx + BLOCK_X - 1) / BLOCK_X, (z.ny + BLOCK_Y - 1) / BLOCK_Y);
  dim3 out ((f.width + BLOCK_X - 1) / BLOCK_X,
      (f.height + BLOCK_Y - 1) / BLOCK_Y);
  size_t n = bins (z);
  int status;

  lay_out < T, R > <<<pad, block, 0, stream >>> (f, (R *) s->planes);
  status = cf_fault_check (CF_FAULT_LAUNCH, (int) cudaGetLastError ());
  if (status == CF_OK)
    status = execute (s->forward, s->planes, 0, sizeof (R) == 8);
  if (status != CF_OK)
    return status;
  multiply < C > <<<(unsigned) ((n + 255) / 256), 256, 0, stream >>> ((C *)
      s->planes, (const C *) s->spectrum, n, z.channels);
  status = (int) cudaGetLastError ();
  if (status == CF_OK)
    status = execute (s->inverse, s->planes, 1, sizeof (R) == 8);
  if (status != CF_OK)
    return status;
  output < T, R > <<<out, block, 0, stream >>> (f, (const R *) s->planes);
  return (int) cudaGetLastError ();
}

}                               /* namespace cf_conv2d_spectral */

using namespace cf_conv2d_spectral;

extern "C" int
cf_conv2d_spectral_cuda_new (cf_conv2d_spectral_gpu ** out,
    const cf_conv2d_plan * plan, const cf_plane_format * format,
    cf_stream stream)
{
  cf_conv2d_spectral_gpu *s;
  cf_conv2d_spectral_size z;
  size_t real_bytes;
  int status;

  if (!out)
    return CF_ERR_INVALID;
  *out = NULL;
  if (cf_conv2d_spectral_size_init (&z, plan, format) != CF_OK)
    return CF_ERR_INVALID;
  if (!cf_cufft ())
    return CF_ERR_NO_CUFFT;
  s = (cf_conv2d_spectral_gpu *) calloc (1, sizeof (*s));
  if (!s)
    return CF_ERR_NO_MEMORY;
  s->size = z;
  s->format = *format;
  s->kw = plan->kw;
  s->kh = plan->kh;
  s->border = plan->border;
  s->offset = plan->offset;
  real_bytes = z.use_double ? sizeof (double) : sizeof (float);
  status = cf_fault_check (CF_FAULT_ALLOC, (int) cudaMalloc (&s->planes,
          plane_reals (z) * z.channels * real_bytes));
  if (status == CF_OK)
    status = cf_fault_check (CF_FAULT_ALLOC, (int) cudaMalloc (&s->spectrum,
            bins (z) * 2 * real_bytes));
  if (status == CF_OK) {
    status = make_plan (&s->forward, z, z.channels, 0, z.use_double);
    s->have_forward = status == CF_OK;
  }
  if (status == CF_OK) {
    status = make_plan (&s->inverse, z, z.channels, 1, z.use_double);
    s->have_inverse = status == CF_OK;
  }
  if (status == CF_OK)
    status = z.use_double
        ? mask_spectrum < double >(s, plan, (cudaStream_t) stream)
        : mask_spectrum < float >(s, plan, (cudaStream_t) stream);
  if (status != CF_OK) {
    cf_conv2d_spectral_cuda_free (s);
    return status;
  }
  *out = s;
  return CF_OK;
}

extern "C" int
cf_conv2d_spectral_cuda (cf_conv2d_spectral_gpu * s, const void *d_src,
    size_t src_stride, void *d_dst, size_t dst_stride, cf_stream stream)
{
  const cf_cufft_api *fft = cf_cufft ();
  cudaStream_t st = (cudaStream_t) stream;
  Frame f;
  size_t pixel_bytes;
  int u16;

  if (!s || !d_src || !d_dst)
    return CF_ERR_INVALID;
  pixel_bytes = cf_plane_format_pixel_bytes (&s->format);
  u16 = s->format.sample == CF_SAMPLE_U16;
  if (src_stride < s->format.width * pixel_bytes
      || dst_stride < s->format.width * pixel_bytes
      || (u16 && (((uintptr_t) d_src | (uintptr_t) d_dst | src_stride
                  | dst_stride) & 1)))
    return CF_ERR_INVALID;
  if (fft->set_stream (s->forward, st) != CUFFT_SUCCESS
      || fft->set_stream (s->inverse, st) != CUFFT_SUCCESS)
    return CF_ERR_FFT;
  f.src = (const uint8_t *) d_src;
  f.src_stride = src_stride;
  f.dst = (uint8_t *) d_dst;
  f.dst_stride = dst_stride;
  f.width = s->format.width;
  f.height = s->format.height;
  f.channels = s->format.channels;
  f.keep = s->format.keep_channel;
  f.kw = s->kw;
  f.kh = s->kh;
  f.border = s->border;
  f.nx = s->size.nx;
  f.ny = s->size.ny;
  f.pitch = s->size.pitch;
  f.n_filtered = s->size.channels;
  for (int k = 0; k < 4; k++)
    f.channel[k] = s->size.channel[k];
  f.offset = s->offset;
  if (s->size.use_double)
    return u16 ? run < uint16_t, double >(s, f, st)
        : run < uint8_t, double >(s, f, st);
  return u16 ? run < uint16_t, float >(s, f, st)
      : run < uint8_t, float >(s, f, st);
}

extern "C" int
cf_conv2d_spectral_cuda_double (const cf_conv2d_spectral_gpu * s)
{
  return s ? s->size.use_double : 0;
}

extern "C" void
cf_conv2d_spectral_cuda_free (cf_conv2d_spectral_gpu * s)
{
  if (!s)
    return;
  /* work queued on the plans' work areas finishes first: cuFFT does not
   * say that destroying a plan waits for it */
  cudaDeviceSynchronize ();
  if (s->have_forward)
    cf_cufft ()->destroy (s->forward);
  if (s->have_inverse)
    cf_cufft ()->destroy (s->inverse);
  cudaFree (s->planes);
  cudaFree (s->spectrum);
  free (s);
}
