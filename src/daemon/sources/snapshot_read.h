/* SPDX-License-Identifier: ISC */
/* The raw replies a snapshot kept (snapshot_layout.h), read back through the sysfs seam
 * (a tree or a tarball). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Whether the snapshot whose sys/ is SYSROOT kept anything for IFNAME. */
bool snapshot_read_has_replies(const char *sysroot, const char *ifname);
/* Reply NAME of IFNAME: 1 with its bytes (malloc'd, NUL-terminated, in *BUF), 0 with the
 * refused request's errno (negative) in *ERR, -ENOENT when the snapshot holds neither. */
int snapshot_read_reply(const char *sysroot, const char *ifname, const char *name, char **buf,
                        size_t *len, int *err);
