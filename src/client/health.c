/* SPDX-License-Identifier: ISC */
/* fabtunectl health: the cached verdict as the exit code and one line of each monitoring
 * system's format (npd, nagios, nhc, slurm; verdict.h holds the codes). */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "macro.h"
#include "verdict.h"

#define HEALTH_BUDGET_MAX_MS (24 * 3600 * 1000)    /* --timeout's ceiling: a day */

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

/* "uid 65534 (nobody)": who asked. */
static void caller(char *out, size_t len)
{
    uid_t uid = geteuid();
    struct passwd *pw = getpwuid(uid);
    snprintf(out, len, "uid %u (%s)", (unsigned)uid, pw ? pw->pw_name : "no name");
}

/* The kernel refused the socket itself (its mode is 0660, root and the control group):
 * fabtuned never saw the request. Says who may open it. */
static void denied_by_socket(const char *path, char *why, size_t len)
{
    char who[64];
    struct stat st;
    caller(who, sizeof(who));
    if (stat(path, &st) < 0) {
        snprintf(why, len, "permission denied: %s may not reach %s", who, path);
        return;
    }
    struct group *g = getgrgid(st.st_gid);
    char gid[16];
    snprintf(gid, sizeof(gid), "%u", (unsigned)st.st_gid);
    snprintf(why, len, "permission denied: %s is not root or in group %s (%s)", who,
             g ? g->gr_name : gid, path);
}

/* One try, until DEADLINE: 0 with *ret_reply and *ret_data (its verdict's object), -EACCES
 * when this caller may not ask (no second try helps), another -errno otherwise; WHY says
 * what happened in either case. */
static int ask_health(const char *path, long long deadline, json_object **ret_reply,
                      json_object **ret_data, char *why, size_t len)
{
    json_object *reply = NULL, *data, *v, *e, *code = NULL, *msg = NULL;
    int r = client_request_until(path, "health", NULL, deadline, &reply);
    if (r == -EACCES || r == -EPERM) {
        denied_by_socket(path, why, len);
        return -EACCES;
    }
    if (r < 0) {
        snprintf(why, len, "fabtuned not answering: %s", r == -ETIMEDOUT ? "no answer in time" : strerror(-r));
        return r;
    }
    if (json_object_object_get_ex(reply, "data", &data) &&
        json_object_object_get_ex(data, "verdict", &v) && json_object_is_type(v, json_type_string)) {
        *ret_reply = reply;
        *ret_data = data;
        return 0;
    }
    /* The daemon answered with an error: a caller outside root and the control group (a
     * socket opened to others), or one of 64 clients too many (EBUSY, worth a retry). */
    if (json_object_object_get_ex(reply, "error", &e)) {
        json_object_object_get_ex(e, "code", &code);
        json_object_object_get_ex(e, "message", &msg);
    }
    const char *cs = code ? json_object_get_string(code) : "";
    if (streq(cs, "EACCES") || streq(cs, "EPERM")) {
        char who[64];
        caller(who, sizeof(who));
        snprintf(why, len, "fabtuned answered: permission denied: %s: %s", who,
                 msg ? json_object_get_string(msg) : cs);
        r = -EACCES;
    } else if (code) {
        snprintf(why, len, "fabtuned answered: %s (%s)", msg ? json_object_get_string(msg) : "error", cs);
        r = -EIO;
    } else {
        snprintf(why, len, "fabtuned not answering: a reply without a verdict");
        r = -EBADMSG;
    }
    json_object_put(reply);
    return r;
}

static void sleep_ms(long long ms)
{
    if (ms > 0)
        nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000L }, NULL);
}

/* The budget (the format's, or --timeout) holds two tries: the first until its half, so
 * that a daemon restarting or a full backlog gets a second; one that failed at once waits
 * a tenth of the budget before the second. Permission is not retried. */
static int ask_with_retry(const struct ctl *c, enum health_format f, json_object **ret_reply,
                          json_object **ret_data, char *why, size_t len)
{
    long long budget = c->wait_timeout > 0 ? (long long)(c->wait_timeout * 1000)
                                            : health_format_budget_ms(f);
    if (budget > HEALTH_BUDGET_MAX_MS)
        budget = HEALTH_BUDGET_MAX_MS;
    long long start = client_now_ms(), half = start + budget / 2, end = start + budget;
    int r = ask_health(c->socket, half, ret_reply, ret_data, why, len);
    if (r == 0 || r == -EACCES)
        return r;
    long long now = client_now_ms(), resume = now + budget / 10;
    sleep_ms((resume < half ? resume : half) - now);
    return ask_health(c->socket, end, ret_reply, ret_data, why, len);
}

/* The exit code and line of each health format (verdict.h holds the one table). */
int ctl_health(const struct ctl *c)
{
    enum health_format f;
    if (health_format_parse(c->format, &f) < 0) {
        fprintf(stderr, "fabtunectl: unknown health format '%s' (npd, nagios, nhc or slurm)\n", c->format);
        return EXIT_USAGE;
    }
    json_object *reply = NULL, *data = NULL, *v, *first;
    const char *verdict = "UNKNOWN", *why = NULL;
    char buf[320], line[512], perf[256];
    if (ask_with_retry(c, f, &reply, &data, buf, sizeof(buf)) == 0) {
        json_object_object_get_ex(data, "verdict", &v);
        verdict = json_object_get_string(v);
        if (json_object_object_get_ex(data, "first_failing", &first) && first)
            why = json_object_get_string(first);
    } else {
        why = buf;
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
