/* SPDX-License-Identifier: ISC */
/* Per-rail sysctl keys: parsing the @ component, and expanding it for each rail netdev.
 * Pure: the tuning transaction hands in the netdevs and adds the keys. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "inventory.h"
#include "macro.h"
#include "rail_sysctl.h"
#include "strutil.h"

static const struct { const char *name; enum rail_sysctl_scope scope; } markers[] = {
    { "@rail", RAIL_SYSCTL_RAIL },
    { "@multirail", RAIL_SYSCTL_MULTIRAIL },
};

/* The kernel's per-interface directories: the component after one of them is a netdev. */
static const char *const per_interface[] = {
    "net.ipv4.conf.", "net.ipv4.neigh.", "net.ipv6.conf.", "net.ipv6.neigh.",
};

/* The @ component of key: its start and length; false when there is no '@'. */
static bool find_marker(const char *key, const char **ret_start, size_t *ret_len)
{
    const char *at = strchr(key, '@');
    if (!at)
        return false;
    *ret_start = at;
    *ret_len = strcspn(at, ".");
    return true;
}

int rail_sysctl_parse(const char *key, size_t key_max, enum rail_sysctl_scope *ret,
                      const char **ret_why)
{
    const char *at;
    size_t len;
    *ret = RAIL_SYSCTL_PLAIN;
    *ret_why = NULL;
    if (!find_marker(key, &at, &len))
        return 0;
    if (at != key && at[-1] != '.') {
        *ret_why = "'@' must begin a component (net.ipv4.conf.@rail.arp_ignore)";
        return -EINVAL;
    }
    if (strchr(at + 1, '@')) {
        *ret_why = "a key has at most one @ component";
        return -EINVAL;
    }
    bool known = false;
    for (size_t i = 0; i < ARRAY_SIZE(markers); i++)
        if (len == strlen(markers[i].name) && strncmp(at, markers[i].name, len) == 0) {
            *ret = markers[i].scope;
            known = true;
        }
    if (!known) {
        *ret_why = "the @ component is @rail (each rail's netdev) or @multirail "
                   "(each rail's netdev on a node with two or more)";
        return -EINVAL;
    }
    bool dir = false;
    for (size_t i = 0; i < ARRAY_SIZE(per_interface); i++)
        if ((size_t)(at - key) == strlen(per_interface[i]) &&
            strncmp(key, per_interface[i], strlen(per_interface[i])) == 0)
            dir = true;
    if (!dir) {
        *ret_why = "the @ component follows net.ipv4.conf, net.ipv4.neigh, net.ipv6.conf or "
                   "net.ipv6.neigh, the kernel's per-interface directories";
        return -EINVAL;
    }
    if (at[len] != '.' || !at[len + 1]) {
        *ret_why = "the @ component needs a sysctl after it (net.ipv4.conf.@rail.arp_ignore)";
        return -EINVAL;
    }
    if (key_max && strlen(key) - len + (IFNAMSIZ - 1) > key_max) {
        *ret_why = "a 15-character netdev name would make the key too long";
        return -EINVAL;
    }
    return 0;
}

bool rail_sysctl_applies(enum rail_sysctl_scope s, const struct rail_netdevs *rails)
{
    switch (s) {
    case RAIL_SYSCTL_PLAIN:
        return true;
    case RAIL_SYSCTL_RAIL:
        return rails->n >= 1;
    case RAIL_SYSCTL_MULTIRAIL:
        return rails->n >= 2;
    }
    return false;
}

int rail_sysctl_expand(const char *key, const char *netdev, char *buf, size_t len)
{
    enum rail_sysctl_scope s;
    const char *why, *at = NULL;
    size_t mlen = 0;
    if (rail_sysctl_parse(key, 0, &s, &why) < 0)
        return -EINVAL;
    if (s == RAIL_SYSCTL_PLAIN || !find_marker(key, &at, &mlen))
        return strscpy(buf, key, len) < 0 ? -ENAMETOOLONG : 0;
    char name[IFNAMSIZ];
    if (strscpy(name, netdev, sizeof(name)) < 0)
        return -ENAMETOOLONG;
    for (char *c = name; *c; c++)
        if (*c == '.')
            *c = '/';
    int n = snprintf(buf, len, "%.*s%s%s", (int)(at - key), key, name, at + mlen);
    if (n < 0 || (size_t)n >= len)
        return -ENAMETOOLONG;
    return 0;
}

void rail_sysctl_canonical(const char *key, char *buf, size_t len)
{
    const char *at;
    size_t mlen;
    if (!find_marker(key, &at, &mlen)) {
        strscpy(buf, key, len);
        return;
    }
    snprintf(buf, len, "%.*s@rail%s", (int)(at - key), key, at + mlen);
}

/* The kernel's dev_valid_name(), and no "all" or "default": those directories stand for
 * every interface, and a rail key must never reach them. */
static bool usable_name(const char *name)
{
    size_t len = strlen(name);
    if (len == 0 || len >= IFNAMSIZ || streq(name, ".") || streq(name, "..") ||
        streq(name, "all") || streq(name, "default"))
        return false;
    for (const char *c = name; *c; c++)
        if (*c == '/' || *c == ':' || (unsigned char)*c <= ' ' || *c == 0x7f)
            return false;
    return true;
}

void rail_netdevs_add(struct rail_netdevs *r, const char *name)
{
    if (!usable_name(name)) {
        r->n_dropped++;
        return;
    }
    for (size_t i = 0; i < r->n; i++)
        if (streq(r->name[i], name))
            return;
    if (r->n >= RAIL_SYSCTL_MAX_NETDEVS) {
        r->n_dropped++;
        return;
    }
    strscpy(r->name[r->n++], name, IFNAMSIZ);
}

void rail_netdevs_from_inventory(const struct inventory *inv, struct rail_netdevs *ret)
{
    memset(ret, 0, sizeof(*ret));
    for (size_t i = 0; i < inv->n_rails; i++)
        if (inv->rails[i].netdev.present && inv->rails[i].netdev.name[0])
            rail_netdevs_add(ret, inv->rails[i].netdev.name);
}
