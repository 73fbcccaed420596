// libpng, loaded on first use (lomme_lazy.h): the 4 simplified-API functions
// LommeImages/PNGCodec.swift calls.
#include <png.h>
#include <lomme_lazy_stub.h>
#define P LOMME_LIBRARY_PNG

LAZY(P, READING, int, png_image_begin_read_from_memory, (png_imagep image, png_const_voidp memory, size_t size),
     (image, memory, size))
LAZY(P, READING, int, png_image_finish_read,
     (png_imagep image, png_const_colorp background, void *buffer, png_int_32 row_stride, void *colormap),
     (image, background, buffer, row_stride, colormap))
LAZY_VOID(P, READING, png_image_free, (png_imagep image), (image))
LAZY(P, MAKING, int, png_image_write_to_memory,
     (png_imagep image, void *memory, png_alloc_size_t *PNG_RESTRICT memory_bytes, int convert_to_8_bit,
      const void *buffer, png_int_32 row_stride, const void *colormap),
     (image, memory, memory_bytes, convert_to_8_bit, buffer, row_stride, colormap))
