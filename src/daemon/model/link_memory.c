/* SPDX-License-Identifier: ISC */
/* The memory of each rail's link: events found between passes, and the sticky-window and
 * escalation rules on them (link_memory.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "link_memory.h"
#include "macro.h"
#include "strutil.h"

static const char *const kind_names[LINK_EVENT_KINDS] = {
    [LINK_EVENT_FLAP] = "flap",
    [LINK_EVENT_DOWN] = "link_down",
    [LINK_EVENT_BURST] = "error_burst",
    [LINK_EVENT_WARNING] = "warning",
    [LINK_EVENT_GONE] = "gone",
};

const char *link_event_kind_name(enum link_event_kind k)
{
    return k < LINK_EVENT_KINDS ? kind_names[k] : "unknown";
}

int link_event_kind_from_name(const char *name)
{
    for (int k = 0; k < LINK_EVENT_KINDS; k++)
        if (streq(kind_names[k], name))
            return k;
    return -1;
}

int link_tracked_index(const char *check)
{
    if (streq(check, "netdev.flaps"))
        return 0;
    if (streq(check, "link.ber"))
        return 1 + COUNTER_CLASSES;
    if (strncmp(check, "counters.", 9) != 0)
        return -1;
    for (int c = 0; c < COUNTER_CLASSES; c++)
        if (streq(check + 9, counter_class_name((enum counter_class)c)))
            return 1 + c;
    return -1;
}

const char *link_tracked_name(int index)
{
    static char names[LINK_TRACKED][32];
    if (index < 0 || index >= LINK_TRACKED)
        return NULL;
    if (index == 0)
        return "netdev.flaps";
    if (index == 1 + COUNTER_CLASSES)
        return "link.ber";
    if (!names[index][0])
        snprintf(names[index], sizeof(names[index]), "counters.%s",
                 counter_class_name((enum counter_class)(index - 1)));
    return names[index];
}

struct rail_memory *link_memory_find(struct link_memory *m, const char *rail)
{
    for (size_t i = 0; i < m->n; i++)
        if (streq(m->rails[i].rail, rail))
            return &m->rails[i];
    return NULL;
}

const struct rail_memory *link_memory_find_const(const struct link_memory *m, const char *rail)
{
    return link_memory_find((struct link_memory *)m, rail);
}

/* Full: the rail gone from the inventory the longest makes room, if there is one. */
static bool evict_longest_absent(struct link_memory *m)
{
    size_t oldest = m->n;
    for (size_t i = 0; i < m->n; i++)
        if (m->rails[i].absent_since &&
            (oldest == m->n || m->rails[i].absent_since < m->rails[oldest].absent_since))
            oldest = i;
    if (oldest == m->n)
        return false;
    memmove(&m->rails[oldest], &m->rails[oldest + 1], (m->n - oldest - 1) * sizeof(m->rails[0]));
    m->n--;
    return true;
}

int link_memory_rail(struct link_memory *m, const char *rail, struct rail_memory **ret)
{
    struct rail_memory *rm = link_memory_find(m, rail);
    if (!rm) {
        int r = GROW_ARRAY(m->rails, m->cap, m->n + 1, INVENTORY_MAX_RAILS);
        if (r == -EFBIG && evict_longest_absent(m))
            r = 0;
        if (r < 0)
            return r;
        rm = &m->rails[m->n++];
        memset(rm, 0, sizeof(*rm));
        strscpy(rm->rail, rail, sizeof(rm->rail));
    }
    *ret = rm;
    return 0;
}

/* EV after RM's others, the oldest dropped when they are full. */
static void push_event(struct rail_memory *rm, const struct link_event *ev)
{
    if (rm->n_events == LINK_MEMORY_EVENTS) {
        memmove(rm->events, rm->events + 1, (LINK_MEMORY_EVENTS - 1) * sizeof(rm->events[0]));
        rm->n_events--;
    }
    rm->events[rm->n_events++] = *ev;
}

int link_memory_add_event(struct link_memory *m, const char *rail, const struct link_event *ev)
{
    struct rail_memory *rm;
    int r = link_memory_rail(m, rail, &rm);
    if (r < 0)
        return r;
    push_event(rm, ev);
    return 0;
}

static bool nic_fatal(const struct nic_event *ev)
{
    const struct kernel_pattern *k = kernel_pattern_by_id(ev->pattern);
    return k && k->severity == KERNEL_FATAL;
}

/* EV after RM's kernel messages; when full, the oldest non-fatal one (else the oldest)
 * makes room, so that a flood of link downs cannot push a firmware fault out. */
static void push_nic(struct rail_memory *rm, const struct nic_event *ev)
{
    if (rm->n_nic == NIC_EVENTS_KEPT) {
        size_t drop = 0;
        for (size_t i = 0; i < rm->n_nic; i++)
            if (!nic_fatal(&rm->nic[i])) {
                drop = i;
                break;
            }
        memmove(&rm->nic[drop], &rm->nic[drop + 1], (rm->n_nic - drop - 1) * sizeof(rm->nic[0]));
        rm->n_nic--;
    }
    rm->nic[rm->n_nic++] = *ev;
}

int link_memory_note_kernel(struct link_memory *m, const struct inventory *inv, const char *text,
                            const char *device, usec_t boottime, usec_t wall)
{
    const struct kernel_pattern *k = kernel_log_match(text);
    struct nic_event ev = { 0 };
    int kept = 0;
    if (!k)
        return 0;
    strscpy(ev.pattern, k->id, sizeof(ev.pattern));
    strscpy(ev.boot_id, m->boot_id, sizeof(ev.boot_id));
    ev.boottime = boottime;
    ev.wall = wall;
    strscpy(ev.line, text, sizeof(ev.line));
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct rail_memory *rm;
        if (!kernel_log_names_rail(&inv->rails[i], text, device))
            continue;
        int r = link_memory_rail(m, inv->rails[i].name, &rm);
        if (r < 0)
            return r;
        push_nic(rm, &ev);
        kept++;
    }
    return kept;
}

/* An event seen at boot time AT, no later than the fold's now: dated on both clocks. */
static void event_at(const struct link_memory *m, struct link_event *ev,
                     enum link_event_kind kind, uint64_t count, const char *what, usec_t at)
{
    usec_t ago = at < m->now_boottime ? m->now_boottime - at : 0;
    memset(ev, 0, sizeof(*ev));
    ev->kind = kind;
    strscpy(ev->boot_id, m->boot_id, sizeof(ev->boot_id));
    ev->boottime = m->now_boottime - ago;
    ev->wall = m->now_wall > ago ? m->now_wall - ago : 0;
    ev->count = count;
    strscpy(ev->what, what ? what : "", sizeof(ev->what));
}

static void event_now(const struct link_memory *m, struct link_event *ev,
                      enum link_event_kind kind, uint64_t count, const char *what)
{
    event_at(m, ev, kind, count, what, m->now_boottime);
}

/* The rail's latest event of KIND, or NULL. */
static struct link_event *latest(struct rail_memory *rm, enum link_event_kind kind)
{
    for (size_t i = rm->n_events; i-- > 0;)
        if (rm->events[i].kind == kind)
            return &rm->events[i];
    return NULL;
}

/* One rail's counts against its baselines: a rise is an event, a fall (a reset) only a new
 * baseline, a first reading in this boot neither. */
static int observe_rail(struct link_memory *m, const struct rail *r, const struct rail_counters *rc,
                        double threshold)
{
    struct rail_memory *rm;
    struct link_event ev;
    int err = link_memory_rail(m, r->name, &rm);
    if (err < 0)
        return err;
    strscpy(rm->pci_addr, r->pci_addr, sizeof(rm->pci_addr));
    snprintf(rm->last_state, sizeof(rm->last_state), "%s/%s",
             r->state_name[0] ? r->state_name : "unknown",
             r->phys_state_name[0] ? r->phys_state_name : "unknown");
    if (r->netdev.present && r->netdev.has_carrier_changes) {
        uint64_t now = r->netdev.carrier_changes;
        if (rm->has_carrier && now > rm->carrier_changes) {
            event_now(m, &ev, LINK_EVENT_FLAP, now - rm->carrier_changes, r->netdev.name);
            if ((err = link_memory_add_event(m, r->name, &ev)) < 0)
                return err;
            rm = link_memory_find(m, r->name);
        }
        rm->has_carrier = true;
        rm->carrier_changes = now;
    }
    const struct class_rate *down = rc ? &rc->rates[COUNTER_LINK_DOWN] : NULL;
    if (down && down->present && rc->have_last) {
        if (rm->has_downs && down->total > rm->downs) {
            event_now(m, &ev, LINK_EVENT_DOWN, down->total - rm->downs, "link_downed");
            if ((err = link_memory_add_event(m, r->name, &ev)) < 0)
                return err;
            rm = link_memory_find(m, r->name);
        }
        rm->has_downs = true;
        rm->downs = down->total;
    }
    const struct class_rate *link = rc ? &rc->rates[COUNTER_LINK] : NULL;
    if (link && link->present && link->known) {
        /* The peak is held for the check interval, so that a burst between two passes is
         * judged; but a held peak is no burst going on: the burst was last seen at the
         * latest sample over the limit (counters.h). */
        bool over = link->peak > threshold;
        usec_t seen = rc->link_over_at ? rc->link_over_at : m->now_boottime;
        struct link_event *last = latest(rm, LINK_EVENT_BURST);
        uint64_t rate = (uint64_t)(link->peak < 1e18 ? link->peak + 0.5 : 1e18);
        /* A sample under the limit after the burst was last seen ended it: past the
         * limit again, within the held peak, is a second burst. */
        bool ended = last && rc->link_under_at > last->boottime && seen > rc->link_under_at;
        if (over && rm->bursting && last && !ended) {
            /* The same burst: its window starts when it was last seen. */
            if (seen > last->boottime) {
                event_at(m, &ev, LINK_EVENT_BURST, rate > last->count ? rate : last->count,
                         link->peak_top[0] ? link->peak_top : last->what, seen);
                *last = ev;
            }
        } else if (over) {
            event_at(m, &ev, LINK_EVENT_BURST, rate, link->peak_top, seen);
            if ((err = link_memory_add_event(m, r->name, &ev)) < 0)
                return err;
            rm = link_memory_find(m, r->name);
        }
        rm->bursting = over;
    }
    return 0;
}

/* This boot's events dated on the wall clock as it reads now: a step of it (NTP mending a
 * clock, an operator's date) moves them with it, so an event's time and the end of its
 * window, counted on CLOCK_BOOTTIME, always agree. Another boot's keep theirs. */
static void redate(struct link_memory *m)
{
    for (size_t i = 0; i < m->n; i++)
        for (size_t j = 0; j < m->rails[i].n_events; j++) {
            struct link_event *ev = &m->rails[i].events[j];
            if (!streq(ev->boot_id, m->boot_id) || ev->boottime > m->now_boottime)
                continue;
            usec_t age = m->now_boottime - ev->boottime;
            ev->wall = m->now_wall > age ? m->now_wall - age : 0;
        }
}

static void reboot(struct link_memory *m, const char *boot_id)
{
    for (size_t i = 0; i < m->n; i++) {
        struct rail_memory *rm = &m->rails[i];
        rm->has_carrier = rm->has_downs = rm->bursting = false;
        rm->carrier_changes = rm->downs = 0;
        rm->failing = 0;
    }
    strscpy(m->boot_id, boot_id, sizeof(m->boot_id));
}

int link_memory_observe(struct link_memory *m, const char *boot_id, usec_t now_boottime,
                        usec_t now_wall, const struct inventory *inv,
                        const struct counter_state *counters, const struct counter_limits *lim)
{
    if (!streq(m->boot_id, boot_id))
        reboot(m, boot_id);
    m->now_boottime = now_boottime;
    m->now_wall = now_wall;
    redate(m);
    /* A rail that leaves the inventory keeps its memory, so that it comes back with its
     * sticky window and its warnings (an HCA reset is no clean slate); one gone longer than
     * any window a policy can set is dropped, and so the memory stays the size of the node. */
    size_t kept = 0;
    for (size_t i = 0; i < m->n; i++) {
        struct rail_memory *rm = &m->rails[i];
        bool present = false;
        for (size_t j = 0; j < inv->n_rails && !present; j++)
            present = streq(rm->rail, inv->rails[j].name);
        if (present && rm->absent_since) {
            /* Back: the rail was down all the while it was gone, and a device that has
             * just come back often goes again, so its return is sticky as a flap is. */
            struct link_event ev;
            usec_t gone = now_wall > rm->absent_since ? now_wall - rm->absent_since : 0;
            event_now(m, &ev, LINK_EVENT_GONE, gone / USEC_PER_SEC, "the inventory");
            push_event(rm, &ev);
            rm->absent_since = 0;
            rm->forgotten = rm->pci_known = rm->pci_listed = false;
        } else if (!present && !rm->absent_since)
            rm->absent_since = now_wall ? now_wall : 1;
        if (rm->absent_since && now_wall > rm->absent_since &&
            now_wall - rm->absent_since > LINK_MEMORY_ABSENT_KEEP)
            continue;
        if (kept != i)
            m->rails[kept] = *rm;
        kept++;
    }
    m->n = kept;
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        int err = observe_rail(m, r, counters ? counters_find_const(counters, r->name) : NULL,
                               counters ? lim->link_limit : 0);
        if (err < 0)
            return err;
    }
    return 0;
}

int link_memory_observe_modules(struct link_memory *m, usec_t now_wall,
                                const struct inventory *inv, usec_t window)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        struct rail_memory *rm;
        if (!r->module.known || !r->module.info.monitored)
            continue;
        int err = link_memory_rail(m, r->name, &rm);
        if (err < 0)
            return err;
        rx_trend_add(&rm->rx, &r->module.info, now_wall, window);
    }
    return 0;
}

static bool failing(enum severity s)
{
    return s == SEVERITY_WARNING || s == SEVERITY_ERROR;
}

int link_memory_note_findings(struct link_memory *m, const struct findings *fs)
{
    for (size_t i = 0; i < m->n; i++) {
        struct rail_memory *rm = &m->rails[i];
        uint32_t now = 0;
        for (size_t j = 0; j < fs->n; j++) {
            const struct finding *f = &fs->items[j];
            int t = f->rail && streq(f->rail, rm->rail) ? link_tracked_index(f->check) : -1;
            if (t < 0 || !failing(f->severity) || (now & (1u << t)))
                continue;
            now |= 1u << t;
            if (rm->failing & (1u << t))
                continue;
            struct link_event ev;
            event_now(m, &ev, LINK_EVENT_WARNING, 1, f->check);
            int err = link_memory_add_event(m, rm->rail, &ev);
            if (err < 0)
                return err;
        }
        /* An unknown (no rate after a restart) neither raises nor clears. */
        for (size_t j = 0; j < fs->n; j++) {
            const struct finding *f = &fs->items[j];
            int t = f->rail && streq(f->rail, rm->rail) ? link_tracked_index(f->check) : -1;
            if (t >= 0 && f->severity == SEVERITY_OK)
                rm->failing &= ~(1u << t);
        }
        rm->failing |= now;
    }
    return 0;
}

void link_event_describe(const struct link_event *ev, char *buf, size_t len)
{
    switch (ev->kind) {
    case LINK_EVENT_FLAP:
        snprintf(buf, len, "flapped (%llu carrier changes on %s)", (unsigned long long)ev->count,
                 ev->what);
        break;
    case LINK_EVENT_DOWN:
        snprintf(buf, len, "went down (%s +%llu)", ev->what, (unsigned long long)ev->count);
        break;
    case LINK_EVENT_GONE:
        snprintf(buf, len, "came back (its rail was gone from %s for %llu s: a device reset, "
                 "a driver reload)", ev->what, (unsigned long long)ev->count);
        break;
    default:
        snprintf(buf, len, "had an error burst (%s%s%llu/s)", ev->what, ev->what[0] ? " at " : "",
                 (unsigned long long)ev->count);
        break;
    }
}

bool link_event_age(const struct link_memory *m, const struct link_event *ev, usec_t *age)
{
    if (streq(ev->boot_id, m->boot_id)) {
        *age = m->now_boottime > ev->boottime ? m->now_boottime - ev->boottime : 0;
        return true;
    }
    if (ev->wall > m->now_wall)
        return false;
    *age = m->now_wall - ev->wall;
    return true;
}

bool nic_event_age(const struct link_memory *m, const struct nic_event *ev, usec_t *age)
{
    struct link_event at = { .boottime = ev->boottime, .wall = ev->wall };
    strscpy(at.boot_id, ev->boot_id, sizeof(at.boot_id));
    return link_event_age(m, &at, age);
}

static bool within(const struct link_memory *m, const struct link_event *ev, usec_t window)
{
    usec_t age;
    return link_event_age(m, ev, &age) && age < window;
}

const struct link_event *link_memory_sticky(const struct link_memory *m, const char *rail,
                                            usec_t window)
{
    const struct rail_memory *rm = link_memory_find_const(m, rail);
    if (!rm || window == 0)
        return NULL;
    /* The youngest: a burst's event moves on in place while the burst lasts. */
    const struct link_event *best = NULL;
    usec_t best_age = 0, age;
    for (size_t i = 0; i < rm->n_events; i++) {
        const struct link_event *ev = &rm->events[i];
        if (ev->kind == LINK_EVENT_WARNING || !link_event_age(m, ev, &age) || age >= window)
            continue;
        if (!best || age <= best_age) {
            best = ev;
            best_age = age;
        }
    }
    return best;
}

/* Newest first; a burst's time moves on in place, so the order of the array is not it. */
static int by_wall_desc(const void *a, const void *b)
{
    const struct link_event *x = a, *y = b;
    return x->wall < y->wall ? 1 : x->wall > y->wall ? -1 : 0;
}

void link_memory_summary(const struct link_memory *m, const char *rail, usec_t window,
                         struct link_summary *ret)
{
    const struct rail_memory *rm = link_memory_find_const(m, rail);
    struct link_event all[LINK_MEMORY_EVENTS];
    size_t n = 0;
    memset(ret, 0, sizeof(*ret));
    for (size_t i = 0; rm && i < rm->n_events && n < ARRAY_SIZE(all); i++) {
        const struct link_event *ev = &rm->events[i];
        if (ev->kind == LINK_EVENT_WARNING)
            continue;
        all[n++] = *ev;
        if (!within(m, ev, window))
            continue;
        if (ev->kind == LINK_EVENT_DOWN)
            ret->downs += ev->count;
        else if (ev->kind == LINK_EVENT_GONE)
            ret->downs++;       /* its link was down while it was gone */
        else if (ev->kind == LINK_EVENT_FLAP)
            ret->carrier_changes += ev->count;
        else
            ret->bursts++;
    }
    qsort(all, n, sizeof(all[0]), by_wall_desc);
    ret->n_last = n < LINK_SUMMARY_EVENTS ? n : LINK_SUMMARY_EVENTS;
    memcpy(ret->last, all, ret->n_last * sizeof(all[0]));
}

unsigned link_memory_warnings(const struct link_memory *m, const char *rail, const char *check,
                              usec_t window, bool failing_now)
{
    const struct rail_memory *rm = link_memory_find_const(m, rail);
    int t = link_tracked_index(check);
    unsigned n = 0;
    if (t < 0)
        return 0;
    if (failing_now && !(rm && (rm->failing & (1u << t))))
        n++;
    for (size_t i = 0; rm && i < rm->n_events; i++) {
        const struct link_event *ev = &rm->events[i];
        if (ev->kind == LINK_EVENT_WARNING && streq(ev->what, check) && within(m, ev, window))
            n++;
    }
    return n;
}

void link_memory_done(struct link_memory *m)
{
    free(m->rails);
    memset(m, 0, sizeof(*m));
}

int link_memory_forget(struct link_memory *m, const char *rail)
{
    struct rail_memory *rm = link_memory_find(m, rail);
    if (!rm)
        return -ENOENT;
    if (!rm->absent_since)
        return -EEXIST;
    rm->forgotten = true;
    return 0;
}
