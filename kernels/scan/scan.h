/* Prefix sums (scans) of one array: one API, a CPU twin and CUDA variants.
 *
 *   inclusive: y[i] = x[0] + ... + x[i]
 *   exclusive: y[i] = x[0] + ... + x[i - 1]   (y[0] = 0)
 *
 * Precision. Float scans accumulate in double everywhere (within a thread,
 * a tile and across tiles) and round to float only on the way out. The CPU
 * twin and `decoupled` round each output once; the hierarchical variants
 * write a tile's local prefix as float, then add the tile's offset, so an
 * output may also carry one float rounding of a prefix of at most
 * CF_SCAN_TILE elements. Either way the error does not grow with n (a float
 * running sum drifts by about n/2 roundings). Double scans accumulate in
 * double. Integer scans wrap modulo 2^bits, as C's unsigned arithmetic
 * does (signed values in two's complement).
 *
 * CUDA variants: every one runs on any length. `kogge-stone`, `brent-kung`
 * and `warp` are the block scans of a hierarchical scan (three kernels:
 * scan the tiles and keep their sums, scan the sums the same way, add them
 * back); `decoupled` scans in one pass, each tile looking back at its
 * predecessors' published sums; `cub` is cub::DeviceScan (part of the CUDA
 * toolkit) fed through the same accumulator types, so its float scans sum
 * in double too.
 */
#ifndef CF_SCAN_H
#define CF_SCAN_H

#include <stddef.h>
#include "cf_status.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Elements one CUDA block scans: 256 threads x 8. */
#define CF_SCAN_TILE 2048

typedef enum
{
  CF_SCAN_F32,
  CF_SCAN_F64,
  CF_SCAN_I32,
  CF_SCAN_U32,
  CF_SCAN_U64,
  CF_SCAN_N_TYPES
} cf_scan_type;

typedef enum
{
  CF_SCAN_AUTO,                 /* the fastest: decoupled, at every length */
  CF_SCAN_KOGGE_STONE,          /* double-buffered, one barrier a step */
  CF_SCAN_BRENT_KUNG,           /* reduction tree, then reverse tree */
  CF_SCAN_WARP,                 /* warp shuffles, then the warp totals */
  CF_SCAN_DECOUPLED,            /* one pass, decoupled look-back */
  CF_SCAN_CUB,                  /* CUB's single-pass scan, our accumulators */
  CF_SCAN_N_ALGORITHMS
} cf_scan_algorithm;

const char *cf_scan_type_name (cf_scan_type type);
const char *cf_scan_algorithm_name (cf_scan_algorithm algorithm);
size_t cf_scan_type_size (cf_scan_type type);

/* CPU twin. `in` and `out` may be the same array. */
int cf_scan_cpu (cf_scan_type type, int inclusive, const void *in, void *out,
    size_t n);

/* Device memory `cf_scan_cuda` needs for `n` elements (a multiple of 256
 * bytes, at least 256). */
size_t cf_scan_workspace_size (cf_scan_algorithm algorithm, cf_scan_type type,
    size_t n);

/* CUDA: the same on device memory, asynchronously on `stream`, with
 * `workspace` of cf_scan_workspace_size bytes. `in` and `out` may be the
 * same array. The workspace needs no clearing between calls: each call
 * tells its own tile states from whatever the memory holds. Zero it once
 * when allocating, so that the first call's reads of states not yet
 * written read zeros rather than memory nobody wrote. */
int cf_scan_cuda (cf_scan_algorithm algorithm, cf_scan_type type,
    int inclusive, const void *d_in, void *d_out, size_t n, void *workspace,
    cf_stream stream);

#ifdef __cplusplus
}
#endif
#endif
