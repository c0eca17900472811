/* SPDX-License-Identifier: ISC */
/* A rail's RoCE v2 IPv4 subnet, for the fleet's view of rails (fabtune_rail_info). Pure:
 * reads the inventory's GID table and netdev addresses. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "gid.h"
#include "inventory.h"
#include "rail_subnet.h"

void cidr_of_address(int family, const void *addr, unsigned prefix_len, struct cidr *ret)
{
    unsigned max = family == AF_INET ? 32 : 128;
    memset(ret, 0, sizeof(*ret));
    ret->set = true;
    ret->family = family;
    ret->prefix_len = prefix_len > max ? max : prefix_len;
    memcpy(ret->addr, addr, max / 8);
    for (unsigned bit = ret->prefix_len; bit < max; bit++)
        ret->addr[bit / 8] &= (uint8_t)~(0x80 >> (bit % 8));
}

static bool roce_v2_ipv4(const struct rail *r, int i)
{
    return i >= 0 && (uint32_t)i < r->n_gids && r->gids[i].type == GID_TYPE_ROCE_V2 &&
           gid_is_ipv4_mapped(r->gids[i].raw);
}

int rail_roce_ipv4_subnet(const struct rail *r, struct cidr *ret)
{
    int index = -1;
    if (roce_v2_ipv4(r, r->gid_index))
        index = r->gid_index;
    for (uint32_t i = 0; index < 0 && i < r->n_gids; i++)
        if (roce_v2_ipv4(r, (int)i))
            index = (int)i;
    if (index < 0 || !r->netdev.present || !r->netdev.addresses_known)
        return -ENODATA;
    const uint8_t *v4 = r->gids[index].raw + 12;
    for (size_t i = 0; i < r->netdev.n_addrs; i++) {
        const struct ip_address *a = &r->netdev.addrs[i];
        if (a->family == AF_INET && memcmp(a->addr, v4, 4) == 0) {
            cidr_of_address(AF_INET, v4, a->prefix_len, ret);
            return 0;
        }
    }
    return -ENODATA;
}
