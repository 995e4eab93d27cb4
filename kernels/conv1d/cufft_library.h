/* cuFFT, loaded when the first FFT filter on the GPU is opened (dlopen),
 * not linked: the plugin, and every program that never runs a long mask,
 * starts where the toolkit's cuFFT is missing (a machine with only the
 * driver and the CUDA runtime the plugin carries). The library is the one
 * of the toolkit the build used: libcufft.so.11 for CUDA 12,
 * libcufft.so.12 for CUDA 13, found as the dynamic loader finds libraries,
 * then in the toolkit's lib64 folder. */
#ifndef CF_CUFFT_LIBRARY_H
#define CF_CUFFT_LIBRARY_H

#include <cufft.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  cufftResult (*plan_many) (cufftHandle * plan, int rank, int *n,
      int *inembed, int istride, int idist, int *onembed, int ostride,
      int odist, cufftType type, int batch);
  cufftResult (*set_stream) (cufftHandle plan, cudaStream_t stream);
  cufftResult (*destroy) (cufftHandle plan);
  cufftResult (*exec_r2c) (cufftHandle plan, cufftReal * in,
      cufftComplex * out);
  cufftResult (*exec_c2r) (cufftHandle plan, cufftComplex * in,
      cufftReal * out);
  cufftResult (*exec_d2z) (cufftHandle plan, cufftDoubleReal * in,
      cufftDoubleComplex * out);
  cufftResult (*exec_z2d) (cufftHandle plan, cufftDoubleComplex * in,
      cufftDoubleReal * out);
} cf_cufft_api;

/* The functions, loaded once; NULL when the library or one of them is
 * missing (cf_cufft_library() names the file looked for). */
const cf_cufft_api *cf_cufft (void);
const char *cf_cufft_library (void);

#ifdef __cplusplus
}
#endif
#endif
