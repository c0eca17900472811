/* SPDX-License-Identifier: ISC */
/* A RAS reply's greeting lines, then its STATUS: JSON (ras_json.c) or the text of
 * client_support.cc's rasClientRunComms, read line by line (ras_parse.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "macro.h"
#include "ras_json.h"
#include "ras_parse.h"
#include "strutil.h"

/* Lines longer than this are cut for matching (RAS's own are under 200 bytes). */
#define RAS_LINE_MAX 512

/* What the text's summary table says of a group of communicators. */
struct text_group {
    int size;
    unsigned errors;
    char state[16];
};

/* The block a text line belongs to: a job-wide list (Errors: INCOMPLETE, DEAD; Warnings:
 * TIMEOUT) or one communicator's ("#0-0 (hash) MISMATCH"). */
enum text_block {
    BLOCK_NONE, BLOCK_TABLE, BLOCK_JOB_MISSING, BLOCK_JOB_DEAD, BLOCK_TIMEOUT,
    BLOCK_COMM_INCOMPLETE, BLOCK_COMM_ERROR, BLOCK_COMM_MISMATCH,
};

struct text_ctx {
    struct ras_status *s;
    enum text_block block;
    struct text_group *groups;
    size_t n_groups, cap_groups;
    bool warnings_seen;
    struct ras_comm *comm;
    int coll;                   /* the collective type of a MISMATCH's counts; -1: status */
    bool group_known;           /* "N ranks have launched up to operation V" gave V */
    uint64_t group_value;
    char group_error[RAS_ERROR_MAX];
    int err;
};

/* Copies the next line of [*P, END) into LINE (cut to fit), advancing *P. */
static bool next_line(const char **p, const char *end, char *line, size_t len)
{
    if (*p >= end)
        return false;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    size_t n = (size_t)((nl ? nl : end) - *p);
    if (n && (*p)[n - 1] == '\r')
        n--;
    size_t k = n < len ? n : len - 1;
    memcpy(line, *p, k);
    line[k] = '\0';
    for (size_t i = 0; i < k; i++)
        if (line[i] == '\0')
            line[i] = ' ';
    *p = nl ? nl + 1 : end;
    return true;
}

static unsigned errors_bits(const char *text)
{
    return (strstr(text, "MISMATCH") ? RAS_COMM_MISMATCH : 0) |
           (strstr(text, "ERROR") ? RAS_COMM_ERROR : 0) |
           (strstr(text, "INCOMPLETE") ? RAS_COMM_INCOMPLETE : 0);
}

/* "    0         1         1         2         2         2   RUNNING  MISMATCH" */
static void table_row(struct text_ctx *x, const char *line)
{
    int group, comms, nodes, per_comm, in_group;
    char per_node[16], state[16], errors[40];
    if (sscanf(line, "%9d %9d %9d %15s %9d %9d %15s %39s", &group, &comms, &nodes, per_node,
               &per_comm, &in_group, state, errors) != 8 || group < 0 || group >= RAS_MAX_COMMS)
        return;
    if ((size_t)group >= x->n_groups) {
        int r = GROW_ARRAY(x->groups, x->cap_groups, (size_t)group + 1, RAS_MAX_COMMS);
        if (r < 0) {
            x->err = r;
            return;
        }
        memset(x->groups + x->n_groups, 0, ((size_t)group + 1 - x->n_groups) * sizeof(*x->groups));
        x->n_groups = (size_t)group + 1;
    }
    struct text_group *g = &x->groups[group];
    g->size = per_comm;
    g->errors = errors_bits(errors);
    strscpy(g->state, state, sizeof(g->state));
}

/* "#0-0 (98846fe8cb5fc125) MISMATCH": a communicator's block. */
static bool comm_header(struct text_ctx *x, const char *line)
{
    int group, index;
    char hash[RAS_HASH_MAX], kind[16];
    if (sscanf(line, "#%9d-%9d (%19[0-9a-fA-Fx]) %15s", &group, &index, hash, kind) != 4)
        return false;
    int r = ras_status_text_comm(x->s, group, index, &x->comm);
    if (r < 0) {
        x->err = r;
        x->block = BLOCK_NONE;
        return true;
    }
    ras_comm_set_hash(x->comm, hash);
    if (group >= 0 && (size_t)group < x->n_groups) {
        x->comm->size = x->groups[group].size;
        x->comm->errors |= x->groups[group].errors;
        strscpy(x->comm->state, x->groups[group].state, sizeof(x->comm->state));
    }
    x->comm->errors |= errors_bits(kind);
    x->block = streq(kind, "INCOMPLETE") ? BLOCK_COMM_INCOMPLETE
             : streq(kind, "ERROR") ? BLOCK_COMM_ERROR
             : streq(kind, "MISMATCH") ? BLOCK_COMM_MISMATCH : BLOCK_NONE;
    x->coll = -1;
    x->group_known = false;
    x->group_error[0] = '\0';
    return true;
}

/* "GPU 0 managed by process 473 on node 127.0.0.1", the GPU maybe "5 (NVML 3)". */
static void rank_tail(const char *tail, struct ras_rank *r)
{
    const char *gpu = strstr(tail, "GPU "), *proc = strstr(tail, " managed by process ");
    int cuda, nvml, pid;
    char host[RAS_HOST_MAX];
    if (!gpu || !proc || sscanf(gpu, "GPU %9d", &cuda) != 1)
        return;
    const char *nv = strstr(gpu, "(NVML ");
    nvml = nv && nv < proc && sscanf(nv, "(NVML %9d)", &nvml) == 1 ? nvml : cuda;
    if (sscanf(proc, " managed by process %9d on node %47s", &pid, host) != 2)
        return;
    r->cuda_dev = cuda;
    r->nvml_dev = nvml;
    r->pid = pid;
    strscpy(r->host, host, sizeof(r->host));
}

/* "Rank R ..." of the current communicator: the rank, with what follows " -- ". */
static struct ras_rank *text_rank(struct text_ctx *x, const char *line)
{
    int rank;
    struct ras_rank *r;
    if (!x->comm || sscanf(line, "Rank %9d", &rank) != 1 || rank < 0)
        return NULL;
    int err = ras_comm_rank(x->s, x->comm, rank, &r);
    if (err < 0) {
        x->err = err;
        return NULL;
    }
    const char *tail = strstr(line, " -- ");
    if (tail)
        rank_tail(tail + 4, r);
    return r;
}

/* "The missing ranks: 1, 2, 21" (the form of NCCL 2.24's documentation). */
static void missing_list(struct text_ctx *x, const char *line)
{
    const char *p = strchr(line, ':');
    struct ras_rank *r;
    while (p && *p) {
        char *end;
        long v = strtol(p + 1, &end, 10);
        if (end == p + 1)
            break;
        if (v >= 0 && v <= INT32_MAX && ras_comm_rank(x->s, x->comm, (int)v, &r) == 0)
            r->missing = true;
        p = strchr(end, ',');
    }
}

static void comm_incomplete_line(struct text_ctx *x, const char *line)
{
    if (strncmp(line, "The missing rank", 16) == 0) {
        missing_list(x, line);
        return;
    }
    struct ras_rank *r = text_rank(x, line);
    if (r)
        r->missing = true;
}

/* "Rank 0 reported Remote process error -- GPU ...", or "Rank 0 -- GPU ..." under "2 ranks
 * reported System error". */
static void comm_error_line(struct text_ctx *x, const char *line)
{
    int n;
    const char *rep = strstr(line, " reported ");
    if (sscanf(line, "%9d ranks reported", &n) == 1 && rep) {
        strscpy(x->group_error, rep + 10, sizeof(x->group_error));
        return;
    }
    struct ras_rank *r = text_rank(x, line);
    if (!r)
        return;
    if (!rep) {
        strscpy(r->error, x->group_error, sizeof(r->error));
        return;
    }
    const char *end = strstr(rep, " -- ");
    size_t len = end ? (size_t)(end - rep - 10) : strlen(rep + 10);
    snprintf(r->error, sizeof(r->error), "%.*s", (int)len, rep + 10);
}

/* "Communicator ranks have different AllReduce operation counts" ("collective" before
 * NCCL 2.26), or "... different status" (not counts: its ranks are not lagging). */
static void mismatch_kind(struct text_ctx *x, const char *line)
{
    char name[RAS_COLL_NAME_MAX];
    x->group_known = false;
    if (sscanf(line, "Communicator ranks have different %23s operation counts", name) == 1)
        x->coll = ras_status_coll(x->s, name);
    else
        x->coll = -1;
}

static void comm_mismatch_line(struct text_ctx *x, const char *line)
{
    int n;
    uint64_t v;
    if (strncmp(line, "Communicator ranks have different ", 34) == 0) {
        mismatch_kind(x, line);
        return;
    }
    if (x->coll < 0)
        return;
    if (sscanf(line, "%9d ranks have launched up to operation %19" SCNu64, &n, &v) == 2 ||
        (sscanf(line, "%9d ranks have not launched any operation", &n) == 1 && (v = 0, true))) {
        x->group_known = true;
        x->group_value = v;
        ras_comm_group_count(x->comm, x->coll, v);
        return;
    }
    struct ras_rank *r = text_rank(x, line);
    if (!r)
        return;
    const char *up = strstr(line, " has launched up to operation ");
    if (up && sscanf(up, " has launched up to operation %19" SCNu64, &v) == 1)
        ras_rank_set_count(x->comm, r, x->coll, v);
    else if (strstr(line, " has not launched any operation"))
        ras_rank_set_count(x->comm, r, x->coll, 0);
    else if (x->group_known)
        ras_rank_set_count(x->comm, r, x->coll, x->group_value);
}

/* "Process 474 on node 127.0.0.1 managing GPU 0" (GPUs "0,1", "5 (NVML 3)"). */
static void job_process(struct text_ctx *x, const char *line, bool dead)
{
    int pid;
    char host[RAS_HOST_MAX];
    const char *gpus = strstr(line, " managing GPU");
    if (!gpus || sscanf(line, "Process %9d on node %47s managing GPU", &pid, host) != 2)
        return;
    gpus += strlen(" managing GPU");
    gpus += *gpus == 's';
    gpus += *gpus == ' ';
    if (dead)
        ras_status_add_process(x->s->dead, &x->s->n_dead, pid, host, gpus);
    else
        ras_status_add_process(x->s->missing, &x->s->n_missing, pid, host, gpus);
}

/* An indented line: what its block makes of it. */
static void block_line(struct text_ctx *x, const char *line)
{
    unsigned n;
    switch (x->block) {
    case BLOCK_TABLE:
        table_row(x, line);
        break;
    case BLOCK_JOB_MISSING:
    case BLOCK_JOB_DEAD:
        job_process(x, line, x->block == BLOCK_JOB_DEAD);
        break;
    case BLOCK_TIMEOUT:
        if (sscanf(line, "Encountered %9u communication timeout", &n) == 1)
            x->s->timeouts = n;
        break;
    case BLOCK_COMM_INCOMPLETE:
        comm_incomplete_line(x, line);
        break;
    case BLOCK_COMM_ERROR:
        comm_error_line(x, line);
        break;
    case BLOCK_COMM_MISMATCH:
        comm_mismatch_line(x, line);
        break;
    default:
        break;
    }
}

/* A line at the margin: a section, a job-wide list, a communicator's block, the version. */
static void margin_line(struct text_ctx *x, const char *line)
{
    char version[RAS_VERSION_MAX];
    if (sscanf(line, "NCCL version %31s", version) == 1)
        strscpy(x->s->nccl_version, version, sizeof(x->s->nccl_version));
    else if (strncmp(line, "Group ", 6) == 0)
        x->block = BLOCK_TABLE;
    else if (streq(line, "Warnings"))
        x->warnings_seen = true;
    else if (streq(line, "INCOMPLETE"))
        x->block = BLOCK_JOB_MISSING;
    else if (streq(line, "DEAD"))
        x->block = BLOCK_JOB_DEAD;
    else if (streq(line, "TIMEOUT"))
        x->block = BLOCK_TIMEOUT;
    else if (line[0] != '#' || !comm_header(x, line))
        x->block = x->block == BLOCK_TABLE ? BLOCK_TABLE : BLOCK_NONE;
}

static void text_line(struct text_ctx *x, char *line)
{
    if (!line[0]) {
        x->block = BLOCK_NONE;
        return;
    }
    if (x->block == BLOCK_TABLE && line[0] == ' ') {
        block_line(x, line);
        return;
    }
    if (line[0] == ' ' && line[1] == ' ') {
        char *p = line;
        while (*p == ' ')
            p++;
        block_line(x, p);
        return;
    }
    margin_line(x, line);
}

static int text_parse(const char *p, const char *end, struct ras_status *s)
{
    struct text_ctx x = { .s = s, .coll = -1 };
    char line[RAS_LINE_MAX];
    s->format = RAS_FORMAT_TEXT;
    while (next_line(&p, end, line, sizeof(line)) && x.err == 0)
        text_line(&x, line);
    free(x.groups);
    if (x.err < 0) {
        snprintf(s->why, sizeof(s->why), "the text holds more than fabtune keeps (%s)",
                 errno_text(-x.err));
        return x.err;
    }
    /* The server closes the connection after the Warnings section, its last. */
    s->complete = x.warnings_seen;
    if (!s->complete) {
        snprintf(s->why, sizeof(s->why), "the text ends before its Warnings section");
        return -ENODATA;
    }
    return 0;
}

/* The lines the commands before STATUS answer: "SERVER PROTOCOL 2", "OK", "ERROR: ...". */
static bool greeting_line(struct ras_status *s, const char *line)
{
    int proto;
    if (sscanf(line, "SERVER PROTOCOL %9d", &proto) == 1) {
        s->server_protocol = proto;
        return true;
    }
    if (streq(line, "OK") || !line[0])
        return true;
    if (strncmp(line, "ERROR:", 6) != 0)
        return false;
    strscpy(s->server_error, line, sizeof(s->server_error));
    if (strstr(line, "FORMAT") || strstr(line, "format"))
        s->json_refused = true;
    return true;
}

int ras_parse_reply(const char *buf, size_t len, struct ras_status *s)
{
    const char *p = buf, *end = buf + len, *body = buf;
    char line[RAS_LINE_MAX];
    int r = -EBADMSG;
    while (next_line(&p, end, line, sizeof(line)) && greeting_line(s, line))
        body = p;
    while (body < end && (*body == ' ' || *body == '\n' || *body == '\r' || *body == '\t'))
        body++;
    if (body < end && *body == '{')
        r = ras_json_parse(body, (size_t)(end - body), s);
    else if (body < end && (end - body >= 12 && (memcmp(body, "NCCL version", 12) == 0 ||
                                                 memcmp(body, "Job summary", 11) == 0)))
        r = text_parse(body, end, s);
    else
        snprintf(s->why, sizeof(s->why), "no STATUS in the reply%s%s",
                 s->server_error[0] ? ": " : "", s->server_error);
    ras_status_derive(s);
    return r;
}
