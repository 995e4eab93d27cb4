/* cudaconv2d's `mask-location`: a mask read from a file, turned into the
 * `kernel` property's syntax so that one parser checks both. */
#ifndef __GST_CUDA_CONV2D_MASK_FILE_H__
#define __GST_CUDA_CONV2D_MASK_FILE_H__

#include <glib.h>

G_BEGIN_DECLS

/* Largest file read: any mask takes less (255 x 255 taps of 40
 * characters each are 2.6 MB of text, a 16-bit PGM of them 130 KB). */
#define GST_CUDA_CONV2D_MASK_FILE_MAX (4 << 20)

/* Reads `path`:
 *   - a PGM (P2 text or P5 binary, 8 or 16 bits): its samples are the taps;
 *   - a PNG (decoded by GStreamer's pngdec, of gst-plugins-good): its
 *     samples, colours taken as their luma, 8 or 16 bits as stored;
 *   - otherwise text: rows of numbers separated by spaces, commas or tabs,
 *     a row a line (or separated by ';'); blank lines and lines starting
 *     with '#' are skipped.
 * Images larger than any mask (over 255 x 255 unless one row or column,
 * over 1023 a side), files over GST_CUDA_CONV2D_MASK_FILE_MAX and anything
 * but a regular file are refused before they are read whole.
 * Returns the mask as `kernel` text (to be freed), or NULL and *error, a
 * sentence for the user naming the file (to be freed). */
gchar *gst_cuda_conv2d_read_mask_file (const gchar * path, gchar ** error);

G_END_DECLS

#endif
