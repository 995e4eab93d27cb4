/* Parsing of masks written in a property string: numbers separated by
 * spaces or commas, rows separated by ';', e.g. "1 2 1; 2 4 2; 1 2 1". */
#ifndef __GST_CUDA_MASK_PARSE_H__
#define __GST_CUDA_MASK_PARSE_H__

#include <glib.h>

G_BEGIN_DECLS

/* Parses `text` into `rows` rows of `cols` values (row-major, *values
 * newly allocated). Every row must have the same length and every value
 * must be a finite number. On failure returns FALSE and sets *error to a
 * sentence for the user (free with g_free). */
gboolean gst_cuda_parse_matrix (const gchar * text, gdouble ** values,
    gint * rows, gint * cols, gchar ** error);

/* TRUE when `text` (a `kernel` property) holds more than blanks. */
gboolean gst_cuda_mask_text_is_set (const gchar * text);

G_END_DECLS

#endif
