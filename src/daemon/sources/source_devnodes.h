/* SPDX-License-Identifier: ISC */
/* The device nodes a job opens (issue 45, item 2): each rail's uverbs (every RDMA device,
 * class/infiniband_verbs/uverbsN) and, on InfiniBand, its port's umad
 * (class/infiniband_mad/umadN), and the node's rdma_cm (class/misc/rdma_cm): the numbers
 * sysfs gives, and the node under DEVROOT/infiniband with its type, numbers and mode. */
#pragma once

#include "inventory.h"

/* DEVROOT NULL: /dev is not looked at (a captured tree has none): only sysfs is read, and
 * a tree without class/infiniband_verbs leaves every rail's nodes unknown (not judged). */
void source_devnodes_scan(const char *sysroot, const char *devroot, struct inventory *inv);
