/* Row-parallel work on the CPU: the CPU backend splits a plane into strips
 * of rows and runs them on all cores. */
#ifndef __GST_CUDA_ROWS_H__
#define __GST_CUDA_ROWS_H__

#include <glib.h>

G_BEGIN_DECLS

/* Processes rows [row_begin, row_end); returns a status (0 = success). */
typedef int (*GstCudaRowFunc) (gpointer user, gint row_begin, gint row_end);

/* Runs `func` over rows [0, height), split into strips of at least
 * `min_rows` rows, one per core, the calling thread taking one of them.
 * Returns the first failing status, or 0. */
int gst_cuda_rows_parallel (gint height, gint min_rows, GstCudaRowFunc func,
    gpointer user);

G_END_DECLS

#endif
