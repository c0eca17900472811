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
/* "npd", "nagios", "nhc", "slurm"; -EINVAL otherwise. */
int health_format_parse(const char *s, enum health_format *ret);
