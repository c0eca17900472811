/* SPDX-License-Identifier: ISC */
/* The limits source: slurmd's /proc/PID/limits, pam_limits' limits.conf, systemd's
 * DefaultLimitMEMLOCKSoft over PID 1's private bus, and /proc/self/limits last. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "macro.h"
#include "source_limits.h"
#include "fileio.h"

#define SYSTEMD_PRIVATE_BUS "unix:path=/run/systemd/private"

/* "Max locked memory         8388608              8388608              bytes" */
int limits_file_memlock(const char *path, uint64_t *ret)
{
    char line[256];
    _cleanup_fclose_ FILE *f = fopen_regular(path);
    if (!f)
        return -errno;
    while (fgets(line, sizeof(line), f)) {
        char soft[32];
        if (strncmp(line, "Max locked memory", 17) != 0 || sscanf(line + 17, "%31s", soft) != 1)
            continue;
        if (streq(soft, "unlimited")) {
            *ret = UINT64_MAX;
            return 0;
        }
        char *end;
        errno = 0;
        unsigned long long v = strtoull(soft, &end, 10);
        if (errno || *end)
            return -EINVAL;
        *ret = v;
        return 0;
    }
    return -ENOENT;
}

/* pam_limits: "<domain> <type> <item> <value>", value in KiB, "unlimited"/"infinity"/-1. */
static bool parse_limits_line(const char *line, uint64_t *ret)
{
    char domain[64], type[16], item[32], value[32];
    if (sscanf(line, "%63s %15s %31s %31s", domain, type, item, value) != 4 || domain[0] == '#')
        return false;
    if (!streq(domain, "*") || !streq(item, "memlock") || !(streq(type, "soft") || streq(type, "-")))
        return false;
    if (streq(value, "unlimited") || streq(value, "infinity") || streq(value, "-1")) {
        *ret = UINT64_MAX;
        return true;
    }
    char *end;
    errno = 0;
    unsigned long long kib = strtoull(value, &end, 10);
    if (errno || *end || kib > UINT64_MAX / 1024)
        return false;
    *ret = kib * 1024;
    return true;
}

static bool scan_limits_file(const char *path, const char *shown, uint64_t *ret, char *where,
                             size_t len)
{
    char line[512];
    bool found = false;
    unsigned n = 0;
    _cleanup_fclose_ FILE *f = fopen_regular(path);
    while (f && fgets(line, sizeof(line), f)) {
        n++;
        if (parse_limits_line(line, ret)) {
            snprintf(where, len, "%s:%u", shown, n);
            found = true;
        }
    }
    return found;
}

static int conf_filter(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return d->d_name[0] != '.' && n > 5 && streq(d->d_name + n - 5, ".conf");
}

int limits_conf_memlock(const char *etcroot, uint64_t *ret, char *where, size_t len)
{
    char path[PATH_MAX], shown[PATH_MAX];
    bool found = false;
    snprintf(path, sizeof(path), "%s/etc/security/limits.conf", etcroot);
    found |= scan_limits_file(path, "/etc/security/limits.conf", ret, where, len);

    /* pam_limits reads limits.d/NAME.conf after limits.conf, in C-locale order. */
    struct dirent **names = NULL;
    snprintf(path, sizeof(path), "%s/etc/security/limits.d", etcroot);
    int n = scandir(path, &names, conf_filter, alphasort);
    for (int i = 0; i < n; i++) {
        snprintf(shown, sizeof(shown), "/etc/security/limits.d/%s", names[i]->d_name);
        snprintf(path, sizeof(path), "%s%s", etcroot, shown);
        found |= scan_limits_file(path, shown, ret, where, len);
        free(names[i]);
    }
    free(names);
    return found ? 0 : -ENOENT;
}

/* The tightest memlock limit of the slurmd processes in procroot (by comm) and whose it
 * is. A node may run more than one slurmd (--enable-multiple-slurmd, a test's beside the
 * site's): a job may land under any of them, so the smallest limit is what jobs can get. */
static int slurmd_memlock(const char *procroot, long *ret_pid, uint64_t *ret)
{
    DIR *d = opendir(procroot);
    if (!d)
        return -errno;
    struct dirent *e;
    int r = -ENOENT;
    while ((e = readdir(d))) {
        char *end, path[PATH_MAX], comm[32];
        long pid = strtol(e->d_name, &end, 10);
        uint64_t v;
        if (*end || pid <= 0)
            continue;
        snprintf(path, sizeof(path), "%s/%ld/comm", procroot, pid);
        _cleanup_fclose_ FILE *f = fopen_regular(path);
        if (!f || !fgets(comm, sizeof(comm), f) || !streq(comm, "slurmd\n"))
            continue;
        snprintf(path, sizeof(path), "%s/%ld/limits", procroot, pid);
        if (limits_file_memlock(path, &v) == 0 && (r < 0 || v < *ret)) {
            *ret_pid = pid;
            *ret = v;
            r = 0;
        }
    }
    closedir(d);
    return r;
}

static bool pid1_is_systemd(const char *procroot)
{
    char path[PATH_MAX], comm[32] = "";
    snprintf(path, sizeof(path), "%s/1/comm", procroot);
    _cleanup_fclose_ FILE *f = fopen_regular(path);
    return f && fgets(comm, sizeof(comm), f) && streq(comm, "systemd\n");
}

/* PID 1's private bus answers root without a D-Bus broker, as systemctl uses it. */
static int systemd_default_memlock(uint64_t *ret)
{
    sd_bus *bus = NULL;
    sd_bus_error err = SD_BUS_ERROR_NULL;
    int r = sd_bus_new(&bus);
    if (r >= 0)
        r = sd_bus_set_address(bus, SYSTEMD_PRIVATE_BUS);
    if (r >= 0)
        r = sd_bus_set_method_call_timeout(bus, 500 * 1000);
    if (r >= 0)
        r = sd_bus_start(bus);
    if (r >= 0)
        r = sd_bus_get_property_trivial(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                        "org.freedesktop.systemd1.Manager",
                                        "DefaultLimitMEMLOCKSoft", &err, 't', ret);
    sd_bus_error_free(&err);
    sd_bus_flush_close_unref(bus);
    return r < 0 ? r : 0;
}

static void set_memlock(struct inventory *inv, uint64_t v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_memlock(struct inventory *inv, uint64_t v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(inv->memlock_source, sizeof(inv->memlock_source), fmt, ap);
    va_end(ap);
    inv->memlock_known = true;
    inv->memlock_soft = v;
}

void source_limits_scan(const char *procroot, const char *etcroot, bool live,
                        struct inventory *inv)
{
    char path[PATH_MAX], where[PATH_MAX + 16];
    uint64_t v;
    long pid = 0;
    if (slurmd_memlock(procroot, &pid, &v) == 0) {
        set_memlock(inv, v, "slurmd (pid %ld), whose limit jobs inherit", pid);
        return;
    }
    if (live && limits_conf_memlock(etcroot, &v, where, sizeof(where)) == 0) {
        set_memlock(inv, v, "%s (pam_limits, for login sessions)", where);
        return;
    }
    if (live && pid1_is_systemd(procroot) && systemd_default_memlock(&v) == 0) {
        set_memlock(inv, v, "systemd's DefaultLimitMEMLOCK, which services and their sessions get");
        return;
    }
    snprintf(path, sizeof(path), "%s/self/limits", procroot);
    if (limits_file_memlock(path, &v) == 0)
        set_memlock(inv, v, live ? "fabtuned's own limit (no slurmd, limits.conf entry or systemd)"
                                 : "the captured process's own limit");
}
