/* GStreamer CUDA filters: the plugin. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gstcudaconv1d.h"
#include "gstcudaconv2d.h"
#include "gstcudaprefixsum.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (cudaconv1d, plugin);
  ret |= GST_ELEMENT_REGISTER (cudaconv2d, plugin);
  ret |= GST_ELEMENT_REGISTER (cudaprefixsum, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudafilters,
    "Real-time audio and video filtering on NVIDIA GPUs: convolution, "
    "scans and reductions", plugin_init, VERSION, GST_LICENSE,
    GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
