/* The driver and architecture messages (kernels/runtime/gpu_compat.h):
 * which versions are refused, and that each message names the versions
 * and a remedy a user can act on.
 *
 *   test_gpu_compat   no GPU needed */
#include <string.h>

#include "gpu_compat.h"
#include "test_util.h"

static void
expect_in (const char *text, const char *part, const char *what)
{
  test_check (strstr (text, part) != NULL, "%s: \"%s\" not in \"%s\"", what,
      part, text);
}

static void
expect_not_in (const char *text, const char *part, const char *what)
{
  test_check (strstr (text, part) == NULL, "%s: \"%s\" in \"%s\"", what,
      part, text);
}

static void
check_driver (void)
{
  char why[512];

  /* refused: an older major version than the build's */
  strcpy (why, "poison");
  test_check (cf_gpu_driver_message (12020, 13000, why, sizeof (why)) == 1,
      "a 12.2 driver for a 13.0 build is refused");
  expect_in (why, "supports CUDA up to 12.2", "12.2 driver, 13.0 build");
  expect_in (why, "built with CUDA 13.0", "12.2 driver, 13.0 build");
  expect_in (why, "580 series or newer", "12.2 driver, 13.0 build");
  expect_in (why, "install a newer NVIDIA driver", "12.2 driver, 13.0 build");
  expect_in (why, "CUDA 12 toolkit", "12.2 driver, 13.0 build");

  test_check (cf_gpu_driver_message (11080, 12040, why, sizeof (why)) == 1,
      "an 11.8 driver for a 12.4 build is refused");
  expect_in (why, "supports CUDA up to 11.8", "11.8 driver, 12.4 build");
  expect_in (why, "built with CUDA 12.4", "11.8 driver, 12.4 build");
  expect_in (why, "525 series or newer", "11.8 driver, 12.4 build");
  /* no toolkit older than 12 builds the plugin: no such advice */
  expect_not_in (why, "toolkit", "11.8 driver, 12.4 build");

  test_check (cf_gpu_driver_message (11040, 13000, why, sizeof (why)) == 1,
      "an 11.4 driver for a 13.0 build is refused");
  expect_not_in (why, "toolkit", "11.4 driver, 13.0 build");

  /* accepted: the same major (minor-version compatibility) or newer */
  strcpy (why, "untouched");
  test_check (cf_gpu_driver_message (12020, 12040, why, sizeof (why)) == 0,
      "a 12.2 driver runs a 12.4 build");
  test_check (cf_gpu_driver_message (13000, 12040, why, sizeof (why)) == 0,
      "a 13.0 driver runs a 12.4 build");
  test_check (cf_gpu_driver_message (13010, 13000, why, sizeof (why)) == 0,
      "a 13.1 driver runs a 13.0 build");
  /* no driver: not a version problem */
  test_check (cf_gpu_driver_message (0, 13000, why, sizeof (why)) == 0,
      "no driver is not a version problem");
  test_check (strcmp (why, "untouched") == 0, "accepted: nothing written");

  test_check (cf_gpu_min_driver (12000) == 525 && cf_gpu_min_driver (12090)
      == 525 && cf_gpu_min_driver (13000) == 580 && cf_gpu_min_driver (11080)
      == 0, "minimum drivers: 525 for 12.x, 580 for 13.x");

  /* a short buffer is cut, never overrun */
  memset (why, 'x', sizeof (why));
  cf_gpu_driver_message (12020, 13000, why, 16);
  test_check (strlen (why) == 15 && why[16] == 'x', "message cut at 16");
}

static void
check_image (void)
{
  char why[512];

  cf_gpu_image_message (CF_GPU_IMAGE_NONE, 9, 0, "NVIDIA H100", "75,80,86",
      13000, 13000, why, sizeof (why));
  expect_in (why, "NVIDIA H100 is of compute capability 9.0", "no image");
  expect_in (why, "7.5, 8.0 and 8.6", "no image");
  expect_in (why, "PTX for 8.6", "no image");
  expect_in (why, "-Dgpu_archs=90", "no image");
  expect_in (why, "native", "no image");

  cf_gpu_image_message (CF_GPU_IMAGE_NONE, 12, 0, "a GPU", "90", 13000,
      13000, why, sizeof (why));
  expect_in (why, "machine code only for 9.0 and PTX for 9.0", "one arch");
  expect_in (why, "-Dgpu_archs=120", "one arch");

  cf_gpu_image_message (CF_GPU_IMAGE_PTX_TOO_NEW, 10, 0, "a GPU",
      "75,80,86,87,89,90", 12020, 12040, why, sizeof (why));
  expect_in (why, "compute capability 10.0", "PTX too new");
  expect_in (why, "written by CUDA 12.4", "PTX too new");
  expect_in (why, "this driver's CUDA 12.2", "PTX too new");
  expect_in (why, "install a newer NVIDIA driver", "PTX too new");
  expect_in (why, "-Dgpu_archs=100", "PTX too new");

  cf_gpu_image_message (CF_GPU_IMAGE_NONE, 6, 1, "an old GPU", "75,90",
      13000, 13000, why, sizeof (why));
  expect_in (why, "older than 7.5 (Turing) are not supported", "Pascal");
}

int
main (void)
{
  check_driver ();
  check_image ();
  return test_finish ("gpu-compat");
}
