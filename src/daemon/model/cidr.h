/* SPDX-License-Identifier: ISC */
/* Subnets in CIDR form ("10.0.0.0/16", "fd00::/64"), as the policy writes them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cidr {
    bool set;
    int family;                 /* AF_INET or AF_INET6 */
    uint8_t addr[16];           /* network byte order, host bits cleared */
    uint32_t prefix_len;
};

int cidr_parse(const char *s, struct cidr *ret);
const char *cidr_format(const struct cidr *c, char *buf, size_t len);
bool cidr_contains(const struct cidr *c, int family, const void *addr);
