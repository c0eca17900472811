/* SPDX-License-Identifier: ISC */
/* fabtuned --once: gather, check, render; the data flows one way through a report. */
#include "config.h"

#include <json-c/json.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clean_text.h"
#include "exit_status.h"
#include "gid_table.h"
#include "instance.h"
#include "json_text.h"
#include "log.h"
#include "macro.h"
#include "once.h"
#include "pipeline.h"
#include "report_json.h"
#include "report_text.h"

/* Text rendered from a report holds outside bytes (a snapshot's, or this host's sysfs): it
 * is rendered into memory, then written cleaned (clean_text.h). */
struct capture {
    char *buf;
    size_t len;
    FILE *f;
};

static FILE *capture_start(struct capture *c)
{
    *c = (struct capture){ 0 };
    return c->f = open_memstream(&c->buf, &c->len);
}

static void capture_write(struct capture *c, FILE *out)
{
    if (fclose(c->f) == 0)
        clean_text_write(c->buf, c->len, out);
    free(c->buf);
}

/* The procfs of a capture given as --sysfs-root DIR/sys without --procfs-root: DIR/proc
 * where it is a directory, the layout of a snapshot unpacked, which --snapshot reads the
 * same way; so that a tree and its tarball are judged alike (route.arp read the
 * interface sysctls from one and called them "not given" in the other). NULL else. */
static const char *sibling_procfs(const struct options *o, char *buf, size_t len)
{
    struct stat st;
    if (streq(o->sysfs_root, "/sys") || !streq(o->procfs_root, "/proc"))
        return NULL;
    size_t n = strlen(o->sysfs_root);
    while (n > 1 && o->sysfs_root[n - 1] == '/')
        n--;
    if (n < 3 || strncmp(o->sysfs_root + n - 3, "sys", 3) != 0 ||
        (n > 3 && o->sysfs_root[n - 4] != '/'))
        return NULL;
    int w = snprintf(buf, len, "%.*sproc", (int)(n - 3), o->sysfs_root);
    if (w < 0 || (size_t)w >= len || stat(buf, &st) < 0 || !S_ISDIR(st.st_mode))
        return NULL;
    return buf;
}

int once_run(const struct options *o, const struct policy *p, const char *policy_source)
{
    struct report r;
    char sibling[4096];
    const char *procfs = sibling_procfs(o, sibling, sizeof(sibling));
    if (procfs)
        log_notice("--sysfs-root %s: reading the capture's procfs beside it, %s, as --snapshot "
                   "does (--procfs-root names another)", o->sysfs_root, procfs);
    else
        procfs = o->procfs_root;

    pid_t daemon_pid;
    /* The state dir holds the sysctl originals, the probe baselines, the counters and the
     * link memory: --once reads them, and writes them only with --apply (which holds the
     * state lock, taken by the caller); an offline analysis writes none of them. --once
     * writes no sysctl unless asked; the daemon applies by the policy's mode. */
    const struct pipeline_input in = {
        .sysfs_root = o->sysfs_root, .procfs_root = procfs, .state_dir = o->state_dir,
        .policy = p, .policy_source = policy_source,
        .tuning = o->apply ? TUNING_APPLY : TUNING_READ,
        .run_probes = !o->no_probes && !o->gids && p->probes.enabled,
        .offline = !streq(o->sysfs_root, "/sys"),
        .procfs_given = !streq(procfs, "/proc"),
        /* A daemon that holds the state (not this --once --apply) is the one to apply. */
        .daemon_runs = !o->apply && instance_held(o->state_dir, &daemon_pid),
        .state_read_only = !o->apply,
    };
    int err = pipeline_run(&in, &r);
    if (err < 0) {
        log_error_errno(err, "Cannot take the inventory of %s: %m", in.sysfs_root);
        report_done(&r);
        return EXIT_SOFTWARE;
    }

    if (o->gids) {
        json_object *t = gid_table_json(&r);
        struct capture c;
        if (o->json)
            (void)clean_json_write(t, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, stdout);
        else if (capture_start(&c)) {
            gid_table_print(t, c.f);
            if (r.inventory.n_rails == 0)       /* say why, as the report does */
                fprintf(c.f, "rails: 0 (%s)\n", r.inventory.why_no_rails);
            capture_write(&c, stdout);
        }
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
        (void)clean_json_write(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, stdout);
        json_object_put(j);
    } else {
        struct capture c;
        if (capture_start(&c)) {
            report_print_text(&r, o->verbose == 0, c.f);
            capture_write(&c, stdout);
        }
    }
    int code = verdict_once_exit_code(r.verdict);
    report_done(&r);
    return code;
}
