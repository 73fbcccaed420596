#ifndef LOMME_LAZY_STUB_H
#define LOMME_LAZY_STUB_H
#include "lomme_lazy.h"

/// Exit codes when the library is missing (docs/commands.md): 2 while a picture is read or scanned,
/// 1 while a QR code or a picture is made.
#define READING 2
#define MAKING 1

/// Finds the real function once per stub; the pointer is published atomically because
/// the scanner calls zbar from several threads.
#define LAZY_RESOLVE(library, name, code)                                                  \
    static __typeof__(&name) resolved;                                                     \
    __typeof__(&name) real = __atomic_load_n(&resolved, __ATOMIC_ACQUIRE);                 \
    if (!real) {                                                                           \
        real = (__typeof__(&name))lomme_lazy_symbol(library, #name, code);                 \
        __atomic_store_n(&resolved, real, __ATOMIC_RELEASE);                               \
    }

/// Hidden: the stub is not in the binary's dynamic symbol table (which -static-stdlib fills
/// with -export-dynamic), so the loaded library's calls to its own functions bind to
/// themselves, not back to the stub (no detour, no re-entry while dlopen runs constructors).
#define STUB __attribute__((visibility("hidden")))

/// Defines `name` with the prototype `ret name params`, forwarding `args`. The real
/// header is included first, so a prototype that differs from it does not compile.
#define LAZY_DEFINE(library, code, ret, name, params, args)                                       \
    STUB ret name params {                                                                      \
        LAZY_RESOLVE(library, name, code)                                                  \
        return real args;                                                                  \
    }

#define LAZY_DEFINE_VOID(library, code, name, params, args)                                       \
    STUB void name params {                                                                     \
        LAZY_RESOLVE(library, name, code)                                                  \
        real args;                                                                         \
    }

/// The indirection lets a file name its library and exit code once (`#define Z LIB, READING`).
#define LAZY(...) LAZY_DEFINE(__VA_ARGS__)
#define LAZY_VOID(...) LAZY_DEFINE_VOID(__VA_ARGS__)

#endif
