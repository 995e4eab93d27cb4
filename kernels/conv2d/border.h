/* Border handling shared by the CPU twin and the CUDA kernels: where a
 * coordinate outside [0, n) reads from. */
#ifndef CF_BORDER_H
#define CF_BORDER_H

#ifdef __CUDACC__
#define CF_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define CF_HOST_DEVICE static inline
#endif

typedef enum
{
  CF_BORDER_CLAMP,              /* repeat the edge sample: a a | a b c | c c */
  CF_BORDER_MIRROR,             /* reflect, edge not repeated: c b | a b c | b a */
  CF_BORDER_WRAP,               /* periodic: b c | a b c | a b */
  CF_BORDER_CONSTANT,           /* zero outside */
} cf_border;

/* Maps coordinate x to [0, n), or returns -1 when the border is CONSTANT and
 * x is outside (the sample reads as 0). Works for any distance outside, so a
 * mask wider than the image still reads defined samples. */
CF_HOST_DEVICE int
cf_border_index (int x, int n, cf_border border)
{
  if ((unsigned) x < (unsigned) n)
    return x;
  switch (border) {
    case CF_BORDER_CLAMP:
      return x < 0 ? 0 : n - 1;
    case CF_BORDER_MIRROR:{
      int period = 2 * (n - 1);
      if (period == 0)
        return 0;
      x %= period;
      if (x < 0)
        x += period;
      return x < n ? x : period - x;
    }
    case CF_BORDER_WRAP:
      x %= n;
      return x < 0 ? x + n : x;
    default:
      return -1;
  }
}

#endif
