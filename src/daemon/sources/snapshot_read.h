/* SPDX-License-Identifier: ISC */
/* The raw replies a snapshot kept (snapshot_layout.h), read back through the sysfs seam
 * (a tree or a tarball). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether SYSROOT is the sys/ of a fabtunectl snapshot (its fabtune/ beside it), not a
 * tree captured some other way, of which no fabtunectl reply can be expected. */
bool snapshot_read_by_fabtunectl(const char *sysroot);
/* Whether the snapshot whose sys/ is SYSROOT kept anything for IFNAME. */
bool snapshot_read_has_replies(const char *sysroot, const char *ifname);
/* Reply NAME of IFNAME: 1 with its bytes (malloc'd, NUL-terminated, in *BUF), 0 with the
 * refused request's errno (negative) in *ERR, -ENOENT when the snapshot holds neither. */
int snapshot_read_reply(const char *sysroot, const char *ifname, const char *name, char **buf,
                        size_t *len, int *err);
/* The daemon's link memory file the snapshot kept (SNAPSHOT_STATE_DIR), at most MAX bytes:
 * 0 with its bytes (malloc'd, NUL-terminated), -ENOENT when it kept none, or the read's
 * -errno. */
int snapshot_read_link_memory(const char *sysroot, size_t max, char **buf, size_t *len);
/* When the snapshot was taken (SNAPSHOT_TAKEN): 0, or -ENOENT (a snapshot made before it
 * was kept), -EBADMSG. */
int snapshot_read_taken(const char *sysroot, uint64_t *wall_usec, uint64_t *boottime_usec);
