/* SPDX-License-Identifier: ISC */
/* Tests of the jobs source on a procfs tree of NCCL processes (tests/fixtures/make-fixtures.sh
 * mlx5_8rail_gpus: an HGX node whose Slurm job 4242 has a rank per GPU) and of the job.*
 * checks on it: job.ras joined with the rails (a rank on GPU 3 lagging, replayed from
 * tests/fixtures/ras/derived, with an error burst on its rail in the link memory), job.nccl_env
 * and job.gid_drift on the 8-rail trees. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_findings.h"
#include "check_run.h"
#include "checks.h"
#include "fileio.h"
#include "inventory_take.h"
#include "macro.h"
#include "proc_nccl.h"
#include "ras_parse.h"
#include "source_nccl_jobs.h"

static char fixtures[256];

/* The boot clock of the replies: RAS intervals of 10 s from T0. */
#define T0 (1000 * USEC_PER_SEC)
#define WALL0 ((usec_t)1796641200 * USEC_PER_SEC)

static void take(const char *fixture, struct policy *p, struct inventory *inv)
{
    char sys[512], proc[512];
    policy_init_defaults(p);
    snprintf(sys, sizeof(sys), "%s/%s/sys", fixtures, fixture);
    snprintf(proc, sizeof(proc), "%s/%s/proc", fixtures, fixture);
    ck_assert_int_eq(inventory_take(sys, proc, p, inv), 0);
}

static void scan_jobs(const char *fixture, const struct nccl_jobs_limits *lim, struct jobs *js)
{
    char sys[512], proc[512];
    snprintf(sys, sizeof(sys), "%s/%s/sys", fixtures, fixture);
    snprintf(proc, sizeof(proc), "%s/%s/proc", fixtures, fixture);
    ck_assert_int_eq(source_nccl_jobs(sys, proc, lim, js), 0);
}

/* ---- the source ---------------------------------------------------------------------- */

START_TEST(test_source_finds_jobs)
{
    struct jobs js;
    scan_jobs("mlx5_8rail_gpus", NULL, &js);
    ck_assert(!js.cut);
    ck_assert_uint_eq(js.n, 2);
    struct job *slurm = jobs_find(&js, JOB_SLURM, "4242");
    struct job *session = jobs_find(&js, JOB_SESSION, "4090");
    ck_assert_ptr_nonnull(slurm);
    ck_assert_ptr_nonnull(session);
    ck_assert_uint_eq(slurm->n_procs, 8);    /* 4 by SLURM_JOB_ID, 4 by their cgroup */
    ck_assert_uint_eq(session->n_procs, 2);  /* libnccl.so.2, and libnccl-net alone */
    const struct job_proc *p = job_proc_of(slurm, 3004);
    ck_assert_ptr_nonnull(p);
    ck_assert(p->env_read);
    ck_assert_str_eq(p->slurm_job, "4242");
    ck_assert_str_eq(job_proc_env(p, "NCCL_RAS_ADDR"), "127.0.0.1:28028");
    ck_assert_str_eq(job_proc_env(p, "SLURM_STEP_ID"), "0");
    /* Nothing else of the environment is kept. */
    ck_assert_ptr_null(job_proc_env(p, "AWS_SECRET_ACCESS_KEY"));
    ck_assert_ptr_null(job_proc_env(p, "HOME"));
    ck_assert_ptr_null(memmem(p->env, p->env_len, "not-for-fabtune", 15));
    ck_assert_int_eq(p->sid, 2990);
    ck_assert_str_eq(p->comm, "python3");
    ck_assert_str_eq(job_proc_env(job_proc_of(session, 4100), "CUDA_VISIBLE_DEVICES"), "4,5");
    ck_assert(js.ifnames_known);
    ck_assert_uint_eq(js.n_ifnames, 8);
    ck_assert(js.addrs_known);
    ck_assert(jobs_addr_local(&js, "10.1.0.5"));
    ck_assert(jobs_addr_local(&js, "127.0.0.1"));
    ck_assert(jobs_addr_local(&js, "::1"));
    ck_assert(!jobs_addr_local(&js, "10.1.0.255"));     /* a broadcast, not LOCAL */
    ck_assert(!jobs_addr_local(&js, "10.1.0.6"));
    jobs_done(&js);
}
END_TEST

/* What the daemon asks of a job before it queries its RAS, and of the reply after. */
START_TEST(test_ras_addresses)
{
    struct jobs js;
    scan_jobs("mlx5_8rail_gpus", NULL, &js);
    struct job *slurm = jobs_find(&js, JOB_SLURM, "4242"), *session = jobs_find(&js, JOB_SESSION, "4090");
    ck_assert_str_eq(job_ras_addr(slurm, 0), "127.0.0.1:28028");
    ck_assert_ptr_null(job_ras_addr(slurm, 1));         /* eight processes, one address */
    ck_assert_str_eq(job_ras_addr(session, 0), "localhost:28028");
    ck_assert(job_ras_enabled(slurm));
    ck_assert_int_eq(job_proc_env_add(&session->procs[1], "NCCL_RAS_ENABLE", "0"), 0);
    ck_assert(!job_ras_enabled(session));
    /* A reply on the shared default port names the pids of the job that answered. */
    char path[512], *buf;
    size_t len;
    struct ras_status s;
    snprintf(path, sizeof(path), "%s/tests/fixtures/ras/derived/gpu3-lag0.reply", TEST_SRCDIR);
    ck_assert_int_eq(read_file_full(path, 1u << 20, &buf, &len), 0);
    ras_status_init(&s);
    ck_assert_int_eq(ras_parse_reply(buf, len, &s), 0);
    ck_assert_ptr_eq(jobs_of_reply(&js, &s), slurm);
    ras_status_done(&s);
    ras_status_init(&s);
    ck_assert_ptr_null(jobs_of_reply(&js, &s));
    free(buf);
    jobs_done(&js);
}
END_TEST

START_TEST(test_source_bounds)
{
    struct jobs js;
    struct nccl_jobs_limits lim = NCCL_JOBS_LIMITS_DEFAULT;
    lim.max_pids = 3;
    scan_jobs("mlx5_8rail_gpus", &lim, &js);
    ck_assert(js.cut);
    ck_assert_ptr_nonnull(strstr(js.why, "3 processes"));
    ck_assert_uint_le(js.n_procs, 3);
    jobs_done(&js);
    lim = (struct nccl_jobs_limits)NCCL_JOBS_LIMITS_DEFAULT;
    lim.maps_bytes = 200;       /* NCCL's line is the third of each maps: not read */
    scan_jobs("mlx5_8rail_gpus", &lim, &js);
    ck_assert_uint_eq(js.n, 0);
    jobs_done(&js);
    lim = (struct nccl_jobs_limits)NCCL_JOBS_LIMITS_DEFAULT;
    lim.total_bytes = 1000;
    scan_jobs("mlx5_8rail_gpus", &lim, &js);
    ck_assert(js.cut);
    ck_assert_ptr_nonnull(strstr(js.why, "bytes of procfs"));
    jobs_done(&js);
}
END_TEST

START_TEST(test_proc_parsers)
{
    struct job_proc p = { 0 };
    char comm[16], job[32];
    int ppid, sid;
    static const char env[] = "A=1\0NCCL_X=\x01y\0NCCL_NOEQUALS\0=NCCL_Y\0SLURM_JOB_ID=77";
    ck_assert_int_eq(proc_environ_parse(env, sizeof(env) - 1, &p), 2);
    ck_assert_str_eq(job_proc_env(&p, "NCCL_X"), "?y");
    ck_assert_str_eq(p.slurm_job, "77");
    job_proc_done(&p);
    static const char stat[] = "42 (a) b) (c) R 7 42 9 0";
    ck_assert_int_eq(proc_stat_parse(stat, sizeof(stat) - 1, comm, &ppid, &sid), 0);
    ck_assert_str_eq(comm, "a) b) (c");
    ck_assert_int_eq(ppid, 7);
    ck_assert_int_eq(sid, 9);
    ck_assert_int_eq(proc_stat_parse("42 (x", 5, comm, &ppid, &sid), -EBADMSG);
    static const char cg1[] = "4:memory:/slurm/uid_1000/job_1234/step_0\n";
    ck_assert(proc_cgroup_slurm_job(cg1, sizeof(cg1) - 1, job, sizeof(job)));
    ck_assert_str_eq(job, "1234");
    ck_assert(!proc_cgroup_slurm_job("0::/job_12x/", 12, job, sizeof(job)));
    ck_assert(proc_maps_nccl("1-2 r 0 0 0  /a/libnccl.so.2", 28));
    ck_assert(!proc_maps_nccl("1-2 r 0 0 0  /a/libnccl", 23));
    ck_assert(!proc_maps_nccl("1-2 r 0 0 0  /libnccl.so/libc.so", 32));
}
END_TEST

/* ---- job.ras: the join ---------------------------------------------------------------- */

struct node {
    struct policy policy;
    struct inventory inv;
    struct jobs jobs;
    struct link_memory links;
    struct findings fs;
};

static void fold_reply(struct job *j, const char *name, usec_t at)
{
    char path[512], *buf;
    size_t len;
    struct ras_status s;
    snprintf(path, sizeof(path), "%s/tests/fixtures/ras/%s", TEST_SRCDIR, name);
    ck_assert_int_eq(read_file_full(path, 1u << 20, &buf, &len), 0);
    ras_status_init(&s);
    ck_assert_int_eq(ras_parse_reply(buf, len, &s), 0);
    ck_assert_int_eq(ras_tracker_fold(&j->ras, &s, at), 0);
    ras_status_done(&s);
    free(buf);
}

/* The HGX node, its jobs as the source finds them, and job 4242's RAS replies: rank 3 (GPU
 * 3) and rank 11 (on 10.1.0.6) behind at T0 and T0 + 10 s. */
static struct job *node_up(struct node *n)
{
    memset(n, 0, sizeof(*n));
    take("mlx5_8rail_gpus", &n->policy, &n->inv);
    scan_jobs("mlx5_8rail_gpus", NULL, &n->jobs);
    struct job *j = jobs_find(&n->jobs, JOB_SLURM, "4242");
    ck_assert_ptr_nonnull(j);
    fold_reply(j, "derived/gpu3-lag0.reply", T0);
    fold_reply(j, "derived/gpu3-lag1.reply", T0 + 10 * USEC_PER_SEC);
    snprintf(n->links.boot_id, sizeof(n->links.boot_id), "boot-a");
    n->links.now_boottime = T0 + 20 * USEC_PER_SEC;
    n->links.now_wall = WALL0 + 20 * USEC_PER_SEC;
    return j;
}

static void node_down(struct node *n)
{
    findings_done(&n->fs);
    link_memory_done(&n->links);
    jobs_done(&n->jobs);
    inventory_done(&n->inv);
    policy_done(&n->policy);
}

/* An error burst on RAIL AGO before the memory's now. */
static void burst(struct node *n, const char *rail, usec_t ago)
{
    struct link_event ev = { .kind = LINK_EVENT_BURST, .count = 1200 };
    snprintf(ev.boot_id, sizeof(ev.boot_id), "boot-a");
    snprintf(ev.what, sizeof(ev.what), "rx_pcs_symbol_err_phy");
    ev.boottime = n->links.now_boottime - ago;
    ev.wall = n->links.now_wall - ago;
    ck_assert_int_eq(link_memory_add_event(&n->links, rail, &ev), 0);
}

static const struct finding *judge(struct node *n, const struct findings *fabric)
{
    struct job_join jn = { .links = &n->links, .fabric = fabric, .margin = JOB_JOIN_MARGIN };
    check_jobs(&n->inv, &n->jobs, &jn, &n->policy, &n->fs);
    return one_finding(&n->fs, "job.ras", NULL);
}

/* The done-when replay: one job.ras finding naming the job, rank, GPU, rail and burst. */
START_TEST(test_join_names_the_burst)
{
    struct node n;
    node_up(&n);
    burst(&n, "mlx5_3/1", 30 * USEC_PER_SEC);
    const struct finding *f = judge(&n, NULL);
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_ptr_nonnull(strstr(f->message, "Slurm job 4242"));
    ck_assert_ptr_nonnull(strstr(f->message, "rank 3 (pid 3003, GPU 3 at 0000:5d:00.0, rail mlx5_3/1 (PXB))"));
    ck_assert_ptr_nonnull(strstr(f->message, "is a straggler: 1 operation behind"));
    ck_assert_ptr_nonnull(strstr(f->message, "its rail mlx5_3/1 showed: had an error burst "
                                             "(rx_pcs_symbol_err_phy at 1200/s) at"));
    /* Rank 11 has pid 3003 too, on 10.1.0.6: not this node's, counted. */
    ck_assert_ptr_nonnull(strstr(f->message, "1 more rank of the job lags or failed on other nodes"));
    ck_assert_str_eq(f->subject, "job 4242 rank 3");
    ck_assert_str_eq(f->actual, "straggler");
    ck_assert_ptr_null(f->rail);
    node_down(&n);
}
END_TEST

START_TEST(test_join_clean_rail)
{
    struct node n;
    node_up(&n);
    burst(&n, "mlx5_4/1", 30 * USEC_PER_SEC);                  /* another rail's */
    /* The window began JOB_JOIN_MARGIN before the rank's first reply behind (T0), 20 s
     * before the memory's now: this burst is 10 s older. */
    burst(&n, "mlx5_3/1", 20 * USEC_PER_SEC + JOB_JOIN_MARGIN + 10 * USEC_PER_SEC);
    const struct finding *f = judge(&n, NULL);
    ck_assert_ptr_nonnull(strstr(f->message, "its rail mlx5_3/1 was clean in that window"));
    ck_assert_ptr_null(strstr(f->message, "error burst"));
    node_down(&n);
}
END_TEST

/* The rail's failing checks of this pass are part of the join. */
START_TEST(test_join_fabric_findings)
{
    struct node n;
    struct findings fabric = { 0 };
    node_up(&n);
    findings_add(&fabric, "counters.loss", SEVERITY_WARNING, "mlx5_3/1", NULL, NULL, NULL,
                 "out_of_sequence rising");
    findings_add(&fabric, "counters.loss", SEVERITY_OK, "mlx5_2/1", NULL, NULL, NULL, "quiet");
    const struct finding *f = judge(&n, &fabric);
    ck_assert_ptr_nonnull(strstr(f->message, "showed: counters.loss (warning: out_of_sequence rising)"));
    findings_done(&fabric);
    node_down(&n);
}
END_TEST

/* The daemon's way: checks_run with the jobs last in its table, on a copy of the loop's
 * jobs (the pass's own, jobs_copy), the link memory and the GID moves of the run. */
START_TEST(test_checks_run_joins)
{
    struct node n;
    struct jobs copy;
    node_up(&n);
    burst(&n, "mlx5_3/1", 30 * USEC_PER_SEC);
    ck_assert_int_eq(jobs_copy(&n.jobs, &copy), 0);
    jobs_done(&n.jobs);                 /* the copy stands alone */
    struct gid_move moves[] = {
        { .rail = "mlx5_3/1", .from = 3, .to = 5, .at = T0 + 5 * USEC_PER_SEC },
        { .rail = "mlx5_3/1", .from = 5, .to = 3, .at = T0 - 2 * JOB_JOIN_MARGIN },  /* old */
    };
    checks_run(&(struct check_input){ .inventory = &n.inv, .policy = &n.policy, .links = &n.links,
                                      .jobs = &copy, .gid_moves = moves, .n_gid_moves = 2 }, &n.fs);
    const struct finding *f = one_finding(&n.fs, "job.ras", NULL);
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_ptr_nonnull(strstr(f->message, "rank 3 (pid 3003, GPU 3 at 0000:5d:00.0, rail mlx5_3/1"));
    ck_assert_ptr_nonnull(strstr(f->message, "had an error burst (rx_pcs_symbol_err_phy at 1200/s)"));
    ck_assert_ptr_nonnull(strstr(f->message, "its GID moved from index 3 to 5"));
    ck_assert_ptr_null(strstr(f->message, "from index 5 to 3"));
    /* And the other two families, for both jobs of the node. */
    size_t env = 0;
    for (size_t i = 0; i < n.fs.n; i++)
        env += streq(n.fs.items[i].check, "job.nccl_env");
    ck_assert_uint_eq(env, 2);
    jobs_done(&copy);
    node_down(&n);
}
END_TEST

/* The start GIDs a pass recorded in its copy go back to the loop's jobs, once. */
START_TEST(test_keep_gids)
{
    struct node n;
    struct jobs pass;
    node_up(&n);
    ck_assert_int_eq(jobs_copy(&n.jobs, &pass), 0);
    struct job *mine = jobs_find(&pass, JOB_SLURM, "4242");
    ck_assert_int_eq(job_record_gids(mine, &n.inv), 0);
    ck_assert_uint_eq(mine->n_start_gids, 8);
    ck_assert(!jobs_find(&n.jobs, JOB_SLURM, "4242")->gids_recorded);
    ck_assert(!jobs_differ(&n.jobs, &pass));    /* GIDs are no news to the checks */
    jobs_keep_gids(&n.jobs, &pass);
    struct job *kept = jobs_find(&n.jobs, JOB_SLURM, "4242");
    ck_assert(kept->gids_recorded);
    ck_assert_uint_eq(kept->n_start_gids, 8);
    ck_assert_int_eq(kept->start_gids[3].index, 3);
    ck_assert_ptr_null(mine->start_gids);
    /* A job the pass did not record keeps what it has. */
    ck_assert(!jobs_find(&n.jobs, JOB_SESSION, "4090")->gids_recorded);
    jobs_done(&pass);
    node_down(&n);
}
END_TEST

/* Whether a round tells the checks something new: a verdict that changed does. */
START_TEST(test_jobs_differ)
{
    struct node n;
    struct jobs before;
    struct job *j = node_up(&n);
    ck_assert_int_eq(jobs_copy(&n.jobs, &before), 0);
    ck_assert(!jobs_differ(&before, &n.jobs));
    fold_reply(j, "derived/gpu3-lag2.reply", T0 + 20 * USEC_PER_SEC);     /* counts move: still */
    ck_assert(!jobs_differ(&before, &n.jobs));
    fold_reply(j, "derived/gpu3-lag2.reply", T0 + 30 * USEC_PER_SEC);     /* frozen */
    fold_reply(j, "derived/gpu3-lag2.reply", T0 + 40 * USEC_PER_SEC);
    ck_assert_int_eq(ras_tracker_find(&j->ras, j->ras.ranks[0].comm, 3)->verdict, RAS_VERDICT_HUNG);
    ck_assert(jobs_differ(&before, &n.jobs));
    jobs_done(&before);
    node_down(&n);
}
END_TEST

/* A rank in step again RAS_TRACK_CLEAR times: no rank lags here; those elsewhere counted. */
START_TEST(test_join_in_step)
{
    struct node n;
    struct job *j = node_up(&n);
    for (int i = 0; i < RAS_TRACK_CLEAR; i++)
        fold_reply(j, "derived/gpu3-in-step.reply", T0 + (20 + 10 * (usec_t)i) * USEC_PER_SEC);
    const struct finding *f = judge(&n, NULL);
    ck_assert_int_eq(f->severity, SEVERITY_OK);
    ck_assert_ptr_nonnull(strstr(f->message, "no rank of this node lags"));
    ck_assert_ptr_nonnull(strstr(f->message, "0 ranks lag or failed on other nodes"));
    node_down(&n);
}
END_TEST

/* No RAS reply yet (RAS off, or never answered): no job.ras finding. */
START_TEST(test_no_ras_no_finding)
{
    struct node n;
    struct job *j = node_up(&n);
    ras_tracker_done(&j->ras);
    ras_tracker_fail(&j->ras, -ECONNREFUSED, "refused", T0);
    struct job_join jn = { .links = &n.links, .margin = JOB_JOIN_MARGIN };
    check_jobs(&n.inv, &n.jobs, &jn, &n.policy, &n.fs);
    for (size_t i = 0; i < n.fs.n; i++)
        ck_assert_str_ne(n.fs.items[i].check, "job.ras");
    node_down(&n);
}
END_TEST

START_TEST(test_rank_gpu)
{
    struct node n;
    char how[160];
    node_up(&n);
    struct job *s = jobs_find(&n.jobs, JOB_SESSION, "4090");
    /* nvml_dev: the node's NVIDIA GPUs in PCI bus order, whatever CUDA_VISIBLE_DEVICES says. */
    const struct gpu *g = job_rank_gpu(&n.inv, s, 4100, 0, 7, how, sizeof(how));
    ck_assert_str_eq(g->pci_addr, "0000:db:00.0");
    /* cuda_dev through CUDA_VISIBLE_DEVICES=4,5. */
    g = job_rank_gpu(&n.inv, s, 4100, 1, -1, how, sizeof(how));
    ck_assert_str_eq(g->pci_addr, "0000:ab:00.0");
    ck_assert_ptr_nonnull(strstr(how, "CUDA_VISIBLE_DEVICES=4,5"));
    ck_assert_ptr_null(job_rank_gpu(&n.inv, s, 4100, 2, -1, how, sizeof(how)));
    ck_assert_ptr_null(job_rank_gpu(&n.inv, s, 4100, -1, 8, how, sizeof(how)));
    ck_assert_ptr_nonnull(strstr(how, "the node has 8 NVIDIA GPUs"));
    node_down(&n);
}
END_TEST

/* ---- job.nccl_env ---------------------------------------------------------------------- */

/* A job of one process with VARS ("NAME=VALUE" each) on FIXTURE's tree, judged. */
static const struct finding *env_case(struct node *n, const char *fixture, const char *const *vars,
                                      size_t nv)
{
    struct job_proc p = { .pid = 77, .env_read = true };
    memset(n, 0, sizeof(*n));
    take(fixture, &n->policy, &n->inv);
    for (size_t i = 0; i < nv; i++) {
        char name[64];
        const char *eq = strchr(vars[i], '=');
        snprintf(name, sizeof(name), "%.*s", (int)(eq - vars[i]), vars[i]);
        ck_assert_int_eq(job_proc_env_add(&p, name, eq + 1), 0);
    }
    ck_assert_int_eq(jobs_add_proc(&n->jobs, JOB_SLURM, "9", &p), 0);
    n->jobs.ifnames_known = true;
    snprintf(n->jobs.ifnames[n->jobs.n_ifnames++], IFNAMSIZ, "lo");
    snprintf(n->jobs.ifnames[n->jobs.n_ifnames++], IFNAMSIZ, "eth0");
    check_jobs(&n->inv, &n->jobs, NULL, &n->policy, &n->fs);
    return one_finding(&n->fs, "job.nccl_env", NULL);
}

/* The job's own settings against the node: the finding's severity and what it must say. */
static const struct {
    const char *fixture;
    const char *vars[4];
    enum severity sev;
    const char *says[2];
} env_cases[] = {
    /* rail 5's IPv4 RoCE v2 GID sits at index 5 there: index 3 is its IPv6 one */
    { "mlx5_8rail_gid_shift", { "NCCL_IB_GID_INDEX=3" }, SEVERITY_ERROR,
      { "Slurm job 9: NCCL_IB_GID_INDEX=3 on mlx5_5/1 is not a RoCE v2 IPv4 GID (family); "
        "the policy's is index 5", "unset NCCL_IB_GID_INDEX" } },
    { "mlx5_8rail", { "NCCL_IB_GID_INDEX=3", "NCCL_IB_HCA=mlx5", "NCCL_IB_TC=106",
                      "NCCL_SOCKET_IFNAME=eth" }, SEVERITY_OK,
      { "its NCCL settings fit this node" } },
    { "mlx5_8rail", { "NCCL_IB_HCA==mlx5_9:1" }, SEVERITY_ERROR,
      { "NCCL_IB_HCA names mlx5_9:1, which is no rail of this node",
        "leaves NCCL no rail that is up" } },
    { "mlx5_8rail_rail_down", { "NCCL_IB_HCA==mlx5_3:1,mlx5_4:1" }, SEVERITY_WARNING,
      { "NCCL_IB_HCA names mlx5_3/1, which is DOWN" } },
    { "mlx5_8rail", { "NCCL_SOCKET_IFNAME=bond0", "NCCL_IB_TC=0" }, SEVERITY_ERROR,
      { "NCCL_SOCKET_IFNAME names bond0, which is no interface",
        "NCCL_IB_TC=0 is DSCP 0, not the policy's lossless DSCP 26" } },
    /* the job's own family makes NCCL pick another entry than the policy means */
    { "mlx5_8rail", { "NCCL_IB_ADDR_FAMILY=AF_INET6" }, SEVERITY_ERROR,
      { "under the job's settings NCCL picks GID index 0 on mlx5_0/1" } },
};

START_TEST(test_env_cases)
{
    for (size_t i = 0; i < ARRAY_SIZE(env_cases); i++) {
        struct node n;
        size_t nv = 0;
        while (nv < ARRAY_SIZE(env_cases[i].vars) && env_cases[i].vars[nv])
            nv++;
        const struct finding *f = env_case(&n, env_cases[i].fixture, env_cases[i].vars, nv);
        ck_assert_msg(f->severity == env_cases[i].sev, "case %zu: %s", i, f->message);
        for (size_t k = 0; k < ARRAY_SIZE(env_cases[i].says) && env_cases[i].says[k]; k++)
            ck_assert_msg(strstr(f->message, env_cases[i].says[k]) ||
                          (f->hint && strstr(f->hint, env_cases[i].says[k])),
                          "case %zu: %s lacks %s", i, f->message, env_cases[i].says[k]);
        ck_assert_str_eq(f->subject, "job 9");
        node_down(&n);
    }
}
END_TEST

START_TEST(test_env_differs_from_contract)
{
    struct node n;
    memset(&n, 0, sizeof(n));
    /* As env_case, with fabtune's contract given. */
    take("mlx5_8rail", &n.policy, &n.inv);
    struct job_proc p = { .pid = 77, .env_read = true };
    ck_assert_int_eq(job_proc_env_add(&p, "NCCL_IB_GID_INDEX", "3"), 0);
    ck_assert_int_eq(job_proc_env_add(&p, "NCCL_IB_TC", "104"), 0);
    ck_assert_int_eq(jobs_add_proc(&n.jobs, JOB_SLURM, "9", &p), 0);
    n.jobs.contract.n = 2;
    snprintf(n.jobs.contract.vars[0].name, 32, "NCCL_IB_GID_INDEX");
    snprintf(n.jobs.contract.vars[0].value, 512, "3");
    snprintf(n.jobs.contract.vars[1].name, 32, "NCCL_IB_TC");
    snprintf(n.jobs.contract.vars[1].value, 512, "106");
    check_jobs(&n.inv, &n.jobs, NULL, &n.policy, &n.fs);
    const struct finding *f = one_finding(&n.fs, "job.nccl_env", NULL);
    ck_assert_int_eq(f->severity, SEVERITY_OK);
    ck_assert_ptr_nonnull(strstr(f->message, "it overrides fabtune's nccl.conf: NCCL_IB_TC=104 (nccl.conf: 106)"));
    ck_assert_ptr_null(strstr(f->message, "NCCL_IB_GID_INDEX=3 (nccl.conf"));
    node_down(&n);
}
END_TEST

START_TEST(test_env_unreadable)
{
    struct node n;
    memset(&n, 0, sizeof(n));
    take("mlx5_8rail", &n.policy, &n.inv);
    struct job_proc p = { .pid = 77 };
    snprintf(p.env_why, sizeof(p.env_why), "its environ cannot be read (Permission denied)");
    ck_assert_int_eq(jobs_add_proc(&n.jobs, JOB_SESSION, "77", &p), 0);
    check_jobs(&n.inv, &n.jobs, NULL, &n.policy, &n.fs);
    const struct finding *f = one_finding(&n.fs, "job.nccl_env", NULL);
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(f->message, "Permission denied"));
    node_down(&n);
}
END_TEST

/* ---- job.gid_drift --------------------------------------------------------------------- */

/* A job that started on the 8-rail node (index 3 everywhere) judged after rail 5's address
 * came back behind an IPv6 one: its IPv4 RoCE v2 GID sits at index 5 now. */
START_TEST(test_gid_drift)
{
    struct node n;
    struct inventory before;
    struct policy p2;
    static const char *const vars[] = { "NCCL_DEBUG=WARN" };
    env_case(&n, "mlx5_8rail", vars, 1);
    struct job *j = &n.jobs.jobs[0];
    ck_assert_int_eq(job_record_gids(j, &n.inv), 0);
    ck_assert_uint_eq(j->n_start_gids, 8);
    ck_assert_int_eq(j->start_gids[5].index, 3);
    findings_done(&n.fs);
    check_jobs(&n.inv, &n.jobs, NULL, &n.policy, &n.fs);
    ck_assert_int_eq(one_finding(&n.fs, "job.gid_drift", NULL)->severity, SEVERITY_OK);
    before = n.inv;
    take("mlx5_8rail_gid_shift", &p2, &n.inv);
    findings_done(&n.fs);
    check_jobs(&n.inv, &n.jobs, NULL, &n.policy, &n.fs);
    const struct finding *f = one_finding(&n.fs, "job.gid_drift", "mlx5_5/1");
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_ptr_nonnull(strstr(f->message, "Slurm job 9 started with GID index 3 (10.0.5.1) on "
                                             "mlx5_5/1; that GID is at index 5 now"));
    for (size_t i = 0; i < n.fs.n; i++)
        ck_assert(!streq(n.fs.items[i].check, "job.gid_drift") || streq(n.fs.items[i].rail, "mlx5_5/1"));
    inventory_done(&before);
    policy_done(&p2);
    node_down(&n);
}
END_TEST

static Suite *jobs_suite(void)
{
    Suite *s = suite_create("jobs");
    TCase *tc = tcase_create("source");
    tcase_add_test(tc, test_source_finds_jobs);
    tcase_add_test(tc, test_source_bounds);
    tcase_add_test(tc, test_ras_addresses);
    tcase_add_test(tc, test_proc_parsers);
    suite_add_tcase(s, tc);
    tc = tcase_create("job.ras");
    tcase_add_test(tc, test_join_names_the_burst);
    tcase_add_test(tc, test_join_clean_rail);
    tcase_add_test(tc, test_join_fabric_findings);
    tcase_add_test(tc, test_join_in_step);
    tcase_add_test(tc, test_checks_run_joins);
    tcase_add_test(tc, test_keep_gids);
    tcase_add_test(tc, test_jobs_differ);
    tcase_add_test(tc, test_no_ras_no_finding);
    tcase_add_test(tc, test_rank_gpu);
    suite_add_tcase(s, tc);
    tc = tcase_create("job.nccl_env");
    tcase_add_test(tc, test_env_cases);
    tcase_add_test(tc, test_env_differs_from_contract);
    tcase_add_test(tc, test_env_unreadable);
    suite_add_tcase(s, tc);
    tc = tcase_create("job.gid_drift");
    tcase_add_test(tc, test_gid_drift);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (check_shared_fixtures(fixtures, sizeof(fixtures)) < 0)
        return 99;
    return check_run(jobs_suite());
}
