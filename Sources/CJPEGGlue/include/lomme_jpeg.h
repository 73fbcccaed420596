#ifndef LOMME_JPEG_H
#define LOMME_JPEG_H
#include <stddef.h>

/// libjpeg reports errors by calling a handler that must not return; Swift cannot
/// catch a longjmp, so these two calls keep setjmp on the C side and turn every
/// libjpeg error into a return code and a message.

/// Reads only the JPEG header. Returns 0 and the image size, or -1 with a message.
int lv_jpeg_header(const unsigned char *data, size_t length,
                   int *width, int *height, char *message, size_t message_size);

/// Decodes a JPEG to 8-bit grey at 1/`denominator` size (1, 2, 4 or 8: libjpeg's DCT
/// scaling, nearly free). Refuses images over `max_pixels` before allocating.
/// On success returns 0 and a malloc'ed buffer of width*height bytes (free with lv_free).
int lv_jpeg_decode_gray(const unsigned char *data, size_t length, int denominator,
                        size_t max_pixels, unsigned char **pixels, int *width, int *height,
                        char *message, size_t message_size);

/// Encodes 8-bit grey pixels as a baseline JPEG of the given quality (tests and benchmarks).
/// Returns 0 and a malloc'ed buffer, or -1 with a message.
int lv_jpeg_encode_gray(const unsigned char *pixels, int width, int height, int quality,
                        unsigned char **out, size_t *out_length, char *message, size_t message_size);

void lv_free(void *pointer);

#endif
