/* SPDX-License-Identifier: ISC */
/* nic.*: what the kernel said about each rail's NIC (model/kernel_log.h), from the messages
 * the link memory kept. A fatal pattern (the firmware stopped answering) is an error for
 * the rest of the boot it was printed in: the device needs a reset, which a reboot or a
 * driver reload gives. A non-fatal one warns for checks.nic.window after it was printed,
 * and checks.nic.repeats of one check within that window are an error (NVSentinel: three
 * in an hour). A notice (a link that went down, which the link memory already judges) is
 * shown, never a warning. Judged only where the kernel log was read. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "kernel_log.h"
#include "macro.h"
#include "strutil.h"

static const struct {
    const char *check, *hint;
} hints[] = {
    { "nic.firmware", "the firmware stopped answering or failed: drain the node, reset the device "
      "(mlxfwreset, or reboot) and collect mlxconfig/mstdump output for the vendor; repeated after "
      "a reset, replace the card" },
    { "nic.tx_timeout", "a queue stalled: look for a PFC storm or a stuck peer, then the card's "
      "firmware; repeated, reset the device" },
    { "nic.power", "the slot gives less power than the card needs, and the card throttles: check "
      "the slot's power limit (lspci -vv: SlotPowerLimit) and the riser" },
    { "nic.thermal", "the card or its module runs hot: check the airflow, the fans and the "
      "module's temperature (ethtool -m)" },
    { "nic.link", "the link or its cable went away: check the cable and module seating, then the "
      "switch port's log" },
    { "nic.pcie", "the PCIe link to the card took an uncorrectable error: reseat the card, check "
      "the riser and the slot; repeated, replace it" },
};

static const char *hint_of(const char *check)
{
    for (size_t i = 0; i < ARRAY_SIZE(hints); i++)
        if (streq(hints[i].check, check))
            return hints[i].hint;
    return NULL;
}

/* RM's messages of CHECK that count now: fatal ones of this boot, others within WINDOW;
 * how many of each severity, and the latest of the gravest severity seen. */
struct nic_count {
    unsigned n[3];              /* by enum kernel_severity */
    const struct nic_event *last;
    const struct kernel_pattern *last_pattern;
};

static void count_nic(const struct link_memory *m, const struct rail_memory *rm, const char *check,
                      usec_t window, struct nic_count *ret)
{
    memset(ret, 0, sizeof(*ret));
    for (size_t i = 0; rm && i < rm->n_nic; i++) {
        const struct nic_event *ev = &rm->nic[i];
        const struct kernel_pattern *k = kernel_pattern_by_id(ev->pattern);
        usec_t age;
        if (!k || !streq(k->check, check))
            continue;
        if (k->severity == KERNEL_FATAL ? !streq(ev->boot_id, m->boot_id)
                                        : !nic_event_age(m, ev, &age) || age >= window)
            continue;
        ret->n[k->severity]++;
        if (!ret->last || k->severity < ret->last_pattern->severity ||
            (k->severity == ret->last_pattern->severity && ev->wall >= ret->last->wall)) {
            ret->last = ev;
            ret->last_pattern = k;
        }
    }
}

static void check_rail_nic(const struct rail *r, const struct link_memory *m,
                           const struct policy *p, const char *check, struct findings *out)
{
    const struct rail_memory *rm = link_memory_find_const(m, r->name);
    usec_t window = p->checks.nic.window;
    uint32_t repeats = p->checks.nic.repeats;
    char span[32], want[128], got[96], at[32], esc[96] = "";
    struct nic_count c;
    duration_format(window, span, sizeof(span));
    snprintf(want, sizeof(want), "no such kernel message (a fatal one this boot, another in the "
             "last %s)", span);
    count_nic(m, rm, check, window, &c);
    if (!c.last) {
        findings_add(out, check, SEVERITY_OK, r->name, want, "none", NULL,
                     "the kernel said nothing of this kind about the rail");
        return;
    }
    unsigned fatal = c.n[KERNEL_FATAL], warned = c.n[KERNEL_WARNING];
    unsigned shown = c.n[c.last_pattern->severity];
    bool escalated = !fatal && repeats > 0 && warned >= repeats;
    enum severity sev = fatal || escalated ? SEVERITY_ERROR
                      : warned ? SEVERITY_WARNING : SEVERITY_OK;
    const char *kind = c.last_pattern->severity == KERNEL_FATAL ? "fatal: "
                     : c.last_pattern->severity == KERNEL_NOTICE ? "a notice only, the link "
                       "memory judges the link: " : "";
    utc_text(c.last->wall, true, at, sizeof(at));
    snprintf(got, sizeof(got), "%u message%s, the last at %s", shown, shown == 1 ? "" : "s", at);
    if (escalated)
        snprintf(esc, sizeof(esc), "escalated: %u in %s (limit %u); ", warned, span, repeats);
    findings_add(out, check, sev, r->name, want, got, sev == SEVERITY_OK ? NULL : hint_of(check),
                 "%s%s%s: \"%s\" at %s (%s%s)", esc, kind, c.last_pattern->means, c.last->line,
                 at, c.last_pattern->source,
                 fatal ? "; an error for the rest of this boot" : "");
}

void check_nic(const struct inventory *inv, const struct link_memory *m, const struct policy *p,
               struct findings *out)
{
    if (!m->kernel_read && !m->kernel_cursor[0])
        return;     /* the kernel log was never read: nothing is known */
    for (size_t i = 0; i < inv->n_rails; i++)
        for (size_t c = 0; c < n_kernel_log_checks; c++)
            check_rail_nic(&inv->rails[i], m, p, kernel_log_checks[c], out);
}
