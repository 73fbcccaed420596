// cairo (the recovery kit's page: PDF, SVG, and an image surface with its PNG writer):
// headers only, loaded with dlopen by CLazyCairo (Sources/CLazyLibraries/include/lomme_lazy.h).
// Debian keeps them in /usr/include/cairo, which is not on the include path.
#include <cairo/cairo.h>
#include <cairo/cairo-pdf.h>
#include <cairo/cairo-svg.h>
