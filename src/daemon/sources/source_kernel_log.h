/* SPDX-License-Identifier: ISC */
/* The kernel log, read for what it says about the rails (issue 45, item 1): journald's
 * kernel transport through sd-journal where journald runs, /dev/kmsg where it does not.
 * Each read starts where the last stopped (the memory's kernel_cursor), or at the boot's
 * start; only records of the kernel's facility (0) count. */
#pragma once

#include "inventory.h"
#include "link_memory.h"

/* The most records one read takes: a boot's log is read in a few passes, never at once. */
#define KERNEL_LOG_READ_MAX 100000

/* Where the kernel log is read from: the journal's directory (NULL: the system's) and the
 * kmsg device; JOURNAL false: /dev/kmsg only. */
struct kernel_log_paths {
    bool journal;
    const char *kmsg;
};
/* The node's: the journal where journald's socket is, else /dev/kmsg. */
void source_kernel_log_paths(struct kernel_log_paths *ret);

/* Reads what the kernel printed since M's cursor and keeps the messages that name a rail
 * of INV and match a pattern (link_memory_note_kernel), advancing the cursor; M's boot id
 * and now are this pass's (after link_memory_observe). Returns how many records it read,
 * or -errno where no log could be opened (M's cursor unchanged). */
int source_kernel_log_read(const struct kernel_log_paths *paths, const struct inventory *inv,
                           struct link_memory *m);
