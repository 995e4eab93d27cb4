/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libFuzzer target: the mask strings of cudaconv2d (`kernel`, rows of
 * numbers) and cudaconv1d (`kernel`, masks separated by ';'), parsed and
 * built as the elements do. The first byte picks the border, the preset
 * and the channel count; the rest is the string. Any input must give a
 * mask or an error sentence, never a crash or a sanitizer finding. */
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "gstcudaconv1dmask.h"
#include "gstcudaconv2dmask.h"
#include "gstcudamaskparse.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  guint8 pick = size ? data[0] : 0;
  gchar *text = g_strndup ((const gchar *) data + (size ? 1 : 0),
      size ? size - 1 : 0);
  gchar *error = NULL, *note = NULL;
  gdouble *values = NULL;
  gint rows = 0, cols = 0;

  if (gst_cuda_parse_matrix (text, &values, &rows, &cols, &error)) {
    g_assert (rows > 0 && cols > 0);
    g_free (values);
  } else {
    g_assert (error && *error);
  }
  g_clear_pointer (&error, g_free);

  {
    GstCudaConv2dSettings s = { 0 };
    cf_conv2d_plan plan;

    s.kernel = text;
    s.preset = GST_CUDA_CONV2D_PRESET_GAUSSIAN;
    s.sigma = 1.2;
    s.divisor = (pick & 1) ? 0.0 : 3.0;
    s.border = (cf_border) (pick % 4);
    if (!gst_cuda_conv2d_build_plan (&s, &plan, &error))
      g_assert (error && *error);
    g_clear_pointer (&error, g_free);
  }
  {
    GstCudaConv1dSettings s = { 0 };
    GstCudaConv1dTaps taps = { 0 };

    s.kernel = text;
    s.preset = GST_CUDA_CONV1D_PRESET_LOW_PASS;
    s.cutoff = 1000;
    s.bandwidth = 200;
    s.taps = 31;
    s.normalize = pick & 2;
    /* the same text as a routing matrix too, into 0 (as many), 1 or 2
     * outputs */
    s.matrix = (pick & 4) ? text : NULL;
    if (gst_cuda_conv1d_build (&s, 48000, 1 + (pick >> 4) % 8, (pick >> 1)
            % 3, &taps, &error, &note))
      gst_cuda_conv1d_taps_clear (&taps);
    else
      g_assert (error && *error);
    g_clear_pointer (&error, g_free);
    g_clear_pointer (&note, g_free);
  }
  g_free (text);
  return 0;
}
