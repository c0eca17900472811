/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the RAS reply parser (sources/ras_parse.c, ras_json.c): any bytes
 * as a reply, text or JSON, whole or cut; what comes out is folded into a tracker twice
 * (model/ras_tracker.c) and judged by job.ras with the ranks placed on a node (its pids
 * the reply's first ones). Never a crash, an out-of-bounds read or undefined behaviour;
 * the tables stay within their bounds; a refusal says why; a success is a whole reply. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "ras_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_bounds(const struct ras_status *s, int r)
{
    size_t ranks = 0;
    if (s->n_comms > RAS_MAX_COMMS || s->n_ranks > RAS_MAX_RANKS || s->n_coll > RAS_COLL_TYPES ||
        s->n_dead > RAS_MAX_PROCS || s->n_missing > RAS_MAX_PROCS)
        abort();
    for (size_t i = 0; i < s->n_comms; i++) {
        ranks += s->comms[i].n_ranks;
        if (s->comms[i].n_behind > s->comms[i].n_ranks)
            abort();
    }
    if (ranks != s->n_ranks || (r == 0 && !s->complete) || (r < 0 && !s->why[0]))
        abort();
}

/* A job of the reply's first pids, on a node with one GPU and no rails, judged. */
static void judge(const struct ras_status *s, struct ras_tracker *t)
{
    struct inventory inv = { 0 };
    struct policy pol;
    struct jobs js = { 0 };
    struct findings fs = { 0 };
    struct gpu g = { .pci_addr = "0000:18:00.0", .vendor = "0x10de", .numa_node = -1 };
    policy_init_defaults(&pol);
    inv.gpus = &g;
    inv.n_gpus = 1;
    for (size_t i = 0; i < s->n_comms && i < 2; i++)
        for (size_t k = 0; k < s->comms[i].n_ranks && k < 4; k++) {
            struct job_proc p = { .pid = s->comms[i].ranks[k].pid, .env_read = true };
            (void)jobs_add_proc(&js, JOB_SESSION, "1", &p);
        }
    if (js.n) {
        js.jobs[0].ras = *t;
        check_jobs(&inv, &js, NULL, &pol, &fs);
        memset(&js.jobs[0].ras, 0, sizeof(js.jobs[0].ras));
    }
    findings_done(&fs);
    jobs_done(&js);
    policy_done(&pol);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy, so that ASan sees any read past the end. */
    char *buf = malloc(size ? size : 1);
    struct ras_status s;
    struct ras_tracker t = { 0 };
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    ras_status_init(&s);
    int r = ras_parse_reply(buf, size, &s);
    if (r != 0 && r != -ENODATA && r != -EBADMSG && r != -EFBIG && r != -ENOMEM)
        abort();
    check_bounds(&s, r);
    (void)ras_tracker_fold(&t, &s, 1000000);
    (void)ras_tracker_fold(&t, &s, 2000000);
    if (t.n_ranks > RAS_TRACK_MAX_RANKS)
        abort();
    judge(&s, &t);
    ras_tracker_done(&t);
    ras_status_done(&s);
    free(buf);
    return 0;
}
