/* SPDX-License-Identifier: ISC */
/* tuning.drift: one finding per sysctl key of the profile, from the tuning model. Each hint
 * is true where it is printed: the daemon (enforcing, suspended, verifying), --once (which
 * writes nothing without --apply, beside a daemon or not), another node's snapshot, a
 * network namespace that is not the host's, a caller without root. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"

/* How to bring a drifted key back, in this mode. */
static const char *drift_hint(const struct tuning *t, const struct policy *p)
{
    if (t->from_snapshot)
        return "apply it on the node this tree was captured on, not here: 'fabtunectl apply' "
               "there, or tuning.mode: enforce in its policy";
    if (p->tuning.mode == TUNING_ENFORCE && t->daemon_pass)
        /* An enforcing daemon's pass that did not apply: tuning is suspended. */
        return "tuning is suspended since 'fabtunectl revert': 'fabtunectl apply' or a "
               "reload enforces it again";
    if (p->tuning.mode == TUNING_ENFORCE && t->under_daemon)
        return "the running fabtuned re-applies it at its next pass, unless 'fabtunectl "
               "revert' suspended it; 'fabtunectl apply' applies it now";
    if (p->tuning.mode == TUNING_ENFORCE)
        return "fabtuned --once only reads: 'fabtuned --once --apply' applies it, and the "
               "fabtuned daemon (tuning.mode enforce) keeps it applied";
    return t->under_daemon
           ? "tuning.mode is verify: 'fabtunectl apply' applies it once; tuning.mode: "
             "enforce keeps it applied"
           : "tuning.mode is verify: 'fabtuned --once --apply' applies it once; "
             "tuning.mode: enforce keeps it applied";
}

/* Why a read or a write failed, and what to do about it. */
static const char *failure_hint(const struct tuning *t, const struct tuning_key *k)
{
    bool denied = k->err == -EACCES || k->err == -EPERM || k->err == -EROFS;
    if (k->err == -ERANGE)
        return "the kernel holds another value than the one written: it is out of the "
               "key's range, or the kernel rounds it; give one it keeps";
    if (k->err == -EINVAL)
        return "the kernel refused the value: check its form and range";
    if (denied && t->netns_child && strncmp(k->key, "net.", 4) == 0)
        return "this network namespace is not the host's, and here the key is the host's, "
               "read-only: set it on the host, or run fabtuned with the host's network "
               "(hostNetwork)";
    if (denied && !k->write_failed)
        return "this caller may not read it: run as root";
    if (denied)
        return "writing sysctls needs root and a writable /proc/sys (a container's is "
               "read-only)";
    return NULL;
}

static void missing(const struct tuning *t, const struct tuning_key *k, struct findings *out)
{
    char hint[400];
    if (t->from_snapshot) {
        findings_add(out, "tuning.drift", SEVERITY_UNKNOWN, NULL, k->wanted, NULL,
                     "fabtunectl snapshot keeps net.core, net.ipv4 and vm: the "
                     "node's kernel may have the key all the same",
                     "%s is not in the captured tree", k->key);
        return;
    }
    if (k->closest[0])
        snprintf(hint, sizeof(hint), "a typo? this kernel has %s; else remove the key from "
                 "tuning.sysctl, or load the module that provides it", k->closest);
    else
        snprintf(hint, sizeof(hint), "remove it from tuning.sysctl, or load the module that "
                 "provides it");
    /* A key the policy wants and the kernel does not have is not applied: never READY. */
    findings_add(out, "tuning.drift", SEVERITY_WARNING, NULL, k->wanted, NULL, hint,
                 "%s does not exist on this kernel: it is not applied", k->key);
}

static void not_visible(const struct tuning *t, const struct tuning_key *k, struct findings *out)
{
    findings_add(out, "tuning.drift", SEVERITY_UNKNOWN, NULL, k->wanted, NULL,
                 t->from_snapshot ? "it is the host's: a snapshot taken with the host's "
                                    "network shows it"
                                  : "it is the host's: check it on the host, or run fabtuned "
                                    "with the host's network (hostNetwork)",
                 "%s is not visible in %s network namespace (not the host's)", k->key,
                 t->from_snapshot ? "the snapshot's" : "this");
}

void check_tuning(const struct tuning *t, const struct policy *p, struct findings *out)
{
    char hint[400];
    if (p->tuning.mode == TUNING_OFF || t->n == 0)
        return;
    for (size_t i = 0; i < t->n; i++) {
        const struct tuning_key *k = &t->keys[i];
        const char *live = k->live_known ? k->live : NULL;
        if (k->writer[0])
            snprintf(hint, sizeof(hint), "%s sets it: align that with the policy or remove it",
                     k->writer);
        else
            snprintf(hint, sizeof(hint), "%s", drift_hint(t, p));
        switch (k->state) {
        case TUNING_STATE_APPLIED:
        case TUNING_STATE_MATCHES:
        case TUNING_STATE_REVERTED:
            findings_add(out, "tuning.drift", SEVERITY_OK, NULL, k->wanted, live, NULL,
                         "%s = %s%s", k->key, k->live,
                         k->reapplied ? " (re-applied: something had changed it)" : "");
            break;
        case TUNING_STATE_DRIFT:
            findings_add(out, "tuning.drift", SEVERITY_WARNING, NULL, k->wanted, live, hint,
                         "%s is %s, the policy wants %s", k->key, k->live, k->wanted);
            break;
        case TUNING_STATE_MISSING:
            missing(t, k, out);
            break;
        case TUNING_STATE_NOT_VISIBLE:
            not_visible(t, k, out);
            break;
        case TUNING_STATE_FAILED:
            findings_add(out, "tuning.drift", SEVERITY_WARNING, NULL, k->wanted, live,
                         failure_hint(t, k), "%s: %s", k->key, k->error);
            break;
        case TUNING_STATE_UNMANAGED:
            continue;
        }
        /* One alert per sysctl key: a key that drifts beside one that holds must not
         * toggle a shared alert raised and cleared every cycle. */
        (void)findings_set_subject(out, k->key);
    }
}
