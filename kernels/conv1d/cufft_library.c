/* Loading cuFFT; see cufft_library.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "cufft_library.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define LIBRARY "libcufft.so." STR (CUFFT_VER_MAJOR)

#ifndef CF_CUDA_LIBDIR
#define CF_CUDA_LIBDIR "/usr/local/cuda/lib64"
#endif

static cf_cufft_api api;
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int
find (void *lib, void **fn, const char *name)
{
  *fn = dlsym (lib, name);
  return *fn != NULL;
}

static void
load (void)
{
  void *lib = dlopen (LIBRARY, RTLD_NOW | RTLD_LOCAL);

  if (!lib)
    lib = dlopen (CF_CUDA_LIBDIR "/" LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return;
  /* kept open for the process's life: plans may outlive any one user */
  loaded = find (lib, (void **) &api.plan_many, "cufftPlanMany")
      && find (lib, (void **) &api.set_stream, "cufftSetStream")
      && find (lib, (void **) &api.destroy, "cufftDestroy")
      && find (lib, (void **) &api.exec_r2c, "cufftExecR2C")
      && find (lib, (void **) &api.exec_c2r, "cufftExecC2R")
      && find (lib, (void **) &api.exec_d2z, "cufftExecD2Z")
      && find (lib, (void **) &api.exec_z2d, "cufftExecZ2D");
}

const cf_cufft_api *
cf_cufft (void)
{
  pthread_once (&once, load);
  return loaded ? &api : NULL;
}

const char *
cf_cufft_library (void)
{
  return LIBRARY;
}
