/* SPDX-License-Identifier: ISC */
/* A private scratch directory that goes on every way out, a signal included: fabtuned
 * --once --snapshot's unpacked tarball, fabtunectl diff's state directory for this node. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* Makes "$TMPDIR/NAME.XXXXXX" (else under /dev/shm, else /tmp), mode 0700, into DIR.
 * 0 or -errno. */
int scratch_dir_make(const char *name, char *dir, size_t len);
/* Removes DIR and all it holds, following no symlink. 0, or the first -errno. */
int scratch_dir_remove(const char *dir);

/* Makes a scratch directory as scratch_dir_make(NAME) does, runs FN(DIR, U) in a child
 * process, and removes DIR when the child ends, however it ends (an error, a crash, a
 * signal: SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to this process, from before the
 * directory is made, are passed on to it). Returns the child's exit code; if a signal
 * ended it, or came to this process, after the removal this process dies by it
 * (scratch_guard_exit_code()). */
int scratch_dir_run(const char *name, int (*fn)(const char *dir, void *u), void *u);

/* Between scratch_guard_begin() and scratch_guard_end(), SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT do not kill this process: the first is kept, a blocking call it interrupts
 * fails with EINTR, and each is passed on to the child scratch_guard_child() names. The
 * caller removes its directory, then dies by the kept signal (scratch_guard_raise()). */
void scratch_guard_begin(void);
/* The child to pass the signals on to (0: none); one that came before it is passed on now. */
void scratch_guard_child(pid_t pid);
/* Restores the signals' dispositions; returns the kept signal, 0 when none came. */
int scratch_guard_end(void);
/* Dies by SIG, as the child did or as the signal would have had (returns if it cannot). */
void scratch_guard_raise(int sig);
/* The exit code for a child's wait STATUS: its exit code, or (after raising it, if it
 * is one that ends a process quietly) 128 + the signal that killed it. */
int scratch_guard_exit_code(int status);
