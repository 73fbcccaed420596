#ifndef LOMME_DEFLATE_H
#define LOMME_DEFLATE_H
/// Whether libdeflate loads: it only makes the common PNG faster, so without it
/// (libdeflate0 not installed) libpng reads every PNG.
int lomme_deflate_available(void);
#endif
