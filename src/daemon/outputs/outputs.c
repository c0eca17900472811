/* SPDX-License-Identifier: ISC */
/* The pass's files: rendered from the report, written atomically. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file_at.h"
#include "macro.h"
#include "metrics.h"
#include "nccl.h"
#include "outputs.h"
#include "fileio.h"
#include "strutil.h"

static void plan_one(char *buf, size_t len, const char *path, const char *runtime_dir)
{
    const char *def = "/run/fabtune/";
    buf[0] = '\0';
    if (!path)
        return;
    if (strncmp(path, def, strlen(def)) == 0 && !streq(runtime_dir, "/run/fabtune"))
        snprintf(buf, len, "%s/%s", runtime_dir, path + strlen(def));
    else
        snprintf(buf, len, "%s", path);
}

void outputs_plan(struct outputs *o, const struct policy *p, const char *runtime_dir)
{
    memset(o, 0, sizeof(*o));
    strscpy(o->runtime_dir, runtime_dir, sizeof(o->runtime_dir));
    plan_one(o->path[OUTPUT_NCCL_ENV], sizeof(o->path[0]), p->outputs.nccl_env, runtime_dir);
    plan_one(o->path[OUTPUT_NCCL_CONF], sizeof(o->path[0]), p->outputs.nccl_conf, runtime_dir);
    plan_one(o->path[OUTPUT_TEXTFILE], sizeof(o->path[0]), p->outputs.prometheus_textfile,
             runtime_dir);
}

/* "/proc" or "/sys" when PATH lies under it, else NULL. */
static const char *kernel_fs_of(const char *path)
{
    static const char *const roots[] = { "/proc", "/sys" };
    for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
        size_t n = strlen(roots[i]);
        if (strncmp(path, roots[i], n) == 0 && (path[n] == '/' || path[n] == '\0'))
            return roots[i];
    }
    return NULL;
}

/* The directory the file goes in exists (the runtime directory, made at start, aside). */
static int dir_exists(const char *path, const char *runtime_dir, char *dir, size_t len)
{
    struct stat st;
    strscpy(dir, path, len);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    if (streq(dir, runtime_dir) || stat(dir, &st) == 0)
        return 0;
    return -errno;
}

int outputs_check_path(const char *key, const char *path, const char *runtime_dir, char *err,
                       size_t len)
{
    char planned[512], dir[512];
    plan_one(planned, sizeof(planned), path, runtime_dir);
    int r = write_target_check(planned, dir, sizeof(dir));
    const char *kernel_fs = kernel_fs_of(planned) ? kernel_fs_of(planned)
                          : r == 0 ? kernel_fs_of(dir) : NULL;
    if (kernel_fs) {
        snprintf(err, len, "%s: %s: under %s, a kernel file system: no place for a file", key,
                 planned, kernel_fs);
        return -EINVAL;
    }
    if (r < 0) {
        snprintf(err, len, "%s: %s: cannot be written here: %s: %s%s", key, planned, dir,
                 errno_text(-r), r == -EROFS ? " (read-only: under fabtuned.service only "
                 "/run/fabtune, /var/lib/fabtune and /var/lib/prometheus/node-exporter are "
                 "writable, its ReadWritePaths=)" : "");
        return r;
    }
    if ((r = dir_exists(planned, runtime_dir, dir, sizeof(dir))) < 0) {
        snprintf(err, len, "%s: %s: its directory %s: %s", key, planned, dir, errno_text(-r));
        return r;
    }
    return 0;
}

int outputs_check(const struct policy *p, const char *runtime_dir, char *err, size_t len)
{
    static const char *const keys[OUTPUTS] = { "outputs.nccl_env", "outputs.nccl_conf",
                                               "outputs.prometheus_textfile" };
    const char *paths[OUTPUTS] = { p->outputs.nccl_env, p->outputs.nccl_conf,
                                   p->outputs.prometheus_textfile };
    for (int i = 0; i < OUTPUTS; i++) {
        int r = paths[i] ? outputs_check_path(keys[i], paths[i], runtime_dir, err, len) : 0;
        if (r < 0)
            return r;
    }
    return 0;
}

/* NAME when PATH is RUNTIME_DIR/NAME, else NULL. */
static const char *name_in(const char *path, const char *runtime_dir)
{
    size_t n = strlen(runtime_dir);
    if (strncmp(path, runtime_dir, n) != 0 || path[n] != '/' || strchr(path + n + 1, '/'))
        return NULL;
    return path + n + 1;
}

/* A file of the runtime directory is replaced through its directory fd, never through a
 * symlink at its name; a path elsewhere follows the policy's links (/etc/nccl.conf). */
static int write_text(const char *path, const char *runtime_dir, char *text)
{
    _cleanup_free_ char *owned = text;
    const char *name = name_in(path, runtime_dir);
    if (!text)
        return -ENOMEM;
    if (!name)
        return write_file_atomic(path, text, strlen(text), 0644);
    _cleanup_close_ int dfd = dir_open_nofollow(runtime_dir);
    return dfd < 0 ? dfd : write_file_at(dfd, name, text, strlen(text), 0644);
}

void outputs_write(struct outputs *o, const struct report *r, const char *metrics_text)
{
    for (int i = 0; i < OUTPUTS; i++) {
        if (!o->path[i][0])
            continue;
        const char *metrics = i == OUTPUT_TEXTFILE ? metrics_text : NULL;
        char *text = metrics ? strdup(metrics)
                   : i == OUTPUT_TEXTFILE ? metrics_render(r)
                   : nccl_contract_render(&r->nccl, i == OUTPUT_NCCL_CONF);
        o->result[i] = write_text(o->path[i], o->runtime_dir, text);
    }
}

const char *outputs_what(int output)
{
    return output == OUTPUT_TEXTFILE ? "metrics" : "NCCL contract";
}
