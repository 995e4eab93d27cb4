/* The peer of the scan benchmark: CUB's device-wide inclusive sum (it
 * ships with the CUDA toolkit), behind a C function. */
#include <cstddef>
#include <cstdint>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

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
