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
#include "tuning_snapshot.h"
#include "tuning_transaction.h"

static void set_error(struct tuning_key *k, const char *what, int err)
{
    k->state = TUNING_STATE_FAILED;
    k->err = err;
    k->write_failed = strstr(what, "write") != NULL;
    snprintf(k->error, sizeof(k->error), "%s: %s", what, errno_text(-err));
}

/* A key this procfs does not have: one the host keeps from a child network namespace,
 * or one this kernel lacks (a typo, with the nearest key, or a module not loaded). */
static void absent(struct tuning *t, struct tuning_key *k)
{
    if (t->netns_child && strncmp(k->key, "net.", 4) == 0) {
        k->state = TUNING_STATE_NOT_VISIBLE;
        return;
    }
    k->state = TUNING_STATE_MISSING;
    if (sysctl_closest_key(t->procfs_root, k->key, k->closest, sizeof(k->closest)) < 0)
        k->closest[0] = '\0';
}

static void read_live(struct tuning *t, struct tuning_key *k)
{
    int r = sysctl_read(t->procfs_root, k->key, k->live, sizeof(k->live));
    k->live_known = r == 0;
    if (r == -ENOENT)
        absent(t, k);
    else if (r < 0)
        set_error(k, "cannot read", r);
    else
        k->state = sysctl_values_equal(k->live, k->wanted) ? TUNING_STATE_APPLIED
                                                           : TUNING_STATE_DRIFT;
    log_debug("tuning", "%s: live '%s', wanted '%s': %s", k->key, k->live_known ? k->live : "-",
              k->wanted, tuning_state_to_string(k->state));
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

/* One key of the profile, with its original from the snapshot. */
static int add_key(struct tuning *t, const char *key, const char *wanted,
                   const struct tuning_snapshot *snap)
{
    int r = tuning_add_key(t, key, wanted);
    if (r < 0)
        return r;
    const char *orig = snap ? tuning_snapshot_get(snap, key) : NULL;
    if (orig) {
        strscpy(t->keys[t->n - 1].original, orig, sizeof(t->keys[t->n - 1].original));
        t->keys[t->n - 1].has_original = true;
    }
    return 0;
}

/* The policy's keys, each @rail and @multirail key expanded for the rail netdevs
 * (rail_sysctl.h). A key the policy names literally wins over an expansion. */
static int load_keys(struct tuning *t, const struct policy *p, struct tuning_snapshot *snap)
{
    char key[POLICY_SYSCTL_KEY_MAX + 1];
    tuning_done(t);
    for (size_t i = 0; i < p->tuning.n_sysctl; i++) {
        const struct sysctl_setting *s = &p->tuning.sysctl[i];
        enum rail_sysctl_scope scope;
        const char *why;
        int r;
        if (rail_sysctl_parse(s->key, POLICY_SYSCTL_KEY_MAX, &scope, &why) < 0) {
            log_warning("Sysctl key %s: %s; skipping it", s->key, why);  /* the loader refuses it */
            continue;
        }
        if (scope == RAIL_SYSCTL_PLAIN) {
            if ((r = add_key(t, s->key, s->value, snap)) < 0)
                return r;
            continue;
        }
        if (!rail_sysctl_applies(scope, &t->rails)) {
            log_debug("tuning", "%s: %zu rail netdev(s): not applied", s->key, t->rails.n);
            continue;
        }
        for (size_t j = 0; j < t->rails.n; j++) {
            if (rail_sysctl_expand(s->key, t->rails.name[j], key, sizeof(key)) < 0 ||
                policy_sysctl_get(p, key))
                continue;
            if ((r = add_key(t, key, s->value, snap)) < 0)
                return r;
        }
    }
    return 0;
}

int tuning_read(struct tuning *t, const struct policy *p)
{
    struct tuning_snapshot snap;
    t->netns_child = sysctl_netns_is_child(t->procfs_root);
    int r = tuning_snapshot_load(t->state_dir, &snap);
    bool have = r == 0;
    t->originals_err = r == -ENOENT ? 0 : r;
    r = load_keys(t, p, have ? &snap : NULL);
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
    log_debug("tuning", "%s: writing '%s': %s", k->key, k->wanted, r < 0 ? errno_text(-r) : "done");
    if (r < 0) {
        set_error(k, "cannot write", r);
        return r;
    }
    read_live(t, k);
    if (k->state == TUNING_STATE_DRIFT) {
        /* The kernel took the write but holds another value (clamped, or rejected). */
        snprintf(k->error, sizeof(k->error), "the kernel kept %.60s after writing", k->live);
        k->state = TUNING_STATE_FAILED;
        k->err = -ERANGE;
        k->write_failed = true;
        return -EIO;
    }
    k->reapplied = was_drift;
    return 0;
}

int tuning_apply(struct tuning *t, const struct policy *p)
{
    struct tuning_snapshot snap;
    bool dirty;
    t->netns_child = sysctl_netns_is_child(t->procfs_root);
    t->apply_pass = true;
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
    t->netns_child = sysctl_netns_is_child(t->procfs_root);
    int r = tuning_snapshot_load(t->state_dir, &snap);
    if (r < 0)
        return r;
    tuning_done(t);
    /* Every key is tried, even after a failure. */
    for (size_t i = 0; i < snap.n; i++) {
        int a = tuning_add_key(t, snap.e[i].key, snap.e[i].value);
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

/* After a revert: each key's WANTED becomes the policy's value, which the restored
 * original is judged against from now on ("" for a key the policy does not name). */
static void wanted_of_policy(struct tuning *t, const struct policy *p)
{
    struct tuning want;
    tuning_init(&want, t->procfs_root, t->state_dir, t->config_root);
    tuning_set_rails(&want, &t->rails);
    if (load_keys(&want, p, NULL) < 0) {
        tuning_done(&want);
        return;
    }
    for (size_t i = 0; i < t->n; i++) {
        struct tuning_key *k = &t->keys[i];
        k->wanted[0] = '\0';
        for (size_t j = 0; j < want.n; j++)
            if (streq(want.keys[j].key, k->key))
                strscpy(k->wanted, want.keys[j].wanted, sizeof(k->wanted));
    }
    tuning_done(&want);
}

int tuning_run(struct tuning *t, const char *procfs_root, const char *state_dir,
               const struct policy *p, const struct rail_netdevs *rails, enum tuning_action a)
{
    int r;
    tuning_init(t, procfs_root, state_dir, "");
    if (rails)
        tuning_set_rails(t, rails);
    switch (a) {
    case TUNING_APPLY:
        if (p->tuning.mode == TUNING_OFF)
            return -ECANCELED;
        return tuning_apply(t, p);
    case TUNING_REVERT:
        r = tuning_revert(t);
        if (p)
            wanted_of_policy(t, p);
        return r;
    case TUNING_READ:
        break;
    }
    return tuning_read(t, p);
}
