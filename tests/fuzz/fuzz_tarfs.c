/* SPDX-License-Identifier: ISC */
/* libFuzzer target for a snapshot tarball read in place (fabtuned --snapshot): any bytes
 * are handed to libarchive and to fabtune's table and path resolution over what it reads;
 * never a crash, a read past a buffer, an endless symlink walk or undefined behaviour,
 * and every lookup answers with an entry the table holds or with none. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tarfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count(const char *name, void *u)
{
    if (!name[0] || strchr(name, '/'))
        abort();
    (*(size_t *)u)++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tarfs *t;
    char why[256], real[4096], link[4096];
    if (tarfs_load(NULL, data, size, &t, why, sizeof(why)) < 0)
        return 0;
    /* What a snapshot's reader asks, and paths that climb, loop and end in links. */
    static const char *const paths[] = {
        "sys", "sys/class/infiniband", "sys/class/infiniband/mlx5_0/device",
        "sys/class/net/eth0/mtu", "proc/sys/kernel/hostname", "a", "a/b", "a/../a/b/..",
        "../../..", "a/./b/c/d/e", "l", "l/x", "sys/bus/pci/devices/0000:00:06.0/config",
    };
    for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
        const char *d;
        size_t n = 0, len;
        char k = tarfs_lookup(t, paths[i], &d, &len, real, sizeof(real));
        if (k && k != 'f' && k != 'd')
            abort();
        if (k == 'f' && (!d || strlen(d) > len))
            abort();
        (void)tarfs_readlink(t, paths[i], link, sizeof(link));
        int r = tarfs_list(t, paths[i], count, &n);
        if (r == 0 && k != 'd')
            abort();
        if (n > tarfs_count(t))
            abort();
    }
    tarfs_free(t);
    return 0;
}
