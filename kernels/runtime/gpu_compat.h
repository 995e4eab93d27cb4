/* Whether the GPU and its driver can run what this build holds, in words a
 * user can act on. CUDA has no compatibility across major versions: a
 * build made with toolkit 13.x needs a driver that supports CUDA 13 (the
 * 580 series or newer), one made with 12.x a driver that supports CUDA 12
 * (525 or newer). A GPU runs machine code built for its own major
 * architecture at the same or a lower minor, or PTX of an older
 * architecture, which the driver compiles if it is as new as the toolkit
 * that wrote it.
 *
 * These functions only compose messages from versions; cf_gpu_check_build()
 * (gpu.h) reads the versions from the driver and the device. */
#ifndef CF_GPU_COMPAT_H
#define CF_GPU_COMPAT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The oldest NVIDIA driver (Linux) that supports the CUDA major version of
 * `cuda_version` (1000 * major + 10 * minor, as cudaDriverGetVersion says);
 * 0 when unknown. */
int cf_gpu_min_driver (int cuda_version);

/* 1 when a driver that supports CUDA `driver_version` cannot run a build of
 * CUDA `build_version`, with why and what to do in `why`; else 0. A
 * `driver_version` of 0 is no driver at all: 0, nothing written. */
int cf_gpu_driver_message (int driver_version, int build_version, char *why,
    size_t size);

/* What kind of code a device was found to lack. */
typedef enum
{
  CF_GPU_IMAGE_NONE,            /* no machine code for it, no PTX it can take */
  CF_GPU_IMAGE_PTX_TOO_NEW,     /* PTX only, newer than the driver compiles */
} cf_gpu_image_problem;

/* Why a device of compute capability major.minor named `device_name` cannot
 * run a build for `built_archs` (as in -Dgpu_archs: "75,80,90"; PTX of the
 * last one), and what to do, in `why`. */
void cf_gpu_image_message (cf_gpu_image_problem problem, int major,
    int minor, const char *device_name, const char *built_archs,
    int driver_version, int build_version, char *why, size_t size);

#ifdef __cplusplus
}
#endif
#endif
