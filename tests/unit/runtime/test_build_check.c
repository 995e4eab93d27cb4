/* cf_gpu_check_build() (kernels/runtime/gpu.h) on a real GPU: the
 * library's own kernels load, a kernel built for another architecture
 * only (probe_sm75.cu: 7.5 machine code, no PTX) is refused with the
 * device's compute capability, the build's architectures and the remedy,
 * and a driver older than the build (CF_FAULT=driver:N, which makes the
 * device count fail as the runtime does with such a driver) is named with
 * both versions.
 *
 *   test_build_check           the checks on device 0; 77 without a GPU
 *   test_build_check driver    CF_FAULT=driver:N set by the caller: the
 *                              driver message, with or without a GPU */
#include <stdio.h>
#include <string.h>

#include "gpu.h"
#include "test_util.h"

const void *probe_sm75 (void);

static void
expect_in (const char *text, const char *part, const char *what)
{
  test_check (strstr (text, part) != NULL, "%s: \"%s\" not in \"%s\"", what,
      part, text);
}

static int
check_driver (void)
{
  char why[512] = "poison", expected[64];
  int count = -1, st = cf_gpu_device_count (&count);
  int driver = cf_gpu_driver_version (), build = cf_gpu_build_version ();

  if (driver == 0 || driver / 1000 >= build / 1000) {
    printf ("CF_FAULT=driver:N with N below the build's CUDA %d.%d is "
        "needed\n", build / 1000, build % 1000 / 10);
    return 1;
  }
  test_check (count == 0 && st != CF_OK, "no device with a driver too old "
      "(count %d, %s)", count, cf_status_name (st));
  st = cf_gpu_check_build (-1, why, sizeof (why));
  test_check (st != CF_OK, "the build check refuses the driver");
  snprintf (expected, sizeof (expected), "supports CUDA up to %d.%d",
      driver / 1000, driver % 1000 / 10);
  expect_in (why, expected, "driver");
  snprintf (expected, sizeof (expected), "built with CUDA %d.%d",
      build / 1000, build % 1000 / 10);
  expect_in (why, expected, "driver");
  expect_in (why, "install a newer NVIDIA driver", "driver");
  printf ("message: %s\n", why);
  return test_finish ("build-check driver");
}

int
main (int argc, char **argv)
{
  char why[512], name[256], expected[64];
  int count = 0, st, major, minor;

  if (!cf_gpu_built_with_cuda ())
    return test_skip ("build-check", "built without CUDA");
  if (argc > 1 && strcmp (argv[1], "driver") == 0)
    return check_driver ();
  st = cf_gpu_device_count (&count);
  if (count == 0)
    return test_skip ("build-check", st == CF_OK ? "no CUDA device"
        : cf_status_name (st));
  if ((st = cf_gpu_set_device (0)) != CF_OK
      || (st = cf_gpu_device_name (0, name, sizeof (name))) != CF_OK) {
    printf ("device 0: %s\n", cf_status_name (st));
    return 1;
  }
  printf ("device 0: %s; driver CUDA %d, build CUDA %d for %s\n", name,
      cf_gpu_driver_version (), cf_gpu_build_version (),
      cf_gpu_build_archs ());
  test_check (sscanf (strstr (name, "compute ") ? strstr (name, "compute ")
          : "", "compute %d.%d", &major, &minor) == 2, "compute capability "
      "in \"%s\"", name);

  strcpy (why, "poison");
  st = cf_gpu_check_build (0, why, sizeof (why));
  test_check (st == CF_OK, "the library's kernels run on device 0: %s (%s)",
      cf_status_name (st), why);
  test_check (strcmp (why, "poison") == 0, "nothing written when usable");

  if (major == 7 && minor == 5) {
    printf ("device 0 is a 7.5 GPU: the foreign-architecture check needs "
        "another\n");
  } else {
    st = cf_gpu_check_kernel (probe_sm75 (), "75", 0, why, sizeof (why));
    test_check (st != CF_OK, "a 7.5-only kernel is refused on %d.%d", major,
        minor);
    snprintf (expected, sizeof (expected), "compute capability %d.%d",
        major, minor);
    expect_in (why, expected, "foreign architecture");
    expect_in (why, "machine code only for 7.5", "foreign architecture");
    snprintf (expected, sizeof (expected), "-Dgpu_archs=%d%d", major, minor);
    expect_in (why, expected, "foreign architecture");
    printf ("message: %s (%s)\n", why, cf_status_name (st));
    /* the refusal leaves nothing sticky: the library still runs */
    test_check (cf_gpu_check_build (0, why, sizeof (why)) == CF_OK,
        "the library's kernels still run after the refusal");
  }
  return test_finish ("build-check");
}
