/* The CPU time a benchmark's process has used, for the element benchmarks'
 * per-buffer and per-stream host costs. */
#ifndef BENCH_CPU_H
#define BENCH_CPU_H

#include <sys/resource.h>

/* Seconds of CPU time this process has used, user and system. */
static inline double
bench_cpu_seconds (void)
{
  struct rusage u;
  getrusage (RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec
      + u.ru_stime.tv_usec) / 1e6;
}

#endif
