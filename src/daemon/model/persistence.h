/* SPDX-License-Identifier: ISC */
/* Whether the state directory keeps what the daemon learns (the sysctl originals, the
 * probe baselines, the counter state): its lock and the last writes. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

struct persistence {
    bool judged;                /* the daemon fills it; --once has none */
    char dir[256];
    int lock_error;             /* 0, or why the lock is not held (-EBUSY: by holder) */
    pid_t holder;               /* with -EBUSY: who holds it now (0: unknown) */
    int write_error;            /* 0, or the -errno of the last failed write */
    char failed[64];            /* that write: "save the counter state", ... */
};
