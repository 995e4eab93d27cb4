/* CPU twin of the scans: one running sum, in double for floats (see
 * scan.h), in unsigned arithmetic for integers. */
#include <stdint.h>

#include "scan.h"

const char *
cf_scan_type_name (cf_scan_type type)
{
  static const char *names[] = { "f32", "f64", "i32", "u32", "u64" };
  return type < CF_SCAN_N_TYPES ? names[type] : "?";
}

const char *
cf_scan_algorithm_name (cf_scan_algorithm algorithm)
{
  static const char *names[] = { "auto", "kogge-stone", "brent-kung", "warp",
    "decoupled", "cub"
  };
  return algorithm < CF_SCAN_N_ALGORITHMS ? names[algorithm] : "?";
}

size_t
cf_scan_type_size (cf_scan_type type)
{
  static const size_t sizes[] = { 4, 8, 4, 4, 8 };
  return type < CF_SCAN_N_TYPES ? sizes[type] : 0;
}

#define SCAN_LOOP(T, ACC) do {                                  \
    const T *x = in;                                            \
    T *y = out;                                                 \
    ACC sum = 0;                                                \
    for (size_t i = 0; i < n; i++) {                            \
      ACC v = (ACC) x[i];                                       \
      if (inclusive)                                            \
        sum += v;                                               \
      y[i] = (T) sum;                                           \
      if (!inclusive)                                           \
        sum += v;                                               \
    }                                                           \
  } while (0)

int
cf_scan_cpu (cf_scan_type type, int inclusive, const void *in, void *out,
    size_t n)
{
  if (n > 0 && (!in || !out))
    return CF_ERR_INVALID;
  switch (type) {
    case CF_SCAN_F32:
      SCAN_LOOP (float, double);
      break;
    case CF_SCAN_F64:
      SCAN_LOOP (double, double);
      break;
    case CF_SCAN_I32:
      SCAN_LOOP (int32_t, uint32_t);
      break;
    case CF_SCAN_U32:
      SCAN_LOOP (uint32_t, uint32_t);
      break;
    case CF_SCAN_U64:
      SCAN_LOOP (uint64_t, uint64_t);
      break;
    default:
      return CF_ERR_INVALID;
  }
  return CF_OK;
}
