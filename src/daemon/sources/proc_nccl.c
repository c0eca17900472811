/* SPDX-License-Identifier: ISC */
/* NCCL processes' procfs files, parsed (proc_nccl.h). */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "proc_nccl.h"
#include "strutil.h"

/* The next line of [*P, END) as [*LINE, *LINE + *N), advancing *P. */
static bool line_next(const char **p, const char *end, const char **line, size_t *n)
{
    if (*p >= end)
        return false;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    *line = *p;
    *n = (size_t)((nl ? nl : end) - *p);
    *p = nl ? nl + 1 : end;
    return true;
}

bool proc_maps_nccl(const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len, *line;
    size_t n;
    while (line_next(&p, end, &line, &n)) {
        const char *slash = NULL;
        for (size_t i = 0; i < n; i++)
            if (line[i] == '/')
                slash = line + i;
        size_t rest = slash ? n - (size_t)(slash - line) : 0;
        if (rest > 8 && memcmp(slash, "/libnccl", 8) == 0 &&
            (slash[8] == '.' || slash[8] == '-'))
            return true;
    }
    return false;
}

static int keep_var(struct job_proc *p, const char *var, size_t n)
{
    char name[64];
    const char *eq = memchr(var, '=', n);
    if (!eq || eq == var || (size_t)(eq - var) >= sizeof(name))
        return 0;
    memcpy(name, var, (size_t)(eq - var));
    name[eq - var] = '\0';
    if (!job_env_kept(name))
        return 0;
    char *value = strndup(eq + 1, n - (size_t)(eq - var) - 1);
    if (!value)
        return -ENOMEM;
    for (char *c = value; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    if (streq(name, "SLURM_JOB_ID"))
        strscpy(p->slurm_job, value, sizeof(p->slurm_job));
    else if (streq(name, "SLURM_STEP_ID"))
        strscpy(p->slurm_step, value, sizeof(p->slurm_step));
    int r = job_proc_env_add(p, name, value);
    free(value);
    return r < 0 ? r : 1;
}

int proc_environ_parse(const char *buf, size_t len, struct job_proc *p)
{
    int kept = 0;
    for (size_t off = 0; off < len;) {
        const char *nul = memchr(buf + off, '\0', len - off);
        size_t n = (size_t)((nul ? nul : buf + len) - (buf + off));
        int r = keep_var(p, buf + off, n);
        if (r < 0)
            return r;
        kept += r;
        off += n + 1;
    }
    p->env_read = true;
    return kept;
}

int proc_stat_parse(const char *buf, size_t len, char comm[16], int *ppid, int *sid)
{
    char text[256];
    const char *open = memchr(buf, '(', len), *close = NULL;
    for (size_t i = len; i > 0 && !close; i--)
        if (buf[i - 1] == ')')
            close = buf + i - 1;
    if (!open || !close || close < open)
        return -EBADMSG;
    snprintf(comm, 16, "%.*s", (int)(close - open - 1 < 15 ? close - open - 1 : 15), open + 1);
    size_t rest = (size_t)(buf + len - close - 1);
    snprintf(text, sizeof(text), "%.*s", (int)(rest < sizeof(text) - 1 ? rest : sizeof(text) - 1),
             close + 1);
    int pgrp;
    char state;
    if (sscanf(text, " %c %9d %9d %9d", &state, ppid, &pgrp, sid) != 4)
        return -EBADMSG;
    return 0;
}

bool proc_cgroup_slurm_job(const char *buf, size_t len, char *job, size_t job_len)
{
    for (size_t i = 0; i + 5 < len; i++) {
        if (memcmp(buf + i, "/job_", 5) != 0)
            continue;
        size_t k = i + 5, d = 0;
        while (k + d < len && isdigit((unsigned char)buf[k + d]))
            d++;
        bool ends = k + d == len || buf[k + d] == '/' || buf[k + d] == '\n';
        if (d > 0 && d < job_len && ends) {
            memcpy(job, buf + k, d);
            job[d] = '\0';
            return true;
        }
    }
    return false;
}

static void add_addr(struct jobs *js, const char *text)
{
    for (size_t i = 0; i < js->n_addrs; i++)
        if (streq(js->addrs[i], text))
            return;
    if (js->n_addrs < JOBS_MAX_ADDRS)
        strscpy(js->addrs[js->n_addrs++], text, sizeof(js->addrs[0]));
    js->addrs_known = true;
}

/* "     |-- 10.0.0.1" then "        /32 host LOCAL": an address of the node. */
void proc_fib_trie_local(const char *buf, size_t len, struct jobs *js)
{
    const char *p = buf, *end = buf + len, *line;
    size_t n;
    char last[64] = "";
    while (line_next(&p, end, &line, &n)) {
        char text[128];
        snprintf(text, sizeof(text), "%.*s", (int)(n < sizeof(text) - 1 ? n : sizeof(text) - 1), line);
        const char *leaf = strstr(text, "|-- ");
        struct in_addr a;
        if (leaf) {
            snprintf(last, sizeof(last), "%s", leaf + 4);
            last[strcspn(last, " ")] = '\0';
        } else if (strstr(text, "/32 host LOCAL") && last[0] && inet_pton(AF_INET, last, &a) == 1)
            add_addr(js, last);
    }
}

/* "fe800000000000000000000000000001 02 40 20 80 eth0": the address's 32 hex digits. */
void proc_if_inet6(const char *buf, size_t len, struct jobs *js)
{
    const char *p = buf, *end = buf + len, *line;
    size_t n;
    while (line_next(&p, end, &line, &n)) {
        unsigned char raw[16];
        char text[INET6_ADDRSTRLEN];
        if (n < 32)
            continue;
        bool ok = true;
        for (int i = 0; i < 16 && ok; i++) {
            char hex[3] = { line[2 * i], line[2 * i + 1], 0 };
            char *e;
            raw[i] = (unsigned char)strtoul(hex, &e, 16);
            ok = *e == '\0' && isxdigit((unsigned char)hex[0]);
        }
        if (ok && inet_ntop(AF_INET6, raw, text, sizeof(text)))
            add_addr(js, text);
    }
}
