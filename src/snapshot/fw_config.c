/* SPDX-License-Identifier: ISC */
/* mstconfig or mlxconfig, found on $PATH and run bounded for one PCI function. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child_run.h"
#include "fw_config.h"
#include "macro.h"

int fw_config_query(const char *pci_addr, usec_t timeout, char **out, size_t *len,
                    char *tool, size_t toollen, char *why, size_t whylen)
{
    static const char *const tools[] = { "mstconfig", "mlxconfig" };
    char path[512], reason[160];
    struct child_result res;
    size_t t = 0;
    while (t < ARRAY_SIZE(tools) && child_find(tools[t], path, sizeof(path)) < 0)
        t++;
    if (t == ARRAY_SIZE(tools)) {
        snprintf(why, whylen, "neither mstconfig (mstflint) nor mlxconfig is installed");
        return -ENOENT;
    }
    snprintf(tool, toollen, "%s", tools[t]);
    char name[16], dev[] = "-d", addr[64], verbose[] = "-e", query[] = "query";
    snprintf(name, sizeof(name), "%s", tools[t]);
    snprintf(addr, sizeof(addr), "%s", pci_addr);
    char *argv[] = { name, dev, addr, verbose, query, NULL };
    int r = child_run(path, argv, timeout, FW_CONFIG_MAX_OUTPUT, &res);
    if (r < 0) {
        snprintf(why, whylen, "%s could not be started: %s", tools[t], strerror(-r));
        return r;
    }
    const char *failed = child_result_why(&res, reason, sizeof(reason));
    r = res.timed_out ? -ETIMEDOUT : res.truncated ? -EFBIG : failed ? -EIO : 0;
    if (r < 0) {
        snprintf(why, whylen, "%s -d %s: %s", tools[t], pci_addr, failed);
        child_result_done(&res);
        return r;
    }
    *out = res.out;
    *len = res.len;
    return 0;
}
