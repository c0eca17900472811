/* SPDX-License-Identifier: ISC */
/* The findings list for people, folded by cause (findings_fold.h). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "check_ids.h"
#include "findings_fold.h"
#include "macro.h"

#define RAIL_WIDTH_MIN 18       /* "mlx5_0/1<>mlx5_1/1", the probes' pair of rails */
#define WRAP_WIDTH 100          /* the unknowns' and oks' paragraphs */

/* A finding with the words it folds by: its own with its rails' names taken out. */
struct item {
    const struct fold_finding *f;
    size_t index;
    int rank;                   /* 0 error .. 3 ok */
    const char *rail;           /* its rail, or the rail whose netdev a node-wide one names */
    char *message, *expected, *actual, *hint;
};

static int severity_rank(const char *sev)
{
    static const char *const order[] = { "error", "warning", "unknown", "ok" };
    for (size_t i = 0; sev && i < ARRAY_SIZE(order); i++)
        if (streq(sev, order[i]))
            return (int)i;
    return (int)ARRAY_SIZE(order);
}

int rail_name_order(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            const char *ea, *eb;
            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            for (ea = a; isdigit((unsigned char)*ea); ea++)
                ;
            for (eb = b; isdigit((unsigned char)*eb); eb++)
                ;
            if (ea - a != eb - b)
                return ea - a < eb - b ? -1 : 1;
            int d = strncmp(a, b, (size_t)(ea - a));
            if (d)
                return d;
            a = ea;
            b = eb;
        } else if (*a != *b) {
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        } else {
            a++;
            b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

/* "mlx5_3/1" -> prefix "mlx5_", number 3, port "1". */
static bool split_rail(const char *rail, size_t *prefix_len, long *num, const char **port)
{
    const char *slash = strrchr(rail, '/');
    if (!slash || slash == rail)
        return false;
    const char *d = slash;
    while (d > rail && d[-1] >= '0' && d[-1] <= '9')
        d--;
    if (d == slash || d == rail || slash - d > 6)
        return false;
    *prefix_len = (size_t)(d - rail);
    *num = strtol(d, NULL, 10);
    *port = slash + 1;
    return true;
}

void rails_compact(const char *const *rails, size_t n, char *buf, size_t len)
{
    size_t plen0 = 0, plen;
    long first = 0, num, prev = 0;
    const char *port0 = NULL, *port;
    bool run = n > 2;   /* two rails read better named */
    for (size_t i = 0; run && i < n; i++) {
        run = split_rail(rails[i], &plen, &num, &port);
        if (!run)
            break;
        if (i == 0) {
            plen0 = plen, first = num, port0 = port;
        } else {
            run = plen == plen0 && strncmp(rails[i], rails[0], plen) == 0 && streq(port, port0) &&
                  num == prev + 1;
        }
        prev = num;
    }
    if (run) {
        snprintf(buf, len, "%.*s%ld..%ld/%s", (int)plen0, rails[0], first, prev, port0);
        return;
    }
    size_t w = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && w < len; i++)
        w += (size_t)snprintf(buf + w, len - w, "%s%s", i ? ", " : "", rails[i]);
}

static bool word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Where WORD stands in TEXT as a whole word (not "mlx5_1" in "mlx5_10"), or NULL. */
static const char *find_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    if (!n)
        return NULL;
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if ((p == text || !word_char(p[-1])) && !word_char(p[n]))
            return p;
    return NULL;
}

struct swap {
    char word[64];
    const char *with;
};

/* TEXT with each whole word of SWAPS replaced; NULL stays NULL (and on no memory). */
static char *shape(const char *text, const struct swap *swaps, size_t n)
{
    if (!text)
        return NULL;
    size_t cap = strlen(text) * 2 + 64, w = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (const char *p = text; *p;) {
        size_t k = 0;
        for (; k < n; k++) {
            size_t len = strlen(swaps[k].word);
            if (len && strncmp(p, swaps[k].word, len) == 0 && (p == text || !word_char(p[-1])) &&
                !word_char(p[len])) {
                size_t wl = strlen(swaps[k].with);
                if (w + wl + 1 >= cap) {
                    char *more = realloc(out, cap = cap * 2 + wl);
                    if (!more)
                        return free(out), NULL;
                    out = more;
                }
                memcpy(out + w, swaps[k].with, wl);
                w += wl;
                p += len;
                break;
            }
        }
        if (k < n)
            continue;
        if (w + 2 >= cap) {
            char *more = realloc(out, cap *= 2);
            if (!more)
                return free(out), NULL;
            out = more;
        }
        out[w++] = *p++;
    }
    out[w] = '\0';
    return out;
}

static const struct fold_rail *rail_named(const struct fold_rail *rails, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (rails[i].name && strlen(rails[i].name) == len && strncmp(rails[i].name, name, len) == 0)
            return &rails[i];
    return NULL;
}

/* The swaps of one rail name ("mlx5_0/1" or a pair "a/1<>b/1"): each side's device and
 * netdev. */
static size_t rail_swaps(const char *rail, const struct fold_rail *rails, size_t n_rails, struct swap *s)
{
    size_t n = 0;
    for (const char *side = rail; side && *side && n + 2 <= 4;) {
        const char *end = strstr(side, "<>");
        size_t len = end ? (size_t)(end - side) : strlen(side);
        const char *slash = memchr(side, '/', len);
        if (slash && (size_t)(slash - side) < sizeof(s[n].word)) {
            snprintf(s[n].word, sizeof(s[n].word), "%.*s", (int)(slash - side), side);
            s[n++].with = "<dev>";
        }
        const struct fold_rail *r = rail_named(rails, n_rails, side, len);
        if (r && r->netdev && r->netdev[0] && strlen(r->netdev) < sizeof(s[n].word)) {
            snprintf(s[n].word, sizeof(s[n].word), "%s", r->netdev);
            s[n++].with = "<netdev>";
        }
        side = end ? end + 2 : NULL;
    }
    return n;
}

void fold_words_fill(struct fold_words *w, const struct fold_finding *f, const struct fold_rail *rails,
                     size_t n_rails)
{
    struct swap s[4];
    size_t n = 0;
    *w = (struct fold_words){ .rail = f->rail };
    /* A node-wide finding that names one rail's netdev is that rail's. */
    for (size_t i = 0; !w->rail && f->message && i < n_rails; i++)
        if (rails[i].netdev && find_word(f->message, rails[i].netdev))
            w->rail = rails[i].name;
    if (w->rail)
        n = rail_swaps(w->rail, rails, n_rails, s);
    w->message = shape(f->message ? f->message : "", s, n);
    w->expected = shape(f->expected, s, n);
    w->actual = shape(f->actual, s, n);
    w->hint = shape(f->hint, s, n);
}

void fold_words_done(struct fold_words *w)
{
    free(w->message);
    free(w->expected);
    free(w->actual);
    free(w->hint);
    *w = (struct fold_words){ 0 };
}

static void item_fill(struct item *it, const struct fold_finding *f, size_t index,
                      const struct fold_rail *rails, size_t n_rails)
{
    struct fold_words w;
    fold_words_fill(&w, f, rails, n_rails);
    *it = (struct item){ .f = f, .index = index, .rank = severity_rank(f->severity), .rail = w.rail,
                         .message = w.message, .expected = w.expected, .actual = w.actual, .hint = w.hint };
}

static int cmp_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

int fold_words_cmp(const struct fold_words *a, const struct fold_words *b)
{
    int c;
    if (!a->rail || !b->rail)
        return !a->rail && !b->rail ? 0 : !a->rail ? -1 : 1;
    if ((c = cmp_text(a->message, b->message)) != 0 || (c = cmp_text(a->expected, b->expected)) != 0 ||
        (c = cmp_text(a->actual, b->actual)) != 0 || (c = cmp_text(a->hint, b->hint)) != 0)
        return c;
    return 0;
}

/* The node's findings, then the rails' in device order. */
static int cmp_rail(const char *a, const char *b)
{
    if (!a || !b)
        return !a && !b ? 0 : !a ? -1 : 1;
    return rail_name_order(a, b);
}

/* Same severity, check and words (rails' names out): one problem. The words are the
 * shaped ones only where both have a rail, and the rails differ. */
static int same_problem(const struct item *a, const struct item *b)
{
    int c;
    if ((c = a->rank - b->rank) != 0 || (c = strcmp(a->f->check, b->f->check)) != 0)
        return c;
    if (!a->rail || !b->rail)
        return -1;      /* never folded: each its own line */
    if ((c = cmp_text(a->message, b->message)) != 0 || (c = cmp_text(a->expected, b->expected)) != 0 ||
        (c = cmp_text(a->actual, b->actual)) != 0 || (c = cmp_text(a->hint, b->hint)) != 0)
        return c;
    return 0;
}

static int by_problem(const void *x, const void *y)
{
    const struct item *a = x, *b = y;
    int c;
    if ((c = a->rank - b->rank) != 0 || (c = strcmp(a->f->check, b->f->check)) != 0)
        return c;
    if (!a->rail || !b->rail) {
        if ((c = cmp_rail(a->rail, b->rail)) != 0)
            return c;
        return (a->index > b->index) - (a->index < b->index);
    }
    if ((c = cmp_text(a->message, b->message)) != 0 || (c = cmp_text(a->expected, b->expected)) != 0 ||
        (c = cmp_text(a->actual, b->actual)) != 0 || (c = cmp_text(a->hint, b->hint)) != 0)
        return c;
    if ((c = cmp_rail(a->rail, b->rail)) != 0)
        return c;
    return (a->index > b->index) - (a->index < b->index);
}

/* Every finding its own row: by severity, then the node's findings, then the rails in
 * device order (mlx5_0/1 before mlx5_4/1, whatever their netdevs' names), then the order
 * given: as fabtunectl checks --json orders them. */
static int by_row(const void *x, const void *y)
{
    const struct item *a = x, *b = y;
    int c;
    if ((c = a->rank - b->rank) != 0 || (c = cmp_rail(a->f->rail, b->f->rail)) != 0)
        return c;
    return (a->index > b->index) - (a->index < b->index);
}

struct group {
    const struct item *item;    /* its first */
    size_t first, n;
};

/* Groups of one problem, in the order they print: severity, then check, then their first
 * rail in device order. */
static int by_group(const void *x, const void *y)
{
    const struct group *a = x, *b = y;
    const struct item *ia = a->item, *ib = b->item;
    int c;
    if ((c = ia->rank - ib->rank) != 0 || (c = strcmp(ia->f->check, ib->f->check)) != 0 ||
        (c = cmp_rail(ia->rail, ib->rail)) != 0)
        return c;
    return (ia->index > ib->index) - (ia->index < ib->index);
}

static void row(FILE *out, const char *sev, const char *check, int rail_width, const char *rail,
                const char *message)
{
    fprintf(out, "  %-7s %-*s %-*s %s\n", sev, CHECK_ID_WIDTH, check, rail_width, rail ? rail : "", message);
}

const char *fold_message_without_lead(const char *m)
{
    static const char *const leads[] = { "<netdev>: ", "<dev>: " };
    for (size_t i = 0; i < ARRAY_SIZE(leads); i++)
        if (strncmp(m, leads[i], strlen(leads[i])) == 0)
            return m + strlen(leads[i]);
    return m;
}

/* A group's row: its rails named (folded) or the finding's own words (one). */
static size_t print_group(const struct item *g, size_t n, unsigned flags, int rail_width, FILE *out)
{
    const struct fold_finding *f = g[0].f;
    size_t rows = 1;
    if (n == 1) {
        row(out, f->severity, f->check, rail_width, f->rail, f->message);
    } else {
        /* The rails named (a run compacted); the probes' pairs of rails counted beside
         * them when there are more than two (-v names each). */
        const char *names[64] = { NULL }, *pairs[64] = { NULL };
        char rails[640];
        size_t k = 0, np = 0, more = 0;
        for (size_t i = 0; i < n; i++) {
            bool pair = strstr(g[i].rail, "<>") != NULL;
            if (pair && np < ARRAY_SIZE(pairs))
                pairs[np++] = g[i].rail;
            else if (!pair && k < ARRAY_SIZE(names))
                names[k++] = g[i].rail;
            else
                more++;
        }
        rails_compact(names, k, rails, sizeof(rails));
        size_t w = strlen(rails);
        if (np > 2)
            snprintf(rails + w, sizeof(rails) - w, "%s%zu pairs", k ? ", " : "", np);
        else
            for (size_t i = 0; i < np; i++, w = strlen(rails))
                snprintf(rails + w, sizeof(rails) - w, "%s%s", w ? ", " : "", pairs[i]);
        if (more)
            strncat(rails, ", ...", sizeof(rails) - strlen(rails) - 1);
        row(out, f->severity, f->check, rail_width, rails, fold_message_without_lead(g[0].message));
    }
    if (!(flags & FOLD_DETAILS))
        return rows;
    const char *expected = n == 1 ? f->expected : g[0].expected, *actual = n == 1 ? f->actual : g[0].actual;
    const char *hint = n == 1 ? f->hint : g[0].hint;
    if (expected || actual) {
        fprintf(out, "          expected %s, actual %s\n", expected ? expected : "-", actual ? actual : "-");
        rows++;
    }
    if (hint) {
        fprintf(out, "          hint: %s\n", hint);
        rows++;
    }
    return rows;
}

/* A paragraph indented by two, its next lines by four, wrapped at WRAP_WIDTH. */
struct para {
    FILE *out;
    size_t col, rows;
};

static void para_word(struct para *p, const char *text)
{
    size_t len = strlen(text);
    if (p->col == 0) {
        fprintf(p->out, "  ");
        p->col = 2;
        p->rows++;
    } else if (p->col + 1 + len > WRAP_WIDTH) {
        fprintf(p->out, "\n    ");
        p->col = 4;
        p->rows++;
    } else {
        fputc(' ', p->out);
        p->col++;
    }
    fputs(text, p->out);
    p->col += len;
}

static void para_text(struct para *p, const char *text)
{
    char word[512];
    while (*text) {
        size_t n = strcspn(text, " ");
        if (n) {
            snprintf(word, sizeof(word), "%.*s", (int)n, text);
            para_word(p, word);
        }
        text += n;
        text += strspn(text, " ");
    }
}

static size_t para_end(struct para *p)
{
    if (p->col)
        fputc('\n', p->out);
    return p->rows;
}

static bool contains_unknown(const char *s, size_t n)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) - 1 ? n : sizeof(buf) - 1), s);
    return strstr(buf, "unknown") || strstr(buf, "not known");
}

/* Why a check cannot tell, from its words: "PFC state unknown: a captured tree holds no
 * DCB netlink state" -> "a captured tree holds no DCB netlink state"; "a snapshot is a
 * single sample; rates need two" -> "a captured tree is a single sample". The first clause
 * that is not "X unknown", without the rail it was about. */
static void cause_of(const char *message, char *buf, size_t len)
{
    const char *s = fold_message_without_lead(message);
    for (;;) {
        const char *cuts[] = { strstr(s, ": "), strstr(s, "; "), strstr(s, " (") }, *cut = NULL;
        for (size_t i = 0; i < ARRAY_SIZE(cuts); i++)
            if (cuts[i] && (!cut || cuts[i] < cut))
                cut = cuts[i];
        size_t n = cut ? (size_t)(cut - s) : strlen(s);
        if (cut && cut == cuts[0] && contains_unknown(s, n) && cut[2]) {
            s = cut + 2;
            continue;
        }
        snprintf(buf, len, "%.*s", (int)n, s);
        break;
    }
    /* "net.core.rmem_max is not in the captured tree": the key is the subject, not the cause. */
    size_t key = strcspn(buf, " ");
    if (memchr(buf, '.', key) && strncmp(buf + key, " is ", 4) == 0)
    {
        char rest[256];
        snprintf(rest, sizeof(rest), "%s", buf + key);
        snprintf(buf, len, "a key%.*s", (int)(len > 6 ? len - 6 : 0), rest);
    }
    static const char *const tails[] = { " for <netdev>", " on <netdev>", " for <dev>", " on <dev>" };
    for (size_t i = 0; i < ARRAY_SIZE(tails); i++) {
        size_t bl = strlen(buf), tl = strlen(tails[i]);
        if (bl > tl && streq(buf + bl - tl, tails[i]))
            buf[bl - tl] = '\0';
    }
}

/* The unknowns as one paragraph: "210 unknown, by cause: CAUSE (N checks); ...". */
static size_t print_unknown_causes(const struct item *items, const struct group *groups, size_t n_groups,
                                   size_t total, FILE *out)
{
    struct cause {
        char text[256];
        size_t checks;
        const char *last_check;
    } *causes = calloc(n_groups ? n_groups : 1, sizeof(*causes));
    size_t n = 0;
    struct para p = { .out = out };
    char head[96];
    snprintf(head, sizeof(head), "%zu unknown, by cause ('-v' lists each):", total);
    para_text(&p, head);
    if (!causes)
        return para_end(&p);
    for (size_t g = 0; g < n_groups; g++) {
        const struct item *it = &items[groups[g].first];
        if (it->rank != 2)
            continue;
        char text[256];
        cause_of(it->message, text, sizeof(text));
        size_t k = 0;
        while (k < n && !streq(causes[k].text, text))
            k++;
        if (k == n)
            snprintf(causes[n++].text, sizeof(causes[k].text), "%s", text);
        /* Groups come by check: a check counts once per cause. */
        if (!causes[k].last_check || !streq(causes[k].last_check, it->f->check))
            causes[k].checks++;
        causes[k].last_check = it->f->check;
    }
    for (size_t k = 0; k < n; k++) {
        char count[48];
        para_text(&p, causes[k].text);
        snprintf(count, sizeof(count), "(%zu check%s)%s", causes[k].checks, PLURAL_S(causes[k].checks),
                 k + 1 < n ? ";" : "");
        para_word(&p, count);
    }
    free(causes);
    return para_end(&p);
}

/* The oks as one paragraph: "138 ok: counters 56, qos 40, ..." by check family. */
static size_t print_ok_count(const struct item *items, size_t n, FILE *out)
{
    struct family {
        char name[32];
        size_t n;
    } fam[32];
    size_t nf = 0, total = 0;
    for (size_t i = 0; i < n; i++) {
        if (items[i].rank != 3)
            continue;
        char name[32];
        snprintf(name, sizeof(name), "%.*s", (int)strcspn(items[i].f->check, "."), items[i].f->check);
        size_t k = 0;
        while (k < nf && !streq(fam[k].name, name))
            k++;
        if (k == nf && nf < ARRAY_SIZE(fam))
            fam[nf++] = (struct family){ .n = 0 }, snprintf(fam[k].name, sizeof(fam[k].name), "%s", name);
        if (k < nf)
            fam[k].n++;
        total++;
    }
    if (!total)
        return 0;
    struct para p = { .out = out };
    char word[128];
    snprintf(word, sizeof(word), "%zu ok:", total);
    para_text(&p, word);
    for (size_t k = 0; k < nf; k++) {
        snprintf(word, sizeof(word), "%.31s %zu%s", fam[k].name, fam[k].n, k + 1 < nf ? "," : "");
        para_text(&p, word);
    }
    return para_end(&p);
}

int findings_fold_rail_width(const struct fold_finding *f, size_t n)
{
    int width = RAIL_WIDTH_MIN;
    for (size_t i = 0; i < n; i++)
        if (f[i].rail && (int)strlen(f[i].rail) > width)
            width = (int)strlen(f[i].rail);
    return width;
}

size_t findings_fold_print(const struct fold_finding *f, size_t n, const struct fold_rail *rails,
                           size_t n_rails, unsigned flags, int rail_width, FILE *out)
{
    struct item *items = calloc(n ? n : 1, sizeof(*items));
    struct group *groups = calloc(n ? n : 1, sizeof(*groups));
    size_t rows = 0, n_groups = 0, unknowns = 0;
    if (rail_width <= 0)
        rail_width = findings_fold_rail_width(f, n);
    if (!items || !groups) {    /* no memory: each as it comes */
        for (size_t i = 0; i < n; i++, rows++)
            row(out, f[i].severity, f[i].check, rail_width, f[i].rail, f[i].message);
        free(items);
        free(groups);
        return rows;
    }
    for (size_t i = 0; i < n; i++)
        item_fill(&items[i], &f[i], i, rails, n_rails);
    bool every = flags & FOLD_EVERY;
    qsort(items, n, sizeof(*items), every ? by_row : by_problem);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (!every && j < n && same_problem(&items[i], &items[j]) == 0)
            j++;
        groups[n_groups++] = (struct group){ &items[i], i, j - i };
        unknowns += items[i].rank == 2 ? j - i : 0;
        i = j;
    }
    if (!every)
        qsort(groups, n_groups, sizeof(*groups), by_group);
    bool causes = !every && (flags & FOLD_UNKNOWN_CAUSES);
    bool ok_rows = every || (flags & FOLD_OK_ROWS);
    bool causes_done = false;
    for (size_t g = 0; g < n_groups; g++) {
        const struct item *it = &items[groups[g].first];
        if (it->rank == 2 && causes) {
            if (!causes_done)
                rows += print_unknown_causes(items, groups, n_groups, unknowns, out);
            causes_done = true;
            continue;
        }
        if (it->rank == 3 && !ok_rows)
            continue;
        rows += print_group(it, groups[g].n, flags, rail_width, out);
    }
    if (!ok_rows)
        rows += print_ok_count(items, n, out);
    for (size_t i = 0; i < n; i++) {
        free(items[i].message);
        free(items[i].expected);
        free(items[i].actual);
        free(items[i].hint);
    }
    free(items);
    free(groups);
    return rows;
}
