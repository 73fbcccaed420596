#include <sys/prctl.h>
#include "lomme_hardening.h"

int lomme_set_not_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

int lomme_get_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }
