/* SPDX-License-Identifier: ISC */
/* The sysctl profile's state, key by key: what the policy wants, what the kernel holds, the
 * original, and what became of each. tuning_transaction.c fills it; checks and reports read it. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "strutil.h"
#include "tuning.h"

void tuning_init(struct tuning *t, const char *procfs_root, const char *state_dir,
                 const char *config_root)
{
    *t = (struct tuning){ .procfs_root = procfs_root, .state_dir = state_dir,
                          .config_root = config_root };
}

void tuning_done(struct tuning *t)
{
    free(t->keys);
    t->keys = NULL;
    t->n = t->cap = 0;
}

void tuning_set_rails(struct tuning *t, const struct rail_netdevs *rails)
{
    t->rails = *rails;
}

int tuning_add_key(struct tuning *t, const char *key, const char *wanted)
{
    int r = GROW_ARRAY(t->keys, t->cap, t->n + 1, TUNING_MAX_KEYS);
    if (r < 0)
        return r;
    struct tuning_key *k = &t->keys[t->n++];
    memset(k, 0, sizeof(*k));
    strscpy(k->key, key, sizeof(k->key));
    strscpy(k->wanted, wanted, sizeof(k->wanted));
    return 0;
}

const char *tuning_state_to_string(enum tuning_state s)
{
    static const char *const names[] = {
        "applied", "drift", "reverted", "unmanaged", "missing", "failed", "matches",
        "not_visible",
    };
    return names[s];
}

void tuning_mark_snapshot(struct tuning *t)
{
    t->from_snapshot = true;
    for (size_t i = 0; i < t->n; i++) {
        struct tuning_key *k = &t->keys[i];
        if (k->state == TUNING_STATE_APPLIED)
            k->state = TUNING_STATE_MATCHES;
        /* This host's sysctl.d files, state directory and /proc/sys are not the node's:
         * no other writer, original or near key of theirs is said of the snapshot. */
        k->writer[0] = k->closest[0] = '\0';
        k->original[0] = '\0';
        k->has_original = false;
    }
}
