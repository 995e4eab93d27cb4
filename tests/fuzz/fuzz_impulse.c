/* SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libFuzzer target: impulse-response files (WAV, FLAC, AIFF, Ogg, ... as
 * libsndfile reads them) given to cudaconv1d's `location`, then built into
 * masks for a stream as the element does. The bytes are handed over as an
 * in-memory file. Any input must give masks or an error sentence. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include "gstcudaconv1dmask.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* The stream's rate: 48 kHz, unless resampling to it would take seconds
 * under the sanitizers and still be accepted. The resampler's work is
 * linear, about 65 products for each tap in or out of all channels (110 ns
 * each here), so a response of 2^16 taps in all or more is built at its
 * own rate: the fuzzer's 10 s an input is for finding hangs. */
static int
stream_rate (const GstCudaImpulse * ir)
{
  gint64 resampled = ((gint64) ir->frames * 48000 + ir->rate - 1) / ir->rate;
  gint64 work = MAX (resampled, ir->frames) * ir->channels;
  gboolean refused = resampled > GST_CUDA_CONV1D_MAX_TAPS
      || resampled * ir->channels > GST_CUDA_CONV1D_MAX_TOTAL_TAPS;

  return work < (1 << 16) || refused ? 48000 : ir->rate;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  int fd = memfd_create ("impulse", 0);
  gchar path[64];
  GstCudaImpulse impulse = { 0 };
  gchar *error = NULL, *note = NULL;

  if (fd < 0)
    return 0;
  if (write (fd, data, size) != (ssize_t) size) {
    close (fd);
    return 0;
  }
  g_snprintf (path, sizeof (path), "/proc/self/fd/%d", fd);
  if (gst_cuda_impulse_load (path, &impulse, &error)) {
    GstCudaConv1dSettings s = { 0 };
    GstCudaConv1dTaps taps = { 0 };

    g_assert (impulse.frames > 0 && impulse.channels > 0);
    s.impulse = impulse;
    s.taps = 31;
    s.normalize = TRUE;
    if (gst_cuda_conv1d_build (&s, stream_rate (&impulse), impulse.channels,
            0, &taps, &error, &note))
      gst_cuda_conv1d_taps_clear (&taps);
    else
      g_assert (error && *error);
    gst_cuda_impulse_clear (&impulse);
  } else {
    g_assert (error && *error);
  }
  g_free (error);
  g_free (note);
  close (fd);
  return 0;
}
