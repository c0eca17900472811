/* SPDX-License-Identifier: ISC */
/* NCCL's processes and jobs from procfs (source_nccl_jobs.h). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"
#include "proc_nccl.h"
#include "source_nccl_jobs.h"
#include "strutil.h"
#include "sysfs.h"

struct scan {
    const char *procroot;
    const struct nccl_jobs_limits *lim;
    size_t bytes;               /* read so far */
    struct jobs *out;
};

/* At most MAX bytes of ROOT/REL (procfs sizes say 0: read until the end), malloc'd and
 * NUL-terminated, counted against the scan's budget. 0, or -errno. */
static int read_head(struct scan *s, const char *rel, size_t max, char **ret, size_t *ret_len)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof(path), "%s/%s", s->procroot, rel) >= sizeof(path))
        return -ENAMETOOLONG;
    int fd = open_regular(path);
    if (fd < 0)
        return fd;
    char *buf = malloc(max + 1);
    size_t n = 0;
    ssize_t k = 1;
    while (buf && n < max && k > 0) {
        k = read(fd, buf + n, max - n);
        if (k < 0 && errno == EINTR)
            k = 1;
        else if (k > 0)
            n += (size_t)k;
    }
    int err = !buf ? -ENOMEM : k < 0 ? -errno : 0;
    close(fd);
    if (err < 0) {
        free(buf);
        return err;
    }
    buf[n] = '\0';
    s->bytes += n;
    *ret = buf;
    *ret_len = n;
    return 0;
}

static bool maps_nccl(struct scan *s, const char *pid)
{
    char rel[64], *buf;
    size_t len;
    snprintf(rel, sizeof(rel), "%s/maps", pid);
    if (read_head(s, rel, s->lim->maps_bytes, &buf, &len) < 0)
        return false;
    bool nccl = proc_maps_nccl(buf, len);
    free(buf);
    return nccl;
}

static void read_environ(struct scan *s, const char *pid, struct job_proc *p)
{
    char rel[64], *buf;
    size_t len;
    snprintf(rel, sizeof(rel), "%s/environ", pid);
    int r = read_head(s, rel, s->lim->environ_bytes, &buf, &len);
    if (r < 0) {
        snprintf(p->env_why, sizeof(p->env_why), "its environ cannot be read (%s%s)",
                 errno_text(-r), r == -EACCES || r == -EPERM ? ": fabtuned reads it as root" : "");
        return;
    }
    if (proc_environ_parse(buf, len, p) < 0)
        snprintf(p->env_why, sizeof(p->env_why), "out of memory reading its environ");
    free(buf);
}

static void read_placing(struct scan *s, const char *pid, struct job_proc *p)
{
    char rel[64], *buf;
    size_t len;
    snprintf(rel, sizeof(rel), "%s/stat", pid);
    if (read_head(s, rel, 4096, &buf, &len) == 0) {
        (void)proc_stat_parse(buf, len, p->comm, &p->ppid, &p->sid);
        free(buf);
    }
    if (p->slurm_job[0])
        return;
    snprintf(rel, sizeof(rel), "%s/cgroup", pid);
    if (read_head(s, rel, 16384, &buf, &len) == 0) {
        (void)proc_cgroup_slurm_job(buf, len, p->slurm_job, sizeof(p->slurm_job));
        free(buf);
    }
}

/* PID's process, when it maps NCCL, into its job. */
static int scan_pid(struct scan *s, const char *pid)
{
    if (!maps_nccl(s, pid))
        return 0;
    struct job_proc p = { .pid = atoi(pid) };
    read_environ(s, pid, &p);
    read_placing(s, pid, &p);
    char id[JOB_ID_MAX];
    enum job_kind kind = p.slurm_job[0] ? JOB_SLURM : JOB_SESSION;
    if (kind == JOB_SLURM)
        strscpy(id, p.slurm_job, sizeof(id));
    else
        snprintf(id, sizeof(id), "%d", p.sid > 0 ? p.sid : p.ppid);
    int r = jobs_add_proc(s->out, kind, id, &p);
    job_proc_done(&p);
    return r;
}

static bool all_digits(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s);
}

__attribute__((format(printf, 2, 3)))
static void cut(struct jobs *out, const char *fmt, ...)
{
    va_list ap;
    out->cut = true;
    va_start(ap, fmt);
    vsnprintf(out->why, sizeof(out->why), fmt, ap);
    va_end(ap);
}

static void node_ifnames(const char *sysroot, struct jobs *out)
{
    char **names = NULL;
    size_t n = 0;
    if (sysfs_list(sysroot, &names, &n, "class/net") < 0)
        return;
    for (size_t i = 0; i < n && out->n_ifnames < JOBS_MAX_IFNAMES; i++)
        strscpy(out->ifnames[out->n_ifnames++], names[i], IFNAMSIZ);
    out->ifnames_known = true;
    strv_free(names);
}

static void node_addrs(struct scan *s)
{
    char *buf;
    size_t len;
    if (read_head(s, "net/fib_trie", 4u << 20, &buf, &len) == 0) {
        proc_fib_trie_local(buf, len, s->out);
        free(buf);
    }
    if (read_head(s, "net/if_inet6", 1u << 20, &buf, &len) == 0) {
        proc_if_inet6(buf, len, s->out);
        free(buf);
    }
}

int source_nccl_jobs(const char *sysroot, const char *procroot, const struct nccl_jobs_limits *lim,
                     struct jobs *out)
{
    static const struct nccl_jobs_limits defaults = NCCL_JOBS_LIMITS_DEFAULT;
    struct scan s = { .procroot = procroot, .lim = lim ? lim : &defaults, .out = out };
    char **names = NULL;
    size_t n = 0, looked = 0;
    memset(out, 0, sizeof(*out));
    int r = sysfs_list(procroot, &names, &n, ".");
    if (r < 0)
        return r == -ENOMEM ? r : -ENOENT;
    for (size_t i = 0; i < n && r >= 0; i++) {
        if (!all_digits(names[i]))
            continue;
        if (looked++ >= s.lim->max_pids) {
            cut(out, "looked at %zu processes, the most a scan looks at", s.lim->max_pids);
            break;
        }
        if (s.bytes >= s.lim->total_bytes) {
            cut(out, "read %zu bytes of procfs, the most a scan reads", s.lim->total_bytes);
            break;
        }
        r = scan_pid(&s, names[i]);
        if (r == -EFBIG) {
            cut(out, "more than %zu NCCL processes or 64 jobs", (size_t)JOBS_MAX_PROCS);
            r = 0;
            break;
        }
    }
    strv_free(names);
    node_ifnames(sysroot, out);
    node_addrs(&s);
    return r < 0 ? r : 0;
}
