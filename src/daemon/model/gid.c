/* SPDX-License-Identifier: ISC */
/* GID tests, text forms and sysfs parsing. */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "gid.h"
#include "macro.h"
#include "strutil.h"

bool gid_is_zero(const uint8_t raw[16])
{
    static const uint8_t zero[16];
    return memcmp(raw, zero, 16) == 0;
}

bool gid_is_link_local(const uint8_t raw[16])
{
    static const uint8_t fe80[8] = { 0xfe, 0x80 };
    return memcmp(raw, fe80, 8) == 0;
}

bool gid_is_ipv4_mapped(const uint8_t raw[16])
{
    static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };
    return memcmp(raw, prefix, 12) == 0;
}

int gid_family(const uint8_t raw[16])
{
    /* NCCL also counts the IPv4-mapped multicast range ff0e::ffff:0:0/96 as AF_INET. */
    static const uint8_t mcast[12] = { 0xff, 0x0e, [10] = 0xff, [11] = 0xff };
    return gid_is_ipv4_mapped(raw) || memcmp(raw, mcast, 12) == 0 ? AF_INET : AF_INET6;
}

void gid_format(const uint8_t raw[16], bool ip_form, char *buf, size_t len)
{
    char tmp[INET6_ADDRSTRLEN];
    if (ip_form && gid_is_ipv4_mapped(raw))
        inet_ntop(AF_INET, raw + 12, tmp, sizeof(tmp));
    else
        inet_ntop(AF_INET6, raw, tmp, sizeof(tmp));
    strscpy(buf, tmp, len);
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The sysfs form, as the kernel's %pI6 writes it: "fe80:0000:0000:0000:ba3f:d2ff:fea1:2b3c";
 * eight groups of one to four hex digits, and nothing before, between or after. By hand, not
 * sscanf(): an inventory reads every slot of every port (2,048 on an 8-rail node). */
int gid_parse_sysfs(const char *text, uint8_t raw[16])
{
    const char *c = text;
    for (int i = 0; i < 8; i++) {
        if (i > 0 && *c++ != ':')
            return -1;
        unsigned v = 0;
        int digits = 0, d;
        while (digits < 4 && (d = hex_digit(*c)) >= 0) {
            v = v << 4 | (unsigned)d;
            c++;
            digits++;
        }
        if (digits == 0)
            return -1;
        raw[2 * i] = (uint8_t)(v >> 8);
        raw[2 * i + 1] = (uint8_t)v;
    }
    return *c ? -1 : 0;
}

const char *gid_type_to_string(enum gid_type t)
{
    static const char *const names[] = { "unreadable", "IB/RoCE v1", "RoCE v2", "other", "missing" };
    return names[t];
}

enum gid_type gid_type_parse(const char *text)
{
    /* Kernels write "IB/RoCE v1" (older ones "RoCE v1") and "RoCE v2". */
    if (strncmp(text, "IB/RoCE v1", 10) == 0 || strncmp(text, "RoCE v1", 7) == 0)
        return GID_TYPE_IB_ROCE_V1;
    if (strncmp(text, "RoCE v2", 7) == 0)
        return GID_TYPE_ROCE_V2;
    return GID_TYPE_OTHER;
}
