/* SPDX-License-Identifier: ISC */
/* fabtunectl: query and control fabtuned over its Unix socket. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "macro.h"
#include "protocol.h"
#include "verdict.h"

#define TIMEOUT_MS 10000
#define HEALTH_TIMEOUT_MS 90     /* health answers in under 100 ms, or says UNKNOWN */

struct ctl {
    const char *socket;
    bool json, failed, conf;
    const char *format;
    double wait_timeout;
    const char *config;         /* diff: the policy both sides are judged by */
};

static void help(void)
{
    printf("Usage: fabtunectl [-s SOCKET] [--json] COMMAND [OPTIONS]\n"
           "Query and control fabtuned.\n\n"
           "  status                     the verdict and a table of rails\n"
           "  checks [--failed]          every finding (or the failing ones)\n"
           "  probes                     the last probe run and the baselines\n"
           "  tuning                     the sysctl profile: wanted, live, original, state\n"
           "  nccl-env [--conf]          the NCCL contract as exports (or nccl.conf)\n"
           "  metrics                    the Prometheus text exposition\n"
           "  gids                       the GID table, NCCL's pick and why it skips the rest\n"
           "  health [--format npd|nagios|nhc|slurm]  the cached verdict as exit code and line\n"
           "  wait-ready [--timeout SEC] wait until the node is READY (exit 0) or time out (1)\n"
           "  reload, probe-now, apply, revert  (root only)\n"
           "  snapshot FILE.tar          capture what fabtune reads, for another machine\n"
           "  diff A.tar [B.tar] [-c POLICY]  what differs between two nodes' snapshots (or\n"
           "                             one and this node): exit 0 the same, 1 different\n\n"
           "  -s, --socket PATH   the daemon's socket (default %s)\n"
           "  -c, --config FILE   diff: the policy both sides are judged by\n"
           "  -j, --json          machine output\n"
           "  -h, --help          this help\n"
           "  -V, --version       print the version\n", PROTOCOL_DEFAULT_SOCKET);
}

static int unreachable(const struct ctl *c, int err)
{
    fprintf(stderr, "fabtunectl: cannot talk to fabtuned at %s: %s%s\n", c->socket,
            strerror(-err), err == -ENOENT || err == -ECONNREFUSED ? " (is fabtuned running?)" :
            err == -EACCES ? " (root or the fabtune group)" : "");
    return EXIT_UNREACHABLE;
}

/* Runs cmd; on success *ret_data is the reply's data (owned by *ret_reply). */
static int call(const struct ctl *c, const char *cmd, json_object *args, int timeout_ms,
                json_object **ret_reply, json_object **ret_data)
{
    json_object *reply, *ok, *v;
    int r = client_request(c->socket, cmd, args, timeout_ms, &reply);
    if (r < 0)
        return unreachable(c, r);
    if (!json_object_object_get_ex(reply, "ok", &ok) || !json_object_get_boolean(ok)) {
        json_object *e = NULL, *code = NULL, *msg = NULL;
        json_object_object_get_ex(reply, "error", &e);
        json_object_object_get_ex(e, "code", &code);
        json_object_object_get_ex(e, "message", &msg);
        const char *cs = code ? json_object_get_string(code) : "?";
        fprintf(stderr, "fabtunectl: %s: %s (%s)\n", cmd, msg ? json_object_get_string(msg) : "error", cs);
        /* cs points into reply: decide before letting it go. */
        int rc = streq(cs, "EPERM") || streq(cs, "EACCES") ? EXIT_NOPERM : EXIT_DAEMON_ERROR;
        json_object_put(reply);
        return rc;
    }
    json_object_object_get_ex(reply, "data", &v);
    *ret_reply = reply;
    *ret_data = v;
    return 0;
}

static int simple(const struct ctl *c, const char *cmd, json_object *args,
                  void (*render)(json_object *))
{
    json_object *reply, *data;
    int r = call(c, cmd, args, TIMEOUT_MS, &reply, &data);
    if (r)
        return r;
    if (c->json || !render)
        puts(json_object_to_json_string_ext(data, c->json ? JSON_C_TO_STRING_PLAIN
                                                          : JSON_C_TO_STRING_PRETTY));
    else
        render(data);
    json_object_put(reply);
    return 0;
}

static int text_field(const struct ctl *c, const char *cmd, const char *field)
{
    json_object *reply, *data, *v;
    int r = call(c, cmd, NULL, TIMEOUT_MS, &reply, &data);
    if (r)
        return r;
    if (c->json)
        puts(json_object_to_json_string_ext(data, JSON_C_TO_STRING_PLAIN));
    else if (json_object_object_get_ex(data, field, &v))
        fputs(json_object_get_string(v), stdout);
    json_object_put(reply);
    return 0;
}

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
static int health(const struct ctl *c)
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

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static int wait_ready(const struct ctl *c)
{
    struct timespec start, pause = { 0, 250 * 1000000L };
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        json_object *reply = NULL, *data, *v;
        bool ready = client_request(c->socket, "health", NULL, 2000, &reply) == 0 &&
                     json_object_object_get_ex(reply, "data", &data) &&
                     json_object_object_get_ex(data, "verdict", &v) &&
                     streq(json_object_get_string(v), "READY");
        json_object_put(reply);
        if (ready)
            return 0;
        if (c->wait_timeout > 0 && seconds_since(&start) >= c->wait_timeout) {
            fprintf(stderr, "fabtunectl: the node is not READY after %g s\n", c->wait_timeout);
            return 1;
        }
        nanosleep(&pause, NULL);
    }
}

/* The daemon checks in a worker: "reload" answers at once with the number of the first
 * check under the new policy, and this waits (--timeout, else 60 s) for status to show it
 * done, to print that check's verdict. */
static int reload(const struct ctl *c)
{
    json_object *reply, *data, *v;
    struct timespec start, pause = { 0, 100 * 1000000L };
    int r = call(c, "reload", NULL, TIMEOUT_MS, &reply, &data);
    if (r)
        return r;
    if (!json_object_is_type(data, json_type_object)) {
        fprintf(stderr, "fabtunectl: reload: the reply has no data object\n");
        json_object_put(reply);
        return EXIT_DAEMON_ERROR;
    }
    int64_t first = json_object_object_get_ex(data, "first_check", &v) ? json_object_get_int64(v) : 0;
    double limit = c->wait_timeout > 0 ? c->wait_timeout : 60;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        json_object *st = NULL, *sd, *done, *verdict;
        bool finished = client_request(c->socket, "status", NULL, 2000, &st) == 0 &&
                        json_object_object_get_ex(st, "data", &sd) &&
                        json_object_object_get_ex(sd, "checks_done", &done) &&
                        json_object_get_int64(done) >= first &&
                        json_object_object_get_ex(sd, "verdict", &verdict);
        if (finished)
            json_object_object_add(data, "verdict", json_object_get(verdict));
        json_object_put(st);
        if (finished || seconds_since(&start) >= limit)
            break;
        nanosleep(&pause, NULL);
    }
    if (!json_object_object_get_ex(data, "verdict", &v))
        json_object_object_add(data, "check_running_after_seconds", json_object_new_double(limit));
    if (c->json)
        puts(json_object_to_json_string_ext(data, JSON_C_TO_STRING_PLAIN));
    else
        render_reload(data);
    json_object_put(reply);
    return 0;
}

static int dispatch(struct ctl *c, const char *cmd)
{
    json_object *args = NULL;
    int r;
    if (streq(cmd, "status"))
        return simple(c, "status", NULL, render_status);
    if (streq(cmd, "gids"))
        return simple(c, "gids", NULL, render_gids);
    if (streq(cmd, "checks")) {
        args = json_object_new_object();
        json_object_object_add(args, "failed", json_object_new_boolean(c->failed));
        r = simple(c, "checks", args, render_checks);
        json_object_put(args);
        return r;
    }
    if (streq(cmd, "probes"))
        return simple(c, "probes", NULL, render_probes);
    if (streq(cmd, "tuning"))
        return simple(c, "tuning", NULL, render_tuning);
    if (streq(cmd, "nccl-env"))
        return text_field(c, "nccl-env", c->conf ? "conf" : "env");
    if (streq(cmd, "metrics"))
        return text_field(c, "metrics", "text");
    if (streq(cmd, "health"))
        return health(c);
    if (streq(cmd, "wait-ready"))
        return wait_ready(c);
    if (streq(cmd, "reload"))
        return reload(c);
    if (streq(cmd, "probe-now"))
        return simple(c, cmd, NULL, render_probe_now);
    if (streq(cmd, "apply") || streq(cmd, "revert"))
        return simple(c, cmd, NULL, render_tuning);
    fprintf(stderr, "fabtunectl: unknown command '%s'; see 'fabtunectl --help'\n", cmd);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    enum { OPT_JSON = 0x100, OPT_FAILED, OPT_CONF, OPT_FORMAT, OPT_TIMEOUT };
    static const struct option longopts[] = {
        { "socket", required_argument, NULL, 's' },
        { "config", required_argument, NULL, 'c' },
        { "json", no_argument, NULL, OPT_JSON },
        { "failed", no_argument, NULL, OPT_FAILED },
        { "conf", no_argument, NULL, OPT_CONF },
        { "format", required_argument, NULL, OPT_FORMAT },
        { "timeout", required_argument, NULL, OPT_TIMEOUT },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        {},
    };
    struct ctl c = { .socket = PROTOCOL_DEFAULT_SOCKET, .format = "npd" };
    int o;
    char *end;
    while ((o = getopt_long(argc, argv, "s:c:jhV", longopts, NULL)) != -1) {
        switch (o) {
        case 's': c.socket = optarg; break;
        case 'c': c.config = optarg; break;
        case 'j':
        case OPT_JSON: c.json = true; break;
        case OPT_FAILED: c.failed = true; break;
        case OPT_CONF: c.conf = true; break;
        case OPT_FORMAT: c.format = optarg; break;
        case OPT_TIMEOUT:
            /* A number of seconds, > 0: "abc" or "-5" must not mean "wait forever". */
            c.wait_timeout = strtod(optarg, &end);
            if (end == optarg || *end || !isfinite(c.wait_timeout) || c.wait_timeout <= 0) {
                fprintf(stderr, "fabtunectl: --timeout wants seconds greater than 0, not '%s'\n",
                        optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h': help(); return 0;
        case 'V': printf("fabtunectl %s\n", PACKAGE_VERSION); return 0;
        default: return EXIT_USAGE;
        }
    }
    if (optind == argc - 2 && streq(argv[optind], "snapshot"))
        return snapshot_take(argv[optind + 1]);
    if (optind < argc && streq(argv[optind], "diff")) {
        if (argc - optind < 2 || argc - optind > 3) {
            fprintf(stderr, "fabtunectl: diff wants one or two snapshots: diff A.tar [B.tar]\n");
            return EXIT_USAGE;
        }
        const char *fabtuned = getenv("FABTUNED");
        return diff_run(fabtuned && fabtuned[0] ? fabtuned : SBINDIR "/fabtuned", c.config,
                        argv[optind + 1], argc - optind == 3 ? argv[optind + 2] : NULL, c.json);
    }
    if (optind != argc - 1) {
        fprintf(stderr, "fabtunectl: expected one command; see 'fabtunectl --help'\n");
        return EXIT_USAGE;
    }
    return dispatch(&c, argv[optind]);
}
