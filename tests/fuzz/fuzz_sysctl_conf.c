/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the sysctl.d / sysctl.conf / tuned profile parser that names the
 * other writer of a drifted key (sysctl_writers.c). The input is one file's bytes: its
 * first byte picks which (a sysctl.d drop-in, /etc/sysctl.conf, tuned's active_profile,
 * a tuned.conf that may include another), under a private root. Never a crash, a read
 * past a line, or unbounded recursion; every key and file found lies in the scan's text,
 * a key is at most 127 bytes, a line number is positive, and a key without a glob (or
 * fnmatch escape) is found again (the first and last 32). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_scratch.h"
#include "sysctl_writers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[256];

static void put(const char *rel, const uint8_t *data, size_t size)
{
    fuzz_scratch_put(root, rel, data, size);
}

static void setup(void)
{
    static const char *const dirs[] = {
        "etc", "etc/sysctl.d", "run", "run/sysctl.d", "usr", "usr/lib", "usr/lib/sysctl.d",
        "etc/tuned", "usr/lib/tuned", "usr/lib/tuned/x", "usr/lib/tuned/y",
    };
    char path[512];
    fuzz_scratch_template(root, sizeof(root), "fuzz_sysctl_conf");
    if (!mkdtemp(root))
        abort();
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
        if (mkdir(path, 0755) < 0)
            abort();
    }
    /* Fixed neighbours: a profile that includes the fuzzed one, and a drop-in. */
    put("etc/tuned/active_profile", (const uint8_t *)"y x\n", 4);
    static const char y[] = "[main]\ninclude=x\n[sysctl]\nvm.swappiness=1\n";
    put("usr/lib/tuned/y/tuned.conf", (const uint8_t *)y, sizeof(y) - 1);
    put("usr/lib/sysctl.d/50-default.conf", (const uint8_t *)"net.core.rmem_max = 1\n", 22);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const targets[] = {
        "etc/sysctl.d/90-fuzz.conf", "etc/sysctl.conf", "run/sysctl.d/10-fuzz.conf",
        "usr/lib/tuned/x/tuned.conf", "etc/tuned/active_profile",
    };
    if (!root[0])
        setup();
    if (size == 0)
        return 0;
    const char *target = targets[data[0] % (sizeof(targets) / sizeof(targets[0]))];
    put(target, data + 1, size - 1);
    struct sysctl_writers w;
    if (sysctl_writers_scan(root, &w) == 0) {
        char where[64];
        for (size_t i = 0; i < w.n; i++)
            if (w.e[i].key >= w.text_len || w.e[i].source >= w.text_len ||
                strlen(sysctl_writers_key(&w, i)) > 127 || w.e[i].line < 1)
                abort();
        /* Looking each key up is quadratic in the lines: the first and last 32 sites are
         * looked up (the fixed neighbours and the fuzzed file's ends). */
        for (size_t i = 0; i < w.n; i++)
            if ((i < 32 || i + 32 >= w.n) && !strpbrk(sysctl_writers_key(&w, i), "*?[\\") &&
                !sysctl_writers_find(&w, sysctl_writers_key(&w, i), where, sizeof(where)))
                abort();
        sysctl_writers_done(&w);
    }
    /* Each input alone: its file goes, the fixed neighbours come back. */
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, target);
    if (strcmp(target, "etc/tuned/active_profile") == 0)
        put(target, (const uint8_t *)"y x\n", 4);
    else if (unlink(path) < 0)
        abort();
    return 0;
}
