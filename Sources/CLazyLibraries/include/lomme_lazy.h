#ifndef LOMME_LAZY_H
#define LOMME_LAZY_H

/// The picture and QR libraries, tpm2-tss, FFmpeg and cairo, loaded with dlopen on first use.
/// The binary does not link them (no NEEDED entry): `get`, `unlock`, `--version` and the other
/// commands that never touch a picture do not load libheif (and x265, aom, dav1d), zbar (and
/// X11, D-Bus, v4l), libpng, libdeflate, libjpeg, libwebp, libqrencode, tpm2-tss, FFmpeg or
/// cairo (and fontconfig, FreeType, pixman) at start-up.
///
/// Each function the package calls is defined in this target with the real prototype
/// (the real header is included, so the compiler checks it) and forwards to the
/// library's own function, found with dlsym on its first call. A library that cannot be
/// loaded ends the process with one line on stderr (what is missing, which Debian
/// package holds it) and exit code 2 when a picture was being read, 1 otherwise.

enum lomme_library {
    LOMME_LIBRARY_ZBAR,
    LOMME_LIBRARY_QRENCODE,
    LOMME_LIBRARY_PNG,
    LOMME_LIBRARY_DEFLATE,
    LOMME_LIBRARY_JPEG,
    LOMME_LIBRARY_WEBP,
    LOMME_LIBRARY_HEIF,
    LOMME_LIBRARY_ESYS,
    LOMME_LIBRARY_TCTILDR,
    LOMME_LIBRARY_MU,
    LOMME_LIBRARY_RC,
    LOMME_LIBRARY_AVFORMAT,
    LOMME_LIBRARY_AVCODEC,
    LOMME_LIBRARY_AVDEVICE,
    LOMME_LIBRARY_SWSCALE,
    LOMME_LIBRARY_AVUTIL,
    LOMME_LIBRARY_CAIRO,
    LOMME_LIBRARY_COUNT
};

/// Shows a loader failure (one line, without the `lomme-vault: ` prefix) and ends the
/// process with `exit_code`. The CLI registers one, so the library side never prints.
typedef void (*lomme_lazy_failure_handler)(const char *message, int exit_code);
void lomme_lazy_set_failure_handler(lomme_lazy_failure_handler handler);

/// The library's own `name`, loading the library first if needed. Never returns NULL:
/// on failure it shows one line (through the handler) and exits with `exit_code`.
void *lomme_lazy_symbol(enum lomme_library library, const char *name, int exit_code);

/// Whether the library loads (loading it if needed), for a library that only makes something
/// faster: its caller goes the slower way without it. A failure is not shown and is remembered.
int lomme_lazy_available(enum lomme_library library);

#endif
