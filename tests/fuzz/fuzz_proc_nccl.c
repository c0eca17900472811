/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the parsers of NCCL processes' procfs files (sources/proc_nccl.c:
 * maps, environ, stat, cgroup, fib_trie, if_inet6) and of NCCL's settings syntax
 * (model/nccl_env.c): any bytes as each file; the variables kept are judged by
 * job.nccl_env on a node of one rail. Never a crash, an out-of-bounds read or undefined
 * behaviour; only the kept variables are kept, within their bounds. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "proc_nccl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every kept variable is one of job_env_kept's. */
static void check_kept(const struct job_proc *p)
{
    if (p->env_len > JOB_ENV_BYTES)
        abort();
    for (size_t off = 0; p->env && off < p->env_len; off += strlen(p->env + off) + 1) {
        char name[64];
        size_t n = strcspn(p->env + off, "=");
        if (n >= sizeof(name))
            abort();
        memcpy(name, p->env + off, n);
        name[n] = '\0';
        if (!job_env_kept(name))
            abort();
    }
}

static void judge(struct job_proc *p, const char *data, size_t size)
{
    struct inventory inv = { 0 };
    struct policy pol;
    struct jobs js = { 0 };
    struct findings fs = { 0 };
    policy_init_defaults(&pol);
    struct rail *r = inventory_add_rail(&inv, "mlx5_0", 1);
    if (r) {
        strcpy(r->name, "mlx5_0/1");
        strcpy(r->link_layer, "Ethernet");
        r->state = 4;
    }
    proc_fib_trie_local(data, size, &js);
    proc_if_inet6(data, size, &js);
    js.ifnames_known = true;
    strcpy(js.ifnames[js.n_ifnames++], "eth0");
    if (js.n_addrs > JOBS_MAX_ADDRS)
        abort();
    if (jobs_add_proc(&js, JOB_SESSION, "1", p) == 0) {
        (void)job_record_gids(&js.jobs[0], &inv);
        check_jobs(&inv, &js, NULL, &pol, &fs);
    }
    findings_done(&fs);
    jobs_done(&js);
    inventory_done(&inv);
    policy_done(&pol);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1), comm[16], job[32];
    struct job_proc p = { .pid = 1 };
    int ppid, sid;
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    (void)proc_maps_nccl(buf, size);
    /* comm is filled only by a parse that succeeds: an uninitialised one read here once
     * made the harness, not the parser, abort. */
    if (proc_stat_parse(buf, size, comm, &ppid, &sid) == 0 && strnlen(comm, sizeof(comm)) >= sizeof(comm))
        abort();
    if (proc_cgroup_slurm_job(buf, size, job, sizeof(job)) && strspn(job, "0123456789") != strlen(job))
        abort();
    if (proc_environ_parse(buf, size, &p) >= 0)
        check_kept(&p);
    judge(&p, buf, size);
    job_proc_done(&p);
    free(buf);
    return 0;
}
