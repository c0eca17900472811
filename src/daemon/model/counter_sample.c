/* SPDX-License-Identifier: ISC */
/* Counter classes and samples. The names are the drivers' own: mlx5's hw_counters
 * (drivers/infiniband/hw/mlx5/counters.c) and its ethtool statistics (prefixed
 * "ethtool:" here, en_stats.c), rxe's hw_counters, and the IB PMA's PortCounters that
 * every port shows in counters/ (drivers/infiniband/core/sysfs.c; their meaning in the
 * kernel's Documentation/ABI/stable/sysfs-class-infiniband). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter_sample.h"
#include "grow.h"
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
    /* mlx5: retransmissions (adaptive, and the duplicates the responder saw), the slow
     * restart after a retransmission timeout, RoCE packets dropped for a bad ICRC */
    { "roce_adp_retrans", COUNTER_LOSS },
    { "duplicate_request", COUNTER_LOSS },
    { "roce_slow_restart", COUNTER_LOSS },
    { "roce_slow_restart_cnps", COUNTER_LOSS },
    { "roce_slow_restart_trans", COUNTER_LOSS },
    { "rx_icrc_encapsulated", COUNTER_LOSS },
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
    /* mlx5: RNR NAKs received: the peer had no receive buffer posted */
    { "rnr_nak_retry_err", COUNTER_STARVATION },
    { "ethtool:rx_discards_phy", COUNTER_STARVATION },
    /* mlx5: completions in error; a flush also ends every QP torn down in error, so
     * their class's threshold is high */
    { "resp_cqe_error", COUNTER_QP_ERROR },
    { "req_cqe_error", COUNTER_QP_ERROR },
    { "resp_cqe_flush_error", COUNTER_QP_ERROR },
    { "req_cqe_flush_error", COUNTER_QP_ERROR },
};

/* The PMA's PortCounters in counters/, with the widths drivers/infiniband/core/sysfs.c
 * gives them (PORT_PMA_ATTR(name, counter, width, offset)). IBTA's PortCounters saturate
 * at all ones and stay there until reset (perfquery -R); the 64-bit data and packet
 * counters of PortCountersExtended are not classified. */
static const struct {
    const char *name;
    enum counter_class cls;
    unsigned width;
} pma[] = {
    { "symbol_error", COUNTER_LINK, 16 },
    { "link_error_recovery", COUNTER_LINK, 8 },
    { "link_downed", COUNTER_LINK_DOWN, 8 },
    { "port_rcv_errors", COUNTER_LINK, 16 },
    { "port_rcv_remote_physical_errors", COUNTER_LINK, 16 },
    { "port_rcv_switch_relay_errors", COUNTER_UNCLASSIFIED, 16 },  /* switches only */
    { "port_xmit_discards", COUNTER_LOSS, 16 },
    { "port_xmit_constraint_errors", COUNTER_MISCONFIG, 8 },
    { "port_rcv_constraint_errors", COUNTER_MISCONFIG, 8 },
    { "local_link_integrity_errors", COUNTER_LINK, 4 },
    { "excessive_buffer_overrun_errors", COUNTER_LINK, 4 },
    { "VL15_dropped", COUNTER_STARVATION, 16 },
    { "port_xmit_wait", COUNTER_CONGESTION, 32 },
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
                                         "pfc_storm", "link", "link_down", "qp_error" };
    return c < COUNTER_CLASSES ? names[c] : "unclassified";
}

static int pma_index(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(pma); i++)
        if (streq(name, pma[i].name))
            return (int)i;
    return -1;
}

enum counter_class counter_value_class(const struct counter_value *v, const struct counter_sample *s)
{
    if (!v->pma)
        return counter_classify(v->name, s);
    int i = pma_index(v->name);
    return i < 0 ? COUNTER_UNCLASSIFIED : pma[i].cls;
}

unsigned counter_width(const struct counter_value *v)
{
    int i = v->pma ? pma_index(v->name) : -1;
    return i < 0 ? 0 : pma[i].width;
}

bool counter_saturated(const struct counter_value *v)
{
    unsigned w = counter_width(v);
    return w && w < 64 && v->value >= (UINT64_C(1) << w) - 1;
}

void counter_class_totals(const struct counter_sample *s, enum counter_class c,
                          struct class_totals *t)
{
    size_t used = 0;
    bool full = false;
    memset(t, 0, sizeof(*t));
    for (size_t i = 0; s && i < s->n; i++) {
        const struct counter_value *v = &s->values[i];
        if (!v->value || counter_value_class(v, s) != c)
            continue;
        bool sat = counter_saturated(v);
        if (sat && t->n_saturated++ == 0) {
            strscpy(t->saturated, v->name, sizeof(t->saturated));
            t->saturated_width = counter_width(v);
        }
        char one[COUNTER_NAME_MAX + 48];
        if (sat)
            snprintf(one, sizeof(one), "%s%s %llu (saturated, %u-bit)", used ? ", " : "",
                     v->name, (unsigned long long)v->value, counter_width(v));
        else
            snprintf(one, sizeof(one), "%s%s %llu", used ? ", " : "", v->name,
                     (unsigned long long)v->value);
        if (full || used + strlen(one) + 1 > sizeof(t->text)) {
            full = true;        /* the rest is left out; the count stays right */
            continue;
        }
        strcpy(t->text + used, one);
        used += strlen(one);
    }
}

void counter_sample_done(struct counter_sample *s)
{
    free(s->values);
    s->values = NULL;
    s->n = s->cap = 0;
}

int counter_sample_add(struct counter_sample *s, const char *name, uint64_t value)
{
    if (strlen(name) >= COUNTER_NAME_MAX)
        return 0;               /* no classified name is that long */
    int r = GROW_ARRAY(s->values, s->cap, s->n + 1, COUNTER_MAX_VALUES);
    if (r == -EFBIG)
        return 0;               /* no HCA has that many: the sample keeps the first ones */
    if (r < 0)
        return r;
    struct counter_value *v = &s->values[s->n++];
    strscpy(v->name, name, sizeof(v->name));
    v->value = value;
    v->pma = false;
    return 0;
}

int counter_sample_add_pma(struct counter_sample *s, const char *name, uint64_t value)
{
    size_t n = s->n;
    int r = counter_sample_add(s, name, value);
    if (r == 0 && s->n > n)
        s->values[n].pma = true;
    return r;
}

int counter_sample_copy(struct counter_sample *to, const struct counter_sample *from)
{
    struct counter_value *values = from->n ? malloc(from->n * sizeof(*values)) : NULL;
    if (from->n && !values)
        return -ENOMEM;
    counter_sample_done(to);
    *to = *from;
    to->values = values;
    to->cap = from->n;
    if (from->n)
        memcpy(values, from->values, from->n * sizeof(*values));
    return 0;
}
