// libqrencode, loaded on first use (lomme_lazy.h): the 2 functions LommeQR/QRMatrix.swift calls.
#include <qrencode.h>
#include <lomme_lazy_stub.h>
#define Q LOMME_LIBRARY_QRENCODE, MAKING

LAZY(Q, QRcode *, QRcode_encodeString,
     (const char *string, int version, QRecLevel level, QRencodeMode hint, int casesensitive),
     (string, version, level, hint, casesensitive))
LAZY_VOID(Q, QRcode_free, (QRcode *qrcode), (qrcode))
