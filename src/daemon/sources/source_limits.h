/* SPDX-License-Identifier: ISC */
/* The limits source: the locked-memory limit that jobs on this node get, and where it
 * comes from. RDMA pins memory, so a job under a small memlock limit cannot register its
 * buffers; fabtuned's own limit (LimitMEMLOCK=infinity in its unit) says nothing of that. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inventory.h"

/* Fills inv->memlock_* from, in order:
 *   1. a running slurmd's /proc/PID/limits (jobs inherit it);
 *   2. the last "*" memlock entry of etcroot/etc/security/limits.conf and limits.d/ (PAM
 *      login sessions, such as ssh-launched MPI ranks);
 *   3. systemd's DefaultLimitMEMLOCKSoft (every service, and the sessions of sshd), asked
 *      of PID 1 over its private bus when PID 1 is systemd;
 *   4. this process's own limit (procroot/self/limits), said to be that.
 * Offline (live false), only procroot is read: 1, then 4 as the snapshot's process. */
void source_limits_scan(const char *procroot, const char *etcroot, bool live,
                        struct inventory *inv);

/* The soft memlock limit in bytes (UINT64_MAX: unlimited) from a /proc/PID/limits file;
 * -ENOENT when it has no such line. */
int limits_file_memlock(const char *path, uint64_t *ret);
/* The memlock soft limit that limits.conf and limits.d give every user ("*" entries of type
 * soft or -; the last one read wins), with FILE:LINE in where; -ENOENT when none. */
int limits_conf_memlock(const char *etcroot, uint64_t *ret, char *where, size_t len);
