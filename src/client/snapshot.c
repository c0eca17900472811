/* SPDX-License-Identifier: ISC */
/* fabtunectl snapshot: copies every sysfs and procfs file fabtune reads into a tarball,
 * in the kernel's own layout (real directories under devices/, class/ and bus/ symlinks),
 * with each netdev's DCB netlink and ethtool replies as raw bytes (snapshot_write.h),
 * compressed as the tarball's name says (snapshot_archive.h), so that "fabtuned --once --snapshot FILE.tar" analyses it as the live node. Works
 * without the daemon. A file the kernel refuses to read (an empty GID slot's type) is left
 * out, which fabtune reads the same way. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cc_capture.h"
#include "client.h"
#include "fileio.h"
#include "macro.h"
#include "paths.h"
#include "scratch_dir.h"
#include "snapshot_archive.h"
#include "snapshot_layout.h"
#include "snapshot_write.h"
#include "strutil.h"

/* sysfs paths are far below PATH_MAX; a path that did not fit would only make that one
 * copy fail, which a snapshot tolerates for every file. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define MAX_DEPTH 5

static const char *const skip_dirs[] = {
    "power", "pkeys", "subsystem", "statistics", "queues", "msi_irqs", "cm_rx_duplicates",
    "cm_rx_msgs", "cm_tx_msgs", "cm_tx_retries", "mad_pkey", "firmware_node", "iommu",
    "iommu_group", "driver", "infiniband_mad", "infiniband_verbs", "uevent",
};
static const char *const pci_files[] = {
    "numa_node", "vendor", "device", "class", "subsystem_vendor", "subsystem_device",
    "current_link_speed", "current_link_width", "max_link_speed", "max_link_width",
    "local_cpulist", "config",      /* root reads the capabilities (pcie.mrrs) */
};

static int mkdir_p(const char *path)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
                return -errno;
            *p = '/';
        }
    return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

static void copy_file(const char *src, const char *dst)
{
    char buf[65536];
    int in = open(src, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (in < 0)
        return;
    ssize_t k = read(in, buf, sizeof(buf));
    close(in);
    if (k < 0)
        return;
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0)
        return;
    if (write(out, buf, (size_t)k) < 0) { /* best effort: a snapshot of what is readable */ }
    close(out);
}

static void copy_link(const char *src, const char *dst)
{
    char target[PATH_MAX];
    ssize_t k = readlink(src, target, sizeof(target) - 1);
    if (k < 0)
        return;
    target[k] = '\0';
    unlink(dst);
    if (symlink(target, dst) < 0) { /* an existing real directory wins */ }
}

static bool skipped(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(skip_dirs); i++)
        if (streq(name, skip_dirs[i]))
            return true;
    return false;
}

/* Copies a sysfs directory: files, symlinks as symlinks, real subdirectories recursively. */
static void copy_tree(const char *src, const char *dst, int depth)
{
    DIR *d = opendir(src);
    if (!d || mkdir_p(dst) < 0) {
        if (d)
            closedir(d);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        char s[PATH_MAX], t[PATH_MAX];
        struct stat st;
        if (de->d_name[0] == '.' || skipped(de->d_name))
            continue;
        if (snprintf(s, sizeof(s), "%s/%s", src, de->d_name) >= (int)sizeof(s) ||
            snprintf(t, sizeof(t), "%s/%s", dst, de->d_name) >= (int)sizeof(t) ||
            lstat(s, &st) < 0)
            continue;
        if (S_ISLNK(st.st_mode))
            copy_link(s, t);
        else if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH)
            copy_tree(s, t, depth + 1);
        else if (S_ISREG(st.st_mode) && (st.st_mode & 0444))
            copy_file(s, t);
    }
    closedir(d);
}

/* What host.iommu and host.irq_affinity read of a PCI function: its iommu_group link and
 * the group's type, its msi_irqs/ and each vector's affinity in /proc/irq. */
static void copy_host_path(const char *out, const char *path, const char *dst)
{
    char s[PATH_MAX + 64], t[PATH_MAX + 64], group[PATH_MAX];
    snprintf(s, sizeof(s), "%s/iommu_group", path);
    snprintf(t, sizeof(t), "%s/iommu_group", dst);
    copy_link(s, t);
    if (realpath(s, group) && strncmp(group, "/sys/kernel/iommu_groups/", 25) == 0) {
        snprintf(t, sizeof(t), "%s%s", out, group);
        mkdir_p(t);
        snprintf(s, sizeof(s), "%s/type", group);
        snprintf(t, sizeof(t), "%s%s/type", out, group);
        copy_file(s, t);
    }
    snprintf(s, sizeof(s), "%s/msi_irqs", path);
    snprintf(t, sizeof(t), "%s/msi_irqs", dst);
    copy_tree(s, t, MAX_DEPTH - 1);
    DIR *d = opendir(s);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        static const char *const files[] = { "effective_affinity_list", "smp_affinity_list" };
        if (de->d_name[0] == '.')
            continue;
        snprintf(t, sizeof(t), "%s/proc/irq/%s", out, de->d_name);
        mkdir_p(t);
        for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
            snprintf(s, sizeof(s), "/proc/irq/%s/%s", de->d_name, files[i]);
            snprintf(t, sizeof(t), "%s/proc/irq/%s/%s", out, de->d_name, files[i]);
            copy_file(s, t);
        }
    }
    if (d)
        closedir(d);
}

/* The cpufreq governor and driver of every CPU (host.cpufreq reads the HCAs' local ones). */
static void copy_cpufreq(const char *out)
{
    static const char *const files[] = { "scaling_governor", "scaling_driver" };
    char s[PATH_MAX], t[PATH_MAX];
    DIR *d = opendir("/sys/devices/system/cpu");
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (strncmp(de->d_name, "cpu", 3) != 0 || de->d_name[3] < '0' || de->d_name[3] > '9')
            continue;
        for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
            snprintf(s, sizeof(s), "/sys/devices/system/cpu/%s/cpufreq/%s", de->d_name, files[i]);
            if (access(s, R_OK) < 0)
                continue;
            snprintf(t, sizeof(t), "%s/sys/devices/system/cpu/%s/cpufreq", out, de->d_name);
            mkdir_p(t);
            snprintf(t, sizeof(t), "%s/sys/devices/system/cpu/%s/cpufreq/%s", out, de->d_name, files[i]);
            copy_file(s, t);
        }
    }
    if (d)
        closedir(d);
}

/* A PCI function and its bridges up to the root, with the files fabtune reads. */
static void copy_pci(const char *out, char *real)
{
    char dst[PATH_MAX], s[PATH_MAX + 64], t[PATH_MAX + 64];
    for (char path[PATH_MAX], *slash; ; ) {
        snprintf(path, sizeof(path), "%s", real);
        snprintf(dst, sizeof(dst), "%s%s", out, path);
        if (mkdir_p(dst) < 0)
            return;
        for (size_t i = 0; i < ARRAY_SIZE(pci_files); i++) {
            snprintf(s, sizeof(s), "%s/%s", path, pci_files[i]);
            snprintf(t, sizeof(t), "%s/%s", dst, pci_files[i]);
            copy_file(s, t);
        }
        snprintf(s, sizeof(s), "%s/driver", path);
        snprintf(t, sizeof(t), "%s/driver", dst);
        copy_link(s, t);
        copy_host_path(out, path, dst);
        if (!(slash = strrchr(real, '/')) || strncmp(real, "/sys/devices/pci", 16) != 0 ||
            slash == real + strlen("/sys/devices"))
            return;
        *slash = '\0';      /* up to the parent bridge */
    }
}

/* class/X/NAME: copy its real directory and recreate the class symlink. */
static void copy_class(const char *out, const char *cls, int depth_limit)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "/sys/class/%s", cls);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        char link[PATH_MAX], real[PATH_MAX], dst[PATH_MAX], target[PATH_MAX];
        if (de->d_name[0] == '.')
            continue;
        snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
        if (!realpath(link, real))
            continue;
        snprintf(dst, sizeof(dst), "%s%s", out, real);
        copy_tree(real, dst, MAX_DEPTH - depth_limit);
        /* The device the node hangs off: its PCI function (and bridges). */
        char dev[PATH_MAX], dreal[PATH_MAX];
        snprintf(dev, sizeof(dev), "%s/device", real);
        if (realpath(dev, dreal))
            copy_pci(out, dreal);
        ssize_t k = readlink(link, target, sizeof(target) - 1);
        if (k > 0) {
            target[k] = '\0';
            snprintf(dst, sizeof(dst), "%s/sys/class/%s", out, cls);
            mkdir_p(dst);
            snprintf(dst, sizeof(dst), "%s/sys/class/%s/%s", out, cls, de->d_name);
            if (symlink(target, dst) < 0) { /* already there */ }
        }
    }
    closedir(d);
}

/* GPUs (NVIDIA 0x10de, AMD 0x1002, display class 0x03) and every PCI function's bus link. */
static void copy_gpus(const char *out)
{
    DIR *d = opendir("/sys/bus/pci/devices");
    char dst[PATH_MAX];
    if (!d)
        return;
    snprintf(dst, sizeof(dst), "%s/sys/bus/pci/devices", out);
    mkdir_p(dst);
    struct dirent *de;
    while ((de = readdir(d))) {
        char link[PATH_MAX], real[PATH_MAX], f[PATH_MAX], v[32] = "", c[32] = "";
        if (de->d_name[0] == '.')
            continue;
        snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s", de->d_name);
        snprintf(f, sizeof(f), "%s/vendor", link);
        FILE *fv = fopen(f, "re");
        if (fv) { if (!fgets(v, sizeof(v), fv)) v[0] = '\0'; fclose(fv); }
        snprintf(f, sizeof(f), "%s/class", link);
        FILE *fc = fopen(f, "re");
        if (fc) { if (!fgets(c, sizeof(c), fc)) c[0] = '\0'; fclose(fc); }
        bool gpu = strncmp(c, "0x03", 4) == 0 && (strncmp(v, "0x10de", 6) == 0 || strncmp(v, "0x1002", 6) == 0);
        if (!realpath(link, real))
            continue;
        snprintf(f, sizeof(f), "%s%s", out, real);
        if (gpu)
            copy_pci(out, real);
        struct stat st;
        if (stat(f, &st) == 0) {    /* an HCA's or a GPU's: link it from bus/pci too */
            char target[PATH_MAX];
            ssize_t k = readlink(link, target, sizeof(target) - 1);
            if (k > 0) {
                target[k] = '\0';
                snprintf(f, sizeof(f), "%s/sys/bus/pci/devices/%s", out, de->d_name);
                if (symlink(target, f) < 0) { /* already there */ }
            }
        }
    }
    closedir(d);
}

/* The interface sysctls the route.* checks read: net.ipv4.conf.IF.* */
static void copy_conf(const char *out, const char *ifname)
{
    static const char *const keys[] = { "arp_ignore", "arp_announce", "rp_filter", "accept_local" };
    char s[PATH_MAX], t[PATH_MAX];
    snprintf(t, sizeof(t), "%s/proc/sys/net/ipv4/conf/%s", out, ifname);
    if (strchr(ifname, '/') || mkdir_p(t) < 0)
        return;
    for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
        snprintf(s, sizeof(s), "/proc/sys/net/ipv4/conf/%s/%s", ifname, keys[i]);
        snprintf(t, sizeof(t), "%s/proc/sys/net/ipv4/conf/%s/%s", out, ifname, keys[i]);
        copy_file(s, t);
    }
}

static void copy_proc(const char *out)
{
    static const char *const dirs[] = { "sys/net/core", "sys/net/ipv4", "sys/vm" };
    /* The host's name and kernel name the snapshot in fabtuned's report; self/limits is
     * this process's own, reported as such. */
    static const char *const files[] = { "sys/kernel/numa_balancing", "sys/kernel/random/boot_id",
                                         "sys/kernel/hostname", "sys/kernel/osrelease",
                                         "self/limits", "cmdline" };
    char s[PATH_MAX], t[PATH_MAX];
    for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
        snprintf(s, sizeof(s), "/proc/%s", dirs[i]);
        snprintf(t, sizeof(t), "%s/proc/%s", out, dirs[i]);
        copy_tree(s, t, MAX_DEPTH);     /* top-level keys only: conf/, neigh/ are per-link */
    }
    copy_conf(out, "all");
    DIR *d = opendir("/sys/class/net");
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (de->d_name[0] != '.')
            copy_conf(out, de->d_name);
    if (d)
        closedir(d);
    for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
        snprintf(s, sizeof(s), "/proc/%s", files[i]);
        snprintf(t, sizeof(t), "%s/proc/%s", out, files[i]);
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s", t);
        *strrchr(dir, '/') = '\0';
        mkdir_p(dir);
        copy_file(s, t);
    }
}

/* What the node remembered: the daemon's link memory as it last saved it, and when this
 * snapshot was taken (snapshot_layout.h). A state directory fabtunectl cannot read (no
 * daemon, not root) leaves the memory out, and says so. */
static void keep_state(const char *out, const char *state_dir)
{
    char path[PATH_MAX], *text = NULL;
    size_t len = 0;
    struct timespec wall, boot;
    snprintf(path, sizeof(path), "%s/%s", out, SNAPSHOT_STATE_DIR);
    if (mkdir_p(path) < 0)
        return;
    snprintf(path, sizeof(path), "%s/%s", state_dir, PATHS_LINKS_FILE);
    int r = read_file_full(path, 16u << 20, &text, &len);
    if (r == 0) {
        snprintf(path, sizeof(path), "%s/%s/%s", out, SNAPSHOT_STATE_DIR, PATHS_LINKS_FILE);
        if (write_file_atomic(path, text, len, 0644) < 0)
            fprintf(stderr, "fabtunectl: snapshot: cannot keep the link memory: %m\n");
    } else if (r != -ENOENT) {
        fprintf(stderr, "fabtunectl: snapshot: the link memory %s is left out: %s\n", path,
                strerror(-r));
    }
    free(text);
    clock_gettime(CLOCK_REALTIME, &wall);
    clock_gettime(CLOCK_BOOTTIME, &boot);
    snprintf(path, sizeof(path), "%s/%s", out, SNAPSHOT_TAKEN);
    FILE *f = fopen(path, "we");
    if (f) {
        fprintf(f, "%llu %llu\n",
                (unsigned long long)wall.tv_sec * 1000000ull + (unsigned long long)wall.tv_nsec / 1000,
                (unsigned long long)boot.tv_sec * 1000000ull + (unsigned long long)boot.tv_nsec / 1000);
        fclose(f);
    }
}

/* What is not a file: each netdev's DCB netlink and ethtool replies, as raw bytes. */
static void keep_replies(const char *out)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/fabtune", out);
    mkdir_p(dir);
    DIR *d = opendir("/sys/class/net");
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.' && !streq(de->d_name, "lo")) {
            (void)snapshot_write_replies(out, de->d_name);
            cc_capture_netdev(out, de->d_name);
        }
    closedir(d);
}

/* The directory TARBALL goes in, there and writable: said with its errno before anything is
 * captured, not after. */
static int tarball_dir_check(const char *tarball)
{
    char dir[PATH_MAX];
    if (strscpy(dir, tarball, sizeof(dir)) < 0) {
        fprintf(stderr, "fabtunectl: snapshot: cannot write %s: %s\n", tarball,
                strerror(ENAMETOOLONG));
        return -ENAMETOOLONG;
    }
    char *slash = strrchr(dir, '/');
    if (!slash)
        strscpy(dir, ".", sizeof(dir));
    else if (slash == dir)
        dir[1] = '\0';                 /* "/d.tar" goes in "/" */
    else
        *slash = '\0';
    if (access(dir, W_OK | X_OK) < 0) {
        int r = -errno;
        fprintf(stderr, "fabtunectl: snapshot: cannot write %s: %s: %s\n", tarball, dir,
                strerror(-r));
        return r;
    }
    return 0;
}

int snapshot_take(const char *tarball, const char *state_dir)
{
    static const char *const tops[] = { "sys", "proc", "fabtune", NULL };
    char out[PATH_MAX], mod[PATH_MAX], why[512] = "";
    if (snapshot_archive_check_name(tarball, why, sizeof(why)) < 0) {
        fprintf(stderr, "fabtunectl: snapshot: %s\n", why);
        return EXIT_USAGE;
    }
    if (tarball_dir_check(tarball) < 0)
        return 1;
    int r = scratch_dir_make("fabtune-snapshot", out, sizeof(out));
    if (r < 0) {
        fprintf(stderr, "fabtunectl: cannot make a temporary directory: %s\n", strerror(-r));
        return 1;
    }
    copy_class(out, "infiniband", MAX_DEPTH);
    copy_class(out, "net", 2);
    copy_gpus(out);
    snprintf(mod, sizeof(mod), "%s/sys/module", out);
    mkdir_p(mod);
    if (access("/sys/module/nvidia_peermem", F_OK) == 0) {
        snprintf(mod, sizeof(mod), "%s/sys/module/nvidia_peermem", out);
        copy_tree("/sys/module/nvidia_peermem", mod, MAX_DEPTH - 1);
    }
    copy_proc(out);
    copy_cpufreq(out);
    keep_replies(out);
    keep_state(out, state_dir);

    r = snapshot_archive_write(out, tops, tarball, why, sizeof(why));
    if (r == 0)
        printf("snapshot written to %s; analyse it with:\n  fabtuned --once --snapshot %s\n",
               tarball, tarball);
    else
        fprintf(stderr, "fabtunectl: cannot write %s: %s\n", tarball, why);
    int e = scratch_dir_remove(out);
    if (e < 0)
        fprintf(stderr, "fabtunectl: cannot remove the scratch tree %s: %s\n", out, strerror(-e));
    return r == 0 ? 0 : 1;
}
