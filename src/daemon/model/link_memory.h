/* SPDX-License-Identifier: ISC */
/* A memory of the link (issue 30, item 4): per rail, its flaps (carrier changes), link downs
 * (link_downed rising) and error bursts (the link class's rate over its threshold), and the
 * raises of its link checks' warnings, kept across daemon restarts (state/link_store).
 * A rail gone from the inventory and back is an event too (it was down all that while).
 * From them the pure rules: a rail stays DEGRADED for a sticky window after its last event
 * (gpud's lesson: a link that is READY the second it comes up flip-flops in and out of
 * Slurm), and N warnings of one check on one rail within a window are an error
 * (NVSentinel: 5 in 24 h).
 *
 * Boot-id aware: an event keeps the boot it happened in. Its age is measured on
 * CLOCK_BOOTTIME within its boot and on the wall clock across boots; one of another boot
 * dated in the future (a clock set back) has no age and counts as expired. The baselines
 * that events are found against (carrier_changes, the link_downed total) are this boot's
 * alone: a reboot clears them, the events stay as history. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "findings.h"
#include "inventory.h"
#include "kernel_log.h"
#include "rx_trend.h"
#include "timeutil.h"

enum link_event_kind {
    LINK_EVENT_FLAP,            /* carrier_changes rose by COUNT */
    LINK_EVENT_DOWN,            /* the link-down counters rose by COUNT */
    LINK_EVENT_BURST,           /* the link class over its threshold; COUNT: rate, per s */
    LINK_EVENT_WARNING,         /* WHAT (a link check) began to fail on the rail */
    LINK_EVENT_GONE,            /* the rail came back to the inventory after COUNT seconds
                                 * gone (an HCA reset, a driver reload) */
    LINK_EVENT_KINDS,
};

/* Kept per rail, the oldest dropped first: flaps and warnings of a day share it. */
#define LINK_MEMORY_EVENTS 128
/* The most warnings an escalation can count (policy.h's escalate.warnings). */
#define LINK_ESCALATE_MAX 64
#define LINK_BOOT_ID_MAX 40
#define LINK_WHAT_MAX 48

struct link_event {
    enum link_event_kind kind;
    char boot_id[LINK_BOOT_ID_MAX];
    usec_t boottime;            /* CLOCK_BOOTTIME of BOOT_ID */
    usec_t wall;                /* CLOCK_REALTIME */
    uint64_t count;
    char what[LINK_WHAT_MAX];   /* the netdev, the counter that rose most, the check id */
};

/* The checks whose warnings are counted for escalation: netdev.flaps, counters.<class>
 * and link.ber. */
#define LINK_TRACKED (2 + COUNTER_CLASSES)

struct rail_memory {
    char rail[80];
    /* This boot's baselines (cleared by a reboot). */
    bool has_carrier;
    uint64_t carrier_changes;
    bool has_downs;
    uint64_t downs;
    bool bursting;              /* the last pass saw the link class over its threshold */
    uint32_t failing;           /* bit i: tracked check i failed at the last pass */
    struct link_event events[LINK_MEMORY_EVENTS];
    size_t n_events;
    struct rx_trend rx;         /* its module's Rx power over the trend window */
    /* CLOCK_REALTIME of the first pass whose inventory lacked the rail (an HCA reset, a
     * driver reload, a device off the bus); 0 while it is there. */
    usec_t absent_since;
    /* What was known of the rail at the last pass it was there (rails.gone says it when it
     * is gone): its PCI function ("" for a virtual device) and its port's state. */
    char pci_addr[16];
    char last_state[48];        /* "ACTIVE/LinkUp" */
    /* While gone: whether its PCI function is still listed under bus/pci/devices (the
     * driver let it go; else the bus lost it), as the pass found it (pci_known false for a
     * virtual device or before a look); and whether an operator forgot it (fabtunectl
     * forget), which its return clears. */
    bool pci_known, pci_listed;
    bool forgotten;
    /* The kernel's messages about the rail that matched a pattern (model/kernel_log.h),
     * oldest first; when full, the oldest non-fatal one makes room. */
    struct nic_event nic[NIC_EVENTS_KEPT];
    size_t n_nic;
};

/* How long the memory of a rail gone from the inventory is kept: the longest window a policy
 * can set (checks.counters.sticky_window and escalate.window, 168h), so that a rail that
 * comes back keeps its window and its warnings. */
#define LINK_MEMORY_ABSENT_KEEP (168ull * 3600 * USEC_PER_SEC)

struct link_memory {
    char boot_id[LINK_BOOT_ID_MAX];
    usec_t now_boottime, now_wall;      /* the last fold's: the checks' "now" */
    char kernel_cursor[KERNEL_CURSOR_MAX];  /* where the kernel log's last read stopped */
    bool kernel_read;                   /* this pass read the kernel log (nic.* judged) */
    struct rail_memory *rails;
    size_t n, cap;
};

/* The tracked check's index (0 .. LINK_TRACKED-1), or -1: a check whose warnings escalate. */
int link_tracked_index(const char *check);
const char *link_tracked_name(int index);
const char *link_event_kind_name(enum link_event_kind k);   /* "flap" */
int link_event_kind_from_name(const char *name);            /* -1 if none */

struct rail_memory *link_memory_find(struct link_memory *m, const char *rail);
const struct rail_memory *link_memory_find_const(const struct link_memory *m, const char *rail);
/* RAIL's memory, created empty if new: -EFBIG past INVENTORY_MAX_RAILS, -ENOMEM. */
int link_memory_rail(struct link_memory *m, const char *rail, struct rail_memory **ret);
/* Adds EV to RAIL's events (created; -EFBIG past INVENTORY_MAX_RAILS, -ENOMEM), dropping
 * the oldest when full. */
int link_memory_add_event(struct link_memory *m, const char *rail, const struct link_event *ev);

/* One pass's observation of every rail of INV under BOOT_ID, at NOW_BOOTTIME/NOW_WALL:
 * flaps and link downs against this boot's baselines, bursts from COUNTERS' link-class
 * peak over LIM's link_limit (one event per burst, dated at the last sample that saw it).
 * A rail gone from INV is kept, marked absent, and its return is an event; one gone past
 * LINK_MEMORY_ABSENT_KEEP is dropped. -ENOMEM. */
int link_memory_observe(struct link_memory *m, const char *boot_id, usec_t now_boottime,
                        usec_t now_wall, const struct inventory *inv,
                        const struct counter_state *counters, const struct counter_limits *lim);
/* The operator forgets RAIL, gone from the inventory: rails.gone no longer raises it
 * (its history stays, for a return). -ENOENT: no such rail in the memory; -EEXIST: it is
 * in the inventory (not gone). */
int link_memory_forget(struct link_memory *m, const char *rail);
/* Adds a sample of each rail's module Rx power (rails whose module was read) at NOW_WALL
 * to its trend over WINDOW (rx_trend.h). Call after link_memory_observe. -ENOMEM. */
int link_memory_observe_modules(struct link_memory *m, usec_t now_wall,
                                const struct inventory *inv, usec_t window);
/* Records the raises among FS's findings of tracked checks (warning or error now, not at
 * the last pass) as LINK_EVENT_WARNING events, and which fail now. -ENOMEM. */
int link_memory_note_findings(struct link_memory *m, const struct findings *fs);

/* One kernel message TEXT (its record's DEVICE field, may be NULL), printed at
 * BOOTTIME/WALL of the memory's boot: kept for every rail of INV it names when it matches a
 * pattern (kernel_log.h). Returns how many rails kept it, or -ENOMEM/-EFBIG. */
int link_memory_note_kernel(struct link_memory *m, const struct inventory *inv, const char *text,
                            const char *device, usec_t boottime, usec_t wall);
/* EV's age at the memory's now, as link_event_age. */
bool nic_event_age(const struct link_memory *m, const struct nic_event *ev, usec_t *age);

/* What EV was, in words: "flapped (3 carrier changes on eth0)", "had an error burst
 * (rx_pcs_symbol_err_phy at 1200/s)", ... */
void link_event_describe(const struct link_event *ev, char *buf, size_t len);
/* EV's age at the memory's now; false where it has none (another boot's, in the future). */
bool link_event_age(const struct link_memory *m, const struct link_event *ev, usec_t *age);
/* RAIL's latest flap, down or burst younger than WINDOW, or NULL (WINDOW 0: none). */
const struct link_event *link_memory_sticky(const struct link_memory *m, const char *rail,
                                            usec_t window);
/* CHECK's raises on RAIL within WINDOW, with the one this pass makes when CHECK fails now
 * (FAILING_NOW) and did not at the last pass. */
unsigned link_memory_warnings(const struct link_memory *m, const char *rail, const char *check,
                              usec_t window, bool failing_now);

/* What fabtunectl links shows of a rail's memory: within a window (a day), the link
 * downs (link_downed's rises, summed), the carrier changes of its flaps and its error
 * bursts; and its latest flaps, downs and bursts, newest first (warnings are not events
 * of the link). An event without an age (another boot's, in the future) is not counted. */
#define LINK_SUMMARY_EVENTS 5
struct link_summary {
    uint64_t downs, carrier_changes;
    unsigned bursts;
    struct link_event last[LINK_SUMMARY_EVENTS];
    size_t n_last;
};
void link_memory_summary(const struct link_memory *m, const char *rail, usec_t window,
                         struct link_summary *ret);
void link_memory_done(struct link_memory *m);
