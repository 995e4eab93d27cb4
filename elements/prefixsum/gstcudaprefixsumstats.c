/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaprefixsum's video messages: per channel the mean, variance, minimum
 * and maximum of the frame, and the means and variances of the grid's
 * regions, as arrays of doubles (GValueArray, as the level element's).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaprefixsumstats.h"

static void
append_double (GValueArray * a, gdouble v)
{
  GValue value = G_VALUE_INIT;

  g_value_init (&value, G_TYPE_DOUBLE);
  g_value_set_double (&value, v);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  g_value_array_append (a, &value);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  g_value_unset (&value);
}

static void
set_array (GstStructure * s, const gchar * name, GValueArray * a)
{
  GValue v = G_VALUE_INIT;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  g_value_init (&v, g_value_array_get_type ());
  g_value_take_boxed (&v, a);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  gst_structure_take_value (s, name, &v);
}

/* The grid's means and variances, cell by cell (rows of cells, channels
 * within a cell), read from the host tables. */
static void
add_grid (GstStructure * msg, const GstCudaIntegralMeta * tables, gint w,
    gint h, guint n_channels, gint columns, gint rows)
{
  GValueArray *gm, *gv;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  gm = g_value_array_new (columns * rows * n_channels);
  gv = g_value_array_new (columns * rows * n_channels);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  for (gint gy = 0; gy < rows; gy++)
    for (gint gx = 0; gx < columns; gx++) {
      guint x0 = (guint) ((gint64) gx * w / columns);
      guint x1 = (guint) ((gint64) (gx + 1) * w / columns);
      guint y0 = (guint) ((gint64) gy * h / rows);
      guint y1 = (guint) ((gint64) (gy + 1) * h / rows);
      for (guint c = 0; c < n_channels; c++) {
        gdouble m = 0, v = 0;
        gst_cuda_integral_meta_rect (tables, c, x0, y0, x1 - x0, y1 - y0,
            NULL, &m, &v);
        append_double (gm, m);
        append_double (gv, v);
      }
    }
  gst_structure_set (msg, "grid-columns", G_TYPE_INT, columns,
      "grid-rows", G_TYPE_INT, rows, NULL);
  set_array (msg, "grid-mean", gm);
  set_array (msg, "grid-variance", gv);
}

void
gst_cuda_prefix_sum_stats_post (GstCudaFilterBase * owner, GstBuffer * buf,
    gint width, gint height, guint n_channels, const gint * samples,
    const cf_stats * st, const GstCudaIntegralMeta * tables, gint columns,
    gint rows)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (owner);
  GstClockTime ts = GST_BUFFER_PTS (buf);
  gdouble n = (gdouble) width * height;
  GValueArray *mean, *var, *min, *max;
  GstStructure *msg;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  mean = g_value_array_new (n_channels);
  var = g_value_array_new (n_channels);
  min = g_value_array_new (n_channels);
  max = g_value_array_new (n_channels);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  for (guint c = 0; c < n_channels; c++) {
    const cf_stats *x = &st[samples[c]];
    gdouble mu = x->sum / n, v = x->sum_squares / n - mu * mu;
    append_double (mean, mu);
    append_double (var, v > 0 ? v : 0);
    append_double (min, x->min);
    append_double (max, x->max);
  }
  msg = gst_structure_new ("cudaprefixsum",
      "timestamp", G_TYPE_UINT64, ts,
      "stream-time", G_TYPE_UINT64, gst_segment_to_stream_time
      (&trans->segment, GST_FORMAT_TIME, ts),
      "running-time", G_TYPE_UINT64, gst_segment_to_running_time
      (&trans->segment, GST_FORMAT_TIME, ts),
      "duration", G_TYPE_UINT64, GST_BUFFER_DURATION (buf),
      "channels", G_TYPE_INT, n_channels, NULL);
  set_array (msg, "mean", mean);
  set_array (msg, "variance", var);
  set_array (msg, "min", min);
  set_array (msg, "max", max);
  if (tables && columns > 0 && rows > 0)
    add_grid (msg, tables, width, height, n_channels, columns, rows);
  gst_element_post_message (GST_ELEMENT (owner),
      gst_message_new_element (GST_OBJECT (owner), msg));
}
