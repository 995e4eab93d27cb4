/* NPP, the benchmarks' peer, loaded at run time: the toolkit may ship the
 * libraries without their headers, and a machine without NPP still runs
 * the benchmarks. */
#ifndef NPP_PEER_H
#define NPP_PEER_H

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Layouts as in nppdefs.h of NPP 12 and 13. */

typedef unsigned char Npp8u;
typedef int Npp32s;
typedef int NppStatus;          /* a C enum: int-sized; 0 success, < 0 error */

typedef struct
{
  int x;
  int y;
} NppiPoint;

typedef struct
{
  int width;
  int height;
} NppiSize;

typedef struct
{
  int major;
  int minor;
  int build;
} NppLibraryVersion;

typedef struct
{
  cudaStream_t hStream;
  int nCudaDeviceId;
  int nMultiProcessorCount;
  int nMaxThreadsPerMultiProcessor;
  int nMaxThreadsPerBlock;
  size_t nSharedMemPerBlock;
  int nCudaDevAttrComputeCapabilityMajor;
  int nCudaDevAttrComputeCapabilityMinor;
  unsigned int nStreamFlags;
  int nReserved0;
} NppStreamContext;

#if UINTPTR_MAX == UINT64_MAX
/* The context goes by value: a layout slip would shift every field. */
_Static_assert (offsetof (NppStreamContext, nSharedMemPerBlock) == 24,
    "NppStreamContext layout");
_Static_assert (sizeof (NppStreamContext) == 48, "NppStreamContext size");
#endif

typedef const NppLibraryVersion *(*NppGetLibVersionFn) (void);

/* dlopen()s the first of `names` that loads, from the loader's path first,
 * then from the toolkit's usual place. Keeps the first error for the
 * report. */
static inline void *
open_first (const char *const *names, int n, int flags, char *path,
    size_t path_size, char *err, size_t err_size)
{
  static const char *const dirs[] = { "", "/usr/local/cuda/lib64/" };

  for (int d = 0; d < 2; d++)
    for (int k = 0; k < n; k++) {
      void *h;
      snprintf (path, path_size, "%s%s", dirs[d], names[k]);
      if ((h = dlopen (path, flags)))
        return h;
      if (!err[0])
        snprintf (err, err_size, "%s", dlerror ());
    }
  return NULL;
}

static inline void
npp_context_init (NppStreamContext * c, cudaStream_t stream, int device,
    const struct cudaDeviceProp *prop)
{
  memset (c, 0, sizeof (*c));
  c->hStream = stream;
  c->nCudaDeviceId = device;
  c->nMultiProcessorCount = prop->multiProcessorCount;
  c->nMaxThreadsPerMultiProcessor = prop->maxThreadsPerMultiProcessor;
  c->nMaxThreadsPerBlock = prop->maxThreadsPerBlock;
  c->nSharedMemPerBlock = prop->sharedMemPerBlock;
  cudaDeviceGetAttribute (&c->nCudaDevAttrComputeCapabilityMajor,
      cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute (&c->nCudaDevAttrComputeCapabilityMinor,
      cudaDevAttrComputeCapabilityMinor, device);
  cudaStreamGetFlags (stream, &c->nStreamFlags);
}

#endif
