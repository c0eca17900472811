/* SPDX-License-Identifier: ISC */
/* One writer at a time: the daemon, --once --apply and --revert lock the state dir (and the
 * daemon its runtime dir) through DIR/fabtuned.lock, which names the holder's PID. */
#pragma once

#include <sys/types.h>

/* Takes the lock (the fd holds it until closed; it is O_CLOEXEC). -EBUSY when another
 * process holds it, with that process's PID in *ret_holder (0 if unreadable). */
int instance_lock(const char *dir, int *ret_fd, pid_t *ret_holder);
