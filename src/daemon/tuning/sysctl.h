/* SPDX-License-Identifier: ISC */
/* Sysctls under a procfs root (sys/net/core/rmem_max for net.core.rmem_max). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* "4096  87380\t134217728" equals "4096 87380 134217728": compared field by field. */
bool sysctl_values_equal(const char *a, const char *b);
int sysctl_read(const char *procfs_root, const char *key, char *buf, size_t len);
int sysctl_write(const char *procfs_root, const char *key, const char *value);
/* Whether PROCFS_ROOT's net.* keys are those of a network namespace other than the
 * host's (a container without the host's network): the kernel keeps some net keys in the
 * initial namespace alone (net.core.netdev_max_backlog among them, in every kernel), and
 * a child namespace lacks them, or shows them read-only (Linux 6.18: rmem_max). */
bool sysctl_netns_is_child(const char *procfs_root);
/* The key of PROCFS_ROOT nearest KEY, one component at a time ("net.core.rmem_maxx" ->
 * "net.core.rmem_max", "net.cor.somaxconn" -> "net.core.somaxconn"), into BUF: 0, or
 * -ENOENT when none is close (or the tree cannot be listed, a snapshot's). */
int sysctl_closest_key(const char *procfs_root, const char *key, char *buf, size_t len);
