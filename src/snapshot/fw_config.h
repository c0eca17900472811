/* SPDX-License-Identifier: ISC */
/* The NIC firmware's configuration as mstconfig (Debian's mstflint) or NVIDIA's mlxconfig
 * print it: `-d PCI -e query`, whose Default, Current and Next Boot columns say what the
 * firmware booted with and boots with next. Run bounded (child_run.h), never required. */
#pragma once

#include <stddef.h>

#include "timeutil.h"

/* The most a query may print: a ConnectX-7's full `-e query` is about 40 KiB. */
#define FW_CONFIG_MAX_OUTPUT (256u * 1024)

/* Asks the first of mstconfig and mlxconfig on $PATH about PCI function PCI_ADDR, within
 * TIMEOUT. 0 with its output (malloc'd, NUL-terminated) in *OUT and the tool's name in
 * TOOL; or -ENOENT (neither installed), -ETIMEDOUT, -EFBIG (more than
 * FW_CONFIG_MAX_OUTPUT), -EIO (it failed: WHY says how), another -errno (not started),
 * each with WHY set. */
int fw_config_query(const char *pci_addr, usec_t timeout, char **out, size_t *len,
                    char *tool, size_t toollen, char *why, size_t whylen);
