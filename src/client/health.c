/* SPDX-License-Identifier: ISC */
/* fabtunectl health: the cached verdict as the exit code and one line of each monitoring
 * system's format (npd, nagios, nhc, slurm; verdict.h holds the codes). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "macro.h"
#include "verdict.h"

#define HEALTH_TIMEOUT_MS 90     /* health answers in under 100 ms, or says UNKNOWN */

/* Cuts S to at most MAX bytes, ending in "..." when cut, never inside a UTF-8 sequence. */
static void fit(char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max || max < 4)
        return;
    n = max - 3;
    while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
        n--;
    memcpy(s + n, "...", 4);
}

static int64_t int_field(json_object *o, const char *key, bool *have)
{
    json_object *v;
    if (!o || !json_object_object_get_ex(o, key, &v)) {
        *have = false;
        return 0;
    }
    return json_object_get_int64(v);
}

/* Nagios perfdata: rails ready of total, findings by severity. */
static void nagios_perfdata(json_object *data, char *out, size_t len)
{
    json_object *counts = NULL;
    bool have = true;
    int64_t rails = int_field(data, "rails", &have), ready = int_field(data, "rails_ready", &have);
    if (data)
        json_object_object_get_ex(data, "findings", &counts);
    int64_t err = int_field(counts, "error", &have), warn = int_field(counts, "warning", &have),
            unk = int_field(counts, "unknown", &have);
    if (!have) {
        out[0] = '\0';
        return;
    }
    snprintf(out, len, " | rails_ready=%" PRId64 ";;;0;%" PRId64 " rails=%" PRId64
             " findings_error=%" PRId64 ";;1;0 findings_warning=%" PRId64 ";1;;0 findings_unknown=%" PRId64 ";;;0",
             ready, rails, rails, err, warn, unk);
}

/* The drain reason: "fabtune: VERDICT" and the failing checks that fit in 128 bytes. */
static void slurm_reason(const char *name, json_object *data, const char *why, char *out, size_t len)
{
    json_object *failing = NULL;
    size_t n = (size_t)snprintf(out, len, "fabtune: %s", name);
    if (data && json_object_object_get_ex(data, "failing", &failing) &&
        json_object_is_type(failing, json_type_array) && json_object_array_length(failing) > 0) {
        for (size_t i = 0; i < json_object_array_length(failing); i++) {
            const char *one = json_object_get_string(json_object_array_get_idx(failing, i));
            if (n + strlen(one) + 2 >= 128 || n + strlen(one) + 2 >= len)
                break;
            n += (size_t)snprintf(out + n, len - n, "%s%s", i ? ", " : " ", one);
        }
    } else if (why && n < len) {
        snprintf(out + n, len - n, " %s", why);
    }
    fit(out, 128);
}

/* The exit code and line of each health format (verdict.h holds the one table). */
int ctl_health(const struct ctl *c)
{
    enum health_format f;
    if (health_format_parse(c->format, &f) < 0) {
        fprintf(stderr, "fabtunectl: unknown health format '%s' (npd, nagios, nhc or slurm)\n", c->format);
        return EXIT_USAGE;
    }
    json_object *reply = NULL, *v, *first;
    const char *verdict = "UNKNOWN", *why = NULL;
    char buf[256], line[512], perf[256];
    int r = client_request(c->socket, "health", NULL, HEALTH_TIMEOUT_MS, &reply);
    json_object *data = NULL;
    if (r == 0 && json_object_object_get_ex(reply, "data", &data) &&
        json_object_object_get_ex(data, "verdict", &v)) {
        verdict = json_object_get_string(v);
        if (json_object_object_get_ex(data, "first_failing", &first) && first)
            why = json_object_get_string(first);
    } else {
        snprintf(buf, sizeof(buf), "fabtuned not answering: %s", r < 0 ? strerror(-r) : "bad reply");
        why = buf;
        data = NULL;
    }
    enum verdict v_ = verdict_from_string(verdict);
    const char *name = verdict_to_string(v_);
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "verdict", json_object_new_string(name));
        json_object_object_add(o, "first_failing", why ? json_object_new_string(why) : NULL);
        puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(o);
    } else if (f == HEALTH_NHC) {
        if (v_ == VERDICT_NOT_READY || v_ == VERDICT_UNKNOWN)
            printf("ERROR: fabtune: %s\n", why ? why : name);
    } else if (f == HEALTH_NAGIOS) {
        nagios_perfdata(data, perf, sizeof(perf));
        snprintf(line, sizeof(line), "FABTUNE %s - %s%s%s", verdict_nagios_state(v_), name,
                 why ? ": " : "", why ? why : "");
        fit(line, 256);
        printf("%s%s\n", line, perf);
    } else if (f == HEALTH_SLURM) {
        slurm_reason(name, data, why, line, sizeof(line));
        puts(line);
    } else {
        /* node-problem-detector keeps 80 bytes of a plugin's output (max_output_length). */
        snprintf(line, sizeof(line), "fabtune: %s%s%s", name, why ? ": " : "", why ? why : "");
        fit(line, 80);
        puts(line);
    }
    json_object_put(reply);
    return verdict_exit_code(v_, f);
}
