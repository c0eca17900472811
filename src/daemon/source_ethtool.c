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

void source_ethtool_pause(const char *ifname, struct qos_state *q)
{
    struct ethtool_pauseparam pp = { .cmd = ETHTOOL_GPAUSEPARAM };
    struct ifreq ifr = { 0 };
    _cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(q->pause_why, sizeof(q->pause_why), "cannot open a socket for ethtool: %s",
                 strerror(errno));
        return;
    }
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    ifr.ifr_data = (void *)&pp;
    if (ioctl(fd, SIOCETHTOOL, &ifr) < 0) {
        snprintf(q->pause_why, sizeof(q->pause_why), "%s",
                 errno == EOPNOTSUPP ? "the driver reports no pause parameters"
                                     : strerror(errno));
        return;
    }
    q->pause_autoneg = pp.autoneg != 0;
    q->pause_rx = pp.rx_pause != 0;
    q->pause_tx = pp.tx_pause != 0;
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

int source_ethtool_stats(const char *ifname, bool (*want)(const char *name),
                         struct counter_sample *s)
{
    struct ifreq ifr = { 0 };
    _cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    int n = stats_count(fd, &ifr);
    if (n <= 0)
        return n;
    if (n > 65536)
        return -E2BIG;
    _cleanup_free_ struct ethtool_gstrings *names =
        calloc(1, sizeof(*names) + (size_t)n * ETH_GSTRING_LEN);
    _cleanup_free_ struct ethtool_stats *stats = calloc(1, sizeof(*stats) + (size_t)n * sizeof(uint64_t));
    if (!names || !stats)
        return -ENOMEM;
    names->cmd = ETHTOOL_GSTRINGS;
    names->string_set = ETH_SS_STATS;
    names->len = (uint32_t)n;
    ifr.ifr_data = (void *)names;
    if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
        return -errno;
    stats->cmd = ETHTOOL_GSTATS;
    stats->n_stats = (uint32_t)n;
    ifr.ifr_data = (void *)stats;
    if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
        return -errno;
    /* The set can shrink between the calls (a queue removed): trust the smaller count. */
    uint32_t count = stats->n_stats < names->len ? stats->n_stats : names->len;
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
