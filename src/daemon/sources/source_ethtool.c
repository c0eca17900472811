/* SPDX-License-Identifier: ISC */
/* The ethtool ioctl (SIOCETHTOOL): the 802.3x global pause parameters and the driver's
 * statistics (ethtool -S). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kernel_replies.h"
#include "macro.h"
#include "source_counters.h"
#include "source_qos.h"
#include "strutil.h"

void source_ethtool_pause_why(int err, struct qos_state *q)
{
    snprintf(q->pause_why, sizeof(q->pause_why), "%s",
             err == -EOPNOTSUPP ? "the driver reports no pause parameters" : errno_text(-err));
}

void source_ethtool_pause_apply(const struct ethtool_pauseparam *pp, struct qos_state *q)
{
    q->pause_autoneg = pp->autoneg != 0;
    q->pause_rx = pp->rx_pause != 0;
    q->pause_tx = pp->tx_pause != 0;
}

void source_ethtool_pause(const char *ifname, struct qos_state *q)
{
    struct ethtool_pauseparam pp;
    int r = kernel_ethtool_pause(ifname, &pp);
    if (r < 0)
        source_ethtool_pause_why(r, q);
    else
        source_ethtool_pause_apply(&pp, q);
}

int source_ethtool_stats(const char *ifname, bool (*want)(const char *name),
                         struct counter_sample *s)
{
    struct ethtool_gstrings *names = NULL;
    struct ethtool_stats *stats = NULL;
    size_t cap;
    int r = kernel_ethtool_stats(ifname, &names, &stats, &cap);
    if (r == -ENODATA)
        return 0;
    if (r < 0)
        return r;
    r = source_ethtool_fold(names, stats, cap, want, s);
    free(names);
    free(stats);
    return r;
}

int source_ethtool_fold_bytes(const void *names, size_t names_len, const void *stats,
                              size_t stats_len, bool (*want)(const char *name),
                              struct counter_sample *s)
{
    const struct ethtool_gstrings *n = names;
    const struct ethtool_stats *v = stats;
    if (names_len < sizeof(*n) || stats_len < sizeof(*v) || n->cmd != ETHTOOL_GSTRINGS ||
        v->cmd != ETHTOOL_GSTATS)
        return -EBADMSG;
    /* Only the entries both buffers hold: CAP bounds the fold below. */
    size_t cap_n = (names_len - sizeof(*n)) / ETH_GSTRING_LEN;
    size_t cap_v = (stats_len - sizeof(*v)) / sizeof(uint64_t);
    size_t cap = cap_n < cap_v ? cap_n : cap_v;
    if (n->len > cap_n || v->n_stats > cap_v)
        return -EBADMSG;
    return source_ethtool_fold(n, v, cap, want, s);
}

int source_ethtool_fold(const struct ethtool_gstrings *names, const struct ethtool_stats *stats,
                        size_t cap, bool (*want)(const char *name), struct counter_sample *s)
{
    /* The set can shrink or grow between the calls: only entries both calls cover. */
    uint32_t count = stats->n_stats < names->len ? stats->n_stats : names->len;
    if (count > cap)
        count = (uint32_t)cap;
    for (uint32_t i = 0; i < count; i++) {
        char name[ETH_GSTRING_LEN + 1], key[ETH_GSTRING_LEN + 16];
        memcpy(name, names->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
        name[ETH_GSTRING_LEN] = '\0';
        if (want && !want(name))
            continue;
        snprintf(key, sizeof(key), "ethtool:%s", name);
        int r = counter_sample_add(s, key, stats->data[i]);
        if (r < 0)
            return r;
    }
    return (int)count;
}
