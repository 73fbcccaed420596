// libzbar, loaded on first use (lomme_lazy.h): the 17 functions LommeScan/ZBar.swift calls.
#include <zbar.h>
#include <lomme_lazy_stub.h>
#define Z LOMME_LIBRARY_ZBAR, READING

LAZY(Z, zbar_image_scanner_t *, zbar_image_scanner_create, (void), ())
LAZY_VOID(Z, zbar_image_scanner_destroy, (zbar_image_scanner_t *scanner), (scanner))
LAZY(Z, int, zbar_image_scanner_set_config,
     (zbar_image_scanner_t *scanner, zbar_symbol_type_t symbology, zbar_config_t config, int value),
     (scanner, symbology, config, value))
LAZY(Z, zbar_image_t *, zbar_image_create, (void), ())
LAZY_VOID(Z, zbar_image_destroy, (zbar_image_t *image), (image))
LAZY_VOID(Z, zbar_image_set_format, (zbar_image_t *image, unsigned long format), (image, format))
LAZY_VOID(Z, zbar_image_set_size, (zbar_image_t *image, unsigned width, unsigned height), (image, width, height))
LAZY_VOID(Z, zbar_image_set_data,
          (zbar_image_t *image, const void *data, unsigned long length, zbar_image_cleanup_handler_t *cleanup),
          (image, data, length, cleanup))
LAZY(Z, int, zbar_scan_image, (zbar_image_scanner_t *scanner, zbar_image_t *image), (scanner, image))
LAZY(Z, const zbar_symbol_t *, zbar_image_first_symbol, (const zbar_image_t *image), (image))
LAZY(Z, const zbar_symbol_t *, zbar_symbol_next, (const zbar_symbol_t *symbol), (symbol))
LAZY(Z, zbar_symbol_type_t, zbar_symbol_get_type, (const zbar_symbol_t *symbol), (symbol))
LAZY(Z, const char *, zbar_symbol_get_data, (const zbar_symbol_t *symbol), (symbol))
LAZY(Z, unsigned int, zbar_symbol_get_data_length, (const zbar_symbol_t *symbol), (symbol))
LAZY(Z, unsigned, zbar_symbol_get_loc_size, (const zbar_symbol_t *symbol), (symbol))
LAZY(Z, int, zbar_symbol_get_loc_x, (const zbar_symbol_t *symbol, unsigned index), (symbol, index))
LAZY(Z, int, zbar_symbol_get_loc_y, (const zbar_symbol_t *symbol, unsigned index), (symbol, index))
