/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the sysfs source: the input's lines become the contents of a
 * port's files (state, rate, GIDs, GID types, netdev attributes, ...), and the inventory,
 * the checks and the NCCL contract run on that tree. Any shape must give findings, never
 * a crash, a leak or undefined behaviour. */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"
#include "nccl.h"
#include "inventory_take.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64];

/* The files a line of input lands in, in order. */
static const char *const files[] = {
    "class/infiniband/mlx5_0/ports/1/state",
    "class/infiniband/mlx5_0/ports/1/phys_state",
    "class/infiniband/mlx5_0/ports/1/rate",
    "class/infiniband/mlx5_0/ports/1/link_layer",
    "class/infiniband/mlx5_0/ports/1/gids/0",
    "class/infiniband/mlx5_0/ports/1/gids/1",
    "class/infiniband/mlx5_0/ports/1/gids/7",
    "class/infiniband/mlx5_0/ports/1/gid_attrs/types/0",
    "class/infiniband/mlx5_0/ports/1/gid_attrs/types/1",
    "class/infiniband/mlx5_0/ports/1/gid_attrs/types/7",
    "class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/1",
    "class/infiniband/mlx5_0/fw_ver",
    "class/infiniband/mlx5_0/device/numa_node",
    "class/net/eth0/operstate",
    "class/net/eth0/carrier",
    "class/net/eth0/mtu",
    "class/net/eth0/carrier_changes",
    "class/net/eth0/qos/trust",
    "class/net/eth0/ecn/roce_np/enable/3",
    "class/net/eth0/ecn/roce_rp/enable/3",
    "class/net/eth0/ecn/roce_np/cnp_dscp",
    "class/net/eth0/ecn/roce_np/cnp_802p_prio",
};

static void mkdirs(const char *path)
{
    char tmp[256];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0755);
            *p = '/';
        }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char path[256];
    snprintf(root, sizeof(root), "/tmp/fuzz_sysfs.%d", (int)getpid());
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", root, files[i]);
        mkdirs(path);
    }
    snprintf(path, sizeof(path), "%s/class/infiniband/mlx5_0/device/net/eth0", root);
    mkdirs(path);
    mkdir(path, 0755);
    return 0;
}

static void write_file(const char *rel, const uint8_t *data, size_t len)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (write(fd, data, len) < 0) { /* the fuzzer only needs what got written */ }
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size;
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        const uint8_t *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        write_file(files[i], p, len);
        p = nl ? nl + 1 : end;
    }

    struct policy pol;
    struct inventory inv;
    struct findings fs = { 0 };
    struct nccl_contract c;
    policy_init_defaults(&pol);
    if (inventory_take(root, root, &pol, &inv) == 0) {
        checks_run(&inv, &pol, &fs);
        nccl_contract_compute(&inv, &pol, &c);
        free(nccl_contract_render(&c, false));
    }
    findings_done(&fs);
    inventory_done(&inv);
    policy_done(&pol);
    return 0;
}
