/* fabtuned --once: gather, check, render; the data flows one way through a report. */
#include "config.h"

#include <json-c/json.h>
#include <stdio.h>

#include "checks.h"
#include "fabtuned.h"
#include "log.h"
#include "rails.h"
#include "once.h"
#include "report.h"

int once_run(const struct options *o, const struct policy *p, const char *policy_source)
{
    struct report r;

    report_init(&r, p, policy_source);
    int err = rails_scan(o->sysfs_root, p, &r.inventory);
    if (err < 0) {
        log_error_errno(err, "Cannot take the inventory: %m");
        report_done(&r);
        return EXIT_SOFTWARE;
    }
    checks_run(&r.inventory, p, &r.findings);
    /* --once writes nothing unless asked; the daemon applies by the policy's mode. */
    tuning_init(&r.tuning, o->procfs_root, o->state_dir, "");
    if (o->apply && p->tuning.mode != TUNING_OFF)
        err = tuning_apply(&r.tuning, p);
    else
        err = tuning_read(&r.tuning, p);
    if (err < 0 && r.tuning.n == 0)
        log_warning_errno(err, "Cannot take the sysctl profile's state: %m");
    check_tuning(&r.tuning, p, &r.findings);
    nccl_contract_compute(&r.inventory, p, &r.nccl);
    report_finish(&r);

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
        report_print_text(&r, stdout);
    }
    int code = verdict_exit_code(r.verdict, HEALTH_NPD);
    report_done(&r);
    return code;
}
