/* SPDX-License-Identifier: ISC */
/* NCCL's automatic RoCE GID selection, replayed on a rail's GID table. */
#pragma once

#include "inventory.h"
#include "policy.h"

/* What NCCL >= 2.26 picks with NCCL_IB_GID_INDEX=-1, NCCL_IB_ADDR_FAMILY=family,
 * NCCL_IB_ROCE_VERSION_NUM=roce_version and NCCL_IB_ADDR_RANGE=range (NULL or unset:
 * any). Returns the index, or -1 for an empty table. */
int nccl_replay_gid_index(const struct rail *r, int family, uint32_t roce_version,
                          const struct cidr *range);
/* Why NCCL (2.26+) would not take entry G as its pick under these settings, in one word:
 * "empty", "link-local", "family", "subnet", "unreadable" (gid_attrs/types), "version";
 * NULL when G is one NCCL could pick. */
const char *nccl_gid_skip_reason(const struct gid_entry *g, int family, uint32_t roce_version,
                                 const struct cidr *range);
/* The GID index the policy means for this rail: its fixed gid_index, or with "auto" the
 * index NCCL picks under the policy's family, version and subnet. */
int rail_gid_index(const struct rail *r, const struct policy *p);
