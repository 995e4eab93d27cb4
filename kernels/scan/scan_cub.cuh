/* Shared by the scan variants: what sums accumulate in, and the variant
 * that runs CUB's device-wide scan with that accumulator. */
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace cf_scan
{

/* What sums are accumulated in: double for floats, unsigned for integers. */
template <typename T> struct Acc;
template <> struct Acc<float> { using type = double; };
template <> struct Acc<double> { using type = double; };
template <> struct Acc<int32_t> { using type = uint32_t; };
template <> struct Acc<uint32_t> { using type = uint32_t; };
template <> struct Acc<uint64_t> { using type = uint64_t; };

/* Temporary bytes cub_scan() needs for n elements. */
template <typename T> size_t cub_workspace (size_t n);

/* cub::DeviceScan over n elements, summed in Acc<T>; `in` may be `out`. */
template <typename T>
cudaError_t cub_scan (const T * in, T * out, size_t n, bool inclusive,
    void *ws, cudaStream_t stream);

}                               /* namespace cf_scan */
