/* SPDX-License-Identifier: ISC */
/* Counter classes and samples. The names are the drivers' own: mlx5's hw_counters
 * (drivers/infiniband/hw/mlx5/counters.c) and its ethtool statistics (prefixed
 * "ethtool:" here, en_stats.c), and rxe's hw_counters. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter_sample.h"
#include "macro.h"
#include "strutil.h"

static const struct {
    const char *name;
    enum counter_class cls;
} exact[] = {
    { "out_of_sequence", COUNTER_LOSS },
    { "packet_seq_err", COUNTER_LOSS },
    { "local_ack_timeout_err", COUNTER_LOSS },
    { "implied_nak_seq_err", COUNTER_LOSS },
    { "roce_adp_retrans_to", COUNTER_LOSS },
    { "np_cnp_sent", COUNTER_CONGESTION },
    { "rp_cnp_handled", COUNTER_CONGESTION },
    { "np_ecn_marked_roce_packets", COUNTER_CONGESTION },
    /* rxe (drivers/infiniband/sw/rxe/rxe_hw_counters.c) */
    { "out_of_seq_request", COUNTER_LOSS },
    { "rcvd_seq_err", COUNTER_LOSS },
    { "retry_exceeded_err", COUNTER_LOSS },
    { "completer_retry_err", COUNTER_LOSS },
    { "rp_cnp_ignored", COUNTER_MISCONFIG },
    { "out_of_buffer", COUNTER_STARVATION },
    { "ethtool:rx_discards_phy", COUNTER_STARVATION },
};

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && streq(s + n - m, suffix);
}

/* ethtool:rx_prioN_pause / tx_prioN_pause: pause frames on priority N. */
static int pause_priority(const char *name)
{
    unsigned prio;
    char tail[16];
    if ((sscanf(name, "ethtool:rx_prio%u_%15s", &prio, tail) == 2 ||
         sscanf(name, "ethtool:tx_prio%u_%15s", &prio, tail) == 2) && streq(tail, "pause") && prio < 8)
        return (int)prio;
    return -1;
}

enum counter_class counter_classify(const char *name, const struct counter_sample *s)
{
    for (size_t i = 0; i < ARRAY_SIZE(exact); i++)
        if (streq(name, exact[i].name))
            return exact[i].cls;
    if (has_prefix(name, "req_") && has_suffix(name, "_retries_exceeded"))
        return COUNTER_LOSS;
    if (has_prefix(name, "ethtool:tx_pause_storm_"))
        return COUNTER_PFC_STORM;
    int prio = pause_priority(name);
    if (prio >= 0 && s && s->pfc_known && !(s->pfc_en & (1u << prio)))
        return COUNTER_MISCONFIG;
    return COUNTER_UNCLASSIFIED;
}

const char *counter_class_name(enum counter_class c)
{
    static const char *const names[] = { "loss", "congestion", "misconfig", "starvation",
                                         "pfc_storm" };
    return c < COUNTER_CLASSES ? names[c] : "unclassified";
}

void counter_sample_done(struct counter_sample *s)
{
    free(s->values);
    s->values = NULL;
    s->n = 0;
}

int counter_sample_add(struct counter_sample *s, const char *name, uint64_t value)
{
    if (strlen(name) >= COUNTER_NAME_MAX || s->n >= COUNTER_MAX_VALUES)
        return 0;               /* no classified name is that long; no HCA has that many */
    struct counter_value *n = realloc(s->values, (s->n + 1) * sizeof(*n));
    if (!n)
        return -ENOMEM;
    s->values = n;
    strscpy(n[s->n].name, name, sizeof(n[s->n].name));
    n[s->n++].value = value;
    return 0;
}
