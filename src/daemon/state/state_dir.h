/* SPDX-License-Identifier: ISC */
/* Whether a state or runtime directory is fabtuned's alone, as sshd asks of its key files:
 * a directory that others can write lets them plant links where fabtuned writes. */
#pragma once

#include <stddef.h>

/* 0 when DIR is a directory (not a symlink) that neither group nor others may write and,
 * when this process is root, that root owns. -EPERM (or -errno of the open) otherwise,
 * with WHY naming DIR, its mode and owner, and the fix. */
int state_dir_check_owner(const char *dir, char *why, size_t len);
