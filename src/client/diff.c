/* SPDX-License-Identifier: ISC */
/* fabtunectl diff A.tar [B.tar]: what differs between two nodes in what fabtune judges, the
 * "golden node" comparison. Each side is fabtuned's own report (fabtuned --once --json
 * --no-probes, on the snapshot, which it unpacks, or on this node live, with a scratch
 * state directory: diff writes no state), so both are judged by one code and one policy;
 * the reports' rails, GID indexes, MTUs, rates, firmware, QoS, PCIe links, each rail's
 * first LLDP neighbour's switch, frame size and VLANs (not its port: that differs between
 * any two nodes), DCQCN parameters, sysctls and NCCL contract are compared field by field
 * (an object's members one by one), each difference under the check id that judges it.
 * What differs between any two healthy nodes (addresses, GUIDs, PCI addresses, counters,
 * host names) is not compared. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_ids.h"
#include "clean_text.h"
#include "client.h"
#include "json_text.h"
#include "macro.h"
#include "scratch_dir.h"

#define REPORT_MAX (64u << 20)

struct side {
    const char *label;          /* the tarball, or "live" */
    json_object *report;
};

/* fabtuned's report on SNAPSHOT (NULL: this node live, its state in STATE_DIR), or NULL
 * with the reason printed. */
static json_object *report_of(const char *fabtuned, const char *config, const char *snapshot,
                              const char *state_dir)
{
    const char *argv[12];
    size_t n = 0;
    argv[n++] = fabtuned;
    argv[n++] = "--once";
    argv[n++] = "--json";
    argv[n++] = "--no-probes";
    if (config) {
        argv[n++] = "-c";
        argv[n++] = config;
    }
    if (snapshot) {
        argv[n++] = "--snapshot";
        argv[n++] = snapshot;
    } else {
        argv[n++] = "--state-dir";
        argv[n++] = state_dir;
    }
    argv[n] = NULL;

    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        execv(fabtuned, (char *const *)argv);
        fprintf(stderr, "fabtunectl: cannot run %s: %m\n", fabtuned);
        _exit(127);
    }
    close(fds[1]);
    scratch_guard_child(pid);   /* a signal to diff ends it, and diff after it */
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 + 1 > cap) {
            char *nb = cap + 65536 + 1 > REPORT_MAX ? NULL : realloc(buf, cap + 65536 + 1);
            if (!nb)
                break;
            buf = nb;
            cap += 65536 + 1;
        }
        ssize_t k = read(fds[0], buf + len, cap - len - 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        len += (size_t)k;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    scratch_guard_child(0);
    json_object *j = NULL;
    /* 0 to 3 are verdicts (fabtuned(8), EXIT STATUS): a report came with each. */
    if (WIFEXITED(status) && WEXITSTATUS(status) <= 3 && buf) {
        buf[len] = '\0';
        j = json_tokener_parse(buf);
    }
    if (!j)
        fprintf(stderr, "fabtunectl: no report from %s on %s (exit %d)\n", fabtuned,
                snapshot ? snapshot : "this node", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    free(buf);
    return j;
}

static json_object *get(json_object *o, const char *path)
{
    char key[64];
    while (o && *path) {
        size_t k = strcspn(path, ".");
        snprintf(key, sizeof(key), "%.*s", (int)k, path);
        /* A number indexes an array: "neighbors.list.0.system_name". */
        if (json_object_is_type(o, json_type_array) && k > 0 && strspn(key, "0123456789") == k) {
            size_t idx = strtoul(key, NULL, 10);
            o = idx < json_object_array_length(o) ? json_object_array_get_idx(o, idx) : NULL;
        } else if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &o)) {
            return NULL;
        }
        path += k + (path[k] == '.');
    }
    return o;
}

struct diff {
    json_object *out;           /* the differences, for --json */
    size_t n;
};

static void differ(struct diff *d, const char *check, const char *subject, const char *field,
                   json_object *a, json_object *b);

/* A field that is an object on either side ("cc.running": a rail's DCQCN parameters)
 * differs member by member, each named ("cc.running.cnp_dscp"). */
static bool differ_members(struct diff *d, const char *check, const char *subject,
                           const char *field, json_object *a, json_object *b)
{
    json_object *sides[2] = { a, b };
    char member[160];
    if (!(json_object_is_type(a, json_type_object) || json_object_is_type(b, json_type_object)) ||
        (a && !json_object_is_type(a, json_type_object)) ||
        (b && !json_object_is_type(b, json_type_object)))
        return false;
    for (int s = 0; s < 2; s++) {
        if (!sides[s])
            continue;
        json_object_object_foreach(sides[s], key, v) {
            json_object *other = NULL;
            (void)v;
            if (s == 1 && a && json_object_object_get_ex(a, key, &other))
                continue;
            snprintf(member, sizeof(member), "%s.%s", field, key);
            differ(d, check, subject, member, get(a, key), get(b, key));
        }
    }
    return true;
}

static void differ(struct diff *d, const char *check, const char *subject, const char *field,
                   json_object *a, json_object *b)
{
    if (a && b && json_object_equal(a, b))
        return;
    if (differ_members(d, check, subject, field, a, b))
        return;
    if (!a && !b)
        return;
    json_object *e = json_object_new_object();
    json_object_object_add(e, "check", json_object_new_string(check));
    json_object_object_add(e, "subject", json_object_new_string(subject));
    json_object_object_add(e, "field", json_object_new_string(field));
    json_object_object_add(e, "a", a ? json_object_get(a) : NULL);
    json_object_object_add(e, "b", b ? json_object_get(b) : NULL);
    json_object_array_add(d->out, e);
    d->n++;
}

static json_object *find_by(json_object *array, const char *key, const char *value)
{
    size_t n = json_object_is_type(array, json_type_array) ? json_object_array_length(array) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(array, i), *k;
        if (json_object_object_get_ex(e, key, &k) && json_object_is_type(k, json_type_string) &&
            streq(json_object_get_string(k), value))
            return e;
    }
    return NULL;
}

/* Every NAME in A's array, then those only in B. */
static void each_name(json_object *a, json_object *b, const char *key,
                      void (*fn)(struct diff *, const char *, json_object *, json_object *),
                      struct diff *d)
{
    json_object *arrays[2] = { a, b };
    for (int s = 0; s < 2; s++) {
        size_t n = json_object_is_type(arrays[s], json_type_array) ? json_object_array_length(arrays[s]) : 0;
        for (size_t i = 0; i < n; i++) {
            json_object *k;
            if (!json_object_object_get_ex(json_object_array_get_idx(arrays[s], i), key, &k) ||
                !json_object_is_type(k, json_type_string))
                continue;
            const char *name = json_object_get_string(k);
            if (s == 1 && find_by(a, key, name))
                continue;
            fn(d, name, find_by(a, key, name), find_by(b, key, name));
        }
    }
}

static void diff_rail(struct diff *d, const char *name, json_object *a, json_object *b)
{
    if (!a || !b) {
        json_object *present = json_object_new_string("present");
        differ(d, "rails.count", name, "rail", a ? present : NULL, b ? present : NULL);
        json_object_put(present);
        return;
    }
    /* Each field under the check that judges it, in the table's order. */
    for (size_t i = 0; i < check_ids_count; i++)
        for (size_t k = 0; k < CHECK_ID_DIFF_FIELDS && check_ids[i].diff_fields[k]; k++) {
            const char *field = check_ids[i].diff_fields[k];
            differ(d, check_ids[i].id, name, field, get(a, field), get(b, field));
        }
}

static void diff_sysctl(struct diff *d, const char *key, json_object *a, json_object *b)
{
    differ(d, "tuning.drift", key, "live", get(a, "live"), get(b, "live"));
}

static void diff_nccl(struct diff *d, json_object *a, json_object *b)
{
    json_object *sides[2] = { a, b };
    for (int s = 0; s < 2; s++) {
        if (!json_object_is_type(sides[s], json_type_object))
            continue;
        json_object_object_foreach(sides[s], key, v) {
            (void)v;
            if (s == 1 && get(a, key))
                continue;
            differ(d, "nccl.contract", key, "value", get(a, key), get(b, key));
        }
    }
}

static void print_side(const char *tag, const struct side *s)
{
    json_object *rails = get(s->report, "rails");
    size_t n = json_object_is_type(rails, json_type_array) ? json_object_array_length(rails) : 0;
    printf("%s: %s (host %s, kernel %s, %zu rail%s, %s)\n", tag, s->label,
           json_text(s->report, "hostname"), json_text(s->report, "kernel"), n, PLURAL_S(n),
           json_text(s->report, "verdict"));
}

/* A snapshot that is not there is the command line's mistake (fabtuned says the same). */
static bool snapshot_given(const char *path)
{
    struct stat st;
    if (path && stat(path, &st) < 0) {
        fprintf(stderr, "fabtunectl: diff: %s: %m\n", path);
        return false;
    }
    return true;
}

/* Both reports, or neither: this node's judged with a scratch state directory, removed
 * however diff ends (fabtuned --once would make and write the node's own). */
static int reports_of(const char *fabtuned, const char *config, struct side *sa, struct side *sb,
                      const char *a, const char *b)
{
    char state[PATH_MAX] = "";
    /* The guard before the directory: a signal between the two would leave it behind. */
    scratch_guard_begin();
    int r = b ? 0 : scratch_dir_make("fabtunectl-diff", state, sizeof(state));
    if (r < 0) {
        int sig = scratch_guard_end();
        fprintf(stderr, "fabtunectl: diff: cannot make a scratch directory: %s\n", strerror(-r));
        if (sig)
            scratch_guard_raise(sig);
        return EXIT_SOFTWARE;
    }
    sa->report = report_of(fabtuned, config, a, NULL);
    sb->report = sa->report ? report_of(fabtuned, config, b, state) : NULL;
    /* Removed still under the guard, as scratch_dir_run does. */
    if (state[0] && (r = scratch_dir_remove(state)) < 0)
        fprintf(stderr, "fabtunectl: diff: cannot remove %s: %s\n", state, strerror(-r));
    int sig = scratch_guard_end();
    if (sig)
        scratch_guard_raise(sig);
    if (sa->report && sb->report)
        return 0;
    json_object_put(sa->report);
    return EXIT_NOINPUT;
}

int diff_run(const char *fabtuned, const char *config, const char *a, const char *b, bool json)
{
    struct side sa = { .label = a }, sb = { .label = b ? b : "live" };
    if (!snapshot_given(a) || !snapshot_given(b))
        return EXIT_USAGE;
    int r = reports_of(fabtuned, config, &sa, &sb, a, b);
    if (r)
        return r;
    struct diff d = { .out = json_object_new_array() };
    each_name(get(sa.report, "rails"), get(sb.report, "rails"), "name", diff_rail, &d);
    each_name(get(sa.report, "tuning"), get(sb.report, "tuning"), "key", diff_sysctl, &d);
    diff_nccl(&d, get(sa.report, "nccl"), get(sb.report, "nccl"));

    if (json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "a", json_object_new_string(sa.label));
        json_object_object_add(o, "b", json_object_new_string(sb.label));
        json_object_object_add(o, "same", json_object_new_boolean(d.n == 0));
        json_object_object_add(o, "differences", json_object_get(d.out));
        (void)clean_json_write(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, stdout);
        json_object_put(o);
    } else {
        print_side("A", &sa);
        print_side("B", &sb);
        /* Each column as wide as its longest cell (net.core.netdev_max_backlog). */
        static const char *const cols[] = { "check", "subject", "field", "a" };
        static const char *const heads[] = { "CHECK", "SUBJECT", "FIELD", "A" };
        int w[ARRAY_SIZE(cols)];
        for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
            w[c] = (int)strlen(heads[c]);
            for (size_t i = 0; i < d.n; i++) {
                int len = (int)strlen(json_text(json_object_array_get_idx(d.out, i), cols[c]));
                w[c] = len > w[c] ? len : w[c];
            }
        }
        if (d.n)
            printf("\n  %-*s %-*s %-*s %-*s %s\n", w[0], "CHECK", w[1], "SUBJECT", w[2], "FIELD",
                   w[3], "A", "B");
        for (size_t i = 0; i < d.n; i++) {
            json_object *e = json_object_array_get_idx(d.out, i);
            printf("  %-*s %-*s %-*s %-*s %s\n", w[0], json_text(e, "check"), w[1],
                   json_text(e, "subject"), w[2], json_text(e, "field"), w[3], json_text(e, "a"),
                   json_text(e, "b"));
        }
        if (d.n)
            printf("\n%zu difference%s\n", d.n, d.n == 1 ? "" : "s");
        else
            printf("the same in everything fabtune judges\n");
    }
    json_object_put(d.out);
    json_object_put(sa.report);
    json_object_put(sb.report);
    return d.n ? 1 : 0;
}
