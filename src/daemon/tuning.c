/* SPDX-License-Identifier: ISC */
/* The sysctl profile as a transaction: read, snapshot originals, apply, verify, revert.
 * The snapshot is on disk before the first write, so a kill at any point leaves the
 * true originals behind, and a restart never takes its own earlier writes for them. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "strutil.h"
#include "sysctl.h"
#include "sysctl_writers.h"
#include "tuning.h"
#include "tuning_snapshot.h"

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
    t->n = 0;
}

static int add_key(struct tuning *t, const char *key, const char *wanted)
{
    struct tuning_key *n = realloc(t->keys, (t->n + 1) * sizeof(*n));
    if (!n)
        return -ENOMEM;
    t->keys = n;
    struct tuning_key *k = &n[t->n++];
    memset(k, 0, sizeof(*k));
    strscpy(k->key, key, sizeof(k->key));
    strscpy(k->wanted, wanted, sizeof(k->wanted));
    return 0;
}

static void set_error(struct tuning_key *k, const char *what, int err)
{
    k->state = TUNING_STATE_FAILED;
    snprintf(k->error, sizeof(k->error), "%s: %s", what, errno_text(-err));
}

static void read_live(struct tuning *t, struct tuning_key *k)
{
    int r = sysctl_read(t->procfs_root, k->key, k->live, sizeof(k->live));
    k->live_known = r == 0;
    if (r == -ENOENT)
        k->state = TUNING_STATE_MISSING;
    else if (r < 0)
        set_error(k, "cannot read", r);
    else
        k->state = sysctl_values_equal(k->live, k->wanted) ? TUNING_STATE_APPLIED
                                                           : TUNING_STATE_DRIFT;
}

/* Who else sets the keys: tuned's active profile first (it runs last), then sysctl.d. */
static void find_writers(struct tuning *t)
{
    struct sysctl_writers w;
    if (sysctl_writers_scan(t->config_root, &w) < 0)
        return;
    for (size_t i = 0; i < t->n; i++) {
        sysctl_writers_find(&w, t->keys[i].key, t->keys[i].writer, sizeof(t->keys[i].writer));
    }
    sysctl_writers_done(&w);
}

static int load_keys(struct tuning *t, const struct policy *p, struct tuning_snapshot *snap)
{
    tuning_done(t);
    for (size_t i = 0; i < p->tuning.n_sysctl; i++) {
        int r = add_key(t, p->tuning.sysctl[i].key, p->tuning.sysctl[i].value);
        if (r < 0)
            return r;
        const char *orig = snap ? tuning_snapshot_get(snap, p->tuning.sysctl[i].key) : NULL;
        if (orig) {
            strscpy(t->keys[i].original, orig, sizeof(t->keys[i].original));
            t->keys[i].has_original = true;
        }
    }
    return 0;
}

int tuning_read(struct tuning *t, const struct policy *p)
{
    struct tuning_snapshot snap;
    bool have = tuning_snapshot_load(t->state_dir, &snap) == 0;
    int r = load_keys(t, p, have ? &snap : NULL);
    if (have)
        tuning_snapshot_done(&snap);
    if (r < 0)
        return r;
    for (size_t i = 0; i < t->n; i++) {
        if (p->tuning.mode == TUNING_OFF)
            t->keys[i].state = TUNING_STATE_UNMANAGED;
        else
            read_live(t, &t->keys[i]);
    }
    find_writers(t);
    return 0;
}

/* The snapshot this apply builds on: the one on disk if it is from this boot. After a
 * reboot the kernel holds its boot-time values again, so those are the originals. */
static int snapshot_for_apply(struct tuning *t, struct tuning_snapshot *snap, bool *ret_dirty)
{
    char boot[64];
    tuning_boot_id(t->procfs_root, boot, sizeof(boot));
    int r = tuning_snapshot_load(t->state_dir, snap);
    *ret_dirty = false;
    if (r == -ENOENT || (r == 0 && !streq(snap->boot_id, boot))) {
        if (r == 0)
            log_info("Sysctl originals are from boot %s; this is boot %s: taking them anew",
                     snap->boot_id, boot);
        tuning_snapshot_done(snap);
        strscpy(snap->boot_id, boot, sizeof(snap->boot_id));
        *ret_dirty = true;
        return 0;
    }
    if (r < 0)
        return log_errno(LOG_ERR, r, "Cannot use %s/" TUNING_SNAPSHOT_FILE " (%m); "
                         "move it away to let fabtune take the originals anew", t->state_dir);
    return 0;
}

static int write_key(struct tuning *t, struct tuning_key *k)
{
    bool was_drift = k->state == TUNING_STATE_DRIFT;
    int r = sysctl_write(t->procfs_root, k->key, k->wanted);
    if (r < 0) {
        set_error(k, "cannot write", r);
        return r;
    }
    read_live(t, k);
    if (k->state == TUNING_STATE_DRIFT) {
        /* The kernel took the write but holds another value (clamped, or rejected). */
        snprintf(k->error, sizeof(k->error), "the kernel kept %.60s after writing", k->live);
        k->state = TUNING_STATE_FAILED;
        return -EIO;
    }
    k->reapplied = was_drift;
    return 0;
}

int tuning_apply(struct tuning *t, const struct policy *p)
{
    struct tuning_snapshot snap;
    bool dirty;
    int r = snapshot_for_apply(t, &snap, &dirty);
    if (r < 0)
        return r;

    if ((r = load_keys(t, p, NULL)) < 0)
        goto out;
    for (size_t i = 0; i < t->n; i++) {
        struct tuning_key *k = &t->keys[i];
        if (!policy_sysctl_key_allowed(k->key)) {  /* the loader refuses these already */
            snprintf(k->error, sizeof(k->error), "not under the allowed prefixes");
            k->state = TUNING_STATE_FAILED;
            continue;
        }
        read_live(t, k);
        if (!k->live_known)
            continue;
        const char *orig = tuning_snapshot_get(&snap, k->key);
        if (!orig) {
            if ((r = tuning_snapshot_add(&snap, k->key, k->live)) < 0)
                goto out;
            orig = k->live;
            dirty = true;
        }
        strscpy(k->original, orig, sizeof(k->original));
        k->has_original = true;
    }
    /* The originals reach the disk before the first write, or nothing is written. */
    if (dirty && (r = tuning_snapshot_save(t->state_dir, &snap)) < 0) {
        log_error_errno(r, "Cannot save the sysctl originals in %s: %m; writing nothing",
                        t->state_dir);
        goto out;
    }
    for (size_t i = 0; i < t->n; i++) {
        struct tuning_key *k = &t->keys[i];
        if (k->state != TUNING_STATE_DRIFT)
            continue;
        int w = write_key(t, k);
        if (w < 0 && r == 0)
            r = w;
    }
    find_writers(t);
out:
    tuning_snapshot_done(&snap);
    return r;
}

int tuning_revert(struct tuning *t)
{
    struct tuning_snapshot snap;
    int r = tuning_snapshot_load(t->state_dir, &snap);
    if (r < 0)
        return r;
    tuning_done(t);
    /* Every key is tried, even after a failure. */
    for (size_t i = 0; i < snap.n; i++) {
        int a = add_key(t, snap.e[i].key, snap.e[i].value);
        if (a < 0) {
            r = a;
            break;
        }
        struct tuning_key *k = &t->keys[t->n - 1];
        strscpy(k->original, snap.e[i].value, sizeof(k->original));
        k->has_original = true;
        /* The snapshot is a file: it gets no more trust than the policy does. */
        if (!policy_sysctl_key_allowed(k->key)) {
            snprintf(k->error, sizeof(k->error), "refused: not under the allowed prefixes");
            k->state = TUNING_STATE_FAILED;
            if (r == 0)
                r = -EPERM;
            continue;
        }
        read_live(t, k);
        if (k->state == TUNING_STATE_DRIFT && write_key(t, k) < 0 && r == 0)
            r = -EIO;
        if (k->state == TUNING_STATE_APPLIED)
            k->state = TUNING_STATE_REVERTED;
    }
    /* Keep the snapshot until every original is back: a failed revert can be retried. */
    if (r == 0)
        r = tuning_snapshot_remove(t->state_dir);
    tuning_snapshot_done(&snap);
    return r;
}

int tuning_run(struct tuning *t, const char *procfs_root, const char *state_dir,
               const struct policy *p, enum tuning_action a)
{
    tuning_init(t, procfs_root, state_dir, "");
    switch (a) {
    case TUNING_APPLY:
        if (p->tuning.mode == TUNING_OFF)
            return -ECANCELED;
        return tuning_apply(t, p);
    case TUNING_REVERT:
        return tuning_revert(t);
    case TUNING_READ:
        break;
    }
    return tuning_read(t, p);
}

const char *tuning_state_to_string(enum tuning_state s)
{
    static const char *const names[] = {
        "applied", "drift", "reverted", "unmanaged", "missing", "failed",
    };
    return names[s];
}
