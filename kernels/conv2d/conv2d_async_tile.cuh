/* Tiles copied into shared memory while the block works on the one before:
 * 16-byte asynchronous copies (cp.async) of a tile's rows of bytes, the
 * border mode applied where a tile leaves the plane, and the walk of
 * blocks that stay resident and take tile after tile. Used by the kernels
 * that sum straight from the plane's bytes on the tensor cores.
 *
 * A tile geometry G gives PIXEL (bytes a pixel), THREADS (a block's),
 * CHUNKS (16-byte chunks copied a tile row) and PITCH (bytes a tile row in
 * shared memory, at least 16 CHUNKS). */
#pragma once

#include "conv2d_tile.cuh"

#include <algorithm>

namespace cf_conv2d {

/* The 16 / P pixels of a 16-byte chunk from pixel gx of `row` (NULL: a row
 * outside a CONSTANT border) through the border mode, every load issued
 * before any is used: one load at a time, each waited for, made the edge
 * tiles' blocks the launch's slowest. Four-byte pixels here are 4-byte
 * aligned (the rows are 16-byte aligned). */
template <int P>
__device__ __forceinline__ uint4
edge_chunk_batched (const uint8_t * row, int width, int border, int gx)
{
  constexpr int N = 16 / P;
  uint32_t v[N];
#pragma unroll
  for (int p = 0; p < N; p++) {
    const int bx = cf_border_index (gx + p, width, (cf_border) border);
    v[p] = 0;
    if (row && bx >= 0)
      v[p] = P == 1 ? (uint32_t) __ldg (row + bx)
          : __ldg (reinterpret_cast<const uint32_t *>(row) + bx);
  }
  uint32_t w[4];
#pragma unroll
  for (int q = 0; q < 4; q++)
    w[q] = P == 4 ? v[q] : v[4 * q] | v[4 * q + 1] << 8 | v[4 * q + 2] << 16
        | v[4 * q + 3] << 24;
  return make_uint4 (w[0], w[1], w[2], w[3]);
}

/* One asynchronous 16-byte copy from global `from` to shared `to` */
__device__ __forceinline__ void
copy_chunk_async (uint32_t to, const uint8_t * from)
{
  asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;"
      :: "r" (to), "l" (from) : "memory");
}

/* Closes the group of copies started since the last call */
__device__ __forceinline__ void
commit_copies ()
{
  asm volatile ("cp.async.commit_group;" ::: "memory");
}

/* Waits until at most N of this thread's groups of copies are in flight */
template <int N>
__device__ __forceinline__ void
wait_copies ()
{
  asm volatile ("cp.async.wait_group %0;" :: "n" (N) : "memory");
}

/* Starts the copy of a tile (IN_ROWS rows from y0, CHUNKS chunks from pixel
 * x0) into `buf`: tiles inside the plane as asynchronous 16-byte copies, a
 * thread stepping down one chunk column; tiles at an edge through the
 * border mode, asynchronously where a chunk lies inside its row, else
 * loaded and stored before this returns. */
template <typename G, int IN_ROWS>
__device__ __forceinline__ void
start_tile (const Image & im, int border, int x0, int y0, int tid,
    uint8_t * buf)
{
  constexpr int P = G::PIXEL;
  constexpr int PASS_ROWS = G::THREADS / G::CHUNKS;
  const bool inside = x0 >= 0 && y0 >= 0
      && x0 + G::CHUNKS * (16 / P) <= im.width && y0 + IN_ROWS <= im.height;
  if (!inside) {
    for (int idx = tid; idx < IN_ROWS * G::CHUNKS; idx += G::THREADS) {
      const int r = idx / G::CHUNKS, c = idx - r * G::CHUNKS;
      const int gx = x0 + c * (16 / P);
      const int gy = cf_border_index (y0 + r, im.height, (cf_border) border);
      const uint8_t *row = gy >= 0 ? im.src + (size_t) gy * im.src_stride
          : nullptr;
      uint8_t *to = buf + r * G::PITCH + c * 16;
      if (row && gx >= 0 && gx + 16 / P <= im.width)
        copy_chunk_async ((uint32_t) __cvta_generic_to_shared (to),
            row + (size_t) gx * P);
      else
        *reinterpret_cast<uint4 *>(to) = edge_chunk_batched<P> (row,
            im.width, border, gx);
    }
    return;
  }
  const int r0 = tid / G::CHUNKS, c = tid - r0 * G::CHUNKS;
  if (r0 >= PASS_ROWS)
    return;
  const uint8_t *at = im.src + (size_t) (y0 + r0) * im.src_stride
      + (size_t) x0 * P + 16 * c;
  const uint32_t dst = (uint32_t) __cvta_generic_to_shared (buf
      + r0 * G::PITCH + 16 * c);
#pragma unroll
  for (int r = r0; r < IN_ROWS; r += PASS_ROWS) {
    copy_chunk_async (dst + (r - r0) * G::PITCH, at);
    at += (size_t) PASS_ROWS * im.src_stride;
  }
}

/* The tiles of a launch of resident blocks: block b starts at tile b (row
 * by row, tiles_x a row) and steps gridDim.x tiles on each time. */
struct TileWalk
{
  int tiles_x, step_x, step_y;

  __device__ explicit TileWalk (int tiles_x_) : tiles_x (tiles_x_),
      step_x (gridDim.x % tiles_x_), step_y (gridDim.x / tiles_x_) { }

  __device__ void first (int &tx, int &ty) const
  {
    tx = blockIdx.x % tiles_x;
    ty = blockIdx.x / tiles_x;
  }

  __device__ void next (int &tx, int &ty) const
  {
    tx += step_x;
    ty += step_y;
    if (tx >= tiles_x) {
      tx -= tiles_x;
      ty++;
    }
  }
};

/* Starts the copy of the walk's next tile (ftx, fty) into `buf`, its rows
 * from ry above the tile's and its pixels from G::HALO left of them;
 * closes the group of copies (empty past the last tile, so that waits
 * count groups the same way) and steps (ftx, fty) on. */
template <typename G, int IN_ROWS>
__device__ __forceinline__ void
copy_next_tile (const Image & im, int border, int ry, const TileWalk & walk,
    int &ftx, int &fty, int tiles_y, int tid, uint8_t * buf)
{
  if (fty < tiles_y)
    start_tile<G, IN_ROWS> (im, border, ftx * G::TW - G::HALO,
        im.row_begin + fty * G::TH - ry, tid, buf);
  commit_copies ();
  walk.next (ftx, fty);
}

/* The blocks to launch of a kernel whose blocks stay and walk `tiles`
 * tiles: as many as the device holds at once, at most one a tile; 0 when
 * the runtime failed (its error pending). `per_sm` keeps the kernel's
 * blocks an SM, the same on every device of one build's architecture, so
 * asked once (a race only asks twice). */
inline int
resident_blocks (const void *kernel, int threads, size_t shared, int tiles,
    int &per_sm)
{
  int device = 0, sms = 0;
  if (per_sm < 1 && cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm,
          kernel, threads, shared) != cudaSuccess)
    return 0;
  if (cudaGetDevice (&device) != cudaSuccess
      || cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount,
          device) != cudaSuccess || per_sm < 1)
    return 0;
  return std::min (tiles, sms * per_sm);
}

}  /* namespace cf_conv2d */
