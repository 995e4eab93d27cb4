/* A small test harness for tests that must not depend on GLib: checks that
 * count, a random generator, and the closing "N passed, N failed" line.
 * Exit status: 0 all passed, 1 a check failed, 77 skipped. */
#ifndef CF_TEST_UTIL_H
#define CF_TEST_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TEST_SKIP 77

typedef struct
{
  int passed, failed;
  int shown;                    /* failures printed so far */
} test_state;

static test_state test_ = { 0, 0, 0 };

/* Records one check; prints the first 30 failures with their context. */
static inline int
test_check (int ok, const char *fmt, ...)
{
  if (ok) {
    test_.passed++;
    return 1;
  }
  test_.failed++;
  if (test_.shown++ < 30) {
    va_list ap;
    va_start (ap, fmt);
    fputs ("FAIL: ", stdout);
    vprintf (fmt, ap);
    fputc ('\n', stdout);
    va_end (ap);
  }
  return 0;
}

static inline int
test_finish (const char *name)
{
  printf ("%s: %d passed, %d failed\n", name, test_.passed, test_.failed);
  return test_.failed ? 1 : (test_.passed ? 0 : 1);
}

static inline int
test_skip (const char *name, const char *reason)
{
  printf ("SKIP %s: %s\n", name, reason);
  return TEST_SKIP;
}

/* xorshift64*: reproducible from the seed printed at start. */
static uint64_t test_rng_state = 0x9E3779B97F4A7C15ull;

static inline void
test_seed (uint64_t seed)
{
  test_rng_state = seed ? seed : 0x9E3779B97F4A7C15ull;
}

static inline uint64_t
test_rand (void)
{
  test_rng_state ^= test_rng_state >> 12;
  test_rng_state ^= test_rng_state << 25;
  test_rng_state ^= test_rng_state >> 27;
  return test_rng_state * 0x2545F4914F6CDD1Dull;
}

/* Uniform integer in [0, n). */
static inline int
test_rand_int (int n)
{
  return (int) (test_rand () % (uint64_t) n);
}

/* Uniform double in [lo, hi). */
static inline double
test_rand_range (double lo, double hi)
{
  return lo + (hi - lo) * (double) (test_rand () >> 11) / 9007199254740992.0;
}

static inline void
test_fill_random (void *p, size_t n)
{
  uint8_t *b = (uint8_t *) p;
  for (size_t k = 0; k < n; k++)
    b[k] = (uint8_t) (test_rand () >> 56);
}

/* Seed from CF_TEST_SEED, else from the time; printed so a failure can be
 * replayed. */
static inline void
test_seed_from_env (const char *name)
{
  const char *s = getenv ("CF_TEST_SEED");
  uint64_t seed = s ? strtoull (s, NULL, 0) : (uint64_t) time (NULL);
  printf ("%s: seed %llu (set CF_TEST_SEED to replay)\n", name,
      (unsigned long long) seed);
  test_seed (seed);
}

#endif
