/* SPDX-License-Identifier: ISC */
/* mlxconfig's query table, as in the public dumps of k8snetworkplumbingwg/
 * sriov-network-operator#358 and #968: a "Configurations:" header naming its columns
 * ("Next Boot", or "Default Current Next Boot" with -e), then one line per parameter,
 * "NAME VALUE..." with spaces between, a leading '*' on a changed one, a value a number or
 * "Label(N)" ("True(1)", "DEVICE_DEFAULT(0)") or "Array[0..7]" (not a number). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_config_parse.h"
#include "macro.h"

#define LINE_MAX_KEPT 256       /* longer lines are no parameter line of the table */
#define TOKENS 5

/* A value: "300", "True(1)", "DEVICE_DEFAULT(0)"; CC_UNKNOWN for anything else. */
static int64_t value_of(const char *tok)
{
    const char *open = strrchr(tok, '(');
    const char *digits = open ? open + 1 : tok;
    char *end;
    if (*digits < '0' || *digits > '9')
        return CC_UNKNOWN;
    errno = 0;
    unsigned long long v = strtoull(digits, &end, 10);
    if (errno || v > UINT32_MAX || (open ? strcmp(end, ")") != 0 : *end != '\0'))
        return CC_UNKNOWN;
    return (int64_t)v;
}

static size_t split(char *line, char *tok[TOKENS])
{
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\r", &save); t && n < TOKENS;
         t = strtok_r(NULL, " \t\r", &save))
        tok[n++] = t;
    return n;
}

/* The parameter NAME is for PORT, or -1. */
static int param_of(const char *name, unsigned port)
{
    char want[64];
    for (size_t i = 0; i < CC_PARAMS; i++) {
        if (!cc_params[i].firmware)
            continue;
        snprintf(want, sizeof(want), "%s_P%u", cc_params[i].firmware, port);
        if (streq(name, want))
            return (int)i;
    }
    return -1;
}

struct table {
    int columns;                /* 0 before the header; 1 (Next Boot) or 3 */
    int found;
    char error[128];            /* the first "-E-" line */
};

static void take_line(char *line, unsigned port, struct table *t, int64_t current[CC_PARAMS],
                      int64_t next[CC_PARAMS])
{
    char *tok[TOKENS];
    if (strstr(line, "-E-") && !t->error[0])
        snprintf(t->error, sizeof(t->error), "%s", line + strspn(line, " \t"));
    if (strstr(line, "Configurations:")) {
        t->columns = strstr(line, "Current") ? 3 : 1;
        return;
    }
    if (!t->columns)
        return;
    size_t n = split(line, tok);
    size_t first = n > 0 && streq(tok[0], "*");
    if (n > 0 && tok[0][0] == '*' && tok[0][1])      /* "*NAME" */
        tok[0]++;
    if (n < first + 1 + (size_t)t->columns)
        return;
    int i = param_of(tok[first], port);
    if (i < 0)
        return;
    next[i] = value_of(tok[first + (size_t)t->columns]);
    if (t->columns == 3)
        current[i] = value_of(tok[first + 2]);
    t->found += next[i] != CC_UNKNOWN;
}

int fw_config_parse(const char *text, size_t len, unsigned port, int64_t current[CC_PARAMS],
                    int64_t next[CC_PARAMS], char *why, size_t whylen)
{
    struct table t = { 0 };
    char line[LINE_MAX_KEPT + 1];
    for (size_t i = 0; i < CC_PARAMS; i++)
        current[i] = next[i] = CC_UNKNOWN;
    for (size_t at = 0; at < len; ) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t k = (nl ? (size_t)(nl - text) : len) - at;
        if (k <= LINE_MAX_KEPT && !memchr(text + at, '\0', k)) {
            memcpy(line, text + at, k);
            line[k] = '\0';
            take_line(line, port, &t, current, next);
        }
        at += k + 1;
    }
    if (t.found > 0)
        return t.found;
    if (t.error[0])
        snprintf(why, whylen, "the tool said: %s", t.error);
    else if (!t.columns)
        snprintf(why, whylen, "no \"Configurations:\" table in the tool's answer");
    else
        snprintf(why, whylen, "the tool's table has no congestion-control parameter of port %u",
                 port);
    return -EBADMSG;
}
