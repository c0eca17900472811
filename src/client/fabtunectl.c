/* SPDX-License-Identifier: ISC */
/* fabtunectl: query and control fabtuned over its Unix socket; its commands are one table
 * (commands[] below): a new command is a row there and its runner. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clean_text.h"
#include "client.h"
#include "json_text.h"
#include "macro.h"
#include "protocol.h"
#include "snapshot_archive.h"
#include "paths.h"
#include "strutil.h"

#define TIMEOUT_MS 10000
/* wait-ready without --timeout: fabtune-wait-ready.service's own bound, just inside its
 * TimeoutStartSec=180, so that the wait says why it gave up before systemd kills it. */
#define WAIT_READY_DEFAULT_TIMEOUT 170

/* A socket this user may not open is a permission matter (77), as fabtunectl(1) says;
 * one that nobody answers on is an unavailable daemon (69). */
static int unreachable(const struct ctl *c, int err)
{
    bool denied = err == -EACCES || err == -EPERM;
    fprintf(stderr, "fabtunectl: cannot talk to fabtuned at %s: %s%s\n", c->socket,
            strerror(-err), err == -ENOENT || err == -ECONNREFUSED ? " (is fabtuned running?)" :
            denied ? " (root or the control group of fabtune.yaml)" : "");
    return denied ? EXIT_NOPERM : EXIT_UNREACHABLE;
}

/* "fabtunectl: CMD: MESSAGE (CODE)", the code on the message's first line: a reload's
 * message goes on with the policy's error and its caret line, which the code must not
 * follow. A first line that ends with a colon gets the code before it. */
static void report_error(const char *cmd, const char *msg, const char *code)
{
    size_t first = strcspn(msg, "\n");
    bool colon = first > 0 && msg[first - 1] == ':';
    fprintf(stderr, "fabtunectl: %s: %.*s (%s)%s\n", cmd, (int)(first - colon), msg, code,
            colon ? ":" : "");
    if (msg[first] && msg[first + 1])
        fprintf(stderr, "%s%s", msg + first + 1, msg[strlen(msg) - 1] == '\n' ? "" : "\n");
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
        report_error(cmd, msg ? json_object_get_string(msg) : "error", cs);
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

int ctl_call(const struct ctl *c, const char *cmd, json_object *args, json_object **ret_reply,
             json_object **ret_data)
{
    return call(c, cmd, args, TIMEOUT_MS, ret_reply, ret_data);
}

static int simple(const struct ctl *c, const char *cmd, json_object *args,
                  void (*render)(json_object *))
{
    json_object *reply, *data;
    int r = call(c, cmd, args, TIMEOUT_MS, &reply, &data);
    if (r)
        return r;
    if (c->json || !render)
        (void)clean_json_write(data, c->json ? JSON_C_TO_STRING_PLAIN : JSON_C_TO_STRING_PRETTY,
                               stdout);
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
        (void)clean_json_write(data, JSON_C_TO_STRING_PLAIN, stdout);
    else if (json_object_object_get_ex(data, field, &v))
        clean_text_write(json_object_get_string(v), (size_t)json_object_get_string_len(v), stdout);
    json_object_put(reply);
    return 0;
}

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* One look at the node for wait-ready: 1 when READY, 0 when not (WHY: the verdict and its
 * first failing finding), or the request's -errno (the daemon not reached). */
static int ready_now(const struct ctl *c, char *why, size_t len)
{
    json_object *reply = NULL, *data, *v, *first;
    int r = client_request(c->socket, "health", NULL, 2000, &reply);
    if (r < 0)
        return r;
    bool answered = json_object_object_get_ex(reply, "data", &data) &&
                    json_object_object_get_ex(data, "verdict", &v);
    const char *verdict = answered ? json_object_get_string(v) : "no verdict in its reply";
    bool ready = answered && streq(verdict, "READY");
    bool has_first = answered && json_object_object_get_ex(data, "first_failing", &first) && first;
    snprintf(why, len, "%s%s%s", verdict, has_first ? ": " : "",
             has_first ? json_object_get_string(first) : "");
    json_object_put(reply);
    return ready;
}

/* Polls health until the node is READY. Says once what it waits for, and at the end why it
 * gave up: the verdict (exit 1), or a daemon it never reached (69); a socket it may not
 * open ends the wait at once (77), as waiting cannot mend that. */
static int wait_ready(const struct ctl *c)
{
    struct timespec start, pause = { 0, 250 * 1000000L };
    double limit = c->wait_timeout > 0 ? c->wait_timeout : WAIT_READY_DEFAULT_TIMEOUT;
    char why[640] = "";
    int r = 0;
    bool reached = false, told = false;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        r = ready_now(c, why, sizeof(why));
        if (r == 1)
            return 0;
        if (r == -EACCES || r == -EPERM)
            return unreachable(c, r);
        reached |= r == 0;
        if (r < 0)
            snprintf(why, sizeof(why), "cannot reach it: %s%s", strerror(-r),
                     r == -ENOENT || r == -ECONNREFUSED ? " (is fabtuned running?)" : "");
        if (!told)
            fprintf(stderr, "fabtunectl: waiting up to %g s for fabtuned at %s to judge the node "
                    "READY; now %s\n", limit, c->socket, why);
        told = true;
        if (seconds_since(&start) >= limit)
            break;
        nanosleep(&pause, NULL);
    }
    if (!reached) {
        fprintf(stderr, "fabtunectl: fabtuned at %s did not answer in %g s: %s\n", c->socket,
                limit, strerror(-r));
        return EXIT_UNREACHABLE;
    }
    fprintf(stderr, "fabtunectl: the node is not READY after %g s: %s\n", limit, why);
    return 1;
}

/* The daemon checks in a worker: a command that asks for a check ("reload", "apply",
 * "revert") answers at once with the number of that check (first_check in DATA), and this
 * waits (--timeout, else 60 s) for status to show it done: DATA gets that check's verdict,
 * or check_running_after_seconds at the limit. */
static void wait_for_check(const struct ctl *c, json_object *data)
{
    json_object *v;
    struct timespec start, pause = { 0, 100 * 1000000L };
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
}

/* "reload": the policy in force and the verdict of its first check. */
static int reload(const struct ctl *c)
{
    json_object *reply, *data;
    int r = call(c, "reload", NULL, TIMEOUT_MS, &reply, &data);
    if (r)
        return r;
    if (!json_object_is_type(data, json_type_object)) {
        fprintf(stderr, "fabtunectl: reload: the reply has no data object\n");
        json_object_put(reply);
        return EXIT_DAEMON_ERROR;
    }
    wait_for_check(c, data);
    if (c->json)
        puts(json_object_to_json_string_ext(data, JSON_C_TO_STRING_PLAIN));
    else
        render_reload(data);
    json_object_put(reply);
    return 0;
}

/* fabtunectl's options, one row each: the long name (and short letter), its argument, the
 * words --help and a command's usage show, and where its value goes. A command takes the
 * options its row's mask names (OPTS below), and no other: one it does not take is a usage
 * error that names it, never ignored. */
enum ctl_option {
    OPT_SOCKET, OPT_JSON, OPT_CONFIG, OPT_FAILED, OPT_RAIL, OPT_CONF, OPT_FORMAT, OPT_TIMEOUT,
    OPT_STATE_DIR, OPT_VERBOSE, OPT_COUNT
};
#define OPTION(o) (1u << (o))
#define OPTION_VAL 0x100        /* getopt_long's value of option o: OPTION_VAL + o */

struct ctl_option_row {
    const char *name;
    char letter;                /* 0: none */
    bool has_arg;
    /* "[--rail RAIL]" in the usage of a command that takes it; NULL for -s and --json,
     * which --help lists apart, with the commands that do not take them. */
    const char *usage;
};

static const struct ctl_option_row option_rows[OPT_COUNT] = {
    [OPT_SOCKET] = { "socket", 's', true, NULL },
    [OPT_JSON] = { "json", 'j', false, NULL },
    [OPT_CONFIG] = { "config", 'c', true, "[-c POLICY]" },
    [OPT_FAILED] = { "failed", 0, false, "[--failed]" },
    [OPT_RAIL] = { "rail", 0, true, "[--rail RAIL]" },
    [OPT_CONF] = { "conf", 0, false, "[--conf]" },
    [OPT_FORMAT] = { "format", 0, true, "[--format npd|nagios|nhc|slurm]" },
    [OPT_TIMEOUT] = { "timeout", 0, true, "[--timeout SEC]" },
    [OPT_STATE_DIR] = { "state-dir", 0, true, "[--state-dir DIR]" },
    [OPT_VERBOSE] = { "verbose", 'v', false, "[-v]" },
};

/* What a command that asks the daemon takes: its socket, and JSON for what it prints. */
#define DAEMON_OPTIONS (OPTION(OPT_SOCKET) | OPTION(OPT_JSON))

struct command;
typedef int (*command_run)(const struct ctl *c, const struct command *k, char **args);

/* One fabtunectl command: its name, the options it takes (a mask of option_rows; its usage
 * shows them in the table's order), its argument shape (the words --help prints and the
 * usage errors quote), how many arguments it takes, the line of --help, and how it runs
 * and renders. shell-completion/bash/fabtunectl completes the same (tests/completion.sh
 * holds it to --help): the commands, each one's options, check ids for explain and checks,
 * and files for an argument named FILE or *.tar. */
struct command {
    const char *name;
    unsigned options;
    const char *args;           /* e.g. "FILE.tar"; "" for none */
    int min_args, max_args;
    const char *help;
    command_run run;
    void (*render)(json_object *data);
};

static int ask(const struct ctl *c, const struct command *k, char **args)
{
    return simple(c, k->name, NULL, k->render);
}

/* An empty GID table says why, as status does: the daemon found no rail. */
static int run_gids(const struct ctl *c, const struct command *k, char **args)
{
    json_object *reply, *data, *status_reply, *status;
    int r = call(c, k->name, NULL, TIMEOUT_MS, &reply, &data);
    if (r)
        return r;
    if (c->json) {
        (void)clean_json_write(data, JSON_C_TO_STRING_PLAIN, stdout);
    } else {
        k->render(data);
        if (json_object_is_type(data, json_type_array) && json_object_array_length(data) == 0 &&
            call(c, "status", NULL, TIMEOUT_MS, &status_reply, &status) == 0) {
            printf("rails: 0 (%s)\n", json_text(status, "why_no_rails"));
            json_object_put(status_reply);
        }
    }
    json_object_put(reply);
    return 0;
}

static int run_checks(const struct ctl *c, const struct command *k, char **args)
{
    return ctl_checks(c, args[0]);
}

/* The status reply's rails[].link: no request of its own. */
static int run_links(const struct ctl *c, const struct command *k, char **args)
{
    json_object *reply, *data;
    int r = call(c, "status", NULL, TIMEOUT_MS, &reply, &data);
    if (r)
        return r;
    if (c->json) {
        json_object *out = links_json(data);
        (void)clean_json_write(out, JSON_C_TO_STRING_PLAIN, stdout);
        json_object_put(out);
    } else {
        render_links(data);
    }
    json_object_put(reply);
    return 0;
}

/* The status reply's jobs: no request of its own. */
static int run_jobs(const struct ctl *c, const struct command *k, char **args)
{
    json_object *reply, *data;
    int r = call(c, "status", NULL, TIMEOUT_MS, &reply, &data);
    if (r)
        return r;
    if (c->json) {
        json_object *out = jobs_json(data);
        (void)clean_json_write(out, JSON_C_TO_STRING_PLAIN, stdout);
        json_object_put(out);
    } else {
        render_jobs(data);
    }
    json_object_put(reply);
    return 0;
}

static int run_nccl_env(const struct ctl *c, const struct command *k, char **args)
{
    return text_field(c, k->name, c->conf ? "conf" : "env");
}

static int run_metrics(const struct ctl *c, const struct command *k, char **args)
{
    return text_field(c, k->name, "text");
}

static int run_health(const struct ctl *c, const struct command *k, char **args)
{
    return ctl_health(c);
}

static int run_wait_ready(const struct ctl *c, const struct command *k, char **args)
{
    return wait_ready(c);
}

static int run_reload(const struct ctl *c, const struct command *k, char **args)
{
    return reload(c);
}

/* "apply" and "revert": the keys as the transaction left them, printed once the pass that
 * the daemon folds the change into is done, so that health and status read the change
 * when this returns (a revert's drift, an apply's cure). --json prints the keys' array. */
static int run_tune(const struct ctl *c, const struct command *k, char **args)
{
    json_object *reply, *data, *keys = NULL;
    int r = call(c, k->name, NULL, TIMEOUT_MS, &reply, &data);
    if (r)
        return r;
    if (json_object_is_type(data, json_type_object) &&
        json_object_object_get_ex(data, "first_check", NULL))
        wait_for_check(c, data);
    if (!json_object_object_get_ex(data, "keys", &keys))
        keys = data;    /* a daemon before first_check: the array alone */
    if (c->json)
        (void)clean_json_write(keys, JSON_C_TO_STRING_PLAIN, stdout);
    else
        render_tune(data, k->name);
    json_object_put(reply);
    return 0;
}

/* "forget RAIL": the daemon's link memory forgets a gone rail (rails.gone); the verdict of
 * the check that follows. */
static int run_forget(const struct ctl *c, const struct command *k, char **args)
{
    json_object *reply, *data, *a = json_object_new_object(), *v;
    json_object_object_add(a, "rail", json_object_new_string(args[0]));
    int r = call(c, "forget", a, TIMEOUT_MS, &reply, &data);
    json_object_put(a);
    if (r)
        return r;
    if (!json_object_is_type(data, json_type_object)) {
        fprintf(stderr, "fabtunectl: forget: the reply has no data object\n");
        json_object_put(reply);
        return EXIT_DAEMON_ERROR;
    }
    wait_for_check(c, data);
    if (c->json)
        (void)clean_json_write(data, JSON_C_TO_STRING_PLAIN, stdout);
    else if (json_object_object_get_ex(data, "verdict", &v))
        printf("forgot %s; verdict %s\n", args[0], json_object_get_string(v));
    else
        printf("forgot %s; its check still runs\n", args[0]);
    json_object_put(reply);
    return 0;
}

static int run_snapshot(const struct ctl *c, const struct command *k, char **args)
{
    return snapshot_take(args[0], c->state_dir);
}

static int run_diff(const struct ctl *c, const struct command *k, char **args)
{
    char fabtuned[4096];
    fabtuned_locate(fabtuned, sizeof(fabtuned));
    return diff_run(fabtuned, c->config, args[0], args[1], c->json);
}

static int run_explain(const struct ctl *c, const struct command *k, char **args)
{
    return ctl_explain(c, args[0]);
}

static const struct command commands[] = {
    { "status", DAEMON_OPTIONS | OPTION(OPT_VERBOSE), "", 0, 0,
      "the verdict and its cause, the last and next check, a table of rails", ask, render_status },
    { "checks", DAEMON_OPTIONS | OPTION(OPT_FAILED) | OPTION(OPT_RAIL) | OPTION(OPT_VERBOSE), "[CHECK]", 0, 1,
      "every finding, errors first (or the failing ones; of one check id or family, on one "
      "rail or device) with its expected and actual values and hint", run_checks, NULL },
    { "explain", OPTION(OPT_JSON), "[CHECK]", 0, 1,
      "what a check means, reads and expects, and what to do when it fails; alone, every "
      "check id with its meaning (no daemon needed)", run_explain, NULL },
    { "links", DAEMON_OPTIONS, "", 0, 0,
      "each rail's link: FEC and BER, symbol errors per hour, link downs in 24 h, the "
      "module, its temperature and weakest Rx lane; the latest flaps, downs and bursts",
      run_links, NULL },
    { "jobs", DAEMON_OPTIONS, "", 0, 0,
      "the NCCL jobs on the node: each job's RAS, and each rank of this node behind, "
      "missing or dead, with its GPU, its rail, and whether its rail is why", run_jobs, NULL },
    { "probes", DAEMON_OPTIONS, "", 0, 0, "the last probe run and the baselines", ask,
      render_probes },
    { "tuning", DAEMON_OPTIONS, "", 0, 0, "the sysctl profile: wanted, live, original, state",
      ask, render_tuning },
    { "nccl-env", DAEMON_OPTIONS | OPTION(OPT_CONF), "", 0, 0,
      "the NCCL contract as exports (or nccl.conf)", run_nccl_env, NULL },
    { "metrics", DAEMON_OPTIONS, "", 0, 0, "the Prometheus text exposition", run_metrics, NULL },
    { "gids", DAEMON_OPTIONS, "", 0, 0, "the GID table, NCCL's pick and why it skips the rest",
      run_gids, render_gids },
    { "neighbors", DAEMON_OPTIONS, "", 0, 0,
      "what each rail is plugged into: its LLDP neighbour's switch, port, description, "
      "management address, VLANs, frame size and age", ask, render_neighbors },
    { "health", DAEMON_OPTIONS | OPTION(OPT_FORMAT) | OPTION(OPT_TIMEOUT), "", 0, 0,
      "the cached verdict as exit code and line; UNKNOWN when fabtuned gives none within "
      "SEC (default: 100 ms for npd, seconds for the others)", run_health, NULL },
    { "wait-ready", OPTION(OPT_SOCKET) | OPTION(OPT_TIMEOUT), "", 0, 0,
      "wait until the node is READY (exit 0) or time out (1; default 170 s), saying what it "
      "waits for", run_wait_ready, NULL },
    { "reload", DAEMON_OPTIONS | OPTION(OPT_TIMEOUT), "", 0, 0,
      "reload the policy; the verdict of its first check (root)", run_reload, render_reload },
    { "probe-now", DAEMON_OPTIONS, "", 0, 0, "start a probe run now (root)", ask,
      render_probe_now },
    { "apply", DAEMON_OPTIONS | OPTION(OPT_TIMEOUT), "", 0, 0,
      "apply the sysctl profile now, and wait for the check that follows (root)", run_tune,
      NULL },
    { "revert", DAEMON_OPTIONS | OPTION(OPT_TIMEOUT), "", 0, 0,
      "restore the sysctl originals, and wait for the check that follows (root)", run_tune,
      NULL },
    { "forget", DAEMON_OPTIONS | OPTION(OPT_TIMEOUT), "RAIL", 1, 1,
      "forget a rail gone from the inventory (rails.gone), and wait for the check that "
      "follows (root)", run_forget, NULL },
    { "snapshot", OPTION(OPT_STATE_DIR), "FILE.tar", 1, 1,
      "capture what fabtune reads, for another machine (no daemon needed), compressed as "
      "the name ends: " SNAPSHOT_ARCHIVE_SUFFIXES "; with the daemon's link memory from "
      "DIR (default " PATHS_DEFAULT_STATE_DIR ")", run_snapshot, NULL },
    { "diff", OPTION(OPT_JSON) | OPTION(OPT_CONFIG), "A.tar [B.tar]", 1, 2,
      "what differs between two nodes' snapshots (or one and this node): exit 0 the same, "
      "1 different; runs $FABTUNED, else the fabtuned beside fabtunectl, else "
      SBINDIR "/fabtuned", run_diff, NULL },
};

/* "NAME OPTIONS ARGS" with single spaces, for --help and the usage errors: the options are
 * the command's own, in the option table's order. */
static void usage_of(const struct command *k, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%s", k->name);
    for (int o = 0; o < OPT_COUNT && n < len; o++)
        if ((k->options & OPTION(o)) && option_rows[o].usage)
            n += (size_t)snprintf(buf + n, len - n, " %s", option_rows[o].usage);
    if (k->args[0] && n < len)
        snprintf(buf + n, len - n, " %s", k->args);
}

/* The names of the commands that take option O (or, with !TAKE, do not), as "explain,
 * snapshot and diff", into BUF; returns how many. */
static size_t commands_taking(enum ctl_option o, bool take, char *buf, size_t len)
{
    size_t n = 0, total = 0, at = 0;
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
        total += !(commands[i].options & OPTION(o)) != take;
    buf[0] = '\0';
    for (size_t i = 0; i < ARRAY_SIZE(commands) && at < len; i++) {
        if (!(commands[i].options & OPTION(o)) == take)
            continue;
        n++;
        at += (size_t)snprintf(buf + at, len - at, "%s%s", n == 1 ? "" : n == total ? " and " : ", ",
                               commands[i].name);
    }
    return total;
}

#define HELP_INDENT 31
#define HELP_WIDTH 88

static void help(void)
{
    char usage[160], without[160];
    (void)commands_taking(OPT_SOCKET, false, without, sizeof(without));
    printf("Usage: fabtunectl [-s SOCKET] [--json] COMMAND [OPTIONS] [ARGS]\n"
           "Query and control fabtuned.\n\n");
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
        usage_of(&commands[i], usage, sizeof(usage));
        if (strlen(usage) > HELP_INDENT - 3)
            printf("  %s\n%*s", usage, HELP_INDENT, "");
        else
            printf("  %-*s", HELP_INDENT - 2, usage);
        print_wrapped(commands[i].help, HELP_INDENT, HELP_WIDTH);
    }
    printf("\n  -s, --socket PATH   the daemon's socket (default $FABTUNE_SOCKET, else\n"
           "                      %s); not for %s\n", PROTOCOL_DEFAULT_SOCKET, without);
    (void)commands_taking(OPT_JSON, false, without, sizeof(without));
    printf("  -j, --json          machine output; not for %s\n"
           "  -h, --help          this help\n"
           "  -V, --version       print the version, and the daemon's when it answers\n",
           without);
}

static const struct command *command_find(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
        if (streq(commands[i].name, name))
            return &commands[i];
    return NULL;
}

/* Whether N arguments suit K; if not, says what K needs, in its own words. */
static bool arguments_fit(const struct command *k, int n, char **args)
{
    char usage[160];
    if (n >= k->min_args && n <= k->max_args)
        return true;
    usage_of(k, usage, sizeof(usage));
    if (n < k->min_args)
        fprintf(stderr, "fabtunectl: %s needs %s (usage: fabtunectl %s)\n", k->name, k->args, usage);
    else
        fprintf(stderr, "fabtunectl: %s: unexpected argument '%s' (usage: fabtunectl %s)\n",
                k->name, args[k->max_args], usage);
    return false;
}

/* Whether K takes every option GIVEN (a mask); if not, names the first it does not take,
 * the commands that do (or, where most do, those that do not), and K's usage. */
static bool options_fit(const struct command *k, unsigned given)
{
    char usage[160], takers[256], others[256];
    unsigned extra = given & ~k->options;
    if (!extra)
        return true;
    int o = __builtin_ctz(extra);
    size_t n = commands_taking(o, true, takers, sizeof(takers));
    (void)commands_taking(o, false, others, sizeof(others));
    usage_of(k, usage, sizeof(usage));
    if (n > ARRAY_SIZE(commands) / 2)
        fprintf(stderr, "fabtunectl: %s does not take --%s (every command but %s does; usage: "
                "fabtunectl %s)\n", k->name, option_rows[o].name, others, usage);
    else
        fprintf(stderr, "fabtunectl: %s does not take --%s (only %s %s; usage: fabtunectl %s)\n",
                k->name, option_rows[o].name, takers, n == 1 ? "does" : "do", usage);
    return false;
}

/* "fabtunectl: WHAT 'ARG'" (when WHAT is given) and the pointer to --help. */
static int usage_error(const char *what, const char *arg)
{
    if (what)
        fprintf(stderr, "fabtunectl: %s%s%s%s\n", what, arg ? " '" : "", arg ? arg : "",
                arg ? "'" : "");
    fprintf(stderr, "Try 'fabtunectl --help'.\n");
    return EXIT_USAGE;
}

/* An unknown command, with the command it likely means. */
static int unknown_command(const char *name)
{
    const char *names[ARRAY_SIZE(commands)];
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
        names[i] = commands[i].name;
    const char *near = str_closest(name, names, ARRAY_SIZE(names));
    if (near)
        fprintf(stderr, "fabtunectl: unknown command '%s' (did you mean '%s'?)\n", name, near);
    else
        fprintf(stderr, "fabtunectl: unknown command '%s'\n", name);
    return usage_error(NULL, NULL);
}

/* --timeout: a number of seconds, > 0: "abc" or "-5" must not mean "wait forever". */
static int parse_timeout(const char *arg, double *ret)
{
    char *end;
    *ret = strtod(arg, &end);
    if (end == arg || *end || !isfinite(*ret) || *ret <= 0) {
        fprintf(stderr, "fabtunectl: --timeout wants seconds greater than 0, not '%s'\n", arg);
        return -EINVAL;
    }
    return 0;
}

/* Where option O's value goes. */
static int option_set(struct ctl *c, enum ctl_option o, const char *arg)
{
    switch (o) {
    case OPT_SOCKET: c->socket = arg; break;
    case OPT_JSON: c->json = true; break;
    case OPT_CONFIG: c->config = arg; break;
    case OPT_FAILED: c->failed = true; break;
    case OPT_RAIL: c->rail = arg; break;
    case OPT_CONF: c->conf = true; break;
    case OPT_FORMAT: c->format = arg; break;
    case OPT_STATE_DIR: c->state_dir = arg; break;
    case OPT_VERBOSE: render_every_finding = true; break;
    case OPT_TIMEOUT: return parse_timeout(arg, &c->wait_timeout);
    case OPT_COUNT: break;
    }
    return 0;
}

/* "fabtunectl VERSION", and the daemon's version when one answers on the socket (its
 * health reply carries it). */
static void version(const struct ctl *c)
{
    json_object *reply = NULL, *data, *v;
    printf("fabtunectl %s\n", PACKAGE_VERSION);
    int r = client_request(c->socket, "health", NULL, 2000, &reply);
    if (r < 0)
        printf("fabtuned: no answer at %s (%s)\n", c->socket, strerror(-r));
    else if (json_object_object_get_ex(reply, "data", &data) &&
             json_object_object_get_ex(data, "version", &v) && json_object_is_type(v, json_type_string))
        printf("fabtuned %s (at %s)\n", json_object_get_string(v), c->socket);
    else
        printf("fabtuned: answers at %s, but names no version (one older than this fabtunectl)\n",
               c->socket);
    json_object_put(reply);
}

/* getopt_long's tables from option_rows, with -h and -V: each option's value is
 * OPTION_VAL + its row, or its letter. */
static void getopt_tables(struct option *longopts, char *shortopts)
{
    size_t n = 0, ns = 0;
    shortopts[ns++] = 'h';
    shortopts[ns++] = 'V';
    for (int o = 0; o < OPT_COUNT; o++) {
        bool arg = option_rows[o].has_arg;
        longopts[n++] = (struct option){ option_rows[o].name, arg ? required_argument : no_argument,
                                         NULL, OPTION_VAL + o };
        if (option_rows[o].letter) {
            shortopts[ns++] = option_rows[o].letter;
            if (arg)
                shortopts[ns++] = ':';
        }
    }
    shortopts[ns] = '\0';
    longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
    longopts[n++] = (struct option){ "version", no_argument, NULL, 'V' };
    longopts[n] = (struct option){ 0 };
}

/* The row of getopt_long's value V, or -1 (-h, -V, or an error getopt reported). */
static int option_of(int v)
{
    if (v >= OPTION_VAL)
        return v - OPTION_VAL;
    for (int o = 0; o < OPT_COUNT; o++)
        if (option_rows[o].letter == v)
            return o;
    return -1;
}

/* The options, anywhere on the line; *GIVEN gets the mask of those given. Returns 0 to go
 * on, 1 after --help or --version, or EXIT_USAGE (reported). */
static int parse_options(int argc, char **argv, struct ctl *c, unsigned *given)
{
    struct option longopts[OPT_COUNT + 3];
    char shortopts[2 * OPT_COUNT + 3];
    bool want_help = false, want_version = false;
    int v;
    getopt_tables(longopts, shortopts);
    *given = 0;
    while ((v = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        int o = option_of(v);
        want_help |= v == 'h';
        want_version |= v == 'V';
        if (v == 'h' || v == 'V')
            continue;
        if (o < 0)
            return usage_error(NULL, NULL);     /* getopt said what */
        if (option_set(c, (enum ctl_option)o, optarg) < 0)
            return EXIT_USAGE;
        *given |= OPTION(o);
    }
    /* After the loop: -s after -V still names the socket to ask. */
    if (want_help)
        help();
    else if (want_version)
        version(c);
    return want_help || want_version;
}

int main(int argc, char **argv)
{
    const char *env = getenv("FABTUNE_SOCKET");
    struct ctl c = { .socket = env && env[0] ? env : PROTOCOL_DEFAULT_SOCKET, .format = "npd",
                     .state_dir = PATHS_DEFAULT_STATE_DIR };
    unsigned given;
    int r = parse_options(argc, argv, &c, &given);
    if (r)
        return r == 1 ? 0 : r;
    if (optind >= argc)
        return usage_error("no command given", NULL);
    const struct command *k = command_find(argv[optind]);
    if (!k)
        return unknown_command(argv[optind]);
    char *args[3] = { NULL, NULL, NULL };
    int n = argc - optind - 1;
    if (!options_fit(k, given) || !arguments_fit(k, n, argv + optind + 1))
        return EXIT_USAGE;
    for (int i = 0; i < n; i++)
        args[i] = argv[optind + 1 + i];
    return k->run(&c, k, args);
}
