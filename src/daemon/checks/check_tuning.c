/* SPDX-License-Identifier: ISC */
/* tuning.drift: one finding per sysctl key of the profile, from the tuning model. */
#include "config.h"

#include <stdio.h>

#include "checks.h"

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
            snprintf(hint, sizeof(hint), "%s", p->tuning.mode == TUNING_ENFORCE
                     ? "fabtuned re-applies it; something keeps changing it"
                     : t->under_daemon
                     ? "tuning.mode is verify: apply with 'fabtunectl apply' or enforce"
                     : "tuning.mode is verify: apply with 'fabtuned --once --apply' or enforce");
        switch (k->state) {
        case TUNING_STATE_APPLIED:
        case TUNING_STATE_MATCHES:
        case TUNING_STATE_REVERTED:
            findings_add(out, "tuning.drift", SEVERITY_OK, NULL, k->wanted, live, NULL,
                         "%s = %s%s", k->key, k->live, k->reapplied ? " (re-applied)" : "");
            break;
        case TUNING_STATE_DRIFT:
            findings_add(out, "tuning.drift", SEVERITY_WARNING, NULL, k->wanted, live, hint,
                         "%s is %s, the policy wants %s", k->key, k->live, k->wanted);
            break;
        case TUNING_STATE_MISSING:
            if (t->from_snapshot)
                findings_add(out, "tuning.drift", SEVERITY_UNKNOWN, NULL, k->wanted, NULL,
                             "fabtunectl snapshot keeps net.core, net.ipv4 and vm: the "
                             "node's kernel may have the key all the same",
                             "%s is not in the snapshot", k->key);
            else
                findings_add(out, "tuning.drift", SEVERITY_UNKNOWN, NULL, k->wanted, NULL,
                             "remove it from tuning.sysctl, or load the module that provides it",
                             "%s does not exist on this kernel", k->key);
            break;
        case TUNING_STATE_FAILED:
            findings_add(out, "tuning.drift", SEVERITY_WARNING, NULL, k->wanted, live,
                         "fabtuned needs root and a writable /proc/sys (not a container's)",
                         "%s: %s", k->key, k->error);
            break;
        case TUNING_STATE_UNMANAGED:
            continue;
        }
        /* One alert per sysctl key: a key that drifts beside one that holds must not
         * toggle a shared alert raised and cleared every cycle. */
        (void)findings_set_subject(out, k->key);
    }
}
