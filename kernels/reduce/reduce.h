/* Reductions of images and audio buffers, per channel: sum, sum of
 * squares, minimum and maximum. One API, a CPU twin and CUDA kernels.
 *
 * The data: `rows` rows of `width` items of `channels` interleaved samples,
 * rows `pitch` bytes apart (a video plane: rows x width pixels; an audio
 * buffer: one row of `width` frames). Sums are accumulated in double, which
 * holds the sums of integer samples exactly up to 2^53 (a 4K frame's sum
 * of squares of 16-bit samples is below 2^56: exact to 1 part in 2^53);
 * float sums are taken over runs of a few thousand samples and the runs'
 * sums added, so their error stays near a few thousand roundings of 2^-53
 * of the total size, whatever the length.
 *
 * CUDA: each block sums a stretch of the samples in registers (1, 2 or 4
 * contiguous channels at once, 16 bytes a load; other layouts one channel
 * a grid row) and folds its threads' partials by warp shuffles and one
 * barrier; a second kernel folds the blocks' partials the same way.
 */
#ifndef CF_REDUCE_H
#define CF_REDUCE_H

#include <stddef.h>
#include "cf_status.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CF_REDUCE_U8,
  CF_REDUCE_U16,
  CF_REDUCE_S16,
  CF_REDUCE_S32,
  CF_REDUCE_F32,
  CF_REDUCE_F64,
  CF_REDUCE_N_TYPES
} cf_reduce_type;

typedef struct
{
  cf_reduce_type type;
  int width, rows;              /* >= 1 */
  int channels;                 /* 1..65535 */
  size_t pitch;                 /* bytes from row to row */
} cf_reduce_layout;

typedef struct
{
  double sum, sum_squares, min, max;
} cf_stats;

size_t cf_reduce_type_size (cf_reduce_type type);
/* CF_ERR_INVALID for an unknown type, an empty size, too many channels or
 * rows closer than a row's bytes. */
int cf_reduce_layout_check (const cf_reduce_layout * layout);
const char *cf_reduce_type_name (cf_reduce_type type);

/* out[c] for each channel c. */
int cf_reduce_cpu (const cf_reduce_layout * layout, const void *data,
    cf_stats * out);

size_t cf_reduce_workspace_size (const cf_reduce_layout * layout);

/* The same on device memory, asynchronously on `stream`: d_out (device
 * memory) receives one cf_stats per channel. */
int cf_reduce_cuda (const cf_reduce_layout * layout, const void *d_data,
    cf_stats * d_out, void *workspace, cf_stream stream);

/* The CUDA variants, the same statistics from the same workspace:
 * `auto` is what cf_reduce_cuda runs (above); `tree` is the textbook
 * reduction, kept to compare against: a grid per channel, each sample
 * loaded alone, each block's partials folded in shared memory by a tree
 * whose active threads stay contiguous (t < stride) down to one warp,
 * then shuffles; the blocks' partials folded the same way by a second
 * launch queued behind the first. */
typedef enum
{
  CF_REDUCE_AUTO,
  CF_REDUCE_TREE,
  CF_REDUCE_N_ALGORITHMS
} cf_reduce_algorithm;

const char *cf_reduce_algorithm_name (cf_reduce_algorithm algorithm);
/* CF_ERR_INVALID for an unknown algorithm, as for a bad layout. */
int cf_reduce_cuda_variant (cf_reduce_algorithm algorithm,
    const cf_reduce_layout * layout, const void *d_data, cf_stats * d_out,
    void *workspace, cf_stream stream);

#ifdef __cplusplus
}
#endif
#endif
