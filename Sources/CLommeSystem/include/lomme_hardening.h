#ifndef LOMME_HARDENING_H
#define LOMME_HARDENING_H

/// prctl(PR_SET_DUMPABLE, 0): prctl is variadic, which Swift cannot call.
/// Returns 0 on success, -1 with errno set.
int lomme_set_not_dumpable(void);

/// prctl(PR_GET_DUMPABLE), for tests.
int lomme_get_dumpable(void);

#endif
