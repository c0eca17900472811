/* SPDX-License-Identifier: ISC */
/* NCCL's settings syntax (nccl_env.h), as NCCL's parseStringList and matchIfList read
 * NCCL_IB_HCA and NCCL_SOCKET_IFNAME, and ncclParam reads the numbers. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"
#include "nccl_env.h"
#include "strutil.h"

static void list_add(struct nccl_list *l, const char *tok, size_t len, bool with_ports)
{
    if (len == 0)
        return;
    if (l->n >= NCCL_LIST_MAX) {
        l->cut = true;
        return;
    }
    const char *colon = with_ports ? memchr(tok, ':', len) : NULL;
    size_t name_len = colon ? (size_t)(colon - tok) : len;
    if (name_len >= NCCL_LIST_NAME_MAX) {
        l->cut = true;
        return;
    }
    memcpy(l->items[l->n].name, tok, name_len);
    l->items[l->n].name[name_len] = '\0';
    l->items[l->n].port = -1;
    if (colon) {
        char port[16];
        snprintf(port, sizeof(port), "%.*s", (int)(len - name_len - 1), colon + 1);
        l->items[l->n].port = atoi(port);
    }
    l->n++;
}

void nccl_list_parse(const char *value, bool with_ports, struct nccl_list *ret)
{
    memset(ret, 0, sizeof(*ret));
    if (!value)
        return;
    if (*value == '^') {
        ret->exclude = true;
        value++;
    }
    if (*value == '=') {
        ret->exact = true;
        value++;
    }
    while (*value) {
        size_t n = strcspn(value, ",");
        list_add(ret, value, n, with_ports);
        value += n + (value[n] == ',');
    }
}

bool nccl_list_item_matches(const struct nccl_list *l, size_t i, const char *dev, uint32_t port)
{
    const char *name = l->items[i].name;
    bool named = l->exact ? streq(name, dev) : strncmp(dev, name, strlen(name)) == 0;
    return named && (l->items[i].port < 0 || (uint32_t)l->items[i].port == port);
}

bool nccl_list_selects(const struct nccl_list *l, const char *dev, uint32_t port)
{
    if (l->n == 0)
        return true;
    bool named = false;
    for (size_t i = 0; i < l->n && !named; i++)
        named = nccl_list_item_matches(l, i, dev, port);
    return l->exclude ? !named : named;
}

void nccl_gid_settings_default(struct nccl_gid_settings *g)
{
    memset(g, 0, sizeof(*g));
    g->index = -1;
    g->family = AF_INET;
    g->version = 2;
}

static bool int_value(const char *value, long lo, long hi, long *ret)
{
    char *end;
    errno = 0;
    long v = strtol(value, &end, 0);
    if (!*value || *end || errno || v < lo || v > hi)
        return false;
    *ret = v;
    return true;
}

bool nccl_gid_settings_apply(struct nccl_gid_settings *g, const char *name, const char *value,
                             char *why, size_t len)
{
    long v;
    why[0] = '\0';
    if (streq(name, "NCCL_IB_GID_INDEX")) {
        if (!int_value(value, -1, 255, &v))
            goto bad;
        g->index = (int)v;
    } else if (streq(name, "NCCL_IB_ADDR_FAMILY")) {
        if (!streq(value, "AF_INET") && !streq(value, "AF_INET6"))
            goto bad;
        g->family = streq(value, "AF_INET") ? AF_INET : AF_INET6;
    } else if (streq(name, "NCCL_IB_ROCE_VERSION_NUM")) {
        if (!int_value(value, 1, 2, &v))
            goto bad;
        g->version = (uint32_t)v;
    } else if (streq(name, "NCCL_IB_ADDR_RANGE")) {
        if (cidr_parse(value, &g->range) < 0)
            goto bad;
    } else
        return false;
    g->any_set = true;
    return true;
bad:
    snprintf(why, len, "%s=%s is not a value NCCL takes", name, value);
    return false;
}

int nccl_tc_parse(const char *value, char *why, size_t len)
{
    long v;
    if (int_value(value, 0, 255, &v))
        return (int)v;
    snprintf(why, len, "NCCL_IB_TC=%s is not a traffic class (0..255)", value);
    return -1;
}
