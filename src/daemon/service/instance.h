/* SPDX-License-Identifier: ISC */
/* One writer at a time: the daemon, --once --apply and --revert lock the state dir (and the
 * daemon its runtime dir) through DIR/fabtuned.lock, which names the holder's PID. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* Takes the lock (the fd holds it until closed; it is O_CLOEXEC). -EBUSY when another
 * process holds it, with its PID in *ret_holder: the kernel's /proc/locks, else what it
 * wrote (waited for briefly); 0 only when neither tells. Another -errno with *ret_fd >= 0:
 * locked, but this PID could not be written (a full or read-only directory); with
 * *ret_fd < 0: not locked (no lock file could be opened). */
int instance_lock(const char *dir, int *ret_fd, pid_t *ret_holder);
/* Writes this process's PID into the lock file FD holds: a retry once space returns. */
int instance_write_pid(int fd);
/* Whether another process holds DIR's lock now (a daemon beside --once), and its PID if
 * the kernel tells (else 0). */
bool instance_held(const char *dir, pid_t *ret_holder);

/* The daemon's hold on its state directory, kept across passes: a full or read-only one
 * does not stop it, and each pass tries again. */
struct instance_hold {
    int fd;             /* the lock's fd, -1 while not locked */
    int error;          /* 0 when locked with this PID written; else the last -errno */
    pid_t holder;       /* with -EBUSY */
};

/* Locks DIR if not locked yet, and writes the PID if that failed before. */
void instance_hold_retry(struct instance_hold *h, const char *dir);
