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

#define TIMEOUT_MS 10000

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

struct command;
typedef int (*command_run)(const struct ctl *c, const struct command *k, char **args);

/* One fabtunectl command: its name, what follows it (its own options, then its argument
 * shape: the words --help prints and the usage errors quote), how many arguments it takes,
 * the line of --help, and how it runs and renders. shell-completion/bash/fabtunectl
 * completes the same (tests/completion.sh holds it to --help): the commands, each one's
 * options, and files for an argument named FILE or *.tar. */
struct command {
    const char *name;
    const char *options;        /* e.g. "[--failed]"; "" for none */
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

static const struct command commands[] = {
    { "status", "", "", 0, 0, "the verdict and its cause, the last and next check, a table of rails", ask, render_status },
    { "checks", "[--failed] [--rail RAIL]", "[CHECK]", 0, 1,
      "every finding (or the failing ones; of one check id or family, on one rail or "
      "device) with its expected and actual values and hint", run_checks, NULL },
    { "links", "", "", 0, 0,
      "each rail's link: FEC and BER, symbol errors per hour, link downs in 24 h, the "
      "module, its temperature and weakest Rx lane; the latest flaps, downs and bursts",
      run_links, NULL },
    { "probes", "", "", 0, 0, "the last probe run and the baselines", ask, render_probes },
    { "tuning", "", "", 0, 0, "the sysctl profile: wanted, live, original, state", ask,
      render_tuning },
    { "nccl-env", "[--conf]", "", 0, 0, "the NCCL contract as exports (or nccl.conf)",
      run_nccl_env, NULL },
    { "metrics", "", "", 0, 0, "the Prometheus text exposition", run_metrics, NULL },
    { "gids", "", "", 0, 0, "the GID table, NCCL's pick and why it skips the rest", run_gids,
      render_gids },
    { "neighbors", "", "", 0, 0,
      "what each rail is plugged into: its LLDP neighbour's switch, port, description, "
      "management address, VLANs, frame size and age", ask, render_neighbors },
    { "health", "[--format npd|nagios|nhc|slurm] [--timeout SEC]", "", 0, 0,
      "the cached verdict as exit code and line; UNKNOWN when fabtuned gives none within "
      "SEC (default: 100 ms for npd, seconds for the others)", run_health, NULL },
    { "wait-ready", "[--timeout SEC]", "", 0, 0,
      "wait until the node is READY (exit 0) or time out (1)", run_wait_ready, NULL },
    { "reload", "[--timeout SEC]", "", 0, 0,
      "reload the policy; the verdict of its first check (root)", run_reload, render_reload },
    { "probe-now", "", "", 0, 0, "start a probe run now (root)", ask, render_probe_now },
    { "apply", "", "", 0, 0, "apply the sysctl profile now (root)", ask, render_tuning },
    { "revert", "", "", 0, 0, "restore the sysctl originals (root)", ask, render_tuning },
    { "snapshot", "[--state-dir DIR]", "FILE.tar", 1, 1,
      "capture what fabtune reads, for another machine (no daemon needed), compressed as "
      "the name ends: " SNAPSHOT_ARCHIVE_SUFFIXES "; with the daemon's link memory from "
      "DIR (default " PATHS_DEFAULT_STATE_DIR ")", run_snapshot, NULL },
    { "diff", "[-c POLICY]", "A.tar [B.tar]", 1, 2,
      "what differs between two nodes' snapshots (or one and this node): exit 0 the same, "
      "1 different; runs $FABTUNED, else the fabtuned beside fabtunectl, else "
      SBINDIR "/fabtuned", run_diff, NULL },
};

/* "NAME OPTIONS ARGS" with single spaces, for --help and the usage errors. */
static void usage_of(const struct command *k, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s%s", k->name, k->options[0] ? " " : "", k->options,
             k->args[0] ? " " : "", k->args);
}

#define HELP_INDENT 31
#define HELP_WIDTH 88

/* TEXT from column HELP_INDENT on, wrapped at spaces before HELP_WIDTH. */
static void print_wrapped(const char *text)
{
    const int room = HELP_WIDTH - HELP_INDENT;
    while ((int)strlen(text) > room) {
        int cut = room;
        while (cut > 0 && text[cut] != ' ')
            cut--;
        if (cut == 0)
            break;
        printf("%.*s\n%*s", cut, text, HELP_INDENT, "");
        text += cut + 1;
    }
    printf("%s\n", text);
}

static void help(void)
{
    char usage[128];
    printf("Usage: fabtunectl [-s SOCKET] [--json] COMMAND [OPTIONS] [ARGS]\n"
           "Query and control fabtuned.\n\n");
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
        usage_of(&commands[i], usage, sizeof(usage));
        if (strlen(usage) > HELP_INDENT - 3)
            printf("  %s\n%*s", usage, HELP_INDENT, "");
        else
            printf("  %-*s", HELP_INDENT - 2, usage);
        print_wrapped(commands[i].help);
    }
    printf("\n  -s, --socket PATH   the daemon's socket (default $FABTUNE_SOCKET, else\n"
           "                      %s)\n"
           "  -j, --json          machine output\n"
           "  -h, --help          this help\n"
           "  -V, --version       print the version\n", PROTOCOL_DEFAULT_SOCKET);
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
    char usage[128];
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

/* "fabtunectl: WHAT 'ARG'" (when WHAT is given) and the pointer to --help. */
static int usage_error(const char *what, const char *arg)
{
    if (what)
        fprintf(stderr, "fabtunectl: %s%s%s%s\n", what, arg ? " '" : "", arg ? arg : "",
                arg ? "'" : "");
    fprintf(stderr, "Try 'fabtunectl --help'.\n");
    return EXIT_USAGE;
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

/* The options, anywhere on the line. Returns 0 to go on, 1 after --help or --version, or
 * EXIT_USAGE (reported). */
static int parse_options(int argc, char **argv, struct ctl *c)
{
    enum { OPT_JSON = 0x100, OPT_FAILED, OPT_CONF, OPT_FORMAT, OPT_TIMEOUT, OPT_RAIL, OPT_STATE_DIR };
    static const struct option longopts[] = {
        { "socket", required_argument, NULL, 's' },
        { "config", required_argument, NULL, 'c' },
        { "json", no_argument, NULL, OPT_JSON },
        { "failed", no_argument, NULL, OPT_FAILED },
        { "rail", required_argument, NULL, OPT_RAIL },
        { "conf", no_argument, NULL, OPT_CONF },
        { "format", required_argument, NULL, OPT_FORMAT },
        { "timeout", required_argument, NULL, OPT_TIMEOUT },
        { "state-dir", required_argument, NULL, OPT_STATE_DIR },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        {},
    };
    int o;
    while ((o = getopt_long(argc, argv, "s:c:jhV", longopts, NULL)) != -1) {
        switch (o) {
        case 's': c->socket = optarg; break;
        case 'c': c->config = optarg; break;
        case 'j':
        case OPT_JSON: c->json = true; break;
        case OPT_FAILED: c->failed = true; break;
        case OPT_RAIL: c->rail = optarg; break;
        case OPT_CONF: c->conf = true; break;
        case OPT_FORMAT: c->format = optarg; break;
        case OPT_STATE_DIR: c->state_dir = optarg; break;
        case OPT_TIMEOUT:
            if (parse_timeout(optarg, &c->wait_timeout) < 0)
                return EXIT_USAGE;
            break;
        case 'h': help(); return 1;
        case 'V': printf("fabtunectl %s\n", PACKAGE_VERSION); return 1;
        default: return usage_error(NULL, NULL);   /* getopt said what */
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *env = getenv("FABTUNE_SOCKET");
    struct ctl c = { .socket = env && env[0] ? env : PROTOCOL_DEFAULT_SOCKET, .format = "npd",
                     .state_dir = PATHS_DEFAULT_STATE_DIR };
    int r = parse_options(argc, argv, &c);
    if (r)
        return r == 1 ? 0 : r;
    if (optind >= argc)
        return usage_error("no command given", NULL);
    const struct command *k = command_find(argv[optind]);
    if (!k)
        return usage_error("unknown command", argv[optind]);
    char *args[3] = { NULL, NULL, NULL };
    int n = argc - optind - 1;
    if (!arguments_fit(k, n, argv + optind + 1))
        return EXIT_USAGE;
    for (int i = 0; i < n; i++)
        args[i] = argv[optind + 1 + i];
    return k->run(&c, k, args);
}
