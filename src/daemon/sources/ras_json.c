/* SPDX-License-Identifier: ISC */
/* RAS's JSON STATUS into the model (ras_json.h): a recursive reader in which each object's
 * members go to a handler of that object, and every value not wanted is skipped. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "ras_json.h"
#include "strutil.h"

struct jp {
    const char *start, *p, *end;
    unsigned depth;
    bool comma_missing;         /* tolerated: NCCL 2.28.9's missing rank */
    int err;                    /* the first failure: -ENODATA (cut short), -EBADMSG, ... */
    const char *err_at;
};

/* What a document's handlers fill: the reply, the communicator being read, and the rank
 * being read (added to the communicator once its number is known). */
struct jctx {
    struct ras_status *s;
    struct ras_comm *comm;
    struct ras_rank rank;
    bool in_missing;
};

typedef bool (*jp_member_fn)(struct jp *j, const char *key, struct jctx *x);
typedef bool (*jp_element_fn)(struct jp *j, struct jctx *x);

static bool jp_fail(struct jp *j, int err)
{
    if (!j->err) {
        j->err = j->p >= j->end && err == -EBADMSG ? -ENODATA : err;
        j->err_at = j->p;
    }
    return false;
}

static int jp_peek(struct jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
    return j->p < j->end ? (unsigned char)*j->p : -1;
}

static bool jp_eat(struct jp *j, char c)
{
    if (jp_peek(j) != c)
        return jp_fail(j, -EBADMSG);
    j->p++;
    return true;
}

/* One escape after the backslash at *J->p: the character, '?' for one outside ASCII. */
static bool jp_escape(struct jp *j, char *out)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    if (++j->p >= j->end)
        return jp_fail(j, -ENODATA);
    const char *k = strchr(from, *j->p);
    if (*j->p && k) {
        *out = to[k - from];
        j->p++;
        return true;
    }
    if (*j->p != 'u')
        return jp_fail(j, -EBADMSG);
    if (j->end - j->p < 5)
        return jp_fail(j, -ENODATA);
    unsigned v = 0;
    for (int i = 1; i <= 4; i++) {
        char c = j->p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return jp_fail(j, -EBADMSG);
        v = v << 4 | (unsigned)d;
    }
    *out = v >= 0x20 && v < 0x7f ? (char)v : '?';
    j->p += 5;
    return true;
}

/* A string into BUF (cut to fit; BUF NULL: skipped). Control characters are refused. */
static bool jp_string(struct jp *j, char *buf, size_t len)
{
    size_t n = 0;
    if (!jp_eat(j, '"'))
        return false;
    while (j->p < j->end && *j->p != '"') {
        char c = *j->p;
        if ((unsigned char)c < 0x20)
            return jp_fail(j, -EBADMSG);
        if (c == '\\') {
            if (!jp_escape(j, &c))
                return false;
        } else
            j->p++;
        if (buf && n + 1 < len)
            buf[n++] = c;
    }
    if (buf && len)
        buf[n] = '\0';
    return jp_eat(j, '"');
}

/* A number's text: sign, digits, fraction, exponent. */
static bool jp_number_text(struct jp *j, char *buf, size_t len)
{
    size_t n = 0;
    jp_peek(j);
    while (j->p < j->end && *j->p && strchr("+-0123456789.eE", *j->p)) {
        if (n + 1 >= len)
            return jp_fail(j, -EBADMSG);
        buf[n++] = *j->p++;
    }
    buf[n] = '\0';
    if (n == 0)
        return jp_fail(j, -EBADMSG);
    return j->p < j->end || jp_fail(j, -ENODATA);
}

static bool jp_u64(struct jp *j, uint64_t *ret)
{
    char text[32], *end;
    if (!jp_number_text(j, text, sizeof(text)))
        return false;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (text[0] == '-' || *end || errno)
        return jp_fail(j, -EBADMSG);
    *ret = v;
    return true;
}

static bool jp_int(struct jp *j, int *ret)
{
    char text[32], *end;
    if (!jp_number_text(j, text, sizeof(text)))
        return false;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*end || errno || v < -1 || v > INT32_MAX)
        return jp_fail(j, -EBADMSG);
    *ret = (int)v;
    return true;
}

static bool jp_literal(struct jp *j, const char *word)
{
    size_t n = strlen(word);
    jp_peek(j);
    if ((size_t)(j->end - j->p) < n)
        return jp_fail(j, memcmp(j->p, word, (size_t)(j->end - j->p)) ? -EBADMSG : -ENODATA);
    if (memcmp(j->p, word, n) != 0)
        return jp_fail(j, -EBADMSG);
    j->p += n;
    return true;
}

static bool jp_bool(struct jp *j, bool *ret)
{
    *ret = jp_peek(j) == 't';
    return jp_literal(j, *ret ? "true" : "false");
}

static bool jp_skip(struct jp *j);

static bool skip_member(struct jp *j, const char *key, struct jctx *x)
{
    (void)key, (void)x;
    return jp_skip(j);
}

static bool skip_element(struct jp *j, struct jctx *x)
{
    (void)x;
    return jp_skip(j);
}

/* After a member or element: a comma, the closing CLOSE, or (tolerated) no comma before
 * what can only start the next one. Returns 1 for another, 0 at the end, -1 on error. */
static int jp_next(struct jp *j, char close, const char *starts)
{
    int c = jp_peek(j);
    if (c == ',') {
        j->p++;
        return 1;
    }
    if (c == close) {
        j->p++;
        j->depth--;
        return 0;
    }
    if (c > 0 && strchr(starts, c)) {
        j->comma_missing = true;
        return 1;
    }
    jp_fail(j, -EBADMSG);
    return -1;
}

static bool jp_open(struct jp *j, char open)
{
    if (j->depth >= RAS_JSON_DEPTH_MAX)
        return jp_fail(j, -EBADMSG);
    if (!jp_eat(j, open))
        return false;
    j->depth++;
    return true;
}

static bool jp_object(struct jp *j, jp_member_fn fn, struct jctx *x)
{
    char key[RAS_COLL_NAME_MAX + 8];
    if (!jp_open(j, '{'))
        return false;
    if (jp_peek(j) == '}') {
        j->p++;
        j->depth--;
        return true;
    }
    for (;;) {
        if (!jp_string(j, key, sizeof(key)) || !jp_eat(j, ':') || !fn(j, key, x))
            return false;
        int more = jp_next(j, '}', "\"");
        if (more <= 0)
            return more == 0;
    }
}

static bool jp_array(struct jp *j, jp_element_fn fn, struct jctx *x)
{
    if (!jp_open(j, '['))
        return false;
    if (jp_peek(j) == ']') {
        j->p++;
        j->depth--;
        return true;
    }
    for (;;) {
        if (!fn(j, x))
            return false;
        int more = jp_next(j, ']', "{[\"-0123456789tfn");
        if (more <= 0)
            return more == 0;
    }
}

static bool jp_skip(struct jp *j)
{
    int c = jp_peek(j);
    char num[32];
    switch (c) {
    case '{':
        return jp_object(j, skip_member, NULL);
    case '[':
        return jp_array(j, skip_element, NULL);
    case '"':
        return jp_string(j, NULL, 0);
    case 't':
        return jp_literal(j, "true");
    case 'f':
        return jp_literal(j, "false");
    case 'n':
        return jp_literal(j, "null");
    case -1:
        return jp_fail(j, -ENODATA);
    default:
        return jp_number_text(j, num, sizeof(num));
    }
}

/* ---- RAS's document ---------------------------------------------------------------- */

static bool count_member(struct jp *j, const char *key, struct jctx *x)
{
    uint64_t v;
    if (!jp_u64(j, &v))
        return false;
    int t = ras_status_coll(x->s, key);
    if (t >= 0) {
        x->rank.counts[t] = v;
        x->rank.counts_known |= 1u << t;
    }
    return true;
}

static bool status_member(struct jp *j, const char *key, struct jctx *x)
{
    bool flag;
    if (streq(key, "init_state"))
        return jp_int(j, &x->rank.init_state);
    if (streq(key, "async_error"))
        return jp_int(j, &x->rank.async_error);
    if (streq(key, "considered_dead")) {
        if (!jp_bool(j, &flag))
            return false;
        x->rank.dead = flag;
        return true;
    }
    return jp_skip(j);
}

static bool rank_member(struct jp *j, const char *key, struct jctx *x)
{
    struct ras_rank *r = &x->rank;
    if (streq(key, "rank"))
        return jp_int(j, &r->rank);
    if (streq(key, "pid"))
        return jp_int(j, &r->pid);
    if (streq(key, "cuda_dev"))
        return jp_int(j, &r->cuda_dev);
    if (streq(key, "nvml_dev"))
        return jp_int(j, &r->nvml_dev);
    if (streq(key, "host"))
        return jp_string(j, r->host, sizeof(r->host));
    if (streq(key, "status"))
        return jp_object(j, status_member, x);
    if (streq(key, "collective_counts"))
        return jp_object(j, count_member, x);
    return jp_skip(j);
}

/* The rank read, into the communicator. */
static bool rank_add(struct jp *j, struct jctx *x)
{
    struct ras_rank *r;
    if (x->rank.rank < 0)
        return jp_fail(j, -EBADMSG);
    int err = ras_comm_rank(x->s, x->comm, x->rank.rank, &r);
    if (err < 0)
        return jp_fail(j, err);
    uint32_t known = x->rank.counts_known;
    *r = x->rank;
    r->counts_known = 0;
    for (int t = 0; t < RAS_COLL_TYPES; t++)
        if (known & (1u << t))
            ras_rank_set_count(x->comm, r, t, x->rank.counts[t]);
    r->missing = x->in_missing;
    return true;
}

static bool rank_element(struct jp *j, struct jctx *x)
{
    memset(&x->rank, 0, sizeof(x->rank));
    x->rank.rank = x->rank.pid = x->rank.cuda_dev = x->rank.nvml_dev = -1;
    return jp_object(j, rank_member, x) && rank_add(j, x);
}

static bool comm_member(struct jp *j, const char *key, struct jctx *x)
{
    char hash[64];
    if (streq(key, "hash")) {
        if (!jp_string(j, hash, sizeof(hash)))
            return false;
        ras_comm_set_hash(x->comm, hash);
        return true;
    }
    if (streq(key, "size"))
        return jp_int(j, &x->comm->size);
    if (streq(key, "ranks") || streq(key, "missing_ranks")) {
        x->in_missing = streq(key, "missing_ranks");
        return jp_array(j, rank_element, x);
    }
    return jp_skip(j);
}

static bool comm_element(struct jp *j, struct jctx *x)
{
    int err = ras_status_add_comm(x->s, &x->comm);
    if (err < 0)
        return jp_fail(j, err);
    return jp_object(j, comm_member, x);
}

static bool ras_member(struct jp *j, const char *key, struct jctx *x)
{
    int n;
    if (!streq(key, "timeouts_count"))
        return jp_skip(j);
    if (!jp_int(j, &n))
        return false;
    x->s->timeouts = n > 0 ? (unsigned)n : 0;
    return true;
}

static bool top_member(struct jp *j, const char *key, struct jctx *x)
{
    if (streq(key, "nccl_version"))
        return jp_string(j, x->s->nccl_version, sizeof(x->s->nccl_version));
    if (streq(key, "communicators"))
        return jp_array(j, comm_element, x);
    if (streq(key, "ras"))
        return jp_object(j, ras_member, x);
    return jp_skip(j);
}

int ras_json_parse(const char *buf, size_t len, struct ras_status *s)
{
    struct jp j = { .start = buf, .p = buf, .end = buf + len };
    struct jctx x = { .s = s };
    s->format = RAS_FORMAT_JSON;
    s->complete = jp_object(&j, top_member, &x);
    if (j.comma_missing)
        snprintf(s->note, sizeof(s->note), "a comma is missing in RAS's JSON (NCCL 2.28.9 "
                 "leaves it out after a missing rank's \"nvml_dev\"): read past it");
    if (s->complete)
        return 0;
    if (j.err == -ENODATA)
        snprintf(s->why, sizeof(s->why), "the JSON is cut short at byte %zu of %zu", len, len);
    else if (j.err == -EBADMSG)
        snprintf(s->why, sizeof(s->why), "the JSON is malformed at byte %zu",
                 (size_t)(j.err_at - buf));
    else
        snprintf(s->why, sizeof(s->why), "the JSON holds more than fabtune keeps (%s)",
                 errno_text(-j.err));
    return j.err;
}
