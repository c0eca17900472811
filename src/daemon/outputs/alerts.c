/* SPDX-License-Identifier: ISC */
/* journald alerts on transitions, never on every cycle, with per-key rate limiting so a
 * flapping link cannot flood the journal. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "alerts.h"
#include "check_ids.h"
#include "findings_fold.h"
#include "grow.h"
#include "inventory.h"
#include "log.h"
#include "macro.h"
#include "strutil.h"

/* The catalog entry of the check's family (systemd/fabtune.catalog); an id outside the
 * table gets one that no entry explains. */
const char *alerts_message_id(const char *check)
{
    const struct check_id *c = check_id_find(check);
    const char *id = c ? check_family_message_id(c->family) : NULL;
    return id ? id : "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a00";
}

static struct alert_key *find_key(struct alerts *a, const struct finding *f)
{
    const char *rail = f->rail ? f->rail : "", *subject = f->subject ? f->subject : "";
    for (size_t i = 0; i < a->n; i++)
        if (streq(a->keys[i].check, f->check) && streq(a->keys[i].rail, rail) &&
            streq(a->keys[i].subject, subject))
            return &a->keys[i];
    int r = GROW_ARRAY(a->keys, a->cap, a->n + 1, ALERT_MAX_KEYS);
    if (r == -EFBIG && !a->full)    /* once: every pass would say it again */
        log_warning("Alerts follow no new finding from %s on: they keep %d keys at most",
                    f->check, ALERT_MAX_KEYS);
    a->full = a->full || r == -EFBIG;
    if (r < 0)
        return NULL;
    struct alert_key *k = &a->keys[a->n++];
    memset(k, 0, sizeof(*k));
    strscpy(k->check, f->check, sizeof(k->check));
    strscpy(k->rail, rail, sizeof(k->rail));
    strscpy(k->subject, subject, sizeof(k->subject));
    k->severity = SEVERITY_OK;
    return k;
}

static bool failing(enum severity s)
{
    return s == SEVERITY_WARNING || s == SEVERITY_ERROR;
}

/* A transition to send this pass, with the words it folds by. */
struct pending {
    const struct finding *f;
    bool raised;
    unsigned suppressed;
    struct fold_words words;
};

static int log_level_of(const struct finding *f, bool raised)
{
    return raised ? (f->severity == SEVERITY_ERROR ? LOG_ERR : LOG_WARNING) : LOG_NOTICE;
}

static void send_alert(const struct finding *f, bool raised, unsigned suppressed)
{
    char sup[80] = "";
    if (suppressed)
        snprintf(sup, sizeof(sup), " (%u transitions suppressed before this one)", suppressed);
    const struct log_field fields[] = {
        { "MESSAGE_ID", alerts_message_id(f->check) },
        { "FABTUNE_CHECK", f->check },
        { "FABTUNE_RAIL", f->rail ? f->rail : "" },
        { "FABTUNE_SUBJECT", f->subject ? f->subject : "" },
        { "FABTUNE_SEVERITY", severity_to_string(f->severity) },
        { "FABTUNE_EXPECTED", f->expected ? f->expected : "" },
        { "FABTUNE_ACTUAL", f->actual ? f->actual : "" },
        { "FABTUNE_STATE", raised ? "raised" : "cleared" },
    };
    log_struct(log_level_of(f, raised), fields, ARRAY_SIZE(fields), "%s %s%s%s: %s%s",
               raised ? "raised" : "cleared", f->check, f->rail ? " " : "", f->rail ? f->rail : "",
               f->message, sup);
}

/* One record for G[0..N), transitions that say the same thing on N rails: the rails named
 * (compacted as the report does) and queryable one by one, FABTUNE_RAIL (and
 * FABTUNE_SUBJECT where they differ) repeated per rail. */
static void send_group(const struct pending *g, size_t n)
{
    const struct finding *f = g[0].f;
    const char *names[ALERT_GROUP_MAX] = { NULL };
    unsigned suppressed = 0;
    bool same_subject = true;
    for (size_t i = 0; i < n; i++) {
        names[i] = g[i].words.rail;
        suppressed += g[i].suppressed;
        same_subject = same_subject && streq(g[i].f->subject ? g[i].f->subject : "",
                                             f->subject ? f->subject : "");
    }
    char rails[ALERT_GROUP_MAX * 24], sup[80] = "";
    rails_compact(names, n, rails, sizeof(rails));
    if (suppressed)
        snprintf(sup, sizeof(sup), " (%u transitions suppressed before these)", suppressed);
    struct log_field fields[8 + 2 * ALERT_GROUP_MAX];
    size_t k = 0;
    fields[k++] = (struct log_field){ "MESSAGE_ID", alerts_message_id(f->check) };
    fields[k++] = (struct log_field){ "FABTUNE_CHECK", f->check };
    fields[k++] = (struct log_field){ "FABTUNE_RAILS", rails };
    for (size_t i = 0; i < n; i++)
        if (g[i].f->rail)       /* a node-wide one folded by the netdev it names has none */
            fields[k++] = (struct log_field){ "FABTUNE_RAIL", g[i].f->rail };
    for (size_t i = 0; i < (same_subject ? 1 : n); i++)
        fields[k++] = (struct log_field){ "FABTUNE_SUBJECT", g[i].f->subject ? g[i].f->subject : "" };
    fields[k++] = (struct log_field){ "FABTUNE_SEVERITY", severity_to_string(f->severity) };
    fields[k++] = (struct log_field){ "FABTUNE_EXPECTED", g[0].words.expected ? g[0].words.expected : "" };
    fields[k++] = (struct log_field){ "FABTUNE_ACTUAL", g[0].words.actual ? g[0].words.actual : "" };
    fields[k++] = (struct log_field){ "FABTUNE_STATE", g[0].raised ? "raised" : "cleared" };
    const char *message = g[0].words.message ? fold_message_without_lead(g[0].words.message) : f->message;
    log_struct(log_level_of(f, g[0].raised), fields, k, "%s %s on %s: %s%s",
               g[0].raised ? "raised" : "cleared", f->check, rails, message, sup);
}

/* One problem: same state, check, severity and words once the rails' names are out. */
static int same_problem(const struct pending *a, const struct pending *b)
{
    int c;
    if ((c = (int)b->raised - (int)a->raised) != 0 || (c = strcmp(a->f->check, b->f->check)) != 0 ||
        (c = (int)a->f->severity - (int)b->f->severity) != 0)
        return c;
    if (!a->words.rail || !b->words.rail)
        return -1;      /* never folded */
    return fold_words_cmp(&a->words, &b->words);
}

static int by_problem(const void *x, const void *y)
{
    const struct pending *a = x, *b = y;
    int c;
    if ((c = (int)b->raised - (int)a->raised) != 0 || (c = strcmp(a->f->check, b->f->check)) != 0 ||
        (c = (int)a->f->severity - (int)b->f->severity) != 0)
        return c;
    if (!a->words.rail || !b->words.rail) {
        if (!a->words.rail != !b->words.rail)
            return !a->words.rail ? -1 : 1;
    } else if ((c = fold_words_cmp(&a->words, &b->words)) != 0 ||
               (c = rail_name_order(a->words.rail, b->words.rail)) != 0) {
        return c;
    }
    return (a->f > b->f) - (a->f < b->f);      /* the pass's order */
}

/* Sends P[0..N): a record per group of one problem (at most ALERT_GROUP_MAX rails), a
 * group of one as its own record. Returns the records sent. */
static size_t send_pending(struct pending *p, size_t n)
{
    size_t sent = 0;
    if (n == 0)
        return 0;       /* P may be NULL then: qsort's pointer must not be */
    qsort(p, n, sizeof(*p), by_problem);
    for (size_t i = 0, j; i < n; i = j, sent++) {
        for (j = i + 1; j < n && j - i < ALERT_GROUP_MAX && same_problem(&p[i], &p[j]) == 0; j++)
            ;
        if (j - i == 1)
            send_alert(p[i].f, p[i].raised, p[i].suppressed);
        else
            send_group(&p[i], j - i);
    }
    return sent;
}

size_t alerts_update(struct alerts *a, const struct findings *now, const struct inventory *inv, usec_t t,
                     int first)
{
    struct pending *p = NULL;
    size_t n = 0, cap = 0, sent = 0;
    for (size_t i = 0; i < now->n; i++) {
        const struct finding *f = &now->items[i];
        struct alert_key *k = find_key(a, f);
        if (!k)
            continue;
        enum severity before = k->severity;
        k->severity = f->severity;
        bool raised = failing(f->severity) && f->severity != before;
        bool cleared = failing(before) && f->severity == SEVERITY_OK;
        /* The first check after a start sends what is failing, not what is fine. */
        if (first && !failing(f->severity))
            continue;
        if (!raised && !cleared)
            continue;
        if (t - k->window_start > ALERT_WINDOW) {
            k->window_start = t;
            k->in_window = 0;
        }
        if (++k->in_window > ALERT_BURST) {
            k->suppressed++;
            continue;
        }
        if (GROW_ARRAY(p, cap, n + 1, FINDINGS_MAX) < 0) {     /* no memory: one by one */
            send_alert(f, raised, k->suppressed);
            sent++;
        } else {
            p[n++] = (struct pending){ .f = f, .raised = raised, .suppressed = k->suppressed };
        }
        k->suppressed = 0;
    }
    size_t n_rails = inv ? inv->n_rails : 0;
    struct fold_rail *rails = calloc(n_rails ? n_rails : 1, sizeof(*rails));
    for (size_t i = 0; rails && i < n_rails; i++)
        rails[i] = (struct fold_rail){ inv->rails[i].name, inv->rails[i].netdev.name };
    for (size_t i = 0; i < n; i++) {
        const struct finding *f = p[i].f;
        const struct fold_finding ff = { f->check, severity_to_string(f->severity), f->rail, f->message,
                                         f->expected, f->actual, f->hint };
        fold_words_fill(&p[i].words, &ff, rails, rails ? n_rails : 0);
    }
    sent += send_pending(p, n);
    for (size_t i = 0; i < n; i++)
        fold_words_done(&p[i].words);
    free(rails);
    free(p);
    return sent;
}

void alerts_done(struct alerts *a)
{
    free(a->keys);
    memset(a, 0, sizeof(*a));
}
