/* The start of a kernel test on the GPU: a usable device and a stream, or
 * the reason the test skips. */
#ifndef CF_TEST_GPU_H
#define CF_TEST_GPU_H

#include <stdio.h>

#include "gpu.h"
#include "test_util.h"

/* Creates *stream on a usable device and returns -1; otherwise returns the
 * exit status of the test: TEST_SKIP (with the reason) when there is no
 * GPU, 1 when the stream cannot be made. */
static inline int
test_gpu_start (const char *name, cf_stream * stream)
{
  int count = 0, st = cf_gpu_device_count (&count);

  if (!cf_gpu_built_with_cuda ())
    return test_skip (name, "built without CUDA");
  if (count == 0)
    return test_skip (name, st == CF_OK ? "no CUDA device"
        : cf_status_name (st));
  if ((st = cf_gpu_stream_create (stream)) != CF_OK) {
    printf ("cannot create a stream: %s\n", cf_status_name (st));
    return 1;
  }
  return -1;
}

#endif
