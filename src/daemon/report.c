/* Renders a report as a human text or as JSON. Renders only; it decides nothing. */
#include "config.h"

#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "macro.h"
#include "report.h"

void report_init(struct report *r, const struct policy *p, const char *policy_source)
{
    struct utsname u;
    memset(r, 0, sizeof(*r));
    if (gethostname(r->hostname, sizeof(r->hostname) - 1) < 0)
        snprintf(r->hostname, sizeof(r->hostname), "unknown");
    if (uname(&u) == 0)
        snprintf(r->kernel, sizeof(r->kernel), "%s", u.release);
    r->policy = p;
    r->policy_source = policy_source;
    r->verdict = VERDICT_UNKNOWN;
}

void report_done(struct report *r)
{
    findings_done(&r->findings);
}

void report_finish(struct report *r)
{
    r->verdict = findings_verdict(&r->findings);
}

static void print_finding(const struct finding *f, FILE *out)
{
    fprintf(out, "  %-7s %-22s %s%s%s\n", severity_to_string(f->severity), f->check,
            f->rail ? f->rail : "", f->rail ? ": " : "", f->message);
    if (f->severity == SEVERITY_OK)
        return;
    if (f->expected || f->actual)
        fprintf(out, "          expected %s, actual %s\n",
                f->expected ? f->expected : "-", f->actual ? f->actual : "-");
    if (f->hint)
        fprintf(out, "          hint: %s\n", f->hint);
}

void report_print_text(const struct report *r, FILE *out)
{
    fprintf(out, "fabtune %s on %s (kernel %s)\n", PACKAGE_VERSION, r->hostname, r->kernel);
    fprintf(out, "policy: %s (tuning mode %s)\n\n", r->policy_source,
            tuning_mode_to_string(r->policy->tuning.mode));

    fprintf(out, "findings:\n");
    if (r->findings.n == 0)
        fprintf(out, "  none: no check produced data\n");
    for (size_t i = 0; i < r->findings.n; i++)
        print_finding(&r->findings.items[i], out);

    fprintf(out, "\nverdict: %s\n", verdict_to_string(r->verdict));
}

static void add_string(json_object *o, const char *key, const char *value)
{
    json_object_object_add(o, key, value ? json_object_new_string(value) : NULL);
}

static json_object *finding_to_json(const struct finding *f)
{
    json_object *o = json_object_new_object();
    add_string(o, "check", f->check);
    add_string(o, "severity", severity_to_string(f->severity));
    add_string(o, "rail", f->rail);
    add_string(o, "message", f->message);
    add_string(o, "expected", f->expected);
    add_string(o, "actual", f->actual);
    add_string(o, "hint", f->hint);
    return o;
}

json_object *report_to_json(const struct report *r)
{
    json_object *o = json_object_new_object();
    json_object *findings = json_object_new_array();

    add_string(o, "version", PACKAGE_VERSION);
    add_string(o, "hostname", r->hostname);
    add_string(o, "kernel", r->kernel);
    add_string(o, "policy", r->policy_source);
    add_string(o, "verdict", verdict_to_string(r->verdict));
    for (size_t i = 0; i < r->findings.n; i++)
        json_object_array_add(findings, finding_to_json(&r->findings.items[i]));
    json_object_object_add(o, "findings", findings);
    return o;
}
