/* SPDX-License-Identifier: ISC */
/* The sysctl profile as a transaction: read, snapshot originals, apply, verify, revert. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

#define TUNING_VALUE_MAX (POLICY_SYSCTL_VALUE_MAX + 1)

enum tuning_state {
    TUNING_STATE_APPLIED,       /* live equals wanted */
    TUNING_STATE_DRIFT,         /* live differs from wanted */
    TUNING_STATE_REVERTED,      /* the original was restored */
    TUNING_STATE_UNMANAGED,     /* tuning.mode is off */
    TUNING_STATE_MISSING,       /* this kernel has no such key */
    TUNING_STATE_FAILED,        /* reading or writing failed */
};

struct tuning_key {
    char key[POLICY_SYSCTL_KEY_MAX + 1];
    char wanted[TUNING_VALUE_MAX];
    char live[TUNING_VALUE_MAX];
    bool live_known;
    char original[TUNING_VALUE_MAX];
    bool has_original;
    enum tuning_state state;
    bool reapplied;             /* this pass found drift and wrote the value again */
    char error[96];             /* why a read or a write failed */
    char writer[320];           /* "/etc/sysctl.d/10-foo.conf:3", a tuned profile, or "" */
};

struct tuning {
    const char *procfs_root;    /* "/proc", or a captured tree */
    const char *state_dir;
    const char *config_root;    /* prefix for /etc/sysctl.d and the rest; "" on the host */
    struct tuning_key *keys;
    size_t n;
};

enum tuning_action {
    TUNING_READ,                /* verify: read every key and its original; write nothing */
    TUNING_APPLY,               /* the transaction: snapshot, write, read back */
    TUNING_REVERT,              /* restore the snapshot's originals, then drop it */
};

/* The one entry point of a tuning transaction, for --once, the daemon's check cycle, its
 * apply/revert commands and revert_on_stop. Initialises t, runs the action and leaves every
 * key's state in t. APPLY under tuning.mode off is refused (-ECANCELED, nothing written);
 * REVERT needs no policy (p may be NULL) and writes only allowlisted keys. Returns 0, or
 * the first -errno. */
int tuning_run(struct tuning *t, const char *procfs_root, const char *state_dir,
               const struct policy *p, enum tuning_action a);

void tuning_init(struct tuning *t, const char *procfs_root, const char *state_dir,
                 const char *config_root);
void tuning_done(struct tuning *t);

/* Reads every policy key and its original from the snapshot; writes nothing. */
int tuning_read(struct tuning *t, const struct policy *p);
/* Snapshots the originals (atomically, before the first write), writes the wanted values,
 * reads them back. Returns 0, or the first -errno; every key's state says what happened. */
int tuning_apply(struct tuning *t, const struct policy *p);
/* Restores every original in the snapshot, then removes it. -ENOENT when there is none.
 * A key outside the allowlist (a tampered snapshot) is refused, never written (-EPERM). */
int tuning_revert(struct tuning *t);

const char *tuning_state_to_string(enum tuning_state s);
