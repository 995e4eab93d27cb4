/* The peer of the scan benchmark: CUB's device-wide inclusive sum (it
 * ships with the CUDA toolkit), behind a C function. */
#include <cstddef>
#include <cstdint>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/transform_iterator.h>

extern "C" int
cub_inclusive_sum (int type, const void *in, void *out, size_t n,
    void *temp, size_t *temp_bytes, cudaStream_t stream)
{
  /* type: 0 float, 1 uint32 (the project's CF_SCAN_F32 and CF_SCAN_U32) */
  if (type == 0)
    return (int) cub::DeviceScan::InclusiveSum (temp, *temp_bytes,
        (const float *) in, (float *) out, n, stream);
  return (int) cub::DeviceScan::InclusiveSum (temp, *temp_bytes,
      (const uint32_t *) in, (uint32_t *) out, n, stream);
}

/* CUB's device-wide sum of floats, the reduction peer. */
extern "C" int
cub_reduce_sum (const float *in, double *out, size_t n, void *temp,
    size_t *temp_bytes, cudaStream_t stream)
{
  return (int) cub::DeviceReduce::Sum (temp, *temp_bytes, in, out, n,
      stream);
}

/* Per-channel sums of interleaved samples in one pass, the peer of our
 * reductions of several channels: each pixel or frame of C samples widened
 * to C doubles and added element by element, by DeviceReduce (one pass
 * over the same bytes, as ours). */
template <int C>
struct ChannelSums
{
  double s[C];

  __host__ __device__ ChannelSums operator+ (const ChannelSums & o) const
  {
    ChannelSums r;
    for (int c = 0; c < C; c++)
      r.s[c] = s[c] + o.s[c];
    return r;
  }
};

template <typename V, typename T, int C>
struct Widen
{
  __host__ __device__ ChannelSums<C> operator() (const V & v) const
  {
    const T *t = reinterpret_cast<const T *>(&v);
    ChannelSums<C> r;
    for (int c = 0; c < C; c++)
      r.s[c] = (double) t[c];
    return r;
  }
};

template <typename V, typename T, int C>
static int
channel_sums (const void *in, double *out, size_t n, void *temp,
    size_t *temp_bytes, cudaStream_t stream)
{
  thrust::transform_iterator<Widen<V, T, C>, const V *> it ((const V *) in,
      Widen<V, T, C> ());
  return (int) cub::DeviceReduce::Reduce (temp, *temp_bytes, it,
      (ChannelSums<C> *) out, n, cuda::std::plus<> (), ChannelSums<C> {},
      stream);
}

/* type 0: RGBA (four u8 channels), 1: stereo floats; n pixels or frames;
 * `out` receives the channels' sums as doubles */
extern "C" int
cub_channel_sums (int type, const void *in, double *out, size_t n,
    void *temp, size_t *temp_bytes, cudaStream_t stream)
{
  if (type == 0)
    return channel_sums<uchar4, unsigned char, 4> (in, out, n, temp,
        temp_bytes, stream);
  return channel_sums<float2, float, 2> (in, out, n, temp, temp_bytes,
      stream);
}
