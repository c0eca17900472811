/* SPDX-License-Identifier: ISC */
/* Slurm's jobs from the cgroup tree and the processes (source_jobs.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "source_jobs.h"
#include "strutil.h"
#include "sysfs.h"

static bool all_digits(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s);
}

static int from_cgroups(const char *sysroot, char *job, size_t len)
{
    char **names = NULL;
    size_t n = 0;
    int jobs = 0;
    if (sysfs_list(sysroot, &names, &n, "fs/cgroup/system.slice/slurmstepd.scope") < 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(names[i], "job_", 4) != 0 || !all_digits(names[i] + 4))
            continue;
        if (jobs++ == 0)
            strscpy(job, names[i] + 4, len);
    }
    strv_free(names);
    return jobs;
}

/* "slurmstepd: [1234.0]", "slurmstepd: [1234.batch]": the job's id. */
static bool step_job(const char *cmdline, char *job, size_t len)
{
    const char *p = strstr(cmdline, "slurmstepd: [");
    if (!p)
        return false;
    p += strlen("slurmstepd: [");
    size_t n = strspn(p, "0123456789");
    if (n == 0 || n >= len || (p[n] != '.' && p[n] != ']'))
        return false;
    memcpy(job, p, n);
    job[n] = '\0';
    return true;
}

static int from_processes(const char *procroot, char *job, size_t len)
{
    char **names = NULL;
    size_t n = 0;
    int steps = 0;
    if (sysfs_list(procroot, &names, &n, ".") < 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char comm[32], *cmdline = NULL, id[32];
        size_t clen;
        if (!all_digits(names[i]) ||
            sysfs_read_line(procroot, comm, sizeof(comm), "%s/comm", names[i]) < 0 ||
            !streq(comm, "slurmstepd") ||
            sysfs_read_file(procroot, 4096, &cmdline, &clen, "%s/cmdline", names[i]) < 0)
            continue;
        for (size_t k = 0; k + 1 < clen; k++)
            if (cmdline[k] == '\0')
                cmdline[k] = ' ';   /* a title set in place may keep NULs */
        if (step_job(cmdline, id, sizeof(id)) && steps++ == 0)
            strscpy(job, id, len);
        free(cmdline);
    }
    strv_free(names);
    return steps;
}

int source_jobs_slurm(const char *sysroot, const char *procroot, char *job, size_t len)
{
    if (len == 0)
        return 0;
    job[0] = '\0';
    int n = from_cgroups(sysroot, job, len);
    return n > 0 ? n : from_processes(procroot, job, len);
}
