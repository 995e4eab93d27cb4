/* Masks larger than CF_CONV2D_MAX_SIZE that are not separable (up to
 * CF_CONV2D_MAX_GENERAL a side: discs, any mask from a file) run through
 * the frequency domain, at a cost that depends on the plane's size, hardly
 * on the mask's:
 *
 * - Each filtered channel is laid into a plane of nx x ny real values:
 *   sample (x - rx, y - ry) of the source at (x, y), the border mode
 *   filling the reach outside, zeros beyond. nx >= width + kw - 1 and
 *   ny >= height + kh - 1 are the next sizes of factors 2, 3, 5 and 7, so
 *   that the transform's wrap-around never reaches an output.
 * - The mask lies at (-i, -j) modulo the sizes, so that the circular
 *   convolution of the two is conv2d.h's correlation; its spectrum is
 *   computed once, with the scale (1 / divisor) and the transform's 1 /
 *   (nx ny) folded in.
 * - Per frame: a real-to-complex transform of every channel, a product
 *   with the mask's spectrum, the inverse, and the output
 *   saturate(round(value + offset)) at (x, y).
 *
 * Precision: the CPU twin computes in double (FFTW). The CUDA path (cuFFT)
 * computes in float where the transform's error bound, largest sample x
 * sum of |taps| x |scale| x 2^-24 x 8 log2(nx ny), stays under 1/20 level
 * (8-bit planes with masks of positive taps: about 1/400), and in double
 * otherwise (16-bit planes, masks of large mixed taps). Both stay within 1
 * level of the exact convolution; they may differ from each other by one
 * level where a value lies within the float error of a rounding tie. */
#ifndef CF_CONV2D_SPECTRAL_H
#define CF_CONV2D_SPECTRAL_H

#include "conv2d.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The transform's size and precision for a plan on planes of a layout. */
typedef struct
{
  int nx, ny;                   /* transform size */
  int pitch;                    /* reals a row: 2 (nx / 2 + 1), in place */
  int channels;                 /* filtered channels (all but keep_channel) */
  int channel[4];               /* their indices in the pixel */
  int use_double;               /* the CUDA path computes in double */
} cf_conv2d_spectral_size;

/* Planes of at most this many pixels a side (the transform's sizes). */
#define CF_CONV2D_SPECTRAL_MAX_SIDE 32768

/* CF_ERR_INVALID for a plan that is not spectral, a bad layout or a side
 * above CF_CONV2D_SPECTRAL_MAX_SIDE. */
int cf_conv2d_spectral_size_init (cf_conv2d_spectral_size * size,
    const cf_conv2d_plan * plan, const cf_plane_format * format);

/* The smallest n' >= n whose only prime factors are 2, 3, 5 and 7. */
int cf_conv2d_spectral_good_size (int n);

/* A transform set up for one plan and one plane layout: the FFT plans,
 * the work planes and the mask's spectrum. Made when the mask or the
 * layout changes, used for every frame; one plane at a time. */
typedef struct cf_conv2d_spectral_cpu cf_conv2d_spectral_cpu;
typedef struct cf_conv2d_spectral_gpu cf_conv2d_spectral_gpu;

/* CPU twin: *out is NULL on failure (CF_ERR_NO_MEMORY, CF_ERR_FFT,
 * CF_ERR_INVALID). */
int cf_conv2d_spectral_cpu_new (cf_conv2d_spectral_cpu ** out,
    const cf_conv2d_plan * plan, const cf_plane_format * format);
/* Filtered channel k (0 .. channels - 1) of a whole plane; k = 0 also
 * copies the kept channel. Channels may run at once on several threads. */
int cf_conv2d_spectral_cpu_channel (cf_conv2d_spectral_cpu * s,
    const void *src, size_t src_stride, void *dst, size_t dst_stride, int k);
int cf_conv2d_spectral_cpu_channels (const cf_conv2d_spectral_cpu * s);
void cf_conv2d_spectral_cpu_free (cf_conv2d_spectral_cpu * s);

/* CUDA: made in the current context, the mask's spectrum computed on
 * `stream` (synchronously: the plan's taps are copied from the host).
 * CF_ERR_NO_CUFFT where the toolkit's cuFFT library is missing. */
int cf_conv2d_spectral_cuda_new (cf_conv2d_spectral_gpu ** out,
    const cf_conv2d_plan * plan, const cf_plane_format * format,
    cf_stream stream);
/* The whole plane, asynchronously on `stream`. */
int cf_conv2d_spectral_cuda (cf_conv2d_spectral_gpu * s, const void *d_src,
    size_t src_stride, void *d_dst, size_t dst_stride, cf_stream stream);
/* Whether `s` computes in double. */
int cf_conv2d_spectral_cuda_double (const cf_conv2d_spectral_gpu * s);
/* Frees after the device has finished with the work planes. */
void cf_conv2d_spectral_cuda_free (cf_conv2d_spectral_gpu * s);

#ifdef __cplusplus
}
#endif
#endif
