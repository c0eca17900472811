/* SPDX-License-Identifier: ISC */
/* lldp_parse(): lldp_capture.h's text into struct rail_lldp. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lldp_parse.h"
#include "macro.h"

#define HEADER "fabtune-lldp 1"

static int fail(struct rail_lldp *out, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct rail_lldp *out, unsigned line, const char *fmt, ...)
{
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(out->why, sizeof(out->why), "lldp capture, line %u: %s", line, msg);
    out->known = false;
    out->n = 0;
    return -EINVAL;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* VALUE (LEN bytes, %XX escaped) into DST (SIZE bytes, cut, NUL-terminated); false on a
 * bad escape or an escaped NUL. */
static bool unescape(const char *v, size_t len, char *dst, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char c = v[i];
        if (c == '%') {
            if (i + 2 >= len)
                return false;
            int hi = hexval(v[i + 1]), lo = hexval(v[i + 2]);
            if (hi < 0 || lo < 0 || (hi | lo) == 0)
                return false;
            c = (char)(hi << 4 | lo);
            i += 2;
        } else if (c == '\0')
            return false;
        if (o + 1 < size)
            dst[o++] = c;
    }
    dst[o] = '\0';
    return true;
}

/* A decimal number in 0..MAX, the whole of V. */
static bool number(const char *v, size_t len, unsigned long max, unsigned long *ret)
{
    if (len == 0 || len > 10)
        return false;
    unsigned long n = 0;
    for (size_t i = 0; i < len; i++) {
        if (v[i] < '0' || v[i] > '9')
            return false;
        n = n * 10 + (unsigned long)(v[i] - '0');
    }
    if (n > max)
        return false;
    *ret = n;
    return true;
}

#define STR(k, field) { k, offsetof(struct lldp_neighbor, field), sizeof(((struct lldp_neighbor *)0)->field) }
static const struct { const char *key; size_t off, size; } strings[] = {
    STR("chassis.subtype", chassis_subtype), STR("chassis.id", chassis_id),
    STR("sysname", sysname), STR("sysdescr", sysdescr), STR("port.subtype", port_subtype),
    STR("port.id", port_id), STR("port.descr", port_descr),
};

/* One "KEY VALUE" line of neighbour NB. */
static int key_line(struct rail_lldp *out, struct lldp_neighbor *nb, unsigned line,
                    const char *key, size_t klen, const char *v, size_t vlen)
{
    char tmp[48];
    unsigned long n;
    for (size_t i = 0; i < ARRAY_SIZE(strings); i++)
        if (strlen(strings[i].key) == klen && memcmp(key, strings[i].key, klen) == 0) {
            if (!unescape(v, vlen, (char *)nb + strings[i].off, strings[i].size))
                return fail(out, line, "a bad %%XX escape in %s", strings[i].key);
            return 0;
        }
#define IS(k) (klen == sizeof(k) - 1 && memcmp(key, k, klen) == 0)
    if (IS("mgmt")) {
        if (!unescape(v, vlen, tmp, sizeof(tmp)))
            return fail(out, line, "a bad %%XX escape in mgmt");
        if (nb->n_mgmt < LLDP_MAX_MGMT)
            memcpy(nb->mgmt[nb->n_mgmt++], tmp, sizeof(tmp));
    } else if (IS("vlan") || IS("pvid")) {
        if (!number(v, vlen, 4095, &n) || n == 0)
            return fail(out, line, "%s is not a VLAN id (1..4095)", IS("vlan") ? "vlan" : "pvid");
        if (IS("pvid"))
            nb->pvid = (uint16_t)n;
        else if (nb->n_vlans < LLDP_MAX_VLANS)
            nb->vlans[nb->n_vlans++] = (uint16_t)n;
    } else if (IS("mfs")) {
        if (!number(v, vlen, 65535, &n))
            return fail(out, line, "mfs is not a frame size (0..65535)");
        nb->mfs = (uint32_t)n;
    } else if (IS("age")) {
        if (!number(v, vlen, 0xffffffffUL, &n))
            return fail(out, line, "age is not a number of seconds");
        nb->age_s = (uint32_t)n;
    }
#undef IS
    return 0;   /* a key of a later version */
}

int lldp_parse(const char *buf, size_t len, struct rail_lldp *out)
{
    struct lldp_neighbor scratch;           /* neighbours past the table land here */
    memset(out, 0, sizeof(*out));
    struct lldp_neighbor *nb = NULL;
    unsigned line = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *s = buf + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - s) : len - pos;
        pos += l + (nl ? 1 : 0);
        line++;
        if (line == 1) {
            if (l != sizeof(HEADER) - 1 || memcmp(s, HEADER, l) != 0)
                return fail(out, line, "not a fabtune LLDP capture (no \"%s\" header)", HEADER);
            continue;
        }
        if (l == 0)
            continue;
        if (l == 8 && memcmp(s, "neighbor", 8) == 0) {
            if (out->n < LLDP_MAX_NEIGHBORS)
                nb = &out->nb[out->n++];
            else {
                out->n_dropped++;
                nb = &scratch;
            }
            memset(nb, 0, sizeof(*nb));
            continue;
        }
        const char *sp = memchr(s, ' ', l);
        if (!sp)
            return fail(out, line, "a line without a value");
        if (!nb)
            return fail(out, line, "a key before the first \"neighbor\"");
        int err = key_line(out, nb, line, s, (size_t)(sp - s), sp + 1, l - (size_t)(sp - s) - 1);
        if (err < 0)
            return err;
    }
    if (line == 0)
        return fail(out, 1, "empty");
    out->known = true;
    return 0;
}
