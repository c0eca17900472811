/* SPDX-License-Identifier: ISC */
/* CIDR subnets: parsing, formatting and membership for rails.roce.subnet. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "cidr.h"

int cidr_parse(const char *s, struct cidr *ret)
{
    char addr[INET6_ADDRSTRLEN];
    const char *slash = strchr(s, '/');
    if (!slash || (size_t)(slash - s) >= sizeof(addr))
        return -EINVAL;
    memcpy(addr, s, (size_t)(slash - s));
    addr[slash - s] = '\0';

    struct cidr c = { .set = true };
    if (inet_pton(AF_INET, addr, c.addr) == 1)
        c.family = AF_INET;
    else if (inet_pton(AF_INET6, addr, c.addr) == 1)
        c.family = AF_INET6;
    else
        return -EINVAL;

    const char *len = slash + 1;
    char *end;
    if (len[0] < '0' || len[0] > '9' || strlen(len) > 3)
        return -EINVAL;
    unsigned long plen = strtoul(len, &end, 10);
    unsigned max = c.family == AF_INET ? 32 : 128;
    if (*end || plen > max)
        return -EINVAL;
    c.prefix_len = (uint32_t)plen;

    /* Host bits must be zero: "10.1.2.3/8" is a typo more often than a subnet.
     * On -EDOM *ret holds the masked subnet, for a "did you mean". */
    bool host_bits = false;
    for (unsigned bit = c.prefix_len; bit < max; bit++)
        if (c.addr[bit / 8] & (0x80 >> (bit % 8))) {
            c.addr[bit / 8] &= (uint8_t)~(0x80 >> (bit % 8));
            host_bits = true;
        }
    *ret = c;
    return host_bits ? -EDOM : 0;
}

const char *cidr_format(const struct cidr *c, char *buf, size_t len)
{
    char addr[INET6_ADDRSTRLEN] = "";
    inet_ntop(c->family, c->addr, addr, sizeof(addr));
    snprintf(buf, len, "%s/%u", addr, c->prefix_len);
    return buf;
}

bool cidr_contains(const struct cidr *c, int family, const void *addr)
{
    if (!c->set || family != c->family)
        return false;
    const uint8_t *a = addr;
    for (unsigned bit = 0; bit < c->prefix_len; bit++) {
        uint8_t mask = 0x80 >> (bit % 8);
        if ((a[bit / 8] & mask) != (c->addr[bit / 8] & mask))
            return false;
    }
    return true;
}
