/* SPDX-License-Identifier: ISC */
/* The device nodes: sysfs's class/infiniband_verbs, infiniband_mad and misc/rdma_cm, and
 * lstat() of each node under DEVROOT/infiniband. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "source_devnodes.h"
#include "macro.h"
#include "strutil.h"
#include "sysfs.h"

/* DIR/NAME/dev ("231:192") into N's numbers, and the node under DEVROOT. */
static void read_node(const char *sysroot, const char *devroot, const char *dir, const char *name,
                      struct devnode *n)
{
    char dev[32], path[512];
    struct stat st;
    strscpy(n->name, name, sizeof(n->name));
    if (sysfs_read_line(sysroot, dev, sizeof(dev), "%s/%s/dev", dir, name) < 0 ||
        sscanf(dev, "%u:%u", &n->major, &n->minor) != 2)
        n->major = n->minor = 0;
    if (!devroot)
        return;
    n->looked = true;
    snprintf(path, sizeof(path), "%s/infiniband/%s", devroot, name);
    if (lstat(path, &st) < 0) {
        n->err = -errno;
        return;
    }
    n->is_char = S_ISCHR(st.st_mode);
    n->dev_major = major(st.st_rdev);
    n->dev_minor = minor(st.st_rdev);
    n->mode = st.st_mode & 07777;
}

/* The entry of class DIR named PREFIX<N> whose ibdev is DEVICE (and port PORT, when
 * PORT > 0): infiniband_mad lists umadN and issmN alike. */
static bool find_entry(const char *sysroot, const char *dir, const char *prefix,
                       const char *device, uint32_t port, char *name, size_t size)
{
    char **names = NULL, ibdev[64];
    size_t n = 0;
    bool found = false;
    if (sysfs_list(sysroot, &names, &n, "%s", dir) < 0)
        return false;
    for (size_t i = 0; i < n && !found; i++) {
        uint64_t p = 0;
        if (strncmp(names[i], prefix, strlen(prefix)) != 0 ||
            sysfs_read_line(sysroot, ibdev, sizeof(ibdev), "%s/%s/ibdev", dir, names[i]) < 0 ||
            !streq(ibdev, device))
            continue;
        if (port > 0 && (sysfs_read_u64(sysroot, &p, "%s/%s/port", dir, names[i]) < 0 || p != port))
            continue;
        strscpy(name, names[i], size);
        found = true;
    }
    strv_free(names);
    return found;
}

void source_devnodes_scan(const char *sysroot, const char *devroot, struct inventory *inv)
{
    char name[64];
    memset(&inv->rdma_cm, 0, sizeof(inv->rdma_cm));
    for (size_t i = 0; i < inv->n_rails; i++)
        memset(&inv->rails[i].devnodes, 0, sizeof(inv->rails[i].devnodes));
    /* A captured tree without the class (an older snapshot, a hand-made tree) says nothing
     * of the nodes; on the live system its absence is ib_uverbs not loaded. */
    if (!devroot && sysfs_exists(sysroot, "class/infiniband_verbs") <= 0)
        return;
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct rail *r = &inv->rails[i];
        struct rail_devnodes *d = &r->devnodes;
        d->known = true;
        if (find_entry(sysroot, "class/infiniband_verbs", "uverbs", r->device, 0, name, sizeof(name)))
            read_node(sysroot, devroot, "class/infiniband_verbs", name, &d->uverbs);
        if (streq(r->link_layer, "InfiniBand") &&
            find_entry(sysroot, "class/infiniband_mad", "umad", r->device, r->port, name,
                       sizeof(name)))
            read_node(sysroot, devroot, "class/infiniband_mad", name, &d->umad);
    }
    if (sysfs_exists(sysroot, "class/misc/rdma_cm") > 0)
        read_node(sysroot, devroot, "class/misc", "rdma_cm", &inv->rdma_cm);
}
