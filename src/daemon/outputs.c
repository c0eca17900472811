/* SPDX-License-Identifier: ISC */
/* The pass's files: rendered from the report, written atomically. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "metrics.h"
#include "nccl.h"
#include "outputs.h"
#include "strutil.h"

static void plan_one(char *buf, size_t len, const char *path, const char *runtime_dir)
{
    const char *def = "/run/fabtune/";
    buf[0] = '\0';
    if (!path)
        return;
    if (strncmp(path, def, strlen(def)) == 0 && !streq(runtime_dir, "/run/fabtune"))
        snprintf(buf, len, "%s/%s", runtime_dir, path + strlen(def));
    else
        snprintf(buf, len, "%s", path);
}

void outputs_plan(struct outputs *o, const struct policy *p, const char *runtime_dir)
{
    memset(o, 0, sizeof(*o));
    plan_one(o->path[OUTPUT_NCCL_ENV], sizeof(o->path[0]), p->outputs.nccl_env, runtime_dir);
    plan_one(o->path[OUTPUT_NCCL_CONF], sizeof(o->path[0]), p->outputs.nccl_conf, runtime_dir);
    plan_one(o->path[OUTPUT_TEXTFILE], sizeof(o->path[0]), p->outputs.prometheus_textfile,
             runtime_dir);
}

int outputs_check(const struct policy *p, const char *runtime_dir, char *err, size_t len)
{
    static const char *const keys[OUTPUTS] = { "outputs.nccl_env", "outputs.nccl_conf",
                                               "outputs.prometheus_textfile" };
    struct outputs o;
    char dir[512];
    outputs_plan(&o, p, runtime_dir);
    for (int i = 0; i < OUTPUTS; i++) {
        if (!o.path[i][0])
            continue;
        int r = write_target_check(o.path[i], dir, sizeof(dir));
        if (r < 0) {
            snprintf(err, len, "%s: %s: cannot be written here: %s: %s%s", keys[i], o.path[i], dir,
                     errno_text(-r), r == -EROFS ? " (read-only: under fabtuned.service only "
                     "/run/fabtune, /var/lib/fabtune and /var/lib/prometheus/node-exporter are "
                     "writable, its ReadWritePaths=)" : "");
            return r;
        }
    }
    return 0;
}

static int write_text(const char *path, char *text)
{
    int r = text ? write_file_atomic(path, text, strlen(text), 0644) : -ENOMEM;
    free(text);
    return r;
}

void outputs_write(struct outputs *o, const struct report *r)
{
    for (int i = 0; i < OUTPUTS; i++) {
        if (!o->path[i][0])
            continue;
        const char *metrics = i == OUTPUT_TEXTFILE ? report_reply_text(r, REPORT_REPLY_METRICS) : NULL;
        char *text = metrics ? strdup(metrics)
                   : i == OUTPUT_TEXTFILE ? metrics_render(r)
                   : nccl_contract_render(&r->nccl, i == OUTPUT_NCCL_CONF);
        o->result[i] = write_text(o->path[i], text);
    }
}

const char *outputs_what(int output)
{
    return output == OUTPUT_TEXTFILE ? "metrics" : "NCCL contract";
}
