/* SPDX-License-Identifier: ISC */
/* Which fabtuned `fabtunectl diff` runs: the one that came with this fabtunectl before the
 * installed one, so that a build tree diffs with its own daemon. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"

/* Beside fabtunectl (one directory), then the build tree's layout (src/client beside
 * src/daemon). */
static const char *const siblings[] = { "fabtuned", "../daemon/fabtuned" };

void fabtuned_locate(char *buf, size_t len)
{
    const char *env = getenv("FABTUNED");
    char self[PATH_MAX];
    if (env && env[0]) {
        snprintf(buf, len, "%s", env);
        return;
    }
    ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
    char *slash = k > 0 ? memrchr(self, '/', (size_t)k) : NULL;
    if (slash) {
        *slash = '\0';
        for (size_t i = 0; i < sizeof(siblings) / sizeof(siblings[0]); i++) {
            snprintf(buf, len, "%s/%s", self, siblings[i]);
            if (access(buf, X_OK) == 0)
                return;
        }
    }
    snprintf(buf, len, "%s/fabtuned", SBINDIR);
}
