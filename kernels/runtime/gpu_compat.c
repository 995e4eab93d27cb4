/* Messages about the driver and the build; see gpu_compat.h. */
#include <stdio.h>
#include <string.h>

#include "gpu_compat.h"

int
cf_gpu_min_driver (int cuda_version)
{
  /* NVIDIA's table of toolkit versions and the drivers they need (Linux,
   * x86-64), per major version */
  switch (cuda_version / 1000) {
    case 12: return 525;
    case 13: return 580;
    default: return 0;
  }
}

int
cf_gpu_driver_message (int driver_version, int build_version, char *why,
    size_t size)
{
  int major = build_version / 1000, driver_major = driver_version / 1000;
  int need = cf_gpu_min_driver (build_version);
  char needs[64], remedy[96] = "";

  if (driver_version <= 0 || driver_major >= major)
    return 0;
  if (need)
    snprintf (needs, sizeof (needs), "of the %d series or newer", need);
  else
    snprintf (needs, sizeof (needs), "for CUDA %d", major);
  /* a toolkit of the driver's own major version builds the plugin too,
   * from 12 on */
  if (cf_gpu_min_driver (driver_major * 1000))
    snprintf (remedy, sizeof (remedy), ", or build the plugin with a CUDA "
        "%d toolkit, which this driver runs", driver_major);
  snprintf (why, size, "the NVIDIA driver supports CUDA up to %d.%d, but "
      "this plugin was built with CUDA %d.%d, which needs a driver %s: "
      "install a newer NVIDIA driver%s", driver_major,
      driver_version % 1000 / 10, major, build_version % 1000 / 10, needs,
      remedy);
  return 1;
}

/* "7.5, 8.0 and 9.0" from "75,80,90" */
static void
list_archs (const char *archs, char *out, size_t size)
{
  size_t used = 0;
  int n = 0, total = 0;

  for (const char *p = archs; *p; p++)
    total += *p == ',';
  total++;
  out[0] = '\0';
  for (const char *p = archs; *p && used + 8 < size; n++) {
    int cc = 0;
    while (*p >= '0' && *p <= '9')
      cc = 10 * cc + (*p++ - '0');
    used += snprintf (out + used, size - used, "%s%d.%d",
        n == 0 ? "" : n == total - 1 ? " and " : ", ", cc / 10, cc % 10);
    if (*p == ',')
      p++;
  }
}

static const char *
last_arch (const char *archs)
{
  const char *comma = strrchr (archs, ',');
  return comma ? comma + 1 : archs;
}

void
cf_gpu_image_message (cf_gpu_image_problem problem, int major, int minor,
    const char *device_name, const char *built_archs, int driver_version,
    int build_version, char *why, size_t size)
{
  char list[128];

  list_archs (built_archs, list, sizeof (list));
  if (problem == CF_GPU_IMAGE_PTX_TOO_NEW) {
    snprintf (why, size, "%s is of compute capability %d.%d, which this "
        "plugin has no machine code for (built for %s), and its PTX for "
        "newer GPUs was written by CUDA %d.%d, newer than this driver's "
        "CUDA %d.%d: install a newer NVIDIA driver, or rebuild the plugin "
        "with -Dgpu_archs=%d%d (or native)",
        device_name, major, minor, list, build_version / 1000,
        build_version % 1000 / 10, driver_version / 1000,
        driver_version % 1000 / 10, major, minor);
    return;
  }
  snprintf (why, size, "%s is of compute capability %d.%d, and this plugin "
      "has machine code only for %s and PTX for %c.%s, none of which it "
      "runs: rebuild the plugin with -Dgpu_archs=%d%d (or native)%s",
      device_name, major, minor, list, last_arch (built_archs)[0],
      last_arch (built_archs) + 1, major, minor,
      major * 10 + minor < 75 ? ", though GPUs older than 7.5 (Turing) are "
      "not supported by CUDA 13 and this plugin" : "");
}
