/* SPDX-License-Identifier: ISC */
/* What every check suite shares: the runner it ends with (run, report, exit status), the
 * build tree's fixture trees, and the shell-out that fails the test. */
#pragma once

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The build tree's shared fixture trees (tests/fixtures/shared-fixtures.sh: generated
 * once per build tree, read only) into OUT. Returns 0, or -1 when they cannot be built. */
static inline int check_shared_fixtures(char *out, size_t len)
{
    char cmd[1024];
    const char *builddir = getenv("top_builddir");
    snprintf(cmd, sizeof(cmd), "sh %s/tests/fixtures/shared-fixtures.sh %s", TEST_SRCDIR,
             builddir ? builddir : ".");
    FILE *p = popen(cmd, "r");
    int got = p && fgets(out, (int)len, p);
    if (!p || pclose(p) != 0 || !got) {
        fprintf(stderr, "cannot build the fixtures\n");
        return -1;
    }
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

/* A suite's own scratch directory in the build tree (NAME: one per suite, so make -j
 * runs them side by side), for the trees it changes; emptied. Returns 0 or -1. */
static inline int check_scratch_dir(char *out, size_t len, const char *name)
{
    char cmd[1200];
    const char *builddir = getenv("top_builddir");
    snprintf(out, len, "%s/tests/fixtures/%s", builddir ? builddir : ".", name);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", out, out);
    return system(cmd) == 0 ? 0 : -1;
}

/* A short scratch directory for Unix sockets, /tmp/ft.XXXXXX: a socket path holds at most
 * 107 bytes, and one under the build tree fails with ENAMETOOLONG where CI checks out into
 * a long path. The caller removes it. Returns 0 or -1. */
static inline int check_socket_dir(char *out, size_t len)
{
    snprintf(out, len, "/tmp/ft.XXXXXX");
    return mkdtemp(out) ? 0 : -1;
}

/* Runs the shell command that FMT and its arguments make; fails the test, naming the
 * command, when it does not fit or does not exit 0. */
__attribute__((format(printf, 1, 2)))
static inline void sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    ck_assert_msg(n >= 0 && (size_t)n < sizeof(cmd), "command too long: %s", fmt);
    ck_assert_msg(system(cmd) == 0, "command failed: %s", cmd);
}

/* TEXT, an exposition, written to PATH passes promtool check metrics with nothing to
 * say (lint included); fails the test otherwise, or where promtool is not installed. */
static inline void promtool_clean(const char *text, const char *path)
{
    FILE *f = fopen(path, "we");
    ck_assert_msg(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
    sh("command -v promtool > /dev/null || { echo 'promtool is not installed "
       "(scripts/deps-debian.sh)'; exit 1; }");
    sh("out=$(promtool check metrics < '%s' 2>&1) && [ -z \"$out\" ] || { echo \"$out\"; exit 1; }",
       path);
}

static inline int check_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
