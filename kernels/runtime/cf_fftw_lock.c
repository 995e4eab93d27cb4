/* The FFTW planner's lock; see cf_fftw_lock.h. */
#include <pthread.h>

#include "cf_fftw_lock.h"

static pthread_mutex_t planner = PTHREAD_MUTEX_INITIALIZER;

void
cf_fftw_planner_lock (void)
{
  pthread_mutex_lock (&planner);
}

void
cf_fftw_planner_unlock (void)
{
  pthread_mutex_unlock (&planner);
}
