/* SPDX-License-Identifier: ISC */
/* fabtuned's command line. */
#pragma once

#include <stdbool.h>

#include "log.h"
#include "paths.h"

#define DEFAULT_CONFIG_PATH "/etc/fabtune/fabtune.yaml"
#define DEFAULT_STATE_DIR PATHS_DEFAULT_STATE_DIR
#define DEFAULT_RUNTIME_DIR "/run/fabtune"

enum fabtuned_action {
    ACTION_DAEMON, ACTION_CHECK_CONFIG, ACTION_DUMP_POLICY, ACTION_ONCE, ACTION_REVERT,
};

struct options {
    enum fabtuned_action action;
    const char *config;
    bool config_explicit;       /* -c given: a missing file is an error, not the built-in */
    bool json;
    bool no_probes;
    bool gids;                  /* --once --gids: the GID table only */
    bool apply;                 /* --once --apply: write the sysctl profile */
    const char *sysfs_root;
    const char *procfs_root;
    const char *snapshot;       /* --once --snapshot FILE: a tarball, unpacked to be read */
    const char *state_dir;
    const char *runtime_dir;
    int verbose;
    enum log_target log_target;
    const char *debug;
};

/* Returns 0 to go on, 1 when --help or --version was handled, -EINVAL on a usage error
 * (already reported on stderr). */
int options_parse(int argc, char **argv, struct options *ret);
