/* The border modes as the tests state them, independently of the
 * project's kernels/conv2d/border.h: where coordinate v of an axis of n samples
 * reads from, by repeated folding; -1 means outside, reading 0. Modes in the
 * order of the elements' `border` property: clamp, mirror, wrap, constant. */
#ifndef CF_TEST_REF_BORDER_H
#define CF_TEST_REF_BORDER_H

enum
{
  REF_BORDER_CLAMP,
  REF_BORDER_MIRROR,
  REF_BORDER_WRAP,
  REF_BORDER_CONSTANT,
};

static inline int
ref_border_source (int v, int n, int border)
{
  if (v >= 0 && v < n)
    return v;
  switch (border) {
    case REF_BORDER_CLAMP:
      return v < 0 ? 0 : n - 1;
    case REF_BORDER_MIRROR:
      /* fold at the edge samples, which are not repeated: -1 reads 1 */
      if (n == 1)
        return 0;
      while (v < 0 || v >= n)
        v = v < 0 ? -v : 2 * (n - 1) - v;
      return v;
    case REF_BORDER_WRAP:
      return ((v % n) + n) % n;
    default:
      return -1;
  }
}

#endif
