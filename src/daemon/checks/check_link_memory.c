/* SPDX-License-Identifier: ISC */
/* The link's memory judged (model/link_memory.h): counters.sticky keeps a rail DEGRADED
 * for checks.counters.sticky_window after its last flap, link down or error burst, naming
 * the event and when the window ends; and a link check's warning is an error once it is
 * the Nth of that check on that rail within checks.counters.escalate.window. Runs after
 * the counters group, whose findings it escalates. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"
#include "strutil.h"

static bool failing_now(const struct findings *out, const char *rail, const char *check)
{
    for (size_t i = 0; i < out->n; i++) {
        const struct finding *f = &out->items[i];
        if (f->rail && streq(f->rail, rail) && streq(f->check, check))
            return f->severity == SEVERITY_WARNING || f->severity == SEVERITY_ERROR;
    }
    return false;
}

/* The first link check of RAIL at its escalation count, into WHY; false if none. */
static bool escalated(const struct link_memory *m, const char *rail, const struct policy *p,
                      const struct findings *out, char *why, size_t len)
{
    uint32_t limit = p->checks.counters.escalate.warnings;
    char window[32];
    if (limit == 0)
        return false;
    duration_format(p->checks.counters.escalate.window, window, sizeof(window));
    for (int t = 0; t < LINK_TRACKED; t++) {
        const char *check = link_tracked_name(t);
        unsigned n = link_memory_warnings(m, rail, check, p->checks.counters.escalate.window,
                                          failing_now(out, rail, check));
        if (n >= limit) {
            snprintf(why, len, "escalated: %s warned %u times in %s (limit %u)", check, n,
                     window, limit);
            return true;
        }
    }
    return false;
}

static void escalate_warnings(const struct link_memory *m, const struct policy *p,
                              struct findings *out)
{
    uint32_t limit = p->checks.counters.escalate.warnings;
    char window[32], why[160];
    if (limit == 0)
        return;
    duration_format(p->checks.counters.escalate.window, window, sizeof(window));
    for (size_t i = 0; i < out->n; i++) {
        const struct finding *f = &out->items[i];
        if (f->severity != SEVERITY_WARNING || !f->rail || link_tracked_index(f->check) < 0)
            continue;
        unsigned n = link_memory_warnings(m, f->rail, f->check, p->checks.counters.escalate.window,
                                          true);
        if (n < limit)
            continue;
        snprintf(why, sizeof(why), "escalated, warning %u of %s on this rail in %s (limit %u)",
                 n, f->check, window, limit);
        (void)findings_escalate(out, i, why);
    }
}

static void check_sticky(const struct rail *r, const struct link_memory *m, const struct policy *p,
                         struct findings *out)
{
    usec_t window = p->checks.counters.sticky_window, age = 0;
    char span[32], want[96], got[96], what[160], at[32], until[32], why[160];
    duration_format(window, span, sizeof(span));
    snprintf(want, sizeof(want), "no flap, link down or error burst in the last %s", span);
    const struct link_event *ev = link_memory_sticky(m, r->name, window);
    if (!ev) {
        findings_add(out, "counters.sticky", SEVERITY_OK, r->name, want, "none", NULL,
                     "no flap, link down or error burst in the last %s", span);
        return;
    }
    (void)link_event_age(m, ev, &age);
    link_event_describe(ev, what, sizeof(what));
    utc_text(ev->wall, true, at, sizeof(at));
    utc_text(m->now_wall + (window - age), true, until, sizeof(until));
    snprintf(got, sizeof(got), "%s at %s", link_event_kind_name(ev->kind), at);
    bool esc = escalated(m, r->name, p, out, why, sizeof(why));
    findings_add(out, "counters.sticky", esc ? SEVERITY_ERROR : SEVERITY_WARNING, r->name, want,
                 got, "a link that just came back often fails again: the rail stays DEGRADED "
                 "until the window ends (checks.counters.sticky_window); find the cause first "
                 "(the cable, the transceiver, the switch port's log)",
                 "%s%sthe link %s at %s; DEGRADED until %s (sticky window %s)",
                 esc ? why : "", esc ? "; " : "", what, at, until, span);
}

void check_link_memory(const struct inventory *inv, const struct link_memory *m,
                       const struct policy *p, struct findings *out)
{
    escalate_warnings(m, p, out);
    if (p->checks.counters.sticky_window == 0)
        return;
    for (size_t i = 0; i < inv->n_rails; i++)
        check_sticky(&inv->rails[i], m, p, out);
}
