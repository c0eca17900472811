/* SPDX-License-Identifier: ISC */
/* Sysctls under a procfs root (sys/net/core/rmem_max for net.core.rmem_max). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* "4096  87380\t134217728" equals "4096 87380 134217728": compared field by field. */
bool sysctl_values_equal(const char *a, const char *b);
int sysctl_read(const char *procfs_root, const char *key, char *buf, size_t len);
int sysctl_write(const char *procfs_root, const char *key, const char *value);
