// cairo, loaded on first use (lomme_lazy.h): the 30 functions LommePrint calls to draw the
// recovery kit. libcairo pulls fontconfig, FreeType, pixman and the X11 libraries: no
// command but the kit's loads them.
#include <cairo/cairo.h>
#include <cairo/cairo-pdf.h>
#include <cairo/cairo-svg.h>
#include <lomme_lazy_stub.h>
#define C LOMME_LIBRARY_CAIRO, MAKING

// Surfaces: the page as PDF or SVG (written to a stream), or as pixels for the PNG.
LAZY(C, cairo_surface_t *, cairo_pdf_surface_create_for_stream,
     (cairo_write_func_t write_func, void *closure, double width_in_points, double height_in_points),
     (write_func, closure, width_in_points, height_in_points))
LAZY_VOID(C, cairo_pdf_surface_set_metadata, (cairo_surface_t *surface, cairo_pdf_metadata_t metadata, const char *utf8),
          (surface, metadata, utf8))
LAZY(C, cairo_surface_t *, cairo_svg_surface_create_for_stream,
     (cairo_write_func_t write_func, void *closure, double width_in_points, double height_in_points),
     (write_func, closure, width_in_points, height_in_points))
LAZY(C, cairo_surface_t *, cairo_image_surface_create, (cairo_format_t format, int width, int height),
     (format, width, height))
LAZY(C, unsigned char *, cairo_image_surface_get_data, (cairo_surface_t *surface), (surface))
LAZY(C, int, cairo_image_surface_get_stride, (cairo_surface_t *surface), (surface))
LAZY(C, cairo_status_t, cairo_surface_write_to_png_stream,
     (cairo_surface_t *surface, cairo_write_func_t write_func, void *closure), (surface, write_func, closure))
LAZY_VOID(C, cairo_surface_flush, (cairo_surface_t *surface), (surface))
LAZY_VOID(C, cairo_surface_finish, (cairo_surface_t *surface), (surface))
LAZY(C, cairo_status_t, cairo_surface_status, (cairo_surface_t *surface), (surface))
LAZY_VOID(C, cairo_surface_destroy, (cairo_surface_t *surface), (surface))

// The drawing context.
LAZY(C, cairo_t *, cairo_create, (cairo_surface_t *target), (target))
LAZY(C, cairo_status_t, cairo_status, (cairo_t *cr), (cr))
LAZY(C, const char *, cairo_status_to_string, (cairo_status_t status), (status))
LAZY_VOID(C, cairo_destroy, (cairo_t *cr), (cr))
LAZY_VOID(C, cairo_show_page, (cairo_t *cr), (cr))
LAZY_VOID(C, cairo_scale, (cairo_t *cr, double sx, double sy), (cr, sx, sy))
LAZY_VOID(C, cairo_set_source_rgb, (cairo_t *cr, double red, double green, double blue), (cr, red, green, blue))
LAZY_VOID(C, cairo_paint, (cairo_t *cr), (cr))

// Paths: the QR code's modules and the box around the key.
LAZY_VOID(C, cairo_new_path, (cairo_t *cr), (cr))
LAZY_VOID(C, cairo_rectangle, (cairo_t *cr, double x, double y, double width, double height), (cr, x, y, width, height))
LAZY_VOID(C, cairo_move_to, (cairo_t *cr, double x, double y), (cr, x, y))
LAZY_VOID(C, cairo_line_to, (cairo_t *cr, double x, double y), (cr, x, y))
LAZY_VOID(C, cairo_set_line_width, (cairo_t *cr, double width), (cr, width))
LAZY_VOID(C, cairo_fill, (cairo_t *cr), (cr))
LAZY_VOID(C, cairo_stroke, (cairo_t *cr), (cr))

// Text: cairo's "toy" API (fontconfig finds the family; PDF embeds the font's subset).
LAZY_VOID(C, cairo_select_font_face,
          (cairo_t *cr, const char *family, cairo_font_slant_t slant, cairo_font_weight_t weight),
          (cr, family, slant, weight))
LAZY_VOID(C, cairo_set_font_size, (cairo_t *cr, double size), (cr, size))
LAZY_VOID(C, cairo_text_extents, (cairo_t *cr, const char *utf8, cairo_text_extents_t *extents), (cr, utf8, extents))
LAZY_VOID(C, cairo_show_text, (cairo_t *cr, const char *utf8), (cr, utf8))
