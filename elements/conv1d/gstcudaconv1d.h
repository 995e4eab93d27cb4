#ifndef __GST_CUDA_CONV1D_H__
#define __GST_CUDA_CONV1D_H__

#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "gstcudafilterbase.h"
#include "gstcudaconv1dmask.h"

#include "gstcudaconv1dfilter.h"
#include "gstcudaconv1doverlap.h"
#include "gstcudaconv1dprepare.h"
#include "gstcudaconv1dsettings.h"

G_BEGIN_DECLS


#define GST_TYPE_CUDA_CONV1D (gst_cuda_conv1d_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaConv1d, gst_cuda_conv1d, GST, CUDA_CONV1D,
    GstCudaFilterBase)

struct _GstCudaConv1d
{
  GstCudaFilterBase parent;

  /* properties, object lock */
  GstCudaConv1dProps props;
  gint tail_frames;             /* frames pushed after the input ends */
  GstAudioInfo info, out_info; /* the sink's and the source's streams */
  gboolean have_info;

  /* streaming thread */
  GstCudaConv1dFilter filter;
  GstCudaConv1dOutputs outputs; /* `overlap`: the output thread */
  GstCudaConv1dPreparer preparer;       /* responses set while playing */
};

GST_ELEMENT_REGISTER_DECLARE (cudaconv1d);

G_END_DECLS

#endif
