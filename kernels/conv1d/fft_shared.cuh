/* Complex FFTs of a power-of-two length n (16..4096) in a thread block's
 * shared memory, for the one-kernel FFT block of fir_block.cu.
 *
 * Stockham passes: each pass reads R elements n / R apart, turns them by
 * its twiddles, does an R-point DFT in registers and writes them R times
 * closer, so that the result comes out in natural order with no
 * bit-reversal step. Radix 8 after one pass of 2 or 4 for the odd bits:
 * a 1024-point transform takes 4 passes (8 barriers) where radix 2 took 10
 * stages of shared-memory round trips, and each thread keeps 8 values in
 * flight instead of 2. The block needs at least n / GROUP threads (GROUP 4
 * or 8); a thread then takes up to GROUP / R groups of a radix-R pass.
 * Internal to the kernels library. */
#pragma once

#include <cuda_runtime.h>

namespace cf_fft {

template <typename C> __device__ __forceinline__ C
cadd (C a, C b)
{
  return C { a.x + b.x, a.y + b.y };
}

template <typename C> __device__ __forceinline__ C
csub (C a, C b)
{
  return C { a.x - b.x, a.y - b.y };
}

template <typename C> __device__ __forceinline__ C
cmul (C a, C b)
{
  return C { a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x };
}

/* a times the conjugate of b */
template <typename C> __device__ __forceinline__ C
cmulc (C a, C b)
{
  return C { a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y };
}

/* Shared cell of element i: one pad cell after every 128 bytes, so that
 * the passes' strided writes (R elements apart in the first pass) spread
 * over the banks. */
template <typename C> __host__ __device__ constexpr int
pad (int i)
{
  return i + (i >> (sizeof (C) == 8 ? 4 : 3));
}

/* cos and sin of 2 pi k / 16, without recursion or tables, so that a
 * constant k folds into a constant */
__host__ __device__ constexpr double
cos16 (int k)
{
  constexpr double c1 = 0.92387953251128675613, c2 = 0.70710678118654752440,
      c3 = 0.38268343236508977173;
  k &= 15;
  int m = k <= 4 ? k : k <= 8 ? 8 - k : k <= 12 ? k - 8 : 16 - k;
  double v = m == 0 ? 1 : m == 1 ? c1 : m == 2 ? c2 : m == 3 ? c3 : 0;
  return k > 4 && k < 12 ? -v : v;
}

__host__ __device__ constexpr double
sin16 (int k)
{
  return cos16 (k - 4);
}

/* v times exp(dir 2 pi i k / 16); k is known once the loops unroll, so the
 * quarter turns cost no multiply */
template <int DIR, typename C> __device__ __forceinline__ C
turn16 (C v, int k)
{
  using T = decltype (v.x);
  k &= 15;
  if (k == 0)
    return v;
  if (k == 8)
    return C { -v.x, -v.y };
  if (k == 4)
    return C { -DIR * v.y, DIR * v.x };
  if (k == 12)
    return C { DIR * v.y, -DIR * v.x };
  const T c = (T) cos16 (k), s = (T) (DIR * sin16 (k));
  return C { v.x * c - v.y * s, v.x * s + v.y * c };
}

/* i with its low `bits` bits reversed (a loop, not a recursion, so that
 * the unrolled callers fold it into constant register names) */
__device__ __forceinline__ int
reverse_bits (int i, int bits)
{
  int r = 0;
#pragma unroll
  for (int b = 0; b < 3; b++)
    if (b < bits)
      r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

/* R-point DFT (R = 2, 4, 8) of v in registers, natural order in and out:
 * radix-2 decimation in frequency, the bit reversal a renaming. DIR -1
 * forward, +1 inverse (unscaled). */
template <int R, int DIR, typename C> __device__ __forceinline__ void
dft (C (&v)[R])
{
  constexpr int bits = R == 2 ? 1 : R == 4 ? 2 : 3;
  /* constant trip counts: every index and turn below is a constant */
#pragma unroll
  for (int stage = 0; stage < bits; stage++) {
    const int h = R >> (stage + 1);
#pragma unroll
    for (int j = 0; j < R / 2; j++) {
      const int o = j % h, i0 = (j - o) * 2 + o, i1 = i0 + h;
      C u = v[i0], t = v[i1];
      v[i0] = cadd (u, t);
      v[i1] = turn16<DIR> (csub (u, t), o * (8 / h));
    }
  }
  C out[R];
#pragma unroll
  for (int i = 0; i < R; i++)
    out[reverse_bits (i, bits)] = v[i];
#pragma unroll
  for (int i = 0; i < R; i++)
    v[i] = out[i];
}

/* exp(-2 pi i m / n), 0 <= m < n, from w[k] = exp(-i pi k / n), k = 0..n:
 * w[2m], or minus w[2m - n] past the half turn (selects, not branches) */
template <typename C> __device__ __forceinline__ C
root (const C * w, int n, int m)
{
  const int k = 2 * m, past = k > n;
  C t = w[past ? k - n : k];
  return past ? C { -t.x, -t.y } : t;
}

/* One Stockham pass of radix R over s (n = 2^bits points), sub-transforms
 * of ns = 2^ns_bits done; each thread takes K of the n / R groups. A
 * group's twiddles are powers of its first, one table read and R - 2
 * products. Ends with the block in step. */
template <int R, int K, int DIR, typename C> __device__ __forceinline__ void
pass (C * s, int n, int bits, int ns_bits, const C * w)
{
  constexpr int r_bits = R == 2 ? 1 : R == 4 ? 2 : 3;
  const int groups = n >> r_bits, nt = blockDim.x, ns = 1 << ns_bits;
  C v[K][R];

#pragma unroll
  for (int k = 0; k < K; k++) {
    const int j = threadIdx.x + k * nt, o = j & (ns - 1);
    if (j < groups) {
      /* exp(-2 pi i o / (ns R)), conjugate for the inverse */
      C t1 = root (w, n, o << (bits - r_bits - ns_bits)), t = t1;
      if (DIR > 0)
        t1 = t = C { t1.x, -t1.y };
      v[k][0] = s[pad<C> (j)];
#pragma unroll
      for (int r = 1; r < R; r++) {
        v[k][r] = cmul (s[pad<C> (j + r * groups)], t);
        if (r + 1 < R)
          t = cmul (t, t1);
      }
      dft<R, DIR> (v[k]);
    }
  }
  __syncthreads ();
#pragma unroll
  for (int k = 0; k < K; k++) {
    const int j = threadIdx.x + k * nt, o = j & (ns - 1);
    const int base = ((j - o) << r_bits) + o;
    if (j < groups)
#pragma unroll
      for (int r = 0; r < R; r++)
        s[pad<C> (base + (r << ns_bits))] = v[k][r];
  }
  __syncthreads ();
}

/* The unscaled DFT of s[pad(0 .. n)) in place, n = 2^bits, natural order
 * in and out; DIR -1 forward, +1 inverse. The block must be in step on
 * entry and have at least n / GROUP threads; w as for root(). */
template <int DIR, int GROUP, typename C> __device__ __forceinline__ void
fft (C * s, int n, int bits, const C * w)
{
  static_assert (GROUP == 4 || GROUP == 8, "groups of 4 or 8 per thread");
  int done = 0;                 /* bits of the sub-transforms done */
  if (bits % 3 == 1) {
    pass<2, GROUP / 2, DIR> (s, n, bits, done, w);
    done = 1;
  } else if (bits % 3 == 2) {
    pass<4, GROUP / 4, DIR> (s, n, bits, done, w);
    done = 2;
  }
  for (; done < bits; done += 3)
    pass<8, 1, DIR> (s, n, bits, done, w);
}

}  /* namespace cf_fft */
