/* Fault injection; see cf_fault.h. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fault.h"

/* the CUDA runtime's codes, without its headers: cudaErrorMemoryAllocation,
 * cudaErrorInvalidValue, cudaErrorUnknown, cudaErrorLaunchFailure,
 * cudaErrorInvalidValue */
static const int fault_error[CF_FAULT_N_KINDS] = { 2, 1, 999, 719, 1 };
static const char *const fault_name[CF_FAULT_N_KINDS] = { "alloc", "copy",
  "sync", "launch", "clear"
};

/* armed until the environment has been read, so that the first call reads
 * it; cleared for good when it names nothing */
int cf_fault_armed = 1;
static long target[CF_FAULT_N_KINDS];   /* 0: never */
static long count[CF_FAULT_N_KINDS];
static long lost_target, lost_count;    /* lost: every kind counted */
static int lost;
static int fake_driver;                 /* driver: its CUDA version */
static int no_image;                    /* image: no code for the device */

/* cudaErrorDevicesUnavailable */
#define LOST_ERROR 46
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void
read_environment (void)
{
  const char *spec = getenv ("CF_FAULT");
  int any = 0;

  while (spec && *spec) {
    for (int k = 0; k < CF_FAULT_N_KINDS; k++) {
      size_t n = strlen (fault_name[k]);
      if (strncmp (spec, fault_name[k], n) == 0 && spec[n] == ':') {
        target[k] = strtol (spec + n + 1, NULL, 10);
        any |= target[k] > 0;
      }
    }
    if (strncmp (spec, "lost:", 5) == 0) {
      lost_target = strtol (spec + 5, NULL, 10);
      any |= lost_target > 0;
    }
    if (strncmp (spec, "image:", 6) == 0) {
      no_image = strtol (spec + 6, NULL, 10) > 0;
      any |= no_image;
    }
    if (strncmp (spec, "driver:", 7) == 0) {
      fake_driver = (int) strtol (spec + 7, NULL, 10);
      any |= fake_driver > 0;
    }
    spec = strchr (spec, ',');
    if (spec)
      spec++;
  }
  cf_fault_armed = any;
}

int
cf_fault_hit (cf_fault_kind kind)
{
  int fail;

  pthread_once (&once, read_environment);
  if (!cf_fault_armed || kind < 0 || kind >= CF_FAULT_N_KINDS)
    return 0;
  pthread_mutex_lock (&lock);
  /* clears came later: they do not move the calls `lost` counts */
  if (lost_target > 0 && kind != CF_FAULT_CLEAR
      && ++lost_count >= lost_target)
    lost = 1;
  fail = target[kind] > 0 && ++count[kind] == target[kind];
  pthread_mutex_unlock (&lock);
  return lost ? LOST_ERROR : fail ? fault_error[kind] : 0;
}

int
cf_fault_lost (void)
{
  int gone;

  pthread_once (&once, read_environment);
  pthread_mutex_lock (&lock);
  gone = lost;
  pthread_mutex_unlock (&lock);
  return gone;
}

int
cf_fault_driver (void)
{
  pthread_once (&once, read_environment);
  return fake_driver > 0 ? fake_driver : 0;
}

int
cf_fault_image (void)
{
  pthread_once (&once, read_environment);
  return no_image;
}
