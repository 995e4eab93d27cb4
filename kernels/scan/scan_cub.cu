/* The `cub` scan variant: CUB's single-pass device-wide scan (decoupled
 * look-back, tuned per architecture), reading elements through an iterator
 * that widens them to the accumulator, so that float scans sum in double
 * like every other variant (cub::DeviceScan::InclusiveSum on floats sums
 * in float). In place is safe: each CUB tile reads its elements before it
 * writes them, and no tile reads another's. */
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/transform_iterator.h>

#include "scan_cub.cuh"

namespace cf_scan
{

template <typename T>
struct Widen
{
  __host__ __device__ typename Acc<T>::type operator() (T v) const
  {
    return (typename Acc<T>::type) v;
  }
};

template <typename T>
static cudaError_t
scan (void *ws, size_t *bytes, const T * in, T * out, size_t n,
    bool inclusive, cudaStream_t stream)
{
  using A = typename Acc<T>::type;
  auto wide = thrust::make_transform_iterator (in, Widen<T> ());
  if (inclusive)
    return cub::DeviceScan::InclusiveScan (ws, *bytes, wide, out,
        cuda::std::plus<A> (), n, stream);
  return cub::DeviceScan::ExclusiveScan (ws, *bytes, wide, out,
      cuda::std::plus<A> (), A (0), n, stream);
}

template <typename T>
size_t
cub_workspace (size_t n)
{
  size_t bytes = 0;
  if (scan<T> (nullptr, &bytes, nullptr, nullptr, n, true, 0) != cudaSuccess)
    return 0;
  size_t exclusive = 0;
  if (scan<T> (nullptr, &exclusive, nullptr, nullptr, n, false, 0)
      != cudaSuccess)
    return 0;
  return bytes > exclusive ? bytes : exclusive;
}

template <typename T>
cudaError_t
cub_scan (const T * in, T * out, size_t n, bool inclusive, void *ws,
    cudaStream_t stream)
{
  size_t bytes = cub_workspace<T> (n);
  return scan<T> (ws, &bytes, in, out, n, inclusive, stream);
}

#define CF_SCAN_INSTANTIATE(T) \
  template size_t cub_workspace<T> (size_t); \
  template cudaError_t cub_scan<T> (const T *, T *, size_t, bool, void *, \
      cudaStream_t);
CF_SCAN_INSTANTIATE (float)
CF_SCAN_INSTANTIATE (double)
CF_SCAN_INSTANTIATE (int32_t)
CF_SCAN_INSTANTIATE (uint32_t)
CF_SCAN_INSTANTIATE (uint64_t)
#undef CF_SCAN_INSTANTIATE

}                               /* namespace cf_scan */
