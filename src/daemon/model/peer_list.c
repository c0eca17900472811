/* SPDX-License-Identifier: ISC */
/* The peers a node probes, and its k neighbours among them. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "peer_list.h"

static bool valid_label(const char *s, size_t len)
{
    if (len == 0 || len > 63 || s[0] == '-' || s[len - 1] == '-')
        return false;
    for (size_t i = 0; i < len; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-", s[i]))
            return false;
    return true;
}

bool peer_host_valid(const char *s)
{
    unsigned char buf[16];
    size_t len = strlen(s);
    if (len == 0 || len > PEER_HOST_MAX)
        return false;
    if (inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1)
        return true;
    if (s[len - 1] == '.')      /* a fully qualified name's root */
        len--;
    for (size_t start = 0; start <= len;) {
        const char *dot = memchr(s + start, '.', len - start);
        size_t end = dot ? (size_t)(dot - s) : len;
        if (!valid_label(s + start, end - start))
            return false;
        start = end + 1;
    }
    return true;
}

static int find(const struct peer_list *l, const char *host, bool *found)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(l->hosts[mid], host);
        if (c == 0) {
            *found = true;
            return (int)mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return (int)lo;
}

int peer_list_add(struct peer_list *l, const char *host)
{
    bool found;
    int at = find(l, host, &found);
    if (found)
        return 0;
    int r = GROW_ARRAY(l->hosts, l->cap, l->n + 1, PEERS_MAX);
    if (r < 0)
        return r == -EFBIG ? -E2BIG : r;
    char *copy = strdup(host);
    if (!copy)
        return -ENOMEM;
    memmove(&l->hosts[at + 1], &l->hosts[at], (l->n - (size_t)at) * sizeof(*l->hosts));
    l->hosts[at] = copy;
    l->n++;
    return 0;
}

void peer_list_done(struct peer_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->hosts[i]);
    free(l->hosts);
    l->hosts = NULL;
    l->n = l->cap = 0;
}

int peer_list_parse(const char *text, size_t len, struct peer_list *ret, char *err, size_t err_len)
{
    struct peer_list l = { 0 };
    size_t line = 0;
    if (len > PEERS_FILE_MAX) {
        snprintf(err, err_len, "larger than %d bytes", PEERS_FILE_MAX);
        return -EFBIG;
    }
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        char host[PEER_HOST_MAX + 2];
        size_t a = pos, b;
        line++;
        while (a < end && (text[a] == ' ' || text[a] == '\t' || text[a] == '\r'))
            a++;
        for (b = a; b < end && text[b] != ' ' && text[b] != '\t' && text[b] != '\r' && text[b] != '#'; b++)
            ;
        size_t rest = b;
        while (rest < end && (text[rest] == ' ' || text[rest] == '\t' || text[rest] == '\r'))
            rest++;
        pos = end + 1;
        if (a == b && (rest == end || text[rest] == '#'))
            continue;           /* blank or a comment */
        if ((rest < end && text[rest] != '#') || b - a > PEER_HOST_MAX) {
            snprintf(err, err_len, "line %zu: one host per line (a name or an address, then "
                     "an optional '# comment')", line);
            peer_list_done(&l);
            return -EINVAL;
        }
        memcpy(host, text + a, b - a);
        host[b - a] = '\0';
        if (strlen(host) != b - a || !peer_host_valid(host)) {
            snprintf(err, err_len, "line %zu: not a host name or an IP address", line);
            peer_list_done(&l);
            return -EINVAL;
        }
        int r = peer_list_add(&l, host);
        if (r < 0) {
            snprintf(err, err_len, r == -E2BIG ? "more than %d hosts" : "out of memory", PEERS_MAX);
            peer_list_done(&l);
            return r;
        }
    }
    *ret = l;
    return 0;
}

size_t peer_list_neighbours(const struct peer_list *l, const char *self_name,
                            bool (*is_self)(const char *host, void *data), void *data,
                            size_t k, size_t *ret)
{
    size_t self = l->n, start, n = 0;
    for (size_t i = 0; i < l->n && self == l->n; i++)
        if (is_self && is_self(l->hosts[i], data))
            self = i;
    if (self == l->n) {
        bool found;
        size_t at = (size_t)find(l, self_name ? self_name : "", &found);
        if (found)
            self = at;
        start = at;
    } else {
        start = self + 1;
    }
    if (self < l->n)
        start = self + 1;
    for (size_t i = 0; i < l->n && n < k; i++) {
        size_t at = (start + i) % l->n;
        if (at != self)
            ret[n++] = at;
    }
    return n;
}
