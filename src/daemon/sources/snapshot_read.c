/* SPDX-License-Identifier: ISC */
/* The raw replies a snapshot kept, read back through the sysfs seam (a tree or a tarball). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "paths.h"
#include "snapshot_layout.h"
#include "snapshot_read.h"
#include "sysfs.h"

#define REPLY_MAX (4u << 20)    /* an ethtool string set of 65536 names is 2 MiB */

bool snapshot_read_by_fabtunectl(const char *sysroot)
{
    return sysfs_exists(sysroot, "../fabtune");
}

bool snapshot_read_has_replies(const char *sysroot, const char *ifname)
{
    return sysfs_exists(sysroot, "../%s/%s", SNAPSHOT_REPLIES_DIR, ifname);
}

int snapshot_read_reply(const char *sysroot, const char *ifname, const char *name, char **buf,
                        size_t *len, int *err)
{
    int64_t v;
    if (sysfs_read_file(sysroot, REPLY_MAX, buf, len, "../%s/%s/%s", SNAPSHOT_REPLIES_DIR,
                        ifname, name) == 0)
        return 1;
    if (sysfs_read_int(sysroot, &v, "../%s/%s/%s.errno", SNAPSHOT_REPLIES_DIR, ifname,
                       name) == 0 &&
        v > 0 && v < 4096) {
        *err = -(int)v;
        return 0;
    }
    return -ENOENT;
}

int snapshot_read_link_memory(const char *sysroot, size_t max, char **buf, size_t *len)
{
    return sysfs_read_file(sysroot, max, buf, len, "../%s/%s", SNAPSHOT_STATE_DIR,
                           PATHS_LINKS_FILE);
}

int snapshot_read_taken(const char *sysroot, uint64_t *wall_usec, uint64_t *boottime_usec)
{
    char *text = NULL, end;
    size_t len;
    int r = sysfs_read_file(sysroot, 128, &text, &len, "../%s", SNAPSHOT_TAKEN);
    if (r < 0)
        return r;
    r = sscanf(text, "%" SCNu64 " %" SCNu64 "%c", wall_usec, boottime_usec, &end) == 3 &&
        end == '\n' && *wall_usec > 0 ? 0 : -EBADMSG;
    free(text);
    return r;
}
