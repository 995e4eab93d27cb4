/* The CUDA integral image in bands of rows (integral_bands.cu), behind
 * cf_integral_cuda(); arguments already checked. CF_ERR_UNSUPPORTED for
 * planes of more than 65535 bands (524280 rows). */
#pragma once

#include <cuda_runtime.h>

#include "integral.h"

namespace cf_integral
{

int cf_integral_bands (const cf_integral_layout * layout, const void *d_in,
    void *d_sum, void *d_squares, cudaStream_t stream);

}                               /* namespace cf_integral */
