/* SPDX-License-Identifier: ISC */
/* The congestion-control files of one netdev into a snapshot: the MLNX_OFED ecn/ tree
 * (deeper than the netdev copy goes: ecn/roce_np/enable/N), the upstream driver's debugfs
 * cc_params/, and mstconfig's or mlxconfig's answer as it printed it. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc_capture.h"
#include "fileio.h"
#include "fw_config.h"
#include "macro.h"
#include "snapshot_layout.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define CC_FILE_MAX 4096        /* a parameter file holds one number */
#define CC_DIR_MAX 64           /* ecn/roce_rp has 25 entries, cc_params/ 22 */
#define CC_FW_TIMEOUT (10 * USEC_PER_SEC)

/* SRC's regular files (and directories, DEPTH levels down) into DST; what cannot be read
 * is left out, as fabtune reads an absent file. */
static void copy_small_tree(const char *src, const char *dst, int depth)
{
    DIR *d = opendir(src);
    size_t n = 0;
    if (!d || mkdir_parents(dst) < 0) {
        if (d)
            closedir(d);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) && n < CC_DIR_MAX) {
        char s[PATH_MAX], t[PATH_MAX], *text = NULL;
        size_t len;
        struct stat st;
        if (de->d_name[0] == '.')
            continue;
        n++;
        snprintf(s, sizeof(s), "%s/%s", src, de->d_name);
        snprintf(t, sizeof(t), "%s/%s", dst, de->d_name);
        if (lstat(s, &st) < 0)
            continue;
        if (S_ISDIR(st.st_mode) && depth > 0)
            copy_small_tree(s, t, depth - 1);
        else if (S_ISREG(st.st_mode) && read_file_full(s, CC_FILE_MAX, &text, &len) == 0)
            (void)write_file_atomic(t, text, len, 0644);
        free(text);
    }
    closedir(d);
}

static void write_text(const char *dir, const char *name, const char *text, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    (void)write_file_atomic(path, text, len, 0644);
}

/* The firmware tool's answer in fabtune/net/IFNAME/: fw_config as printed, or
 * fw_config.errno and fw_config.why; fw_config.tool names the tool that answered. */
static void keep_fw_config(const char *top, const char *ifname, const char *pci)
{
    char dir[PATH_MAX], tool[16] = "", why[256], num[16], *out = NULL;
    size_t len = 0;
    snprintf(dir, sizeof(dir), "%s/%s/%s", top, SNAPSHOT_REPLIES_DIR, ifname);
    if (mkdir_parents(dir) < 0)
        return;
    int r = fw_config_query(pci, CC_FW_TIMEOUT, &out, &len, tool, sizeof(tool), why, sizeof(why));
    if (r == 0) {
        write_text(dir, "fw_config", out, len);
    } else {
        int n = snprintf(num, sizeof(num), "%d\n", -r);
        write_text(dir, "fw_config.errno", num, (size_t)n);
        write_text(dir, "fw_config.why", why, strlen(why));
    }
    if (tool[0])
        write_text(dir, "fw_config.tool", tool, strlen(tool));
    free(out);
}

/* The PCI function above netdev IFNAME: /sys/class/net/IF resolves to
 * /sys/devices/.../ADDR/net/IF (net/core/net-sysfs.c); its driver's name and ADDR. */
static int netdev_function(const char *ifname, char *pci, size_t len, char *driver, size_t dlen)
{
    char s[PATH_MAX], real[PATH_MAX], target[PATH_MAX];
    snprintf(s, sizeof(s), "/sys/class/net/%s", ifname);
    if (!realpath(s, real))
        return -errno;
    char *net = strrchr(real, '/');
    if (!net || net == real)
        return -ENODEV;
    *net = '\0';
    if (!(net = strrchr(real, '/')) || strcmp(net, "/net") != 0)
        return -ENODEV;
    *net = '\0';                /* the device the netdev hangs off */
    const char *addr = strrchr(real, '/');
    snprintf(pci, len, "%s", addr ? addr + 1 : real);
    snprintf(s, sizeof(s), "%s/driver", real);
    ssize_t k = readlink(s, target, sizeof(target) - 1);
    if (k < 0)
        return -errno;
    target[k] = '\0';
    const char *base = strrchr(target, '/');
    snprintf(driver, dlen, "%s", base ? base + 1 : target);
    return 0;
}

void cc_capture_netdev(const char *top, const char *ifname)
{
    char s[PATH_MAX], t[PATH_MAX + 16], real[PATH_MAX], pci[64], driver[64];
    if (!ifname[0] || strchr(ifname, '/') || streq(ifname, ".") || streq(ifname, ".."))
        return;
    snprintf(s, sizeof(s), "/sys/class/net/%s/ecn", ifname);
    if (realpath(s, real)) {
        snprintf(t, sizeof(t), "%s%s", top, real);
        copy_small_tree(real, t, 3);
    }
    if (netdev_function(ifname, pci, sizeof(pci), driver, sizeof(driver)) < 0 ||
        !streq(driver, "mlx5_core"))
        return;
    snprintf(s, sizeof(s), "/sys/kernel/debug/mlx5/%s/cc_params", pci);
    snprintf(t, sizeof(t), "%s%s", top, s);
    if (access(s, F_OK) == 0)
        copy_small_tree(s, t, 0);
    keep_fw_config(top, ifname, pci);
}
