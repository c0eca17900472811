/* SPDX-License-Identifier: ISC */
/* What the kernel says about the rails' NICs (issue 45, item 1): one table of patterns, each
 * with the check it feeds (nic.firmware, nic.tx_timeout, ...), its severity, what it
 * means and where the kernel prints it; the match of a kernel message against it, and the
 * rail a message names (its PCI address, RDMA device or netdev). Pure: the reading is
 * sources/source_kernel_log.c, the memory of what matched link_memory.h, the judging
 * checks/check_nic.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "inventory.h"
#include "timeutil.h"

/* What one message of a row makes of its check. */
enum kernel_severity {
    KERNEL_FATAL,       /* an error at once, for the rest of the boot it was printed in */
    KERNEL_WARNING,     /* a warning for checks.nic.window; repeats of its check an error */
    KERNEL_NOTICE,      /* counted and shown, never a warning: the link memory already
                         * judges a link that went down (counters.sticky, netdev.flaps) */
};

struct kernel_pattern {
    const char *id;             /* "mlx5.cmd_timeout": the row's name, kept with its events */
    const char *driver;         /* a word the line must hold ("mlx5_core"); NULL: any */
    const char *glob;           /* fragments separated by '*' that appear in this order */
    const char *check;          /* "nic.firmware" */
    enum kernel_severity severity;
    const char *means;
    const char *source;         /* the kernel file (and function) that prints it */
};

extern const struct kernel_pattern kernel_patterns[];
extern const size_t n_kernel_patterns;

/* The nic.* checks the patterns feed, in the report's order. */
extern const char *const kernel_log_checks[];
extern const size_t n_kernel_log_checks;

/* The first row of the table that TEXT (one kernel message, its prefix included) matches,
 * or NULL. */
const struct kernel_pattern *kernel_log_match(const char *text);
const struct kernel_pattern *kernel_pattern_by_id(const char *id);

/* Whether the message TEXT, with its record's DEVICE field (DEVICE= of /dev/kmsg,
 * _KERNEL_DEVICE of the journal: "+pci:0000:08:00.0", may be NULL), names rail R: its PCI
 * function, its RDMA device or its netdev, as a whole word. */
bool kernel_log_names_rail(const struct rail *r, const char *text, const char *device);

/* One message kept for a rail: the pattern it matched and the line itself (cut). */
#define NIC_EVENTS_KEPT 16
#define NIC_LINE_MAX 200
#define NIC_ID_MAX 32
struct nic_event {
    char pattern[NIC_ID_MAX];   /* kernel_pattern.id */
    char boot_id[40];
    usec_t boottime, wall;      /* when the kernel printed it */
    char line[NIC_LINE_MAX];
};

/* Where the last read of the kernel log stopped: "journal:CURSOR" or
 * "kmsg:BOOT_ID:SEQ"; "" before the first. */
#define KERNEL_CURSOR_MAX 320
