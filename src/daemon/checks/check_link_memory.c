/* SPDX-License-Identifier: ISC */
/* The link's memory judged (model/link_memory.h): counters.sticky keeps a rail DEGRADED
 * for checks.counters.sticky_window after its last flap, link down or error burst, naming
 * the event and when the window ends; and a link check's warning is an error once it is
 * the Nth of that check on that rail within checks.counters.escalate.window. Runs after
 * the counters group, whose findings it escalates. rails.gone (issue 45, item 5): a rail
 * the memory saw that the inventory lacks now. */
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

/* Whether the policy still expects RAIL: not when its rails.select list leaves it out, nor
 * when its rails.expect_count is met by the rails there are; WHY says which. */
static bool still_expected(const struct inventory *inv, const char *rail, const struct policy *p,
                           char *why, size_t len)
{
    if (p->rails.select == RAIL_SELECT_LIST) {
        bool listed = false;
        char name[POLICY_NAME_MAX + 16];
        for (size_t i = 0; i < p->rails.n_list && !listed; i++) {
            snprintf(name, sizeof(name), "%s/%u", p->rails.list[i].device, p->rails.list[i].port);
            listed = streq(name, rail);
        }
        if (!listed) {
            snprintf(why, len, "the policy's rails.select no longer lists it");
            return false;
        }
    }
    if (p->rails.expect_count != POLICY_COUNT_UNSET && inv->n_rails >= p->rails.expect_count) {
        snprintf(why, len, "the policy's count is met (%zu of rails.expect_count %u)",
                 inv->n_rails, p->rails.expect_count);
        return false;
    }
    return true;
}

/* Where RM's PCI function is, in words: what the pass found under bus/pci/devices. */
static void pci_words(const struct rail_memory *rm, char *buf, size_t len)
{
    if (!rm->pci_addr[0])
        snprintf(buf, len, "a virtual device (no PCI function)");
    else if (!rm->pci_known)
        snprintf(buf, len, "its PCI function %s not looked for", rm->pci_addr);
    else if (rm->pci_listed)
        snprintf(buf, len, "its PCI function %s is still listed under /sys/bus/pci/devices "
                 "(the driver let it go)", rm->pci_addr);
    else
        snprintf(buf, len, "its PCI function %s is gone from /sys/bus/pci/devices (the bus "
                 "lost it)", rm->pci_addr);
}

/* The rail of INV that RM came back as under another name (re-enumerated: the same PCI
 * function and port, a new device name), or NULL. */
static const struct rail *renamed_as(const struct inventory *inv, const struct rail_memory *rm)
{
    const char *port = strrchr(rm->rail, '/');
    for (size_t i = 0; rm->pci_addr[0] && port && i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        char p[16];
        snprintf(p, sizeof(p), "/%u", r->port);
        if (streq(r->pci_addr, rm->pci_addr) && streq(port, p) && !streq(r->name, rm->rail))
            return r;
    }
    return NULL;
}

/* Whether RM's PCI function and port were held under another name after RM left (a
 * re-enumeration, that name gone later or still here): the newer name speaks for it. */
static bool renamed_later(const struct link_memory *m, const struct rail_memory *rm)
{
    const char *port = strrchr(rm->rail, '/');
    for (size_t i = 0; rm->pci_addr[0] && port && i < m->n; i++) {
        const struct rail_memory *o = &m->rails[i];
        const char *oport = strrchr(o->rail, '/');
        if (o != rm && oport && streq(oport, port) && streq(o->pci_addr, rm->pci_addr) &&
            (!o->absent_since || o->absent_since > rm->absent_since))
            return true;
    }
    return false;
}

void check_gone(const struct inventory *inv, const struct link_memory *m, const struct policy *p,
                struct findings *out)
{
    size_t gone = 0;
    for (size_t i = 0; i < m->n; i++) {
        const struct rail_memory *rm = &m->rails[i];
        char at[32], pci[160], why[96], state[64];
        if (!rm->absent_since)
            continue;
        if (renamed_as(inv, rm) || renamed_later(m, rm))
            continue;       /* the same port under a new name: judged under that name */
        gone++;
        utc_text(rm->absent_since, true, at, sizeof(at));
        pci_words(rm, pci, sizeof(pci));
        snprintf(state, sizeof(state), "%s", rm->last_state[0] ? rm->last_state : "unknown");
        if (rm->forgotten)
            findings_add(out, "rails.gone", SEVERITY_OK, rm->rail, "present or forgotten",
                         "forgotten", NULL, "rail %s left the inventory at %s; an operator "
                         "forgot it (fabtunectl forget)", rm->rail, at);
        else if (!still_expected(inv, rm->rail, p, why, sizeof(why)))
            findings_add(out, "rails.gone", SEVERITY_OK, rm->rail, "present or not expected",
                         "not expected", NULL, "rail %s left the inventory at %s; %s",
                         rm->rail, at, why);
        else
            findings_add(out, "rails.gone", SEVERITY_ERROR, rm->rail, "present",
                         rm->pci_known && !rm->pci_listed ? "off the bus" : "gone",
                         "an HCA that falls off PCIe needs a reset or a reseat ('lspci', the "
                         "kernel log); once the rail is meant to be gone: 'fabtunectl forget "
                         "RAIL', or a policy that no longer expects it",
                         "rail %s left the inventory at %s: %s; its last state %s", rm->rail,
                         at, pci, state);
    }
    if (gone == 0)
        findings_add(out, "rails.gone", SEVERITY_OK, NULL, "none gone", "none", NULL,
                     "no rail has left the inventory");
}
