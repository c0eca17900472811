/* SPDX-License-Identifier: ISC */
/* CPU lists as the kernel prints them ("0-3,8-11", cpulist_parse() in lib/bitmap.c's
 * form): local_cpulist, smp_affinity_list, effective_affinity_list. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define CPUSET_MAX 4096         /* CPUs fabtune keeps track of (NR_CPUS on Debian: 8192) */

struct cpuset {
    uint64_t bits[CPUSET_MAX / 64];
};

/* -EINVAL for anything but comma-separated N or N-M (and an empty list); a CPU past
 * CPUSET_MAX is -ERANGE. */
int cpulist_parse(const char *s, struct cpuset *ret);
bool cpuset_intersects(const struct cpuset *a, const struct cpuset *b);
/* The lowest CPU, or -1 for an empty set. */
int cpuset_first(const struct cpuset *s);
