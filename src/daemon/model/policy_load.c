/* SPDX-License-Identifier: ISC */
/* Loads fabtune.yaml into struct policy, driven by the schema table, with precise errors. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "macro.h"
#include "peer_list.h"
#include "policy.h"
#include "policy_schema.h"
#include "rail_sysctl.h"
#include "strutil.h"

#define PATH_LEN 128
/* The most keys of one mapping in the schema (rails.cc.params has 21). */
#define MAX_CHILDREN 32

struct loader {
    yaml_document_t doc;
    const char *text;
    size_t len;
    const char *filename;
    struct policy_errors *errs;
    const yaml_node_t *subnet;  /* rails.roce.subnet's node, for the check across keys */
    bool sysctl_listed;         /* tuning.sysctl is in the file (even empty) */
    const struct policy_host_check *host;   /* the caller's checks on this host, or NULL */
};

/* Keys of one rails.select entry; offsets are from struct rail_ref. */
static const struct policy_field rail_entry_fields[] = {
    { "device", FIELD_NAME, offsetof(struct rail_ref, device), .max = POLICY_NAME_MAX - 1 },
    { "port", FIELD_UINT, offsetof(struct rail_ref, port), .min = 1, .max = 255 },
    { NULL, 0 },
};

static void add_error(struct loader *l, size_t line, size_t col, const char *msg)
{
    if (l->errs->n >= POLICY_MAX_ERRORS) {
        l->errs->n_dropped++;
        return;
    }

    /* Find the source line, to show it with a caret under the column. */
    const char *start = l->text, *end = l->text + l->len;
    bool reached = true;
    for (size_t i = 0; i < line && reached; i++) {
        const char *nl = memchr(start, '\n', (size_t)(end - start));
        reached = nl != NULL;
        start = nl ? nl + 1 : end;
    }
    const char *stop = memchr(start, '\n', (size_t)(end - start));
    size_t llen = (size_t)((stop ? stop : end) - start);
    if (llen && start[llen - 1] == '\r')
        llen--;

    char caret[256];
    size_t n = 0;
    for (; n < col && n < llen && n < sizeof(caret) - 2; n++)
        caret[n] = start[n] == '\t' ? '\t' : ' ';
    caret[n++] = '^';
    caret[n] = '\0';

    char *out = NULL;
    int r = reached && l->len > 0
        ? asprintf(&out, "%s:%zu:%zu: %s\n%.*s\n%s", l->filename, line + 1, col + 1, msg,
                   (int)llen, start, caret)
        : asprintf(&out, "%s:%zu:%zu: %s", l->filename, line + 1, col + 1, msg);
    if (r >= 0)
        l->errs->msgs[l->errs->n++] = out;
}

__attribute__((format(printf, 3, 4)))
static void error_at(struct loader *l, const yaml_node_t *node, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    add_error(l, node->start_mark.line, node->start_mark.column, msg);
}

/* The caller's check of a name or path against this host, at the value's node. */
static bool host_accepts(struct loader *l, const yaml_node_t *n, const char *path, const char *value)
{
    char why[512] = "";
    if (!l->host || l->host->check(l->host->userdata, path, value, why, sizeof(why)) == 0)
        return true;
    error_at(l, n, "%s", why[0] ? why : "refused on this host");
    return false;
}

static yaml_node_t *node_at(struct loader *l, int index)
{
    return yaml_document_get_node(&l->doc, index);
}

/* The node at a path of keys from n (NULL-terminated), or NULL where one is missing. */
static yaml_node_t *node_by_keys(struct loader *l, yaml_node_t *n, const char *const *keys)
{
    for (; n && *keys; keys++) {
        yaml_node_t *next = NULL;
        if (n->type != YAML_MAPPING_NODE)
            return NULL;
        for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top && !next; pr++) {
            yaml_node_t *k = node_at(l, pr->key);
            if (k && k->type == YAML_SCALAR_NODE && streq((const char *)k->data.scalar.value, *keys))
                next = node_at(l, pr->value);
        }
        n = next;
    }
    return n;
}

static bool is_plain(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static bool is_null(const yaml_node_t *n)
{
    if (!is_plain(n))
        return false;
    const char *s = (const char *)n->data.scalar.value;
    return !*s || streq(s, "~") || streq(s, "null") || streq(s, "Null") || streq(s, "NULL");
}

/* A short description of a node for messages: 'text' for scalars, else its kind. */
static const char *describe(const yaml_node_t *n, char *buf, size_t len)
{
    if (n->type == YAML_MAPPING_NODE)
        return "a mapping";
    if (n->type == YAML_SEQUENCE_NODE)
        return "a sequence";
    const char *s = (const char *)n->data.scalar.value;
    if (is_null(n))
        return "null";
    snprintf(buf, len, "%s'%.40s%s'", is_plain(n) ? "" : "the quoted string ", s,
             strlen(s) > 40 ? "..." : "");
    return buf;
}

/* The scalar's text, or NULL (with an error) for another node kind or an embedded NUL. */
static const char *scalar_of(struct loader *l, const yaml_node_t *n, const char *path,
                             const char *what)
{
    char d[80];
    if (n->type != YAML_SCALAR_NODE) {
        error_at(l, n, "expected %s for %s, got %s", what, path, describe(n, d, sizeof(d)));
        return NULL;
    }
    if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length) {
        error_at(l, n, "value for %s contains a NUL byte", path);
        return NULL;
    }
    return (const char *)n->data.scalar.value;
}

static void join_path(char *buf, const char *parent, const char *name)
{
    snprintf(buf, PATH_LEN, "%s%s%s", parent, *parent ? "." : "", name);
}

/* Parses a plain decimal integer; false (no error recorded) if it is not one. */
static bool parse_int(const yaml_node_t *n, long long *ret)
{
    const char *s = (const char *)n->data.scalar.value;
    const char *digits = s[0] == '-' ? s + 1 : s;
    if (!is_plain(n) || !*digits || strspn(digits, "0123456789") != strlen(digits))
        return false;
    errno = 0;
    *ret = strtoll(s, NULL, 10);
    return errno == 0;
}

static void load_integer(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                         const char *path, long long *ret, bool *ok)
{
    char d[80];
    long long v;
    *ok = false;
    if (!scalar_of(l, n, path, "an integer"))
        return;
    if (!parse_int(n, &v)) {
        const char *s = (const char *)n->data.scalar.value;
        size_t digits = strspn(s[0] == '-' ? s + 1 : s, "0123456789");
        if (is_plain(n) && digits > 18 && digits == strlen(s[0] == '-' ? s + 1 : s))
            error_at(l, n, "value %.40s out of range for %s (%lld..%lld)", s, path,
                     (long long)f->min, (long long)f->max);
        else
            error_at(l, n, "expected an integer for %s, got %s", path, describe(n, d, sizeof(d)));
        return;
    }
    if (v < f->min || v > f->max) {
        error_at(l, n, "value %lld out of range for %s (%lld..%lld)", v, path,
                 (long long)f->min, (long long)f->max);
        return;
    }
    *ret = v;
    *ok = true;
}

static void load_uint(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                      const char *path, char *base)
{
    long long v;
    bool ok;
    if (is_null(n) && f->nullable) {
        *FIELD_AT(base, f, uint32_t) = POLICY_COUNT_UNSET;
        return;
    }
    load_integer(l, f, n, path, &v, &ok);
    if (ok)
        *FIELD_AT(base, f, uint32_t) = (uint32_t)v;
}

static void load_version(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                         const char *path, char *base)
{
    char d[80];
    long long v;
    if (!scalar_of(l, n, path, "an integer"))
        return;
    if (!parse_int(n, &v)) {
        error_at(l, n, "expected an integer for version, got %s", describe(n, d, sizeof(d)));
        return;
    }
    if (v != 1) {
        error_at(l, n, "unsupported policy version %lld (this fabtune reads version 1)", v);
        return;
    }
    *FIELD_AT(base, f, uint32_t) = 1;
}

static void load_uint64(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                        const char *path, char *base)
{
    long long v;
    bool ok;
    load_integer(l, f, n, path, &v, &ok);
    if (ok)
        *FIELD_AT(base, f, uint64_t) = (uint64_t)v;
}

static void load_ib_mtu(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                        const char *path, char *base)
{
    static const struct policy_field any = { .min = 0, .max = 4096 };
    long long v;
    bool ok;
    load_integer(l, &any, n, path, &v, &ok);
    if (!ok)
        return;
    if (v != 0 && v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096) {
        error_at(l, n, "invalid RDMA MTU %lld for %s (expected 0, 256, 512, 1024, 2048 or 4096)",
                 v, path);
        return;
    }
    *FIELD_AT(base, f, uint32_t) = (uint32_t)v;
}

static void load_double(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                        const char *path, char *base)
{
    char d[80];
    const char *s = scalar_of(l, n, path, "a number");
    if (!s)
        return;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!is_plain(n) || !*s || *end || errno || !isfinite(v) ||
        strspn(s, "0123456789.eE+-") != strlen(s)) {
        error_at(l, n, "expected a number for %s, got %s", path, describe(n, d, sizeof(d)));
        return;
    }
    if (v < f->fmin || v > f->fmax) {
        error_at(l, n, "value %s out of range for %s (%g..%g)", s, path, f->fmin, f->fmax);
        return;
    }
    *FIELD_AT(base, f, double) = v;
}

static void load_bool(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                      const char *path, char *base)
{
    char d[80];
    const char *s = scalar_of(l, n, path, "a boolean (true or false)");
    if (!s)
        return;
    bool *b = FIELD_AT(base, f, bool);
    if (is_plain(n) && (streq(s, "true") || streq(s, "True") || streq(s, "TRUE")))
        *b = true;
    else if (is_plain(n) && (streq(s, "false") || streq(s, "False") || streq(s, "FALSE")))
        *b = false;
    else
        error_at(l, n, "expected a boolean (true or false) for %s, got %s", path,
                 describe(n, d, sizeof(d)));
}

static void load_duration(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                          const char *path, char *base)
{
    char lo[32], hi[32];
    usec_t v;
    const char *s = scalar_of(l, n, path, "a duration");
    if (!s)
        return;
    int r = duration_parse(s, &v);
    if (r == -ERANGE || (r == 0 && (v < (usec_t)f->min || v > (usec_t)f->max))) {
        error_at(l, n, "duration %s out of range for %s (%s..%s)", s, path,
                 duration_format((usec_t)f->min, lo, sizeof(lo)),
                 duration_format((usec_t)f->max, hi, sizeof(hi)));
        return;
    }
    if (r < 0) {
        error_at(l, n, "invalid duration '%.40s' for %s (write e.g. 250ms, 30s, 10m)", s, path);
        return;
    }
    *FIELD_AT(base, f, usec_t) = v;
}

static void enum_list(const char *const *names, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; names[i] && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", names[i]);
}

static void load_enum(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                      const char *path, char *base)
{
    char list[128];
    size_t count = 0;
    const char *s = scalar_of(l, n, path, "a string");
    if (!s)
        return;
    for (; f->names[count]; count++)
        if (streq(s, f->names[count])) {
            *FIELD_AT(base, f, int) = (int)count;
            return;
        }
    enum_list(f->names, list, sizeof(list));
    const char *hint = str_closest(s, f->names, count);
    if (hint)
        error_at(l, n, "invalid value '%.40s' for %s (did you mean '%s'? expected one of: %s)",
                 s, path, hint, list);
    else
        error_at(l, n, "invalid value '%.40s' for %s (expected one of: %s)", s, path, list);
}

static void load_path(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                      const char *path, char *base)
{
    char **dst = FIELD_AT(base, f, char *);
    if (is_null(n) && f->nullable) {
        free(*dst);
        *dst = NULL;
        return;
    }
    char d[80];
    const char *s = scalar_of(l, n, path, "an absolute path");
    if (!s)
        return;
    size_t max = f->max ? (size_t)f->max : 4095;
    if (s[0] != '/' || is_null(n)) {
        error_at(l, n, "%s must be an absolute path%s, got %s", path,
                 f->nullable ? " or null" : "", describe(n, d, sizeof(d)));
        return;
    }
    if (strlen(s) > max) {
        error_at(l, n, "path for %s is too long (%zu bytes at most)", path, max);
        return;
    }
    if (!host_accepts(l, n, path, s))
        return;
    char *copy = strdup(s);
    if (!copy) {
        error_at(l, n, "out of memory");
        return;
    }
    free(*dst);
    *dst = copy;
}

/* A group or device name: letters, digits, '_', '-', '.'; not starting with '-' or '.'. */
static bool valid_name(const char *s, size_t max)
{
    size_t len = strlen(s);
    return len > 0 && len <= max && s[0] != '-' && s[0] != '.' &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == len;
}

static void load_name(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                      const char *path, char *base)
{
    const char *s = scalar_of(l, n, path, "a name");
    if (!s)
        return;
    size_t max = f->max ? (size_t)f->max : 32;
    if (is_null(n) || !valid_name(s, max)) {
        error_at(l, n, "invalid name '%.40s' for %s (letters, digits, '_', '-', '.'; "
                 "%zu characters at most)", s, path, max);
        return;
    }
    if (!host_accepts(l, n, path, s))
        return;
    if (f->max) {   /* a fixed array (rail device name) */
        memcpy(FIELD_AT(base, f, char), s, strlen(s) + 1);
        return;
    }
    char *copy = strdup(s);
    if (!copy)
        return;
    free(*FIELD_AT(base, f, char *));
    *FIELD_AT(base, f, char *) = copy;
}

/* A glob on a switch's name or port: printable ASCII, no space, where {index} stands for
 * the rail's index; null clears it. */
static void load_pattern(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                         const char *path, char *base)
{
    char **dst = FIELD_AT(base, f, char *);
    if (is_null(n)) {
        free(*dst);
        *dst = NULL;
        return;
    }
    const char *s = scalar_of(l, n, path, "a pattern");
    if (!s)
        return;
    size_t len = strlen(s);
    bool ok = len > 0 && len <= 128;
    for (size_t i = 0; ok && i < len; i++)
        ok = s[i] > 0x20 && s[i] < 0x7f;
    if (!ok) {
        error_at(l, n, "invalid pattern '%.40s' for %s (1 to 128 printable ASCII characters, "
                 "no spaces; {index} is the rail's index)", s, path);
        return;
    }
    char *copy = strdup(s);
    if (!copy) {
        error_at(l, n, "out of memory");
        return;
    }
    free(*dst);
    *dst = copy;
}

static void load_cidr(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                      const char *path, char *base)
{
    struct cidr *dst = FIELD_AT(base, f, struct cidr);
    char fixed[64];
    if (is_null(n)) {
        memset(dst, 0, sizeof(*dst));
        return;
    }
    const char *s = scalar_of(l, n, path, "a CIDR subnet");
    if (!s)
        return;
    struct cidr c;
    int r = cidr_parse(s, &c);
    if (r == -EDOM)
        error_at(l, n, "CIDR subnet '%.50s' for %s has host bits set (did you mean '%s'?)",
                 s, path, cidr_format(&c, fixed, sizeof(fixed)));
    else if (r < 0)
        error_at(l, n, "invalid CIDR subnet '%.50s' for %s (write e.g. 10.0.0.0/8 or fd00::/64)",
                 s, path);
    else {
        *dst = c;
        if (streq(path, "rails.roce.subnet"))
            l->subnet = n;
    }
}

/* An int32 in min..max, or WORD (plain), which stores WORD_VALUE. */
static void load_int_or_word(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                             const char *path, char *base, const char *word, int32_t word_value)
{
    char d[80], want[32];
    long long v;
    snprintf(want, sizeof(want), "'%s' or an integer", word);
    if (!scalar_of(l, n, path, want))
        return;
    if (is_plain(n) && streq((const char *)n->data.scalar.value, word)) {
        *FIELD_AT(base, f, int32_t) = word_value;
        return;
    }
    if (!parse_int(n, &v)) {
        error_at(l, n, "expected %s for %s, got %s", want, path, describe(n, d, sizeof(d)));
        return;
    }
    if (v < f->min || v > f->max) {
        error_at(l, n, "value %lld out of range for %s (%lld..%lld)", v, path,
                 (long long)f->min, (long long)f->max);
        return;
    }
    *FIELD_AT(base, f, int32_t) = (int32_t)v;
}

static void load_gid_index(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                           const char *path, char *base)
{
    load_int_or_word(l, f, n, path, base, "auto", POLICY_GID_INDEX_AUTO);
}

static void load_dscp(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                      const char *path, char *base)
{
    load_int_or_word(l, f, n, path, base, "default", POLICY_DSCP_DEFAULT);
}

static void load_map(struct loader *l, const yaml_node_t *node, const struct policy_field *fields,
                     const char *path, char *base);

static void load_rail_entry(struct loader *l, const yaml_node_t *n, const char *path,
                            struct policy *p)
{
    struct rail_ref r = { .port = 0 };
    size_t before = l->errs->n + l->errs->n_dropped;

    load_map(l, n, rail_entry_fields, path, (char *)&r);
    if (l->errs->n + l->errs->n_dropped != before)
        return;
    if (!r.device[0] || !r.port) {
        error_at(l, n, "%s needs both 'device' and 'port'", path);
        return;
    }
    for (size_t i = 0; i < p->rails.n_list; i++)
        if (streq(p->rails.list[i].device, r.device) && p->rails.list[i].port == r.port) {
            error_at(l, n, "duplicate rail %s/%u in rails.select", r.device, r.port);
            return;
        }
    p->rails.list[p->rails.n_list++] = r;
}

static void load_rail_select(struct loader *l, const struct policy_field *f,
                             const yaml_node_t *n, const char *path, char *base)
{
    struct policy *p = (void *)base;
    char d[80], item[PATH_LEN + 24];

    if (n->type == YAML_SCALAR_NODE && is_plain(n) && streq((const char *)n->data.scalar.value, "all")) {
        p->rails.select = RAIL_SELECT_ALL;
        p->rails.n_list = 0;
        return;
    }
    if (n->type != YAML_SEQUENCE_NODE) {
        error_at(l, n, "invalid value %s for %s (expected 'all' or a list of "
                 "{device: NAME, port: N})", describe(n, d, sizeof(d)), path);
        return;
    }
    yaml_node_item_t *it = n->data.sequence.items.start, *top = n->data.sequence.items.top;
    if (it == top) {
        error_at(l, n, "%s lists no rails (write 'all' or list at least one)", path);
        return;
    }
    p->rails.select = RAIL_SELECT_LIST;
    p->rails.n_list = 0;
    for (size_t i = 0; it < top; it++, i++) {
        const yaml_node_t *e = node_at(l, *it);
        if (i >= POLICY_MAX_RAILS) {
            error_at(l, e, "%s lists more than %d rails", path, POLICY_MAX_RAILS);
            return;
        }
        snprintf(item, sizeof(item), "%s[%zu]", path, i);
        load_rail_entry(l, e, item, p);
    }
}

static bool valid_sysctl_key(const char *k)
{
    size_t len = strlen(k);
    return len > 0 && len <= POLICY_SYSCTL_KEY_MAX && k[0] != '.' && k[len - 1] != '.' && !strstr(k, "..") &&
           strspn(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.@") == len;
}

static void load_sysctl_pair(struct loader *l, const yaml_node_t *k, const yaml_node_t *v,
                             const char *path, struct policy *p)
{
    char d[80], canon[POLICY_SYSCTL_KEY_MAX + 8], other[POLICY_SYSCTL_KEY_MAX + 8];
    const char *key = scalar_of(l, k, path, "a sysctl key"), *why;
    enum rail_sysctl_scope scope;
    if (!key)
        return;
    if (!valid_sysctl_key(key)) {
        error_at(l, k, "invalid sysctl key '%.60s' in %s (dotted, at most %d characters, "
                 "e.g. net.core.rmem_max)", key, path, POLICY_SYSCTL_KEY_MAX);
        return;
    }
    if (rail_sysctl_parse(key, POLICY_SYSCTL_KEY_MAX, &scope, &why) < 0) {
        error_at(l, k, "invalid per-rail sysctl key '%.60s' in %s: %s", key, path, why);
        return;
    }
    if (!policy_sysctl_key_allowed(key)) {
        error_at(l, k, "sysctl key '%.60s' is not allowed (allowed prefixes: net., vm., "
                 "kernel.numa_balancing)", key);
        return;
    }
    if (!host_accepts(l, k, "tuning.sysctl", key))     /* --check-config: on this host */
        return;
    rail_sysctl_canonical(key, canon, sizeof(canon));
    for (size_t i = 0; i < p->tuning.n_sysctl; i++) {
        rail_sysctl_canonical(p->tuning.sysctl[i].key, other, sizeof(other));
        if (streq(canon, other)) {
            if (streq(p->tuning.sysctl[i].key, key))
                error_at(l, k, "duplicate key '%.60s' in %s", key, path);
            else
                error_at(l, k, "duplicate key '%.60s' in %s: '%.60s' names the same "
                         "sysctls", key, path, p->tuning.sysctl[i].key);
            return;
        }
    }
    if (v->type != YAML_SCALAR_NODE || is_null(v)) {
        error_at(l, v, "expected a value for sysctl key '%.60s', got %s", key,
                 describe(v, d, sizeof(d)));
        return;
    }
    const char *val = scalar_of(l, v, path, "a value");
    if (!val)
        return;
    if (!*val || strlen(val) > POLICY_SYSCTL_VALUE_MAX || strpbrk(val, "\n\r")) {
        error_at(l, v, "invalid value for sysctl key '%.60s' (one line, 1..%d characters)",
                 key, POLICY_SYSCTL_VALUE_MAX);
        return;
    }
    if (p->tuning.n_sysctl >= POLICY_MAX_SYSCTLS) {
        error_at(l, k, "%s has more than %d keys", path, POLICY_MAX_SYSCTLS);
        return;
    }
    struct sysctl_setting *s = &p->tuning.sysctl[p->tuning.n_sysctl];
    s->key = strdup(key);
    s->value = strdup(val);
    if (!s->key || !s->value) {
        free(s->key);
        free(s->value);
        error_at(l, k, "out of memory");
        return;
    }
    p->tuning.n_sysctl++;
}

static void load_sysctl_map(struct loader *l, const struct policy_field *f,
                            const yaml_node_t *n, const char *path, char *base)
{
    struct policy *p = (void *)base;
    char d[80];

    /* The file's map replaces the built-in profile whole; it does not merge into it. */
    l->sysctl_listed = true;
    for (size_t i = 0; i < p->tuning.n_sysctl; i++) {
        free(p->tuning.sysctl[i].key);
        free(p->tuning.sysctl[i].value);
    }
    p->tuning.n_sysctl = 0;
    if (is_null(n))
        return;
    if (n->type != YAML_MAPPING_NODE) {
        error_at(l, n, "expected a mapping for %s, got %s", path, describe(n, d, sizeof(d)));
        return;
    }
    for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++)
        load_sysctl_pair(l, node_at(l, pr->key), node_at(l, pr->value), path, p);
}

/* probes.peers.hosts: a list of host names or addresses, kept sorted without duplicates. */
static void load_host_list(struct loader *l, const yaml_node_t *n, const char *path, char *base)
{
    struct policy *p = (void *)base;
    struct peer_list list = { 0 };
    char d[80];

    if (n->type != YAML_SEQUENCE_NODE) {
        error_at(l, n, "invalid value %s for %s (expected a list of host names or addresses)",
                 describe(n, d, sizeof(d)), path);
        return;
    }
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        const yaml_node_t *e = node_at(l, *it);
        const char *s = scalar_of(l, e, path, "a host name or an address");
        if (!s)
            continue;
        if (is_null(e) || !peer_host_valid(s)) {
            error_at(l, e, "invalid host '%.64s' in %s (a host name, an IPv4 or an IPv6 address)",
                     s, path);
            continue;
        }
        int r = peer_list_add(&list, s);
        if (r < 0) {
            error_at(l, e, r == -E2BIG ? "%s lists more than %d hosts" : "%s: out of memory",
                     path, PEERS_MAX);
            break;
        }
    }
    for (size_t i = 0; i < p->probes.peers.n_hosts; i++)
        free(p->probes.peers.hosts[i]);
    free(p->probes.peers.hosts);
    p->probes.peers.hosts = list.hosts;
    p->probes.peers.n_hosts = list.n;
}

static void load_value(struct loader *l, const struct policy_field *f, const yaml_node_t *n,
                       const char *path, char *base)
{
    switch (f->kind) {
    case FIELD_MAP:         load_map(l, n, f->children, path, base); break;
    case FIELD_VERSION:     load_version(l, f, n, path, base); break;
    case FIELD_UINT:        load_uint(l, f, n, path, base); break;
    case FIELD_IB_MTU:      load_ib_mtu(l, f, n, path, base); break;
    case FIELD_DOUBLE:      load_double(l, f, n, path, base); break;
    case FIELD_BOOL:        load_bool(l, f, n, path, base); break;
    case FIELD_DURATION:    load_duration(l, f, n, path, base); break;
    case FIELD_ENUM:        load_enum(l, f, n, path, base); break;
    case FIELD_PATH:        load_path(l, f, n, path, base); break;
    case FIELD_NAME:        load_name(l, f, n, path, base); break;
    case FIELD_PATTERN:     load_pattern(l, f, n, path, base); break;
    case FIELD_CIDR:        load_cidr(l, f, n, path, base); break;
    case FIELD_GID_INDEX:   load_gid_index(l, f, n, path, base); break;
    case FIELD_DSCP:        load_dscp(l, f, n, path, base); break;
    case FIELD_UINT64:      load_uint64(l, f, n, path, base); break;
    case FIELD_RAIL_SELECT: load_rail_select(l, f, n, path, base); break;
    case FIELD_SYSCTL_MAP:  load_sysctl_map(l, f, n, path, base); break;
    case FIELD_HOST_LIST:   load_host_list(l, n, path, base); break;
    }
}

static void unknown_key(struct loader *l, const yaml_node_t *k, const char *name,
                        const struct policy_field *fields, const char *path)
{
    const char *names[MAX_CHILDREN + 1];
    char list[256];
    size_t n = 0;
    for (; fields[n].name && n < MAX_CHILDREN; n++)
        names[n] = fields[n].name;
    names[n] = NULL;

    char where[PATH_LEN + 8];
    snprintf(where, sizeof(where), *path ? "in %s" : "at top level", path);
    const char *hint = str_closest(name, names, n);
    enum_list(names, list, sizeof(list));
    if (hint)
        error_at(l, k, "unknown key '%.60s' %s (did you mean '%s'?)", name, where, hint);
    else
        error_at(l, k, "unknown key '%.60s' %s (expected one of: %s)", name, where, list);
}

static void load_map(struct loader *l, const yaml_node_t *node, const struct policy_field *fields,
                     const char *path, char *base)
{
    size_t first_line[MAX_CHILDREN] = { 0 };
    char d[80], child[PATH_LEN];

    if (node->type != YAML_MAPPING_NODE) {
        error_at(l, node, "expected a mapping for %s, got %s", path, describe(node, d, sizeof(d)));
        return;
    }
    for (yaml_node_pair_t *pr = node->data.mapping.pairs.start;
         pr < node->data.mapping.pairs.top; pr++) {
        const yaml_node_t *k = node_at(l, pr->key), *v = node_at(l, pr->value);
        if (k->type != YAML_SCALAR_NODE) {
            error_at(l, k, "keys must be strings (in %s)", *path ? path : "top level");
            continue;
        }
        const char *name = (const char *)k->data.scalar.value;
        size_t i = 0;
        while (fields[i].name && !streq(fields[i].name, name))
            i++;
        if (!fields[i].name) {
            unknown_key(l, k, name, fields, path);
            continue;
        }
        join_path(child, path, name);
        if (i >= MAX_CHILDREN) {     /* a schema map past the bound: no duplicate check */
            load_value(l, &fields[i], v, child, base);
            continue;
        }
        if (first_line[i]) {
            error_at(l, k, "duplicate key '%s' (first set at line %zu)", child, first_line[i]);
            continue;
        }
        first_line[i] = k->start_mark.line + 1;
        load_value(l, &fields[i], v, child, base);
    }
}

static void syntax_error(struct loader *l, const yaml_parser_t *parser)
{
    char msg[512];
    if (parser->context)
        snprintf(msg, sizeof(msg), "YAML syntax error: %s (%s at line %zu)",
                 parser->problem ? parser->problem : "unknown problem", parser->context,
                 parser->context_mark.line + 1);
    else
        snprintf(msg, sizeof(msg), "YAML syntax error: %s",
                 parser->problem ? parser->problem : "unknown problem");
    add_error(l, parser->problem_mark.line, parser->problem_mark.column, msg);
}

static void load_document(struct loader *l, yaml_parser_t *parser, struct policy *p)
{
    /* An empty file, or one of comments alone, has no root: the defaults, as "version: 1"
     * is (version defaults to 1), not an error. */
    yaml_node_t *root = yaml_document_get_root_node(&l->doc);
    if (root && root->type != YAML_MAPPING_NODE) {
        char d[80];
        error_at(l, root, "the policy must be a mapping of keys at the top level, not %s",
                 describe(root, d, sizeof(d)));
        return;
    }
    if (root)
        load_map(l, root, policy_schema, "", (char *)p);
    /* unreachable_degraded's default follows k: with k 1, one neighbour is all that can be
     * unreachable, and the default 2 would never trip. A value the file gives stays. */
    static const char *const degraded[] = { "probes", "peers", "unreachable_degraded", NULL };
    if (!node_by_keys(l, root, degraded) && p->probes.peers.unreachable_degraded > p->probes.peers.k)
        p->probes.peers.unreachable_degraded = p->probes.peers.k;
    /* Checked once every key is read: the family may come after the subnet. NCCL ignores
     * a range of the other family (inet_pton fails: everything matches), and no GID of
     * the policy's family could be in it. */
    const struct cidr *sub = &p->rails.roce.subnet;
    if (l->subnet && sub->set && sub->family != policy_roce_family(p)) {
        char text[64];
        error_at(l, l->subnet, "rails.roce.subnet %s is an %s range, but rails.roce.address_family "
                 "is %s: no GID could match it (and NCCL would ignore it as NCCL_IB_ADDR_RANGE)",
                 cidr_format(sub, text, sizeof(text)), sub->family == AF_INET ? "IPv4" : "IPv6",
                 p->rails.roce.address_family == ADDR_FAMILY_IPV4 ? "ipv4" : "ipv6");
    }

    yaml_document_t next;
    if (!yaml_parser_load(parser, &next)) {
        syntax_error(l, parser);
        return;
    }
    yaml_node_t *extra = yaml_document_get_root_node(&next);
    if (extra)
        error_at(l, extra, "the policy must be a single YAML document");
    yaml_document_delete(&next);
}

/* A policy that does not list tuning.sysctl keeps the built-in profile (conf/fabtune.yaml):
 * "tuning: {mode: enforce}" enforces it, never nothing. */
static int keep_builtin_profile(struct policy *p, struct policy_errors *errs)
{
    struct policy builtin = { 0 };
    int r = policy_load_builtin(&builtin, errs);
    if (r < 0)
        return r;
    memcpy(p->tuning.sysctl, builtin.tuning.sysctl, sizeof(p->tuning.sysctl));
    p->tuning.n_sysctl = builtin.tuning.n_sysctl;
    builtin.tuning.n_sysctl = 0;        /* the keys and values are p's now */
    policy_done(&builtin);
    return 0;
}

int policy_load_string(const char *text, size_t len, const char *filename,
                       struct policy *ret, struct policy_errors *errs)
{
    return policy_load_string_on_host(text, len, filename, NULL, ret, errs);
}

int policy_load_string_on_host(const char *text, size_t len, const char *filename,
                               const struct policy_host_check *host, struct policy *ret,
                               struct policy_errors *errs)
{
    struct loader l = { .text = text, .len = len, .filename = filename, .errs = errs,
                        .host = host };
    size_t before = errs->n + errs->n_dropped;
    struct policy tmp;
    yaml_parser_t parser;

    if (len > POLICY_MAX_FILE_SIZE) {
        add_error(&l, 0, 0, "the policy is larger than 1 MiB");
        return -EFBIG;
    }
    policy_init_defaults(&tmp);
    if (!yaml_parser_initialize(&parser)) {
        policy_done(&tmp);
        return -ENOMEM;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &l.doc)) {
        syntax_error(&l, &parser);
    } else {
        load_document(&l, &parser, &tmp);
        yaml_document_delete(&l.doc);
    }
    yaml_parser_delete(&parser);

    if (errs->n + errs->n_dropped != before) {
        policy_done(&tmp);
        return -EINVAL;
    }
    int r = l.sysctl_listed || text == policy_builtin_yaml ? 0 : keep_builtin_profile(&tmp, errs);
    if (r < 0) {
        policy_done(&tmp);
        return r;
    }
    sha256_hex(text, len, tmp.digest);
    policy_done(ret);
    *ret = tmp;
    return 0;
}
