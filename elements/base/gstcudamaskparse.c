/* Mask strings to numbers; see gstcudamaskparse.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstcudamaskparse.h"

#define IS_SEPARATOR(c) ((c) == ' ' || (c) == ',' || (c) == '\t' \
    || (c) == '\n' || (c) == '\r')

/* Parses one row into `out`; returns the number of values or -1. */
static gint
parse_row (const gchar * row, gint index, GArray * out, gchar ** error)
{
  const gchar *p = row;
  gint count = 0;

  for (;;) {
    gchar *end;
    gdouble v;

    while (IS_SEPARATOR (*p))
      p++;
    if (*p == '\0')
      return count;
    v = g_ascii_strtod (p, &end);
    if (end == p || !(IS_SEPARATOR (*end) || *end == '\0')) {
      const gchar *stop = p;
      while (*stop && !IS_SEPARATOR (*stop))
        stop++;
      *error = g_strdup_printf ("row %d: \"%.*s\" is not a number", index,
          (int) (stop - p), p);
      return -1;
    }
    if (!isfinite (v)) {
      *error = g_strdup_printf ("row %d: \"%.*s\" is not a finite number",
          index, (int) (end - p), p);
      return -1;
    }
    g_array_append_val (out, v);
    count++;
    p = end;
  }
}

gboolean
gst_cuda_parse_matrix (const gchar * text, gdouble ** values, gint * rows,
    gint * cols, gchar ** error)
{
  gchar **lines;
  GArray *out;
  gint n_rows = 0, width = 0, n_lines;

  *values = NULL;
  *rows = *cols = 0;
  *error = NULL;
  if (!text || text[strspn (text, " ,\t\r\n;")] == '\0') {
    *error = g_strdup ("the mask is empty");
    return FALSE;
  }
  lines = g_strsplit (text, ";", -1);
  n_lines = g_strv_length (lines);
  out = g_array_new (FALSE, FALSE, sizeof (gdouble));
  for (gint k = 0; k < n_lines && !*error; k++) {
    gint n = parse_row (lines[k], k + 1, out, error);
    if (n < 0)
      break;
    if (n == 0) {
      /* one trailing ';' is harmless; an empty row elsewhere is a typo */
      if (k != n_lines - 1)
        *error = g_strdup_printf ("row %d is empty", k + 1);
      continue;
    }
    if (n_rows > 0 && n != width)
      *error = g_strdup_printf ("row %d has %d number%s but row 1 has %d: "
          "every row must have the same length", k + 1, n, n == 1 ? "" : "s",
          width);
    width = n;
    n_rows++;
  }
  g_strfreev (lines);
  if (*error) {
    g_array_free (out, TRUE);
    return FALSE;
  }
  *rows = n_rows;
  *cols = width;
  *values = (gdouble *) g_array_free (out, FALSE);
  return TRUE;
}

gboolean
gst_cuda_mask_text_is_set (const gchar * text)
{
  return text && text[strspn (text, " \t\r\n")] != '\0';
}
