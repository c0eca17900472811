/* SPDX-License-Identifier: ISC */
/* Verdict names and the health formats' exit codes (fabtunectl(1), EXIT STATUS). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "macro.h"
#include "verdict.h"

static const char *const verdict_names[] = { "READY", "DEGRADED", "NOT_READY", "UNKNOWN" };

const char *verdict_to_string(enum verdict v)
{
    return verdict_names[v];
}

enum verdict verdict_from_string(const char *s)
{
    for (size_t i = 0; s && i < ARRAY_SIZE(verdict_names); i++)
        if (streq(s, verdict_names[i]))
            return (enum verdict)i;
    return VERDICT_UNKNOWN;
}

const char *verdict_nagios_state(enum verdict v)
{
    static const char *const names[] = { "OK", "WARNING", "CRITICAL", "UNKNOWN" };
    return names[v];
}

/* Rows: format; columns: READY, DEGRADED, NOT_READY, UNKNOWN. fabtunectl(1) and
 * fabtuned(8) hold the same tables (tests/exit-codes.sh reads them from the pages). */
int verdict_exit_code(enum verdict v, enum health_format f)
{
    static const int codes[][4] = {
        [HEALTH_NPD] = { 0, 1, 1, 2 },          /* the custom plugin's OK, NonOK, Unknown */
        [HEALTH_NAGIOS] = { 0, 1, 2, 3 },
        [HEALTH_NHC] = { 0, 0, 1, 1 },
        [HEALTH_SLURM] = { 0, 1, 2, 3 },
    };
    return codes[f][v];
}

int verdict_once_exit_code(enum verdict v)
{
    static const int codes[] = { 0, 1, 2, 3 };
    return codes[v];
}

int health_format_parse(const char *s, enum health_format *ret)
{
    static const char *const names[] = { "npd", "nagios", "nhc", "slurm" };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        if (streq(s, names[i])) {
            *ret = (enum health_format)i;
            return 0;
        }
    return -EINVAL;
}

int health_format_budget_ms(enum health_format f)
{
    /* npd: the plugin's promise, an answer from the daemon's cache. The others are run
     * by programs that wait seconds: Slurm kills a HealthCheckProgram after 60 s, NHC's
     * whole run has 30 s by default, and check_nrpe gives up after 10 s: 8 s leaves
     * Nagios fabtune's own UNKNOWN line rather than its socket timeout. */
    static const int budget[] = {
        [HEALTH_NPD] = 100,
        [HEALTH_NAGIOS] = 8000,
        [HEALTH_NHC] = 10000,
        [HEALTH_SLURM] = 10000,
    };
    return budget[f];
}
