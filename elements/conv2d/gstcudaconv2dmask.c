/* cudaconv2d masks: presets, the kernel string, the automatic divisor. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <float.h>
#include <math.h>
#include <string.h>

#include "gstcudaconv2dmask.h"
#include "gstcudamaskparse.h"

GType
gst_cuda_conv2d_preset_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_CONV2D_PRESET_NONE, "No preset: the kernel property "
          "(identity when it is empty)", "none"},
    {GST_CUDA_CONV2D_PRESET_BOX, "Box blur, size x size", "box"},
    {GST_CUDA_CONV2D_PRESET_GAUSSIAN, "Gaussian blur of sigma", "gaussian"},
    {GST_CUDA_CONV2D_PRESET_SHARPEN, "Sharpen, 3x3", "sharpen"},
    {GST_CUDA_CONV2D_PRESET_UNSHARP, "Unsharp mask: 2 x image - Gaussian "
          "blur of sigma", "unsharp"},
    {GST_CUDA_CONV2D_PRESET_SOBEL_X, "Sobel horizontal gradient, 3x3",
        "sobel-x"},
    {GST_CUDA_CONV2D_PRESET_SOBEL_Y, "Sobel vertical gradient, 3x3",
        "sobel-y"},
    {GST_CUDA_CONV2D_PRESET_SOBEL, "Sobel gradient magnitude, 3x3", "sobel"},
    {GST_CUDA_CONV2D_PRESET_LAPLACIAN, "Laplacian, 3x3", "laplacian"},
    {GST_CUDA_CONV2D_PRESET_EMBOSS, "Emboss, 3x3", "emboss"},
    {GST_CUDA_CONV2D_PRESET_DISC, "Lens blur: the mean over a disc of "
          "radius", "disc"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaConv2dPreset", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_cuda_conv2d_border_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CF_BORDER_CLAMP, "Repeat the edge pixel: a a | a b c | c c", "clamp"},
    {CF_BORDER_MIRROR, "Reflect without repeating the edge: "
          "c b | a b c | b a", "mirror"},
    {CF_BORDER_WRAP, "Wrap around: b c | a b c | a b", "wrap"},
    {CF_BORDER_CONSTANT, "Zero outside the frame", "constant"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaConv2dBorder", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

gint
gst_cuda_conv2d_gaussian_size (gdouble sigma)
{
  gint size = 2 * (gint) ceil (3.0 * sigma) + 1;
  return MIN (size, CF_CONV2D_MAX_FACTOR);
}

gint
gst_cuda_conv2d_disc_size (gdouble radius)
{
  return 2 * (gint) ceil (radius + 0.5) - 1;
}

/* A mask under construction: up to two masks of w x h taps (the second up
 * to CF_CONV2D_MAX_SIZE a side), or the two factors of a separable mask
 * with a side above CF_CONV2D_MAX_SIZE. */
typedef struct
{
  gint w, h;
  gfloat taps[2][CF_CONV2D_MAX_GENERAL_TAPS];
  gboolean magnitude;
  gboolean factors;
  gfloat row[CF_CONV2D_MAX_FACTOR], col[CF_CONV2D_MAX_FACTOR];
} Mask;

static void
set_3x3 (Mask * m, gint k, const gfloat taps[9])
{
  m->w = m->h = 3;
  memcpy (m->taps[k], taps, 9 * sizeof (gfloat));
}

/* Normalised 2D Gaussian of `size`, the outer product of 1D Gaussians:
 * its taps, or above CF_CONV2D_MAX_SIZE its factors. */
static void
set_gaussian (Mask * m, gint size, gdouble sigma)
{
  gdouble g[CF_CONV2D_MAX_FACTOR], sum = 0.0;
  gint r = size / 2;

  for (gint i = 0; i < size; i++) {
    g[i] = exp (-(gdouble) ((i - r) * (i - r)) / (2.0 * sigma * sigma));
    sum += g[i];
  }
  m->w = m->h = size;
  m->factors = size > CF_CONV2D_MAX_SIZE;
  if (m->factors) {
    for (gint i = 0; i < size; i++)
      m->row[i] = m->col[i] = (gfloat) (g[i] / sum);
    return;
  }
  for (gint j = 0; j < size; j++)
    for (gint i = 0; i < size; i++)
      m->taps[0][j * size + i] = (gfloat) (g[j] * g[i] / (sum * sum));
}

/* The share of the pixel (i, j) inside a circle of `radius` about (0, 0),
 * from DISC_POINTS x DISC_POINTS points spread over the pixel; pixels
 * wholly inside or outside are 1 and 0 without sampling. */
#define DISC_POINTS 16
static gfloat
disc_coverage (gint i, gint j, gdouble radius)
{
  gdouble ax = fabs ((gdouble) i), ay = fabs ((gdouble) j);
  gdouble near_x = MAX (ax - 0.5, 0.0), near_y = MAX (ay - 0.5, 0.0);
  gint inside = 0;

  if (hypot (ax + 0.5, ay + 0.5) <= radius)
    return 1.0f;
  if (hypot (near_x, near_y) >= radius)
    return 0.0f;
  for (gint b = 0; b < DISC_POINTS; b++)
    for (gint a = 0; a < DISC_POINTS; a++) {
      gdouble x = i - 0.5 + (a + 0.5) / DISC_POINTS;
      gdouble y = j - 0.5 + (b + 0.5) / DISC_POINTS;
      inside += x * x + y * y <= radius * radius;
    }
  return (gfloat) inside / (DISC_POINTS * DISC_POINTS);
}

static gboolean
set_disc (Mask * m, gdouble radius, gchar ** error)
{
  gint size, r;

  if (!(radius >= 0.5 && radius <= GST_CUDA_CONV2D_MAX_RADIUS)) {
    *error = g_strdup_printf ("disc radius %g is not possible: it must be "
        "from 0.5 to %g pixels", radius, GST_CUDA_CONV2D_MAX_RADIUS);
    return FALSE;
  }
  size = gst_cuda_conv2d_disc_size (radius);
  r = size / 2;
  m->w = m->h = size;
  for (gint j = 0; j < size; j++)
    for (gint i = 0; i < size; i++)
      m->taps[0][j * size + i] = disc_coverage (i - r, j - r, radius);
  return TRUE;
}

static gboolean
check_size (gint size, gint largest, const gchar * what, gchar ** error)
{
  if (size < 1 || size > largest || size % 2 == 0) {
    *error = g_strdup_printf ("%s size %d is not possible: it must be odd, "
        "from 1 to %d", what, size, largest);
    return FALSE;
  }
  return TRUE;
}

/* The mask written in `text`; errors name it as `name` (the kernel text,
 * or the file it came from). */
static gboolean
mask_from_text (Mask * m, const gchar * text, const gchar * name,
    gchar ** error)
{
  gdouble *values;
  gint rows, cols;
  gchar *why = NULL;

  if (!gst_cuda_parse_matrix (text, &values, &rows, &cols, &why)) {
    *error = g_strdup_printf ("%s: %s", name, why);
    g_free (why);
    return FALSE;
  }
  if (rows % 2 == 0 || cols % 2 == 0
      || (rows > 1 && cols > 1 && (rows > CF_CONV2D_MAX_GENERAL
              || cols > CF_CONV2D_MAX_GENERAL))
      || rows > CF_CONV2D_MAX_FACTOR || cols > CF_CONV2D_MAX_FACTOR) {
    *error = g_strdup_printf ("%s is %d x %d: widths and heights "
        "must be odd (the anchor is the centre), at most %d, or %d for a "
        "single row or column", name, cols, rows, CF_CONV2D_MAX_GENERAL,
        CF_CONV2D_MAX_FACTOR);
    g_free (values);
    return FALSE;
  }
  for (gint k = 0; k < rows * cols; k++) {
    /* the kernels compute in single precision */
    if (fabs (values[k]) > G_MAXFLOAT) {
      *error = g_strdup_printf ("%s: row %d: %g is beyond single "
          "precision (at most %g in magnitude)", name, k / cols + 1,
          values[k], G_MAXFLOAT);
      g_free (values);
      return FALSE;
    }
  }
  m->w = cols;
  m->h = rows;
  /* a single row or column above the short masks' limit is its own
   * factor; larger masks of both sides stay taps (the plan finds whether
   * they are separable) */
  m->factors = (rows == 1 || cols == 1)
      && (rows > CF_CONV2D_MAX_SIZE || cols > CF_CONV2D_MAX_SIZE);
  for (gint k = 0; k < rows * cols; k++) {
    if (!m->factors)
      m->taps[0][k] = (gfloat) values[k];
    else if (rows == 1)
      m->row[k] = (gfloat) values[k];
    else
      m->col[k] = (gfloat) values[k];
  }
  if (m->factors)
    (rows == 1 ? m->col : m->row)[0] = 1.0f;
  g_free (values);
  return TRUE;
}

static gboolean
mask_from_preset (Mask * m, const GstCudaConv2dSettings * s, gchar ** error)
{
  static const gfloat sharpen[9] = { 0, -1, 0, -1, 5, -1, 0, -1, 0 };
  static const gfloat sobel_x[9] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
  static const gfloat sobel_y[9] = { -1, -2, -1, 0, 0, 0, 1, 2, 1 };
  static const gfloat laplacian[9] = { 0, 1, 0, 1, -4, 1, 0, 1, 0 };
  static const gfloat emboss[9] = { -2, -1, 0, -1, 1, 1, 0, 1, 2 };
  gint size;

  switch (s->preset) {
    case GST_CUDA_CONV2D_PRESET_NONE:
      m->w = m->h = 1;
      m->taps[0][0] = 1.0f;
      return TRUE;
    case GST_CUDA_CONV2D_PRESET_BOX:
      size = s->size ? s->size : 3;
      if (!check_size (size, CF_CONV2D_MAX_FACTOR, "box", error))
        return FALSE;
      m->w = m->h = size;
      m->factors = size > CF_CONV2D_MAX_SIZE;
      for (gint k = 0; k < size * size && !m->factors; k++)
        m->taps[0][k] = 1.0f;
      for (gint k = 0; k < size && m->factors; k++)
        m->row[k] = m->col[k] = 1.0f;
      return TRUE;
    case GST_CUDA_CONV2D_PRESET_GAUSSIAN:
      size = s->size ? s->size : gst_cuda_conv2d_gaussian_size (s->sigma);
      if (!check_size (size, CF_CONV2D_MAX_FACTOR, "Gaussian", error))
        return FALSE;
      set_gaussian (m, size, s->sigma);
      return TRUE;
    case GST_CUDA_CONV2D_PRESET_UNSHARP:
      /* 2 x identity - blur is not separable: the short masks' limit, and
       * an automatic size cut there */
      size = s->size ? s->size : MIN (gst_cuda_conv2d_gaussian_size
          (s->sigma), CF_CONV2D_MAX_SIZE);
      if (!check_size (size, CF_CONV2D_MAX_SIZE, "unsharp", error))
        return FALSE;
      set_gaussian (m, size, s->sigma);
      /* the image plus its high frequencies */
      for (gint k = 0; k < size * size; k++)
        m->taps[0][k] = -m->taps[0][k];
      m->taps[0][size * size / 2] += 2.0f;
      return TRUE;
    case GST_CUDA_CONV2D_PRESET_SHARPEN:
      set_3x3 (m, 0, sharpen);
      return TRUE;
    case GST_CUDA_CONV2D_PRESET_SOBEL_X:
      set_3x3 (m, 0, sobel_x);
      return TRUE;
    case GST_CUDA_CONV2D_PRESET_SOBEL_Y:
      set_3x3 (m, 0, sobel_y);
      return TRUE;
    case GST_CUDA_CONV2D_PRESET_SOBEL:
      set_3x3 (m, 0, sobel_x);
      set_3x3 (m, 1, sobel_y);
      m->magnitude = TRUE;
      return TRUE;
    case GST_CUDA_CONV2D_PRESET_LAPLACIAN:
      set_3x3 (m, 0, laplacian);
      return TRUE;
    case GST_CUDA_CONV2D_PRESET_EMBOSS:
      set_3x3 (m, 0, emboss);
      return TRUE;
    case GST_CUDA_CONV2D_PRESET_DISC:
      return set_disc (m, s->radius, error);
  }
  *error = g_strdup_printf ("unknown preset %d", s->preset);
  return FALSE;
}

gboolean
gst_cuda_conv2d_build_plan (const GstCudaConv2dSettings * s,
    cf_conv2d_plan * plan, gchar ** error)
{
  Mask *m = g_new0 (Mask, 1);
  cf_conv2d_mask cm;
  gdouble divisor = s->divisor;
  gboolean ok;

  *error = NULL;
  if (gst_cuda_mask_text_is_set (s->kernel)) {
    gchar *name = g_strdup_printf ("kernel \"%s\"", s->kernel);
    ok = mask_from_text (m, s->kernel, name, error);
    g_free (name);
  } else if (s->mask_location && s->mask_location[0]) {
    gchar *name = g_strdup_printf ("mask-location \"%s\"", s->mask_location);
    ok = s->mask_text != NULL;
    if (!ok)
      *error = g_strdup (s->mask_file_error);
    else
      ok = mask_from_text (m, s->mask_text, name, error);
    g_free (name);
  } else {
    ok = mask_from_preset (m, s, error);
  }
  if (ok && divisor == 0.0) {
    /* automatic: the sum of the taps, or 1 where they cancel out; "cancel"
     * is relative to the taps' size, so that a mask of small taps still
     * divides by its (small) sum */
    gdouble size = 0.0;
    for (gint k = 0; k < m->w * m->h && !m->factors; k++) {
      divisor += m->taps[0][k];
      size += fabs (m->taps[0][k]);
    }
    if (m->factors) {
      gdouble row_sum = 0.0, col_sum = 0.0, row_size = 0.0, col_size = 0.0;
      for (gint i = 0; i < m->w; i++) {
        row_sum += m->row[i];
        row_size += fabs (m->row[i]);
      }
      for (gint j = 0; j < m->h; j++) {
        col_sum += m->col[j];
        col_size += fabs (m->col[j]);
      }
      divisor = row_sum * col_sum;
      size = row_size * col_size;
    }
    if (m->magnitude || fabs (divisor) <= 1e-6 * size)
      divisor = 1.0;
  }
  if (ok) {
    cm.width = m->w;
    cm.height = m->h;
    cm.taps = m->factors ? NULL : m->taps[0];
    cm.taps2 = m->magnitude ? m->taps[1] : NULL;
    cm.row = m->factors ? m->row : NULL;
    cm.col = m->factors ? m->col : NULL;
    cm.divisor = divisor;
    cm.offset = s->offset;
    cm.border = s->border;
    if (cf_conv2d_plan_init (plan, &cm) != CF_OK) {
      /* what is left to refuse once the taps passed: a divisor so small
       * that its reciprocal, which the kernels multiply by, is no float */
      *error = g_strdup_printf ("divisor %g, offset %g: 1 / divisor and the "
          "offset must be within single precision (at most %g in magnitude)",
          divisor, s->offset, (double) FLT_MAX);
      ok = FALSE;
    }
  }
  g_free (m);
  return ok;
}
