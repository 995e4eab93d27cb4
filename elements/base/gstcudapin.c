/* Page-locking of reused host memory; see gstcudapin.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudapin.h"
#include "gpu.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_pin_debug);
#define GST_CAT_DEFAULT gst_cuda_pin_debug

typedef enum
{
  PIN_SEEN,                     /* seen once: registered if it comes back */
  PIN_LOCKED,                   /* registered by us, unregistered on free */
  PIN_LEAVE,                    /* already pinned, or registration refused */
} PinState;

typedef struct
{
  PinState state;
  gpointer data;
} Pin;

/* One lock for every memory's record: two branches of a tee see the same
 * memories on two threads, and the record is read, made and changed in
 * one step (only the first memory to come back pays for a registration) */
static GMutex pin_lock;

static GQuark
pin_quark (void)
{
  static gsize quark;

  if (g_once_init_enter (&quark)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_pin_debug, "cudapin", 0,
        "page-locking of reused memory");
    g_once_init_leave (&quark, g_quark_from_static_string ("GstCudaPin"));
  }
  return (GQuark) quark;
}

/* Runs when the memory is freed, before its bytes are released. */
static void
pin_free (gpointer data)
{
  Pin *pin = data;

  if (pin->state == PIN_LOCKED)
    cf_gpu_host_unregister (pin->data);
  g_free (pin);
}

static void
pin_memory (GstMemory * mem)
{
  GstMiniObject *obj = GST_MINI_OBJECT (mem);
  GQuark quark = pin_quark ();
  GstMapInfo map;
  Pin *pin;
  int status;

  g_mutex_lock (&pin_lock);
  pin = gst_mini_object_get_qdata (obj, quark);
  if ((pin && pin->state != PIN_SEEN)
      || !gst_memory_map (mem, &map, GST_MAP_READ)) {
    g_mutex_unlock (&pin_lock);
    return;
  }
  if (!pin) {
    pin = g_new0 (Pin, 1);
    pin->state = cf_gpu_host_is_pinned (map.data) ? PIN_LEAVE : PIN_SEEN;
    gst_mini_object_set_qdata (obj, quark, pin, pin_free);
  } else {
    status = cf_gpu_host_register (map.data, map.size);
    pin->data = map.data;
    pin->state = status == CF_OK ? PIN_LOCKED : PIN_LEAVE;
    if (status == CF_OK)
      GST_INFO ("page-locked %" G_GSIZE_FORMAT " bytes of reused memory %p",
          map.size, map.data);
    else
      GST_INFO ("cannot page-lock memory %p: %s", map.data,
          cf_status_name (status));
    cf_gpu_last_error ();       /* a refusal must not stick to later calls */
  }
  gst_memory_unmap (mem, &map);
  g_mutex_unlock (&pin_lock);
}

void
gst_cuda_pin_buffer (GstBuffer * buffer)
{
  guint n = gst_buffer_n_memory (buffer);

  for (guint k = 0; k < n; k++)
    pin_memory (gst_buffer_peek_memory (buffer, k));
}
