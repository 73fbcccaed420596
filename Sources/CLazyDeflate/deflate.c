// libdeflate, loaded on first use (lomme_lazy.h): the 4 functions LommeImages/PNGDirect.swift
// calls to inflate and check a common PNG's data.
#include <libdeflate.h>
#include <lomme_lazy_stub.h>
#include "lomme_deflate.h"
#define D LOMME_LIBRARY_DEFLATE

int lomme_deflate_available(void) { return lomme_lazy_available(D); }

LAZY(D, READING, struct libdeflate_decompressor *, libdeflate_alloc_decompressor, (void), ())
LAZY(D, READING, enum libdeflate_result, libdeflate_zlib_decompress_ex,
     (struct libdeflate_decompressor *decompressor, const void *in, size_t in_nbytes, void *out,
      size_t out_nbytes_avail, size_t *actual_in_nbytes_ret, size_t *actual_out_nbytes_ret),
     (decompressor, in, in_nbytes, out, out_nbytes_avail, actual_in_nbytes_ret, actual_out_nbytes_ret))
LAZY_VOID(D, READING, libdeflate_free_decompressor, (struct libdeflate_decompressor *decompressor), (decompressor))
LAZY(D, READING, uint32_t, libdeflate_crc32, (uint32_t crc, const void *buffer, size_t len), (crc, buffer, len))
