/* SPDX-License-Identifier: ISC */
/* NCCL's automatic RoCE GID selection, replayed on a rail's GID table. */
#pragma once

#include "inventory.h"
#include "policy.h"

/* Which NCCL reads the types files: 2.26 and later go on past one whose read fails with
 * EINVAL; 2.21 to 2.25 fail the selection on it. Both fail on one that cannot be opened. */
enum nccl_era { NCCL_2_26, NCCL_2_21 };

/* What NCCL >= 2.26 picks with NCCL_IB_GID_INDEX=-1, NCCL_IB_ADDR_FAMILY=family,
 * NCCL_IB_ROCE_VERSION_NUM=roce_version and NCCL_IB_ADDR_RANGE=range (NULL or unset:
 * any), taking a types file it cannot open as one of no version. Returns the index, or -1
 * for an empty table. */
int nccl_replay_gid_index(const struct rail *r, int family, uint32_t roce_version,
                          const struct cidr *range);
/* The index whose gid_attrs/types file fails that selection in NCCL of ERA (it cannot be
 * opened; with NCCL_2_21 also one whose read fails), or -1 when the selection succeeds. */
int nccl_replay_failure(const struct rail *r, int family, uint32_t roce_version,
                        const struct cidr *range, enum nccl_era era);
/* Where NCCL (2.26+) fails its selection, as gid.nccl judges it: a job with NCCL's
 * defaults (IPv4, RoCE v2, no range), else one with fabtune's nccl.env (FAMILY,
 * ROCE_VERSION, RANGE). The index of the types file it cannot open, or -1 when neither
 * fails; *RET_DEFAULTS says which. */
int nccl_selection_fails_at(const struct rail *r, int family, uint32_t roce_version,
                            const struct cidr *range, bool *ret_defaults);
/* Why NCCL (2.26+) would not take entry G as its pick under these settings, in one word:
 * "empty", "link-local", "family", "subnet", "unreadable" (gid_attrs/types), "missing"
 * (no gid_attrs/types file: NCCL fails when it reads it), "version"; NULL when G is one
 * NCCL could pick. */
const char *nccl_gid_skip_reason(const struct gid_entry *g, int family, uint32_t roce_version,
                                 const struct cidr *range);
/* What NCCL takes on an InfiniBand port (ncclIbGetGidIndex): the index
 * NCCL_IB_ROUTABLE_FLID_GID_INDEX (default 1) when its GID carries a FLID, else 0; -1 for
 * an empty table. */
int nccl_ib_gid_index(const struct rail *r);
/* Why NCCL on an InfiniBand port does not take entry I: "no-flid" (the routable FLID
 * index without a FLID), "infiniband" (an index NCCL does not read there); NULL for its pick. */
const char *nccl_ib_skip_reason(const struct rail *r, uint32_t i);
/* The GID index the policy means for this rail: its fixed gid_index, or with "auto" the
 * index NCCL picks under the policy's family, version and subnet. */
int rail_gid_index(const struct rail *r, const struct policy *p);
