/* SPDX-License-Identifier: ISC */
/* The configured peers on the live node: merged, this node among them, and resolved. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "macro.h"
#include "peers.h"
#include "fileio.h"
#include "strutil.h"

int peers_load(const struct policy *p, struct peer_list *ret, char *err, size_t err_len)
{
    struct peer_list l = { 0 };
    int r = 0;
    err[0] = '\0';
    for (size_t i = 0; i < p->probes.peers.n_hosts && r == 0; i++)
        r = peer_list_add(&l, p->probes.peers.hosts[i]);
    if (r < 0) {
        snprintf(err, err_len, "%s", errno_text(-r));
        peer_list_done(&l);
        return r;
    }
    if (p->probes.peers.file) {
        _cleanup_free_ char *text = NULL;
        struct peer_list f = { 0 };
        char why[160];
        size_t len;
        r = read_file_full(p->probes.peers.file, PEERS_FILE_MAX, &text, &len);
        if (r < 0)
            snprintf(err, err_len, "%s: %s", p->probes.peers.file, errno_text(-r));
        else if ((r = peer_list_parse(text, len, &f, why, sizeof(why))) < 0)
            snprintf(err, err_len, "%s: %s", p->probes.peers.file, why);
        for (size_t i = 0; i < f.n && r == 0; i++)
            r = peer_list_add(&l, f.hosts[i]);
        peer_list_done(&f);
    }
    *ret = l;
    return r;
}

bool peers_is_self(const char *host, void *unused)
{
    struct utsname u;
    uint8_t want[16];
    int family = AF_INET6;
    (void)unused;
    if (uname(&u) == 0) {
        size_t short_len = strcspn(u.nodename, ".");
        if (streq(host, u.nodename) ||
            (strlen(host) == short_len && strncmp(host, u.nodename, short_len) == 0))
            return true;
    }
    if (inet_pton(AF_INET, host, want) == 1)
        family = AF_INET;
    else if (inet_pton(AF_INET6, host, want) != 1)
        return false;
    struct ifaddrs *all, *i;
    bool found = false;
    if (getifaddrs(&all) < 0)
        return false;
    for (i = all; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != family)
            continue;
        const void *a = family == AF_INET ? (const void *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr
                                          : (const void *)&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
        found = memcmp(a, want, family == AF_INET ? 4 : 16) == 0;
    }
    freeifaddrs(all);
    return found;
}

size_t peers_neighbours(const struct peer_list *l, size_t k, size_t *ret)
{
    struct utsname u;
    return peer_list_neighbours(l, uname(&u) == 0 ? u.nodename : "", peers_is_self, NULL, k, ret);
}

static bool same_subnet(const uint8_t *a, const uint8_t *b, unsigned prefix)
{
    for (unsigned bit = 0; bit < prefix; bit++)
        if ((a[bit / 8] ^ b[bit / 8]) & (0x80 >> (bit % 8)))
            return false;
    return true;
}

int peers_resolve(const char *host, int family, const uint8_t *src, unsigned prefix,
                  uint8_t ret[16], char *err, size_t err_len)
{
    struct addrinfo hints = { .ai_family = family, .ai_socktype = SOCK_STREAM }, *res, *a;
    int r = getaddrinfo(host, NULL, &hints, &res);
    if (r != 0) {
        snprintf(err, err_len, "cannot resolve %s: %s", host, gai_strerror(r));
        return -EHOSTUNREACH;
    }
    bool have = false;
    for (a = res; a; a = a->ai_next) {
        const uint8_t *x = family == AF_INET ? (const uint8_t *)&((struct sockaddr_in *)a->ai_addr)->sin_addr
                                             : (const uint8_t *)&((struct sockaddr_in6 *)a->ai_addr)->sin6_addr;
        bool near = src && prefix && same_subnet(x, src, prefix);
        if (!have || near) {
            memset(ret, 0, 16);
            memcpy(ret, x, family == AF_INET ? 4 : 16);
            have = true;
        }
        if (near)
            break;
    }
    freeaddrinfo(res);
    if (!have) {
        snprintf(err, err_len, "%s has no %s address", host, family == AF_INET ? "IPv4" : "IPv6");
        return -EHOSTUNREACH;
    }
    return 0;
}

size_t peers_resolve_all(const char *host, uint8_t (*ret)[16], size_t max)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *a;
    size_t n = 0;
    if (getaddrinfo(host, NULL, &hints, &res) != 0)
        return 0;
    for (a = res; a && n < max; a = a->ai_next) {
        memset(ret[n], 0, 16);
        if (a->ai_family == AF_INET) {
            ret[n][10] = ret[n][11] = 0xff;
            memcpy(ret[n] + 12, &((struct sockaddr_in *)a->ai_addr)->sin_addr, 4);
        } else {
            memcpy(ret[n], &((struct sockaddr_in6 *)a->ai_addr)->sin6_addr, 16);
        }
        n++;
    }
    freeaddrinfo(res);
    return n;
}
