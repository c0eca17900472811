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

#include "macro.h"
#include "source_counters.h"
#include "source_qos.h"
#include "strutil.h"

int source_ethtool_pause_raw(const char *ifname, struct ethtool_pauseparam *pp)
{
    struct ifreq ifr = { 0 };
    _cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    *pp = (struct ethtool_pauseparam){ .cmd = ETHTOOL_GPAUSEPARAM };
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    ifr.ifr_data = (void *)pp;
    return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

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
    int r = source_ethtool_pause_raw(ifname, &pp);
    if (r < 0)
        source_ethtool_pause_why(r, q);
    else
        source_ethtool_pause_apply(&pp, q);
}

/* One ethtool string set's length (ETHTOOL_GSSET_INFO), or -errno. */
static int stats_count(int fd, struct ifreq *ifr)
{
    struct {
        struct ethtool_sset_info hdr;
        uint32_t len;
    } info = { .hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_STATS } };
    ifr->ifr_data = (void *)&info;
    if (ioctl(fd, SIOCETHTOOL, ifr) < 0)
        return -errno;
    return info.hdr.sset_mask ? (int)info.len : 0;
}

/* GSTRINGS and GSTATS write as many entries as the driver counts at that moment, not as
 * many as asked for: the set can grow between calls (ethtool -L adds per-queue stats).
 * So each call gets a buffer for twice the count read just before it, plus slack, and a
 * count beyond that starts over. */
static size_t capacity_for(int n)
{
    return 2 * (size_t)n + 64;
}

static int read_names(int fd, struct ifreq *ifr, struct ethtool_gstrings **ret, size_t *ret_cap)
{
    for (int attempt = 0; attempt < 3; attempt++) {
        int n = stats_count(fd, ifr);
        if (n <= 0 || n > 65536)
            return n <= 0 ? n : -E2BIG;
        size_t cap = capacity_for(n);
        struct ethtool_gstrings *names = calloc(1, sizeof(*names) + cap * ETH_GSTRING_LEN);
        if (!names)
            return -ENOMEM;
        names->cmd = ETHTOOL_GSTRINGS;
        names->string_set = ETH_SS_STATS;
        names->len = (uint32_t)n;
        ifr->ifr_data = (void *)names;
        if (ioctl(fd, SIOCETHTOOL, ifr) < 0) {
            int r = -errno;
            free(names);
            return r;
        }
        if (names->len <= cap) {
            *ret = names;
            *ret_cap = cap;
            return 0;
        }
        free(names);
    }
    return -EAGAIN;
}

int source_ethtool_stats_raw(const char *ifname, struct ethtool_gstrings **ret_names,
                             struct ethtool_stats **ret_stats, size_t *ret_cap)
{
    struct ifreq ifr = { 0 };
    size_t cap;
    _cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    _cleanup_free_ struct ethtool_gstrings *names = NULL;
    int r = read_names(fd, &ifr, &names, &cap);
    if (r < 0 || !names)
        return r < 0 ? r : -ENODATA;
    /* The count again, right before GSTATS: a set grown past the buffer is not read. */
    int n = stats_count(fd, &ifr);
    if (n < 0)
        return n;
    if ((size_t)n > cap)
        return -EAGAIN;
    struct ethtool_stats *stats = calloc(1, sizeof(*stats) + cap * sizeof(uint64_t));
    if (!stats)
        return -ENOMEM;
    stats->cmd = ETHTOOL_GSTATS;
    stats->n_stats = (uint32_t)n;
    ifr.ifr_data = (void *)stats;
    if (ioctl(fd, SIOCETHTOOL, &ifr) < 0) {
        r = -errno;
        free(stats);
        return r;
    }
    *ret_names = TAKE_PTR(names);
    *ret_stats = stats;
    *ret_cap = cap;
    return 0;
}

int source_ethtool_stats(const char *ifname, bool (*want)(const char *name),
                         struct counter_sample *s)
{
    struct ethtool_gstrings *names = NULL;
    struct ethtool_stats *stats = NULL;
    size_t cap;
    int r = source_ethtool_stats_raw(ifname, &names, &stats, &cap);
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
