/* The four-byte-pixel path of cf_box_direct_cuda (boxmean_words.cu).
 * Internal to the kernels library; CUDA C++ only. */
#ifndef CF_BOXMEAN_WORDS_H
#define CF_BOXMEAN_WORDS_H

#include <cuda_runtime.h>

#include "boxmean.h"

namespace cf_boxmean
{

/* Launches the box means or thresholds of `p` on pixels of four 8-bit
 * samples, each one 4-byte word (three filtered and the fourth copied,
 * or all four filtered; rows and pixels 4-byte aligned), and returns
 * true; returns false, launching nothing, for any other layout. `in` and
 * `out` point at the first filtered sample, as for cf_box_direct_cuda;
 * the arguments are checked and the rows resolved by the caller. */
bool cf_box_words_cuda (const cf_integral_layout & layout,
    const uint8_t * in, const cf_box_params & p, uint8_t * out,
    cudaStream_t stream);

}                               /* namespace cf_boxmean */

#endif
