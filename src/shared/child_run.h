/* SPDX-License-Identifier: ISC */
/* Runs another program as a child bounded in time and in output: a vendor tool that may be
 * absent, fail, hang or print anything. Never call it from the event loop. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "timeutil.h"

struct child_result {
    int exit_status;            /* its exit status; -1 when it did not exit by itself */
    int signal;                 /* the signal that ended it, or 0 */
    bool timed_out;             /* killed at the time bound */
    bool truncated;             /* killed for printing more than the bound */
    char *out;                  /* stdout and stderr, NUL-terminated (malloc'd) */
    size_t len;
};

/* The executable NAME on $PATH (or the default path), in BUF: 0, or -ENOENT. */
int child_find(const char *name, char *buf, size_t len);
/* Runs PATH with ARGV (NULL-terminated), stdin from /dev/null, in a process group of its
 * own (so a shell's children die with it), with LC_ALL=C; kills the group at TIMEOUT or
 * past MAX_OUT bytes. 0 with RES filled (whatever the child did), or -errno when it could
 * not be started. */
int child_run(const char *path, char *const argv[], usec_t timeout, size_t max_out,
              struct child_result *res);
void child_result_done(struct child_result *res);
/* Why RES is no answer, in words ("exit status 3: -E- Failed to open the device"), or
 * NULL when it exited 0. */
const char *child_result_why(const struct child_result *res, char *buf, size_t len);
