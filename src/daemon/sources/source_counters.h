/* SPDX-License-Identifier: ISC */
/* The counter sources: a port's hw_counters/ and counters/ in sysfs, and the netdev's
 * ethtool statistics (live only). */
#pragma once

#include <linux/ethtool.h>
#include <stddef.h>

#include "counters.h"
#include "inventory.h"

/* The ethtool statistics of IFNAME that WANT accepts (all with NULL), added to S as
 * "ethtool:NAME". Returns the driver's statistic count, or -errno. */
int source_ethtool_stats(const char *ifname, bool (*want)(const char *name),
                         struct counter_sample *s);
/* One GSTRINGS/GSTATS pair as the kernel filled them (kernel_replies.h), each buffer cap
 * entries long: the entries both cover, added as above. Returns their count, or -ENOMEM. */
int source_ethtool_fold(const struct ethtool_gstrings *names, const struct ethtool_stats *stats,
                        size_t cap, bool (*want)(const char *name), struct counter_sample *s);
/* Those replies read back from a snapshot (any bytes: validated). Returns the count folded,
 * or -EBADMSG. */
int source_ethtool_fold_bytes(const void *names, size_t names_len, const void *stats,
                              size_t stats_len, bool (*want)(const char *name),
                              struct counter_sample *s);
/* One rail's counters now; LIVE adds the ethtool statistics. */
void source_counters_sample(const char *sysroot, bool live, const struct rail *r,
                            struct counter_sample *s);
/* Fills each rail's counter sample. */
void source_counters_read(const char *sysroot, bool live, struct inventory *inv);
/* The boot id from PROCROOT/sys/kernel/random/boot_id, or "unknown". */
void source_boot_id(const char *procroot, char *buf, size_t len);
