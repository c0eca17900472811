/* SPDX-License-Identifier: ISC */
/* The sysctl profile as a transaction: read, snapshot originals, apply, verify, revert. */
#pragma once

#include "policy.h"
#include "tuning.h"

enum tuning_action {
    TUNING_READ,                /* verify: read every key and its original; write nothing */
    TUNING_APPLY,               /* the transaction: snapshot, write, read back */
    TUNING_REVERT,              /* restore the snapshot's originals, then drop it */
};

/* The one entry point of a tuning transaction, for --once, the daemon's check cycle, its
 * apply/revert commands and revert_on_stop. Initialises t, runs the action and leaves every
 * key's state in t. APPLY under tuning.mode off is refused (-ECANCELED, nothing written);
 * REVERT needs no policy (p may be NULL) and writes only allowlisted keys; with one, each
 * key's wanted is then the policy's value (as the next read judges it; "" where the policy
 * names the key no more), not the original it restored. rails: the
 * netdevs that the policy's @rail and @multirail keys expand over (NULL: none; REVERT
 * needs none, the snapshot holds the expanded keys). Returns 0, or the first -errno. */
int tuning_run(struct tuning *t, const char *procfs_root, const char *state_dir,
               const struct policy *p, const struct rail_netdevs *rails, enum tuning_action a);

/* Reads every policy key and its original from the snapshot; writes nothing. The policy's
 * per-rail keys expand over t's rails (tuning_set_rails). */
int tuning_read(struct tuning *t, const struct policy *p);
/* Snapshots the originals (atomically, before the first write), writes the wanted values,
 * reads them back. Returns 0, or the first -errno; every key's state says what happened. */
int tuning_apply(struct tuning *t, const struct policy *p);
/* Restores every original in the snapshot, then removes it. -ENOENT when there is none.
 * A key outside the allowlist (a tampered snapshot) is refused, never written (-EPERM). */
int tuning_revert(struct tuning *t);
