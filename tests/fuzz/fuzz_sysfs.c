/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the sysfs source. The input's first 8 bytes choose the tree's shape:
 * the device and port directory names (ports/0, ports/x, huge indexes, odd names), which
 * files are absent, one file that is a directory, one that is a symlink (to itself, out
 * of the root, dangling, or to a directory); its lines then become the files' contents
 * (state, rate, GIDs, GID types, netdev attributes, ...). The inventory, the checks and the
 * NCCL contract run on that tree. Any shape must give findings, never a crash, a leak or
 * undefined behaviour. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"
#include "fuzz_scratch.h"
#include "nccl.h"
#include "inventory_take.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[256];

/* The files a line of input lands in, in order; @D is the device, @P the port directory. */
static const char *const files[] = {
    "class/infiniband/@D/ports/@P/state",
    "class/infiniband/@D/ports/@P/phys_state",
    "class/infiniband/@D/ports/@P/rate",
    "class/infiniband/@D/ports/@P/link_layer",
    "class/infiniband/@D/ports/@P/gids/0",
    "class/infiniband/@D/ports/@P/gids/1",
    "class/infiniband/@D/ports/@P/gids/7",
    "class/infiniband/@D/ports/@P/gid_attrs/types/0",
    "class/infiniband/@D/ports/@P/gid_attrs/types/1",
    "class/infiniband/@D/ports/@P/gid_attrs/types/7",
    "class/infiniband/@D/ports/@P/gid_attrs/ndevs/1",
    "class/infiniband/@D/fw_ver",
    "class/infiniband/@D/device/numa_node",
    "class/net/eth0/operstate",
    "class/net/eth0/carrier",
    "class/net/eth0/mtu",
    "class/net/eth0/carrier_changes",
    "class/net/eth0/qos/trust",
    "class/net/eth0/ecn/roce_np/enable/3",
    "class/net/eth0/ecn/roce_rp/enable/3",
    "class/net/eth0/ecn/roce_np/cnp_dscp",
    "class/net/eth0/ecn/roce_np/cnp_802p_prio",
    "class/net/eth0/bonding/slaves",
    "class/net/eth0/bonding/mode",
};
#define N_FILES (sizeof(files) / sizeof(files[0]))

static const char *const ports[] = {
    "1", "0", "x", "2", "65536", "4294967297", "18446744073709551617", "-1", "1x", "01",
};
static const char *const devices[] = {
    "mlx5_0", "rxe0", ".hidden", "a b", "mlx5_0\n", "dev%s%n",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
};
static const char *const link_targets[] = {
    "@self", "/etc/hostname", "../../../../../../../../../../etc", "nowhere", ".",
};

/* rel with @D and @P replaced. */
static void expand(const char *rel, const char *dev, const char *port, char *out, size_t len)
{
    size_t n = 0;
    for (const char *c = rel; *c && n + 1 < len; c++) {
        const char *sub = c[0] == '@' && c[1] == 'D' ? dev : c[0] == '@' && c[1] == 'P' ? port : NULL;
        if (!sub) {
            out[n++] = *c;
            continue;
        }
        for (; *sub && n + 1 < len; sub++)
            out[n++] = *sub;
        c++;
    }
    out[n] = '\0';
}

/* What this input's tree holds, in the order it was made: undone in reverse for the next
 * input (a walk of the tree, a mkdir per component of every file's path and an EEXIST per
 * file were most of the target's system calls). */
static struct made {
    char path[600];
    bool dir;
} made[64];
static size_t n_made;

static void remember(const char *path, bool dir)
{
    if (n_made < sizeof(made) / sizeof(made[0])) {
        snprintf(made[n_made].path, sizeof(made[0].path), "%s", path);
        made[n_made++].dir = dir;
    }
}

static bool made_dir(const char *path)
{
    for (size_t i = 0; i < n_made; i++)
        if (made[i].dir && strcmp(made[i].path, path) == 0)
            return true;
    return false;
}

/* DIR and the directories above it, below the root, from the deepest that exists. */
static void mkdir_p(char *dir)
{
    if (strcmp(dir, root) == 0 || made_dir(dir))
        return;
    if (mkdir(dir, 0755) == 0) {
        remember(dir, true);
        return;
    }
    char *slash = strrchr(dir, '/');
    if (errno != ENOENT || !slash || slash == dir)
        return;
    *slash = '\0';
    mkdir_p(dir);
    *slash = '/';
    if (mkdir(dir, 0755) == 0)
        remember(dir, true);
}

/* The directory that holds PATH. */
static void mkdirs(const char *path)
{
    char tmp[600];
    snprintf(tmp, sizeof(tmp), "%s", path);
    char *slash = strrchr(tmp, '/');
    if (!slash || slash == tmp)
        return;
    *slash = '\0';
    mkdir_p(tmp);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag;
    if (ftw->level > 0)
        remove(path);
    return 0;
}

/* The last input's tree goes: what was made, in reverse; a walk of the root if anything
 * is left (the links never take it out of the root: FTW_PHYS). */
static void clear_tree(void)
{
    bool left = n_made == sizeof(made) / sizeof(made[0]);
    while (n_made > 0) {
        const struct made *m = &made[--n_made];
        if ((m->dir ? rmdir(m->path) : unlink(m->path)) < 0 && errno != ENOENT)
            left = true;
    }
    if (left)
        nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fuzz_scratch_template(root, sizeof(root), "fuzz_sysfs");
    if (!mkdtemp(root))
        abort();
    return 0;
}

static void write_file(const char *path, const uint8_t *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return;
    remember(path, false);
    if (write(fd, data, len) < 0) { /* the fuzzer only needs what got written */ }
    close(fd);
}

/* The tree for this input, from scratch. */
static const uint8_t *build_tree(const uint8_t *data, size_t size)
{
    uint8_t h[8] = { 0 };
    memcpy(h, data, size < sizeof(h) ? size : sizeof(h));
    const uint8_t *p = data + (size < sizeof(h) ? size : sizeof(h)), *end = data + size;
    const char *port = ports[h[0] % (sizeof(ports) / sizeof(ports[0]))];
    const char *dev = devices[h[1] % (sizeof(devices) / sizeof(devices[0]))];
    uint32_t absent = (uint32_t)h[2] | (uint32_t)h[3] << 8 | (uint32_t)h[4] << 16;
    size_t as_dir = h[5] % (N_FILES * 2), as_link = h[6] % (N_FILES * 2);
    const char *target = link_targets[h[7] % (sizeof(link_targets) / sizeof(link_targets[0]))];
    char rel[512], path[600], dir[600];

    clear_tree();
    snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/device/net/eth0/", root, dev);
    mkdirs(dir);
    for (size_t i = 0; i < N_FILES; i++) {
        const uint8_t *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        expand(files[i], dev, port, rel, sizeof(rel));
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        mkdirs(path);
        if (i == as_dir) {
            if (mkdir(path, 0755) == 0)
                remember(path, true);
        } else if (i == as_link) {
            if (symlink(strcmp(target, "@self") == 0 ? path : target, path) == 0)
                remember(path, false);
        }
        else if (!(absent & (1u << i)))
            write_file(path, p, len);
        p = nl ? nl + 1 : end;
    }
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    build_tree(data, size);

    struct policy pol;
    struct inventory inv;
    struct findings fs = { 0 };
    struct nccl_contract c;
    policy_init_defaults(&pol);
    if (inventory_take(root, root, &pol, &inv) == 0) {
        checks_run(&(struct check_input){ .inventory = &inv, .policy = &pol }, &fs);
        nccl_contract_compute(&inv, &pol, &c);
        free(nccl_contract_render(&c, false));
    }
    findings_done(&fs);
    inventory_done(&inv);
    policy_done(&pol);
    return 0;
}
