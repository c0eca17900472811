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
#include "grow.h"
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
    log_struct(raised ? (f->severity == SEVERITY_ERROR ? LOG_ERR : LOG_WARNING) : LOG_NOTICE,
               fields, ARRAY_SIZE(fields), "%s %s%s%s: %s%s", raised ? "raised" : "cleared",
               f->check, f->rail ? " " : "", f->rail ? f->rail : "", f->message, sup);
}

size_t alerts_update(struct alerts *a, const struct findings *now, usec_t t, int first)
{
    size_t sent = 0;
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
        send_alert(f, raised, k->suppressed);
        k->suppressed = 0;
        sent++;
    }
    return sent;
}

void alerts_done(struct alerts *a)
{
    free(a->keys);
    memset(a, 0, sizeof(*a));
}
