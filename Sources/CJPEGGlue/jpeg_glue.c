#include "lomme_jpeg.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

struct lv_error_manager {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char *message;
    size_t message_size;
};

static void lv_error_exit(j_common_ptr info) {
    struct lv_error_manager *manager = (struct lv_error_manager *)info->err;
    if (manager->message && manager->message_size > 0) {
        char text[JMSG_LENGTH_MAX];
        (*info->err->format_message)(info, text);
        snprintf(manager->message, manager->message_size, "%s", text);
    }
    longjmp(manager->jump, 1);
}

/* Warnings (corrupt data the decoder can step over) are not errors; stay silent. */
static void lv_output_message(j_common_ptr info) { (void)info; }

/* A truncated file is an error, not a grey picture: libjpeg warns JWRN_JPEG_EOF and pads. */
static void lv_emit_message(j_common_ptr info, int level) {
    if (level == -1 && info->err->msg_code == JWRN_JPEG_EOF) {
        info->err->error_exit(info);
    }
}

/* A malformed progressive JPEG can hold thousands of scans, each a pass over every block
   of the image: minutes of work from a small file. No camera or editor writes more than a
   few dozen, so more than LV_MAX_SCANS is an error (libjpeg-turbo's djpeg has -maxscans for
   the same reason). */
#define LV_MAX_SCANS 500

static void lv_progress_monitor(j_common_ptr info) {
    if (info->is_decompressor && ((j_decompress_ptr)info)->input_scan_number > LV_MAX_SCANS) {
        struct lv_error_manager *manager = (struct lv_error_manager *)info->err;
        if (manager->message && manager->message_size > 0) {
            snprintf(manager->message, manager->message_size,
                     "more than %d progressive scans, which no camera writes", LV_MAX_SCANS);
        }
        longjmp(manager->jump, 1);
    }
}

static void lv_install(struct jpeg_decompress_struct *info, struct lv_error_manager *manager,
                       char *message, size_t message_size) {
    info->err = jpeg_std_error(&manager->base);
    manager->base.error_exit = lv_error_exit;
    manager->base.output_message = lv_output_message;
    manager->base.emit_message = lv_emit_message;
    manager->message = message;
    manager->message_size = message_size;
}

int lv_jpeg_header(const unsigned char *data, size_t length,
                   int *width, int *height, char *message, size_t message_size) {
    struct jpeg_decompress_struct info;
    struct lv_error_manager manager;
    lv_install(&info, &manager, message, message_size);
    if (setjmp(manager.jump)) {
        jpeg_destroy_decompress(&info);
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)length);
    jpeg_read_header(&info, TRUE);
    *width = (int)info.image_width;
    *height = (int)info.image_height;
    jpeg_destroy_decompress(&info);
    return 0;
}

int lv_jpeg_decode_gray(const unsigned char *data, size_t length, int denominator,
                        size_t max_pixels, unsigned char **pixels, int *width, int *height,
                        char *message, size_t message_size) {
    struct jpeg_decompress_struct info;
    struct lv_error_manager manager;
    unsigned char *volatile output = NULL;
    unsigned char *volatile row = NULL;
    struct jpeg_progress_mgr progress = { .progress_monitor = lv_progress_monitor };
    *pixels = NULL;
    lv_install(&info, &manager, message, message_size);
    if (setjmp(manager.jump)) {
        free(output);
        free(row);
        jpeg_destroy_decompress(&info);
        return -1;
    }
    jpeg_create_decompress(&info);
    info.progress = &progress;
    jpeg_mem_src(&info, data, (unsigned long)length);
    jpeg_read_header(&info, TRUE);
    if ((size_t)info.image_width * (size_t)info.image_height > max_pixels) {
        snprintf(message, message_size, "the image declares %ux%u pixels, more than a photo can have",
                 info.image_width, info.image_height);
        jpeg_destroy_decompress(&info);
        return -1;
    }
    int cmyk = info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK;
    info.out_color_space = cmyk ? JCS_CMYK : JCS_GRAYSCALE;
    info.scale_num = 1;
    info.scale_denom = (unsigned int)(denominator == 2 || denominator == 4 || denominator == 8 ? denominator : 1);
    info.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&info);
    size_t w = info.output_width, h = info.output_height;
    int components = info.output_components;
    output = malloc(w * h ? w * h : 1);
    row = malloc(w * (size_t)components ? w * (size_t)components : 1);
    if (!output || !row) {
        snprintf(message, message_size, "out of memory decoding a %zux%zu image", w, h);
        longjmp(manager.jump, 1);
    }
    while (info.output_scanline < info.output_height) {
        size_t y = info.output_scanline;
        JSAMPROW rows[1] = { row };
        jpeg_read_scanlines(&info, rows, 1);
        unsigned char *target = output + y * w;
        if (components == 1) {
            memcpy(target, row, w);
        } else {
            /* Adobe CMYK JPEGs are stored inverted: 255 means no ink. */
            for (size_t x = 0; x < w; x++) {
                const unsigned char *p = row + x * 4;
                unsigned int k = p[3];
                unsigned int r = p[0] * k / 255, g = p[1] * k / 255, b = p[2] * k / 255;
                target[x] = (unsigned char)((r * 77 + g * 150 + b * 29) >> 8);
            }
        }
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    free(row);
    *pixels = output;
    *width = (int)w;
    *height = (int)h;
    return 0;
}

int lv_jpeg_encode_gray(const unsigned char *pixels, int width, int height, int quality,
                        unsigned char **out, size_t *out_length, char *message, size_t message_size) {
    struct jpeg_compress_struct info;
    struct lv_error_manager manager;
    unsigned char *buffer = NULL;
    unsigned long size = 0;
    info.err = jpeg_std_error(&manager.base);
    manager.base.error_exit = lv_error_exit;
    manager.base.output_message = lv_output_message;
    manager.message = message;
    manager.message_size = message_size;
    if (setjmp(manager.jump)) {
        jpeg_destroy_compress(&info);
        free(buffer);
        return -1;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, &buffer, &size);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = 1;
    info.in_color_space = JCS_GRAYSCALE;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW rows[1] = { (JSAMPROW)(pixels + (size_t)info.next_scanline * (size_t)width) };
        jpeg_write_scanlines(&info, rows, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    *out = buffer;
    *out_length = size;
    return 0;
}

void lv_free(void *pointer) { free(pointer); }
