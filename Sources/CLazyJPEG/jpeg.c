// libjpeg, loaded on first use (lomme_lazy.h): the 16 functions CJPEGGlue/jpeg_glue.c calls.
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <lomme_lazy_stub.h>
#define J LOMME_LIBRARY_JPEG

LAZY(J, READING, struct jpeg_error_mgr *, jpeg_std_error, (struct jpeg_error_mgr *err), (err))

LAZY_VOID(J, READING, jpeg_CreateDecompress, (j_decompress_ptr cinfo, int version, size_t structsize),
          (cinfo, version, structsize))
LAZY_VOID(J, READING, jpeg_destroy_decompress, (j_decompress_ptr cinfo), (cinfo))
LAZY_VOID(J, READING, jpeg_mem_src, (j_decompress_ptr cinfo, const unsigned char *inbuffer, unsigned long insize),
          (cinfo, inbuffer, insize))
LAZY(J, READING, int, jpeg_read_header, (j_decompress_ptr cinfo, boolean require_image), (cinfo, require_image))
LAZY(J, READING, boolean, jpeg_start_decompress, (j_decompress_ptr cinfo), (cinfo))
LAZY(J, READING, JDIMENSION, jpeg_read_scanlines, (j_decompress_ptr cinfo, JSAMPARRAY scanlines, JDIMENSION max_lines),
     (cinfo, scanlines, max_lines))
LAZY(J, READING, boolean, jpeg_finish_decompress, (j_decompress_ptr cinfo), (cinfo))

LAZY_VOID(J, MAKING, jpeg_CreateCompress, (j_compress_ptr cinfo, int version, size_t structsize),
          (cinfo, version, structsize))
LAZY_VOID(J, MAKING, jpeg_destroy_compress, (j_compress_ptr cinfo), (cinfo))
LAZY_VOID(J, MAKING, jpeg_mem_dest, (j_compress_ptr cinfo, unsigned char **outbuffer, unsigned long *outsize),
          (cinfo, outbuffer, outsize))
LAZY_VOID(J, MAKING, jpeg_set_defaults, (j_compress_ptr cinfo), (cinfo))
LAZY_VOID(J, MAKING, jpeg_set_quality, (j_compress_ptr cinfo, int quality, boolean force_baseline),
          (cinfo, quality, force_baseline))
LAZY_VOID(J, MAKING, jpeg_start_compress, (j_compress_ptr cinfo, boolean write_all_tables), (cinfo, write_all_tables))
LAZY(J, MAKING, JDIMENSION, jpeg_write_scanlines, (j_compress_ptr cinfo, JSAMPARRAY scanlines, JDIMENSION num_lines),
     (cinfo, scanlines, num_lines))
LAZY_VOID(J, MAKING, jpeg_finish_compress, (j_compress_ptr cinfo), (cinfo))
