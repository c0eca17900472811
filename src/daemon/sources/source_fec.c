/* SPDX-License-Identifier: ISC */
/* The FEC source (source_fec.h): live, or from the answer a snapshot kept
 * (snapshot_layout.h: fec), through the same parser. */
#include "config.h"

#include "source_fec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "fec_reply.h"
#include "inventory.h"
#include "kernel_module.h"
#include "macro.h"
#include "snapshot_read.h"
#include "strutil.h"

static void parse(const unsigned char *buf, size_t len, struct fec_state *s)
{
    int r = fec_reply_parse(buf, len, &s->info, s->why, sizeof(s->why));
    if (r < 0) {
        s->err = r;
        return;
    }
    s->known = true;
    s->why[0] = '\0';
}

void source_fec_read(const char *ifname, struct fec_state *s)
{
    unsigned char *buf = NULL;
    memset(s, 0, sizeof(*s));
    s->read = true;
    int r = kernel_fec_get(ifname, &buf, s->why, sizeof(s->why));
    if (r < 0)
        s->err = r;
    else
        parse(buf, (size_t)r, s);
    free(buf);
}

/* 0 when the snapshot holds no FEC answer (taken before FEC was kept): not read. */
static int snapshot_fec(const char *sysroot, const char *ifname, struct fec_state *s)
{
    char *buf = NULL;
    size_t len = 0;
    int err;
    int r = snapshot_read_reply(sysroot, ifname, "fec", &buf, &len, &err);
    if (r < 0)
        return 0;
    memset(s, 0, sizeof(*s));
    s->read = true;
    if (r == 0) {
        s->err = err;
        snprintf(s->why, sizeof(s->why), "no answer to FEC_GET when the snapshot was taken (%s)",
                 errno_text(-err));
    } else
        parse((const unsigned char *)buf, len, s);
    free(buf);
    return 1;
}

void source_fec_fill(const char *sysroot, bool live, struct inventory *inv)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct rail *r = &inv->rails[i];
        if (!streq(r->link_layer, "Ethernet") || !r->netdev.present || !r->netdev.name[0])
            continue;
        if (live)
            source_fec_read(r->netdev.name, &r->fec);
        else
            (void)snapshot_fec(sysroot, r->netdev.name, &r->fec);
    }
}

void source_fec_sample(bool live, const struct rail *r, struct counter_sample *s)
{
    static const char *const names[FEC_STATS] = {
        [FEC_STAT_CORRECTED] = "fec:corrected",
        [FEC_STAT_UNCORRECTABLE] = "fec:uncorrectable",
        [FEC_STAT_CORRECTED_BITS] = "fec:corrected_bits",
    };
    struct fec_state fresh;
    const struct fec_state *f = &r->fec;
    if (!f->read || (!f->known && f->err == -EOPNOTSUPP))
        return;
    if (live) {
        source_fec_read(r->netdev.name, &fresh);
        f = &fresh;
    }
    if (!f->known)
        return;
    for (int i = 0; i < FEC_STATS; i++)
        if (f->info.stats[i].valid)
            (void)counter_sample_add(s, names[i], f->info.stats[i].total);
    /* Each lane's corrected bits, for the worst lane's BER (counters.h, link_lane_counter). */
    const struct fec_counter *bits = &f->info.stats[FEC_STAT_CORRECTED_BITS];
    char name[COUNTER_NAME_MAX];
    for (unsigned l = 0; bits->valid && l < bits->n_lanes && l < LINK_LANES; l++)
        (void)counter_sample_add(s, link_lane_counter(l, false, name, sizeof(name)),
                                 bits->lanes[l]);
}
