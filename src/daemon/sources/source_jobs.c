/* SPDX-License-Identifier: ISC */
/* Slurm's jobs from the cgroup tree (source_jobs.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "source_jobs.h"
#include "strutil.h"
#include "sysfs.h"

int source_jobs_slurm(const char *sysroot, char *job, size_t len)
{
    char **names = NULL;
    size_t n = 0;
    int jobs = 0;
    if (len)
        job[0] = '\0';
    if (sysfs_list(sysroot, &names, &n, "fs/cgroup/system.slice/slurmstepd.scope") < 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const char *id = names[i] + strlen("job_");
        if (strncmp(names[i], "job_", 4) != 0 || !*id || strspn(id, "0123456789") != strlen(id))
            continue;
        if (jobs++ == 0 && len)
            strscpy(job, id, len);
    }
    strv_free(names);
    return jobs;
}
