/* SPDX-License-Identifier: ISC */
/* fabtuned's command line: parsing and --help. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "macro.h"
#include "options.h"

enum {
    OPT_CHECK_CONFIG = 0x100,
    OPT_DUMP_POLICY,
    OPT_ONCE,
    OPT_JSON,
    OPT_NO_PROBES,
    OPT_GIDS,
    OPT_SYSFS_ROOT,
    OPT_PROCFS_ROOT,
    OPT_SNAPSHOT,
    OPT_STATE_DIR,
    OPT_RUNTIME_DIR,
    OPT_LOG_TARGET,
    OPT_APPLY,
    OPT_REVERT,
};

/* "control,events,...": the debug categories for --help and its errors. */
static void category_list(char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; log_debug_category_names[i] && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "," : "", log_debug_category_names[i]);
}

static void help(void)
{
    char categories[128];
    category_list(categories, sizeof(categories));
    printf("Usage: fabtuned [OPTIONS]\n"
           "Keep a GPU node's RDMA fabric ready: verify rails, GIDs and QoS, keep the\n"
           "sysctl profile applied, and probe RDMA and TCP for regressions.\n\n"
           "  -c, --config FILE       policy file (default %s;\n"
           "                          the built-in default policy if that is absent)\n"
           "      --check-config      validate the policy and exit: 0 valid, 1 invalid\n"
           "      --dump-policy       print the effective policy as YAML and exit\n"
           "      --once              inventory, checks and probes once; print the report\n"
           "                          and exit with the health code (0 READY, 1 DEGRADED,\n"
           "                          2 NOT_READY, 3 UNKNOWN)\n"
           "      --json              with --once: the report as JSON\n"
           "      --no-probes         with --once: skip the probes\n"
           "      --gids              with --once: the GID table, NCCL's pick and why it\n"
           "                          skips each other entry (no probes)\n"
           "      --apply             with --once: write the sysctl profile (else read only)\n"
           "      --revert            restore the sysctl originals fabtune saved, and exit\n"
           "      --sysfs-root DIR    read a captured tree instead of /sys\n"
           "      --procfs-root DIR   read a captured tree instead of /proc\n"
           "      --snapshot FILE     with --once: judge a fabtunectl snapshot, FILE.tar,\n"
           "                          .tar.gz/.tgz, .tar.xz or .tar.zst, unpacked into a\n"
           "                          private temporary directory (removed after)\n"
           "      --state-dir DIR     persistent state (default %s)\n"
           "      --runtime-dir DIR   socket and runtime files (default %s)\n"
           "  -v                      debug logging for every category\n"
           "  -d, --debug LIST        debug logging for these categories, comma-separated\n"
           "                          (e.g. policy,tuning): all,%s\n"
           "      --log-target T      journal, stderr or auto (default)\n"
           "  -h, --help              this help\n"
           "  -V, --version           print the version\n",
           DEFAULT_CONFIG_PATH, DEFAULT_STATE_DIR, DEFAULT_RUNTIME_DIR, categories);
}

static int set_action(struct options *o, enum fabtuned_action a)
{
    if (o->action != ACTION_DAEMON && o->action != a) {
        fprintf(stderr, "fabtuned: --check-config, --dump-policy, --once and --revert exclude "
                "each other\n");
        return -EINVAL;
    }
    o->action = a;
    return 0;
}

static int parse_one(int c, struct options *o)
{
    switch (c) {
    case 'c': o->config = optarg; o->config_explicit = true; return 0;
    case OPT_CHECK_CONFIG: return set_action(o, ACTION_CHECK_CONFIG);
    case OPT_DUMP_POLICY: return set_action(o, ACTION_DUMP_POLICY);
    case OPT_ONCE: return set_action(o, ACTION_ONCE);
    case OPT_JSON: o->json = true; return 0;
    case OPT_NO_PROBES: o->no_probes = true; return 0;
    case OPT_GIDS: o->gids = true; return 0;
    case OPT_APPLY: o->apply = true; return 0;
    case OPT_REVERT: return set_action(o, ACTION_REVERT);
    case OPT_SYSFS_ROOT: o->sysfs_root = optarg; return 0;
    case OPT_PROCFS_ROOT: o->procfs_root = optarg; return 0;
    case OPT_SNAPSHOT: o->snapshot = optarg; return 0;
    case OPT_STATE_DIR: o->state_dir = optarg; return 0;
    case OPT_RUNTIME_DIR: o->runtime_dir = optarg; return 0;
    case 'v': o->verbose++; return 0;
    case 'd':
        if (!log_debug_list_valid(optarg)) {
            char categories[128];
            category_list(categories, sizeof(categories));
            fprintf(stderr, "fabtuned: --debug '%s': the categories are all,%s\n", optarg,
                    categories);
            return -EINVAL;
        }
        o->debug = optarg;
        return 0;
    case OPT_LOG_TARGET:
        if (log_parse_target(optarg, &o->log_target) < 0) {
            fprintf(stderr, "fabtuned: invalid --log-target '%s' (journal, stderr or auto)\n",
                    optarg);
            return -EINVAL;
        }
        return 0;
    case 'h': help(); return 1;
    case 'V': printf("fabtuned %s\n", PACKAGE_VERSION); return 1;
    default: return -EINVAL;
    }
}

/* A root or a snapshot that is not there is the command line's mistake, not a node without
 * RDMA: PATH, given for OPT unless it is DEFAULT, must be a directory (DIR) or a file. */
static int given_path_check(const char *path, const char *defaults, const char *opt, bool dir)
{
    struct stat st;
    if (!path || (defaults && streq(path, defaults)))
        return 0;
    if (stat(path, &st) < 0) {
        fprintf(stderr, "fabtuned: %s %s: %m\n", opt, path);
        return -EINVAL;
    }
    if (dir && !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "fabtuned: %s %s: not a directory\n", opt, path);
        return -EINVAL;
    }
    if (!dir && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "fabtuned: %s %s: a directory, not a tarball (an unpacked snapshot is "
                "read with --sysfs-root DIR/sys --procfs-root DIR/proc)\n", opt, path);
        return -EINVAL;
    }
    return 0;
}

int options_parse(int argc, char **argv, struct options *ret)
{
    static const struct option longopts[] = {
        { "config", required_argument, NULL, 'c' },
        { "check-config", no_argument, NULL, OPT_CHECK_CONFIG },
        { "dump-policy", no_argument, NULL, OPT_DUMP_POLICY },
        { "once", no_argument, NULL, OPT_ONCE },
        { "json", no_argument, NULL, OPT_JSON },
        { "no-probes", no_argument, NULL, OPT_NO_PROBES },
        { "gids", no_argument, NULL, OPT_GIDS },
        { "apply", no_argument, NULL, OPT_APPLY },
        { "revert", no_argument, NULL, OPT_REVERT },
        { "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
        { "procfs-root", required_argument, NULL, OPT_PROCFS_ROOT },
        { "snapshot", required_argument, NULL, OPT_SNAPSHOT },
        { "state-dir", required_argument, NULL, OPT_STATE_DIR },
        { "runtime-dir", required_argument, NULL, OPT_RUNTIME_DIR },
        { "debug", required_argument, NULL, 'd' },
        { "log-target", required_argument, NULL, OPT_LOG_TARGET },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        {},
    };
    struct options o = {
        .action = ACTION_DAEMON,
        .config = DEFAULT_CONFIG_PATH,
        .sysfs_root = "/sys",
        .procfs_root = "/proc",
        .state_dir = DEFAULT_STATE_DIR,
        .runtime_dir = DEFAULT_RUNTIME_DIR,
        .log_target = LOG_TARGET_AUTO,
    };
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "c:vd:hV", longopts, NULL)) != -1) {
        int r = parse_one(c, &o);
        if (r != 0)
            return r;
    }
    if (optind < argc) {
        fprintf(stderr, "fabtuned: unexpected argument '%s'\n", argv[optind]);
        return -EINVAL;
    }
    if ((o.json || o.no_probes || o.apply || o.gids) && o.action != ACTION_ONCE) {
        fprintf(stderr, "fabtuned: --json, --no-probes, --gids and --apply go with --once\n");
        return -EINVAL;
    }
    if (o.snapshot && (o.action != ACTION_ONCE || o.apply || !streq(o.sysfs_root, "/sys") ||
                       !streq(o.procfs_root, "/proc"))) {
        fprintf(stderr, "fabtuned: --snapshot goes with --once, without --apply, --sysfs-root "
                "or --procfs-root\n");
        return -EINVAL;
    }
    if (given_path_check(o.sysfs_root, "/sys", "--sysfs-root", true) < 0 ||
        given_path_check(o.procfs_root, "/proc", "--procfs-root", true) < 0 ||
        given_path_check(o.snapshot, NULL, "--snapshot", false) < 0)
        return -EINVAL;
    *ret = o;
    return 0;
}
