/* SPDX-License-Identifier: ISC */
/* fabtuned --once: gather, check, render; the data flows one way through a report. */
#include "config.h"

#include <json-c/json.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "exit_status.h"
#include "gid_table.h"
#include "json_text.h"
#include "log.h"
#include "macro.h"
#include "once.h"
#include "pipeline.h"
#include "report.h"

int once_run(const struct options *o, const struct policy *p, const char *policy_source)
{
    struct report r;

    /* The state dir holds the sysctl originals, the probe baselines and the counters; an
     * offline analysis writes none of them. */
    if (streq(o->sysfs_root, "/sys") && mkdir(o->state_dir, 0755) < 0 && errno != EEXIST)
        log_warning("Cannot create the state directory %s: %m", o->state_dir);
    /* --once writes nothing unless asked; the daemon applies by the policy's mode. */
    const struct pipeline_input in = {
        .sysfs_root = o->sysfs_root, .procfs_root = o->procfs_root, .state_dir = o->state_dir,
        .policy = p, .policy_source = policy_source,
        .tuning = o->apply ? TUNING_APPLY : TUNING_READ,
        .run_probes = !o->no_probes && !o->gids && p->probes.enabled,
        .offline = !streq(o->sysfs_root, "/sys"),
        .procfs_given = !streq(o->procfs_root, "/proc"),
    };
    int err = pipeline_run(&in, &r);
    if (err < 0) {
        log_error_errno(err, "Cannot take the inventory of %s: %m", in.sysfs_root);
        report_done(&r);
        return EXIT_SOFTWARE;
    }

    if (o->gids) {
        json_object *t = gid_table_json(&r);
        if (o->json)
            puts(json_object_to_json_string_ext(t, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
        else
            gid_table_print(t, stdout);
        json_object_put(t);
        int rc = r.inventory.n_rails ? EXIT_SUCCESS : EXIT_FAILURE;
        report_done(&r);
        return rc;
    }
    if (o->json) {
        json_object *j = report_to_json(&r);
        if (!j) {
            report_done(&r);
            return EXIT_SOFTWARE;
        }
        puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
                                               JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(j);
    } else {
        report_print_text(&r, o->verbose == 0, stdout);
    }
    int code = verdict_exit_code(r.verdict, HEALTH_NPD);
    report_done(&r);
    return code;
}
