/* SPDX-License-Identifier: ISC */
/* host.state_dir: whether the daemon's state directory keeps what it learns. */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "checks.h"
#include "strutil.h"

void check_persistence(const struct persistence *s, struct findings *out)
{
    char why[160];
    int err = s->lock_error ? s->lock_error : s->write_error;
    if (!s->judged)
        return;
    if (err == 0) {
        findings_add(out, "host.state_dir", SEVERITY_OK, NULL, NULL, NULL, NULL,
                     "%s locked and written", s->dir);
        return;
    }
    if (err == -EBUSY && s->holder > 0)
        snprintf(why, sizeof(why), "another process (pid %ld) holds its lock", (long)s->holder);
    else if (err == -EBUSY)
        snprintf(why, sizeof(why), "another process, of unknown PID, holds its lock");
    else
        snprintf(why, sizeof(why), "cannot %s: %s", s->lock_error ? "write its lock file" : s->failed,
                 errno_text(-err));
    findings_add(out, "host.state_dir", SEVERITY_ERROR, NULL, "writable", errno_text(-err),
                 err == -EBUSY
                 ? "stop the process that holds the lock, or give this fabtuned a "
                   "--state-dir of its own; it retries at every check"
                 : "free space on its file system or make it writable; fabtuned retries at "
                   "every check and recovers by itself",
                 "%s: %s; judging from memory, nothing will persist (sysctl originals, probe "
                 "baselines, counter state)", s->dir, why);
}
