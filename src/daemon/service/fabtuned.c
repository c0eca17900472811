/* SPDX-License-Identifier: ISC */
/* fabtuned: options, logging setup, policy loading and the choice of what to run. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exit_status.h"
#include "fabtuned.h"
#include "commands.h"
#include "host_check.h"
#include "instance.h"
#include "log.h"
#include "manager.h"
#include "macro.h"
#include "once.h"
#include "options.h"
#include "policy.h"
#include "state_dir.h"
#include "scratch_dir.h"
#include "snapshot_extract.h"
#include "tuning.h"
#include "tuning_transaction.h"

static int load_policy(const struct options *o, struct policy *p, const char **ret_source)
{
    struct policy_errors errs = { 0 };
    struct policy_host_check host;
    if (o->action == ACTION_CHECK_CONFIG)
        host_check_init_config(&host, o);
    else    /* --once, --revert, --dump-policy write no output: their paths are not asked */
        host_check_init_no_outputs(&host);
    int r = policy_load_configured_on_host(o->config, o->config_explicit, &host, p, &errs,
                                           ret_source);
    log_debug("policy", "policy from %s", *ret_source);
    policy_errors_print(&errs, stderr);
    policy_errors_done(&errs);
    return r;
}

static int dump_policy(const struct policy *p)
{
    _cleanup_free_ char *text = policy_dump(p);
    if (!text) {
        fprintf(stderr, "fabtuned: cannot render the policy\n");
        return EXIT_SOFTWARE;
    }
    fputs(text, stdout);
    return EXIT_SUCCESS;
}

/* Creates DIR if need be, and refuses one that others can write (or, as root, that root
 * does not own): links planted there would lead fabtuned's writes elsewhere. A directory
 * that cannot be created (a read-only file system) is not refused here. */
static int prepare_dir(const char *dir, const char *what)
{
    char why[768];
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        log_warning("Cannot create the %s %s: %m", what, dir);
        return 0;
    }
    int r = state_dir_check_owner(dir, why, sizeof(why));
    if (r == -EPERM || r == -ELOOP || r == -ENOTDIR)
        return log_error_errno(r, "Refusing the %s %s", what, why);
    return 0;
}

/* The state directory that a read-only --once reads, as it is: none is no state; one this
 * user may not open is said with what it could not read (the report's); one that others
 * can write is refused, as prepare_dir() does: what is planted there would be believed. */
static int check_dir_to_read(const char *dir)
{
    char why[768];
    int r = state_dir_check_owner(dir, why, sizeof(why));
    if (r == -EPERM || r == -ELOOP || r == -ENOTDIR)
        return log_error_errno(r, "Refusing the state directory %s", why);
    return 0;
}

/* Locks DIR for this process's lifetime. -EBUSY, with the holder said, when another
 * process holds it; any other failure (a full or read-only directory) is said and
 * returned, *ret_fd holding the lock if it could be taken all the same. */
static int lock_dir(const char *dir, const char *what, int *ret_fd)
{
    pid_t holder = 0;
    int r = instance_lock(dir, ret_fd, &holder);
    if (r == -EBUSY && holder > 0)
        log_error("Another fabtuned (pid %ld) holds the %s %s; not starting a second one",
                  (long)holder, what, dir);
    else if (r == -EBUSY)
        log_error("Another process holds the %s %s (its PID is not known: it has not written "
                  "it, and /proc/locks does not list it here); not starting a second one",
                  what, dir);
    else if (r < 0)
        log_warning_errno(r, "Cannot lock the %s %s: %m", what, dir);
    return r;   /* the fd stays open, and the lock held, until exit */
}

/* --once --apply and --revert write the state directory: only a second holder stops them. */
static int lock_for_write(const struct options *o)
{
    int fd;
    if (prepare_dir(o->state_dir, "state directory") < 0)
        return EXIT_BAD_CONFIG;
    return lock_dir(o->state_dir, "state directory", &fd) == -EBUSY ? EXIT_LOCKED : 0;
}

/* One directory for both (--state-dir D --runtime-dir D) is locked once. */
static bool same_dir(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) < 0 || stat(b, &sb) < 0)
        return streq(a, b);
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Restores the originals of the last apply; the policy is not needed for that. */
static int revert(const struct options *o)
{
    struct tuning t;
    int r = tuning_run(&t, o->procfs_root, o->state_dir, NULL, NULL, TUNING_REVERT);
    if (r == -ENOENT)
        printf("no sysctl originals in %s: nothing to revert\n", o->state_dir);
    for (size_t i = 0; i < t.n; i++)
        printf("%-34s %-24s %s%s%s\n", t.keys[i].key, t.keys[i].original,
               tuning_state_to_string(t.keys[i].state), t.keys[i].error[0] ? ": " : "",
               t.keys[i].error);
    tuning_done(&t);
    if (r < 0 && r != -ENOENT) {
        fprintf(stderr, "fabtuned: revert incomplete: %s; the snapshot stays for a retry\n",
                strerror(-r));
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

/* The long-running service: it exits 0 on SIGTERM, EXIT_BAD_CONFIG on a bad policy. */
static int run_daemon(const struct options *o)
{
    struct manager *m;
    struct instance_hold state = { .fd = -1 };
    int runtime_fd = -1;
    if (prepare_dir(o->state_dir, "state directory") < 0 ||
        prepare_dir(o->runtime_dir, "runtime directory") < 0)
        return EXIT_BAD_CONFIG;
    /* A full or read-only state directory does not stop the daemon: it judges from memory,
     * reports host.state_dir, and retries at each pass. Only a second holder does. */
    state.error = lock_dir(o->state_dir, "state directory", &state.fd);
    if (state.error == -EBUSY ||
        (!same_dir(o->state_dir, o->runtime_dir) &&
         lock_dir(o->runtime_dir, "runtime directory", &runtime_fd) == -EBUSY))
        return EXIT_LOCKED;
    int r = manager_new(o, &state, commands_run, &m);
    if (r == -EINVAL)
        return EXIT_BAD_CONFIG;
    if (r < 0)
        return EXIT_SOFTWARE;
    r = manager_run(m);
    manager_free(m);
    return r < 0 ? EXIT_SOFTWARE : EXIT_SUCCESS;
}

static void setup_logging(const struct options *o)
{
    log_set_target(o->log_target);
    /* -v: debug for every category, unless -d narrows it. */
    if (o->verbose)
        log_set_max_level(LOG_DEBUG);
}

static int run(const struct options *o)
{
    struct policy p;
    const char *source;

    policy_init_defaults(&p);
    int r = load_policy(o, &p, &source);
    if (r < 0) {
        policy_done(&p);
        return o->action == ACTION_CHECK_CONFIG ? EXIT_FAILURE : EXIT_BAD_CONFIG;
    }

    switch (o->action) {
    case ACTION_CHECK_CONFIG:
        printf("%s: valid\n", source);
        r = EXIT_SUCCESS;
        break;
    case ACTION_DUMP_POLICY:
        r = dump_policy(&p);
        break;
    case ACTION_ONCE:
        /* Without --apply, --once only reads (the state directory too: it creates and
         * writes nothing there, beside a daemon or not); --apply writes the sysctls, their
         * originals and the state, under the state lock. */
        r = o->apply ? lock_for_write(o)
          : streq(o->sysfs_root, "/sys") && check_dir_to_read(o->state_dir) < 0
          ? EXIT_BAD_CONFIG : 0;
        if (r == 0)
            r = once_run(o, &p, source);
        break;
    case ACTION_REVERT:
        r = lock_for_write(o);
        if (r == 0)
            r = revert(o);
        break;
    case ACTION_DAEMON:
        r = EXIT_SOFTWARE;  /* handled before: the manager loads its own policy */
        break;
    }
    policy_done(&p);
    return r;
}

/* --once --snapshot FILE: the tarball unpacked into a private directory (snapshot_extract.h)
 * and judged there as a --sysfs-root tree, by a child, so that the directory goes however
 * the child ends: an error, a crash, a signal. */
static int judge_unpacked(const char *dir, void *u)
{
    struct options *o = u;
    char why[256] = "", sys[PATH_MAX], proc[PATH_MAX];
    int r = snapshot_extract(o->snapshot, NULL, 0, dir, why, sizeof(why));
    if (r < 0) {
        fprintf(stderr, "fabtuned: cannot read the snapshot %s: %s\n", o->snapshot, why);
        return EXIT_NOINPUT;
    }
    snprintf(sys, sizeof(sys), "%s/sys", dir);
    snprintf(proc, sizeof(proc), "%s/proc", dir);
    o->sysfs_root = sys;
    o->procfs_root = proc;
    return run(o);
}

static int run_snapshot(struct options *o)
{
    return scratch_dir_run("fabtuned-snapshot", judge_unpacked, o);
}

int fabtuned_main(int argc, char **argv)
{
    struct options o;
    int r = options_parse(argc, argv, &o);
    if (r > 0)
        return EXIT_SUCCESS;
    if (r < 0) {
        fprintf(stderr, "Try 'fabtuned --help'.\n");
        return EXIT_USAGE;
    }
    setup_logging(&o);
    if (o.debug && log_set_debug_categories(o.debug) < 0) {
        fprintf(stderr, "fabtuned: invalid --debug list '%s'\n", o.debug);
        return EXIT_USAGE;
    }
    if (o.action == ACTION_DAEMON)
        return run_daemon(&o);
    if (o.snapshot)
        return run_snapshot(&o);
    return run(&o);
}
