// The loader behind the stubs of the CLazy* targets, one per library (see lomme_lazy.h).
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include "lomme_lazy.h"

static const struct {
    const char *soname;   ///< the library's SONAME, the same name the linker would record
    const char *package;  ///< the Debian package that installs it
    const char *purpose;  ///< what it is needed for, for the message
} libraries[LOMME_LIBRARY_COUNT] = {
    [LOMME_LIBRARY_ZBAR] = {"libzbar.so.0", "libzbar0", "reading QR codes"},
    [LOMME_LIBRARY_QRENCODE] = {"libqrencode.so.4", "libqrencode4", "making QR codes"},
    [LOMME_LIBRARY_PNG] = {"libpng16.so.16", "libpng16-16", "PNG pictures"},
    [LOMME_LIBRARY_DEFLATE] = {"libdeflate.so.0", "libdeflate0", "PNG pictures"},
    [LOMME_LIBRARY_JPEG] = {"libjpeg.so.62", "libjpeg62-turbo", "JPEG pictures"},
    [LOMME_LIBRARY_WEBP] = {"libwebp.so.7", "libwebp7", "WebP pictures"},
    [LOMME_LIBRARY_HEIF] = {"libheif.so.1", "libheif1", "HEIC pictures"},
    [LOMME_LIBRARY_ESYS] = {"libtss2-esys.so.0", "libtss2-esys-3.0.2-0", "the TPM"},
    [LOMME_LIBRARY_TCTILDR] = {"libtss2-tctildr.so.0", "libtss2-tctildr0", "the TPM"},
    [LOMME_LIBRARY_MU] = {"libtss2-mu.so.0", "libtss2-mu0", "the TPM"},
    [LOMME_LIBRARY_RC] = {"libtss2-rc.so.0", "libtss2-rc0", "the TPM"},
    [LOMME_LIBRARY_AVFORMAT] = {"libavformat.so.59", "libavformat59", "reading a camera or a video"},
    [LOMME_LIBRARY_AVCODEC] = {"libavcodec.so.59", "libavcodec59", "reading a camera or a video"},
    [LOMME_LIBRARY_AVDEVICE] = {"libavdevice.so.59", "libavdevice59", "reading a camera or a video"},
    [LOMME_LIBRARY_SWSCALE] = {"libswscale.so.6", "libswscale6", "reading a camera or a video"},
    [LOMME_LIBRARY_AVUTIL] = {"libavutil.so.57", "libavutil57", "reading a camera or a video"},
    [LOMME_LIBRARY_CAIRO] = {"libcairo.so.2", "libcairo2", "drawing the recovery kit"},
};

static void *handles[LOMME_LIBRARY_COUNT];
static int unavailable[LOMME_LIBRARY_COUNT];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static lomme_lazy_failure_handler failure_handler;

void lomme_lazy_set_failure_handler(lomme_lazy_failure_handler handler) { failure_handler = handler; }

/// One line, then out: the stub's caller cannot be told (the real prototype has no
/// room for it), and nothing of the vault is open for writing while a picture or a QR
/// code is being made or read. The CLI's handler shows the line (as every message, with
/// control characters escaped: dlerror's text names files); without one it goes to stderr
/// as it is. _exit, not exit: other scanner threads may still run.
static _Noreturn void fail(enum lomme_library library, const char *what, const char *detail, int exit_code) {
    char message[1024];
    snprintf(message, sizeof message, "cannot %s %s, needed for %s (install the Debian package %s): %s",
             what, libraries[library].soname, libraries[library].purpose, libraries[library].package,
             detail ? detail : "unknown error");
    fflush(stdout);
    if (failure_handler) failure_handler(message, exit_code);
    fprintf(stderr, "lomme-vault: %s\n", message);
    _exit(exit_code);
}

/// The library's handle, opened on first use (NULL when it cannot be); called with `lock` held.
static void *opened(enum lomme_library library) {
    if (!handles[library]) handles[library] = dlopen(libraries[library].soname, RTLD_NOW | RTLD_LOCAL);
    return handles[library];
}

void *lomme_lazy_symbol(enum lomme_library library, const char *name, int exit_code) {
    pthread_mutex_lock(&lock);
    if (!opened(library)) {
        const char *error = dlerror();
        fail(library, "load", error, exit_code);
    }
    void *symbol = dlsym(handles[library], name);
    pthread_mutex_unlock(&lock);
    if (!symbol) fail(library, "use", name, exit_code);
    return symbol;
}

int lomme_lazy_available(enum lomme_library library) {
    pthread_mutex_lock(&lock);
    // A library that failed once is not looked for again.
    int loaded = !unavailable[library] && opened(library) != NULL;
    unavailable[library] = !loaded;
    pthread_mutex_unlock(&lock);
    return loaded;
}
