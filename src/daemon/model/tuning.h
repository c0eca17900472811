/* SPDX-License-Identifier: ISC */
/* The sysctl profile's state, key by key; tuning_transaction.h reads, applies and reverts it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"
#include "rail_sysctl.h"

#define TUNING_VALUE_MAX (POLICY_SYSCTL_VALUE_MAX + 1)
/* Keys in one tuning state: a policy's (POLICY_MAX_SYSCTLS), or, to revert, every key the
 * originals snapshot holds, which gathers the keys of each policy applied since boot. 32
 * policies of all-different keys fit; a key is about 1.2 KiB, so 5 MiB at most. */
#define TUNING_MAX_KEYS (32 * POLICY_MAX_SYSCTLS)

enum tuning_state {
    TUNING_STATE_APPLIED,       /* live equals wanted */
    TUNING_STATE_DRIFT,         /* live differs from wanted */
    TUNING_STATE_REVERTED,      /* the original was restored */
    TUNING_STATE_UNMANAGED,     /* tuning.mode is off */
    TUNING_STATE_MISSING,       /* this kernel has no such key */
    TUNING_STATE_FAILED,        /* reading or writing failed */
    TUNING_STATE_MATCHES,       /* a snapshot's value equals wanted: nothing was written */
    /* A net.* key this network namespace does not show (a container without the host's
     * network): the host's kernel may well have it. Not known, so never drift. */
    TUNING_STATE_NOT_VISIBLE,
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
    int err;                    /* FAILED: the read's or write's -errno; -ERANGE: the
                                 * kernel kept another value than the one written */
    bool write_failed;          /* FAILED writing (else reading) */
    char closest[POLICY_SYSCTL_KEY_MAX + 1];    /* MISSING: a key of this kernel near it */
    char writer[320];           /* "/etc/sysctl.d/10-foo.conf:3", a tuned profile, or "" */
};

struct tuning {
    const char *procfs_root;    /* "/proc", or a captured tree */
    const char *state_dir;
    const char *config_root;    /* prefix for /etc/sysctl.d and the rest; "" on the host */
    bool from_snapshot;         /* read from a captured procfs, never this kernel's */
    struct tuning_key *keys;
    size_t n, cap;              /* cap: room in keys (grown by doubling) */
    /* A fabtuned daemon holds the state directory: it alone writes, so a hint names
     * 'fabtunectl apply', not 'fabtuned --once --apply' (which it would refuse, exit 75). */
    bool under_daemon;
    bool daemon_pass;           /* the daemon's own pass (else --once, beside it or not) */
    bool apply_pass;            /* this pass applied the profile (enforce, --apply) */
    bool netns_child;           /* procfs_root's net keys are a child namespace's */
    int originals_err;          /* a read: why the snapshot of originals could not be read
                                 * (-EACCES as a user), 0 when read or there is none */
    /* The rail netdevs that a policy's @rail and @multirail keys expand over. */
    struct rail_netdevs rails;
};

void tuning_init(struct tuning *t, const char *procfs_root, const char *state_dir,
                 const char *config_root);
void tuning_done(struct tuning *t);
/* The rail netdevs for the policy's per-rail keys (none until set; tuning_done keeps them). */
void tuning_set_rails(struct tuning *t, const struct rail_netdevs *rails);
/* Adds a key the policy (or a snapshot to revert) names; 0, -EFBIG past TUNING_MAX_KEYS,
 * or -ENOMEM. */
int tuning_add_key(struct tuning *t, const char *key, const char *wanted);

const char *tuning_state_to_string(enum tuning_state s);
/* The keys as read from a snapshot's procfs: a match is "matches", not "applied"; no
 * writer, original or near key of this host's is kept for them. */
void tuning_mark_snapshot(struct tuning *t);
