// libheif, loaded on first use (lomme_lazy.h): the 18 functions LommeImages/HEIFCodec.swift
// calls. libheif pulls x265, aom, dav1d and more: the biggest saving at start-up.
#include <libheif/heif.h>
#include <lomme_lazy_stub.h>
#define H LOMME_LIBRARY_HEIF, READING

LAZY(H, struct heif_error, heif_init, (struct heif_init_params *params), (params))
LAZY(H, struct heif_context *, heif_context_alloc, (void), ())
LAZY_VOID(H, heif_context_free, (struct heif_context *context), (context))
LAZY_VOID(H, heif_context_set_maximum_image_size_limit, (struct heif_context *context, int maximum_width),
          (context, maximum_width))
LAZY(H, struct heif_error, heif_context_read_from_memory_without_copy,
     (struct heif_context *context, const void *mem, size_t size, const struct heif_reading_options *options),
     (context, mem, size, options))
LAZY(H, struct heif_error, heif_context_get_primary_image_handle,
     (struct heif_context *context, struct heif_image_handle **handle), (context, handle))
LAZY(H, int, heif_image_handle_get_width, (const struct heif_image_handle *handle), (handle))
LAZY(H, int, heif_image_handle_get_height, (const struct heif_image_handle *handle), (handle))
LAZY(H, int, heif_image_handle_has_alpha_channel, (const struct heif_image_handle *handle), (handle))
LAZY(H, int, heif_image_handle_is_premultiplied_alpha, (const struct heif_image_handle *handle), (handle))
LAZY_VOID(H, heif_image_handle_release, (const struct heif_image_handle *handle), (handle))
LAZY(H, struct heif_decoding_options *, heif_decoding_options_alloc, (void), ())
LAZY_VOID(H, heif_decoding_options_free, (struct heif_decoding_options *options), (options))
LAZY(H, struct heif_error, heif_decode_image,
     (const struct heif_image_handle *handle, struct heif_image **image, enum heif_colorspace colorspace,
      enum heif_chroma chroma, const struct heif_decoding_options *options),
     (handle, image, colorspace, chroma, options))
LAZY(H, int, heif_image_get_width, (const struct heif_image *image, enum heif_channel channel), (image, channel))
LAZY(H, int, heif_image_get_height, (const struct heif_image *image, enum heif_channel channel), (image, channel))
LAZY(H, const uint8_t *, heif_image_get_plane_readonly,
     (const struct heif_image *image, enum heif_channel channel, int *out_stride), (image, channel, out_stride))
LAZY_VOID(H, heif_image_release, (const struct heif_image *image), (image))
