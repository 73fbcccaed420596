// libwebp, loaded on first use (lomme_lazy.h): the 7 functions LommeImages/WebPCodec.swift
// calls (WebPGetFeatures and WebPInitDecoderConfig are inline wrappers of the *Internal ones).
// The header marks its functions visibility("default"); the stubs are hidden (lomme_lazy_stub.h).
#define WEBP_EXTERN extern
#include <webp/decode.h>
#include <webp/encode.h>
#include <lomme_lazy_stub.h>
#define W LOMME_LIBRARY_WEBP

LAZY(W, READING, VP8StatusCode, WebPGetFeaturesInternal,
     (const uint8_t *data, size_t size, WebPBitstreamFeatures *features, int version), (data, size, features, version))
LAZY(W, READING, int, WebPInitDecoderConfigInternal, (WebPDecoderConfig *config, int version), (config, version))
LAZY(W, READING, VP8StatusCode, WebPDecode, (const uint8_t *data, size_t data_size, WebPDecoderConfig *config),
     (data, data_size, config))
LAZY_VOID(W, READING, WebPFreeDecBuffer, (WebPDecBuffer *buffer), (buffer))
LAZY_VOID(W, READING, WebPFree, (void *ptr), (ptr))
LAZY(W, MAKING, size_t, WebPEncodeRGB,
     (const uint8_t *rgb, int width, int height, int stride, float quality_factor, uint8_t **output),
     (rgb, width, height, stride, quality_factor, output))
LAZY(W, MAKING, size_t, WebPEncodeLosslessRGB, (const uint8_t *rgb, int width, int height, int stride, uint8_t **output),
     (rgb, width, height, stride, output))
