/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the kernel reply parsers of the live sources. The first byte picks
 * one: an rtnetlink RTM_NEWLINK/RTM_NEWADDR message through libnl-route into a netdev
 * (source_rtnl_parse), an RDMA netlink port message (source_rdmanl_parse_port), or an
 * ethtool GSTRINGS/GSTATS pair as the kernel fills them (source_ethtool_fold); the rest is
 * the kernel's bytes. Never a crash, a read past a buffer, or a name without its NUL. */
#include "config.h"

#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "source_counters.h"
#include "source_rdmanl.h"
#include "source_rtnl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A netlink message: nlmsg_len must fit what came, as a socket read guarantees. */
static struct nlmsghdr *message(const uint8_t *data, size_t size)
{
    struct nlmsghdr h;
    if (size < sizeof(h))
        return NULL;
    memcpy(&h, data, sizeof(h));
    if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > size)
        return NULL;
    struct nlmsghdr *m = malloc(NLMSG_ALIGN(h.nlmsg_len));
    if (m)
        memcpy(m, data, h.nlmsg_len);
    return m;
}

static void rtnl(const uint8_t *data, size_t size)
{
    struct nlmsghdr *h = message(data, size);
    struct netdev_info nd = { .carrier = -1 };
    if (!h)
        return;
    if (source_rtnl_parse(h, 1, &nd) == 0 &&
        (memchr(nd.operstate, '\0', sizeof(nd.operstate)) == NULL || nd.n_addrs > INV_MAX_ADDRS))
        abort();
    free(h);
}

static void rdmanl(const uint8_t *data, size_t size)
{
    struct nlmsghdr *h = message(data, size);
    struct rdmanl_port p;
    if (!h)
        return;
    if (source_rdmanl_parse_port(h, &p) == 0 &&
        (memchr(p.device, '\0', sizeof(p.device)) == NULL ||
         memchr(p.netdev, '\0', sizeof(p.netdev)) == NULL))
        abort();
    free(h);
}

/* Two u32 counts as the kernel wrote them into len and n_stats, then the names and the
 * values: the buffers are as long as the caller made them (cap entries). */
static void ethtool(const uint8_t *data, size_t size)
{
    uint32_t len = 0, n_stats = 0;
    size_t cap = 8;
    if (size < 8)
        return;
    memcpy(&len, data, 4);
    memcpy(&n_stats, data + 4, 4);
    data += 8;
    size -= 8;
    struct ethtool_gstrings *names = calloc(1, sizeof(*names) + cap * ETH_GSTRING_LEN);
    struct ethtool_stats *stats = calloc(1, sizeof(*stats) + cap * sizeof(uint64_t));
    struct counter_sample s = { 0 };
    if (names && stats) {
        names->len = len;
        stats->n_stats = n_stats;
        memcpy(names->data, data, size < cap * ETH_GSTRING_LEN ? size : cap * ETH_GSTRING_LEN);
        for (size_t i = 0; i < cap; i++)
            stats->data[i] = i * 1000003u;
        int n = source_ethtool_fold(names, stats, cap, NULL, &s);
        if (n < 0 || (size_t)n > cap || s.n > (size_t)n)
            abort();
    }
    counter_sample_done(&s);
    free(names);
    free(stats);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    switch (data[0] % 3) {
    case 0: rtnl(data + 1, size - 1); break;
    case 1: rdmanl(data + 1, size - 1); break;
    default: ethtool(data + 1, size - 1); break;
    }
    return 0;
}
