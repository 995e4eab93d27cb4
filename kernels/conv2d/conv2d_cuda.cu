/* cf_conv2d_cuda(): argument checks, launch setup and the choice of
 * variant. The variants live in conv2d_<variant>.cu. */
#include <cstring>
#include <map>
#include <mutex>

#include "conv2d_common.cuh"

namespace cf_conv2d {

Mask
make_mask (const cf_conv2d_plan * plan)
{
  Mask m;
  int n = plan->kw * plan->kh;
  m.kw = plan->kw;
  m.kh = plan->kh;
  m.rx = plan->kw / 2;
  m.ry = plan->kh / 2;
  m.border = plan->border;
  m.scale = plan->scale;
  m.offset = plan->offset;
  memcpy (m.taps[0], plan->taps[0], n * sizeof (float));
  memcpy (m.taps[1], plan->taps[1], n * sizeof (float));
  return m;
}

int
max_shared_per_block ()
{
  int device = 0, bytes = 0;
  if (cudaGetDevice (&device) != cudaSuccess
      || cudaDeviceGetAttribute (&bytes,
          cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess)
    return 48 * 1024;
  return bytes;
}

int
allow_shared (const void *kernel, size_t bytes)
{
  /* what each (kernel, device) was configured for: the attribute calls are
   * not free, and the same kernels are launched for every frame */
  static std::mutex lock;
  static std::map<std::pair<const void *, unsigned long long>, size_t>
      configured;
  int device = 0;
  cudaError_t err = cudaGetDevice (&device);
  unsigned long long where = 0;

  if (err != cudaSuccess)
    return (int) err;
#if CUDART_VERSION >= 12050
  where = (unsigned long long) device;
#else
  /* before 12.5 the attributes are set per context: the key is the
   * context's ID, unique for the process's life (an address could be
   * reused by the next pipeline's context) */
  err = (cudaError_t) cf_gpu_context_id (&where);
  if (err != cudaSuccess)
    return (int) err;
#endif
  std::lock_guard<std::mutex> guard (lock);
  auto key = std::make_pair (kernel, where);
  auto it = configured.find (key);
  if (it != configured.end () && it->second >= bytes)
    return CF_OK;
  if (bytes > (size_t) max_shared_per_block ())
    return CF_ERR_UNSUPPORTED;
  /* the largest shared-memory share of the L1 lets the most tiles share an
   * SM (the default carve-out chosen by the driver can leave room for only
   * three of them). Set for the device, not for the current context: the
   * kernels run in whatever context the pipeline shares (GStreamer's CUDA
   * elements make their own), and a per-context setting would be missing
   * in the next one. */
#if CUDART_VERSION >= 12050
  cudaKernel_t handle;
  err = cudaGetKernel (&handle, kernel);
  if (err == cudaSuccess)
    err = cudaKernelSetAttributeForDevice (handle,
        cudaFuncAttributePreferredSharedMemoryCarveout,
        cudaSharedmemCarveoutMaxShared, device);
  if (err == cudaSuccess && bytes > 48 * 1024)
    err = cudaKernelSetAttributeForDevice (handle,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes, device);
#else
  err = cudaFuncSetAttribute (kernel,
      cudaFuncAttributePreferredSharedMemoryCarveout,
      cudaSharedmemCarveoutMaxShared);
  if (err == cudaSuccess && bytes > 48 * 1024)
    err = cudaFuncSetAttribute (kernel,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes);
#endif
  if (err == cudaSuccess)
    configured[key] = bytes;
  return (int) err;
}

static int
run_variant (cf_conv2d_algorithm algorithm, const Launch & launch,
    const cf_plane_format * f)
{
  switch (algorithm) {
    case CF_CONV2D_BASIC: return cf_conv2d_basic (launch, f);
    case CF_CONV2D_TILED: return cf_conv2d_tiled (launch, f);
    case CF_CONV2D_CACHED: return cf_conv2d_cached (launch, f);
    case CF_CONV2D_FAST: return cf_conv2d_fast (launch, f);
    case CF_CONV2D_SEPARABLE:
      if (!launch.plan->separable)
        return CF_ERR_UNSUPPORTED;
      return cf_conv2d_separable (launch, f);
    case CF_CONV2D_WIDE: return cf_conv2d_wide (launch, f);
    default: return CF_ERR_INVALID;
  }
}

}  /* namespace cf_conv2d */

extern "C" int
cf_conv2d_cuda (cf_conv2d_algorithm algorithm, const cf_conv2d_plan * plan,
    const cf_plane_format * f, const void *d_src, size_t src_stride,
    void *d_dst, size_t dst_stride, int row_begin, int row_end,
    cf_stream stream)
{
  int status = cf_plane_format_check (f);
  size_t pixel_bytes;
  uintptr_t align;
  cf_conv2d::Launch launch;

  if (status != CF_OK)
    return status;
  pixel_bytes = cf_plane_format_pixel_bytes (f);
  align = (uintptr_t) d_src | (uintptr_t) d_dst | src_stride | dst_stride;
  if (!plan || !d_src || !d_dst || row_begin < 0 || row_end > f->height
      || row_begin > row_end || src_stride < f->width * pixel_bytes
      || dst_stride < f->width * pixel_bytes
      || (f->sample == CF_SAMPLE_U16 && (align & 1))
      || (unsigned) algorithm >= CF_CONV2D_N_ALGORITHMS)
    return CF_ERR_INVALID;
  if (row_begin == row_end)
    return CF_OK;
  /* long masks need work planes (cf_conv2d_long_cuda), spectral ones
   * transforms (cf_conv2d_spectral_cuda) */
  if (plan->long_mask || plan->spectral)
    return CF_ERR_UNSUPPORTED;

  launch.im.src = (const uint8_t *) d_src;
  launch.im.dst = (uint8_t *) d_dst;
  launch.im.src_stride = src_stride;
  launch.im.dst_stride = dst_stride;
  launch.im.width = f->width;
  launch.im.height = f->height;
  launch.im.row_begin = row_begin;
  launch.im.row_end = row_end;
  launch.im.rotate = f->channels == 4 && f->keep_channel == 0;
  launch.im.word_loads = (align & 3) == 0;
  launch.im.chunk_loads = (((uintptr_t) d_src | src_stride) & 15) == 0;
  launch.plan = plan;
  launch.stream = (cudaStream_t) stream;

  if (algorithm != CF_CONV2D_AUTO)
    return cf_conv2d::run_variant (algorithm, launch, f);

  /* auto: the preferred variant, then the general fast one, then the cached
   * one, which fits any device's shared memory. Rank-1 masks on 8-bit
   * one-byte planes that fast's tensor-core tiles take (up to 9x9, rows
   * aligned to 16 bytes) run fast: H100, 4K 7x7 21.8 against separable's
   * 34.4 us, 9x9 24.8 against 41.1, 1080p 12.4 against 13.4 and 12.3
   * against 15.6. */
  cf_conv2d_algorithm preferred = cf_conv2d_choose (plan, f);
  if (preferred == CF_CONV2D_SEPARABLE && f->channels == 1
      && f->sample == CF_SAMPLE_U8
      && cf_conv2d::cf_conv2d_raw_mma_takes (launch, plan->kw, plan->kh, 1))
    preferred = CF_CONV2D_FAST;
  status = cf_conv2d::run_variant (preferred, launch, f);
  if (status == CF_ERR_UNSUPPORTED)
    status = cf_conv2d::run_variant (CF_CONV2D_FAST, launch, f);
  if (status == CF_ERR_UNSUPPORTED)
    status = cf_conv2d::run_variant (CF_CONV2D_CACHED, launch, f);
  return status;
}
