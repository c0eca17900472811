/* SPDX-License-Identifier: ISC */
/* Verdicts, their names, and the exit code each health format gives them: one table for
 * the daemon (fabtuned --once) and the client (fabtunectl health). */
#pragma once

enum verdict { VERDICT_READY, VERDICT_DEGRADED, VERDICT_NOT_READY, VERDICT_UNKNOWN };
enum health_format { HEALTH_NPD, HEALTH_NAGIOS, HEALTH_NHC, HEALTH_SLURM };

const char *verdict_to_string(enum verdict v);
/* "READY" -> VERDICT_READY; anything else is VERDICT_UNKNOWN. */
enum verdict verdict_from_string(const char *s);
/* Nagios's own word for a verdict: OK, WARNING, CRITICAL, UNKNOWN. */
const char *verdict_nagios_state(enum verdict v);
int verdict_exit_code(enum verdict v, enum health_format f);
/* fabtuned --once: 0 READY, 1 DEGRADED, 2 NOT_READY, 3 UNKNOWN (fabtuned(8), EXIT STATUS). */
int verdict_once_exit_code(enum verdict v);
/* "npd", "nagios", "nhc", "slurm"; -EINVAL otherwise. */
int health_format_parse(const char *s, enum health_format *ret);
/* How long fabtunectl health waits for fabtuned, retry included, before it says UNKNOWN:
 * 100 ms for node-problem-detector, seconds for the formats of schedulers and monitors. */
int health_format_budget_ms(enum health_format f);
