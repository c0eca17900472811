/* SPDX-License-Identifier: ISC */
/* Why a verdict is what it is, in one line: the number of findings of the worst severity
 * and the distinct checks that gave them, "7 warnings (tuning.drift)" or "2 errors
 * (port.state, gid.roce_v2)". The report's verdict line, its JSON (verdict_cause), the
 * service's STATUS= and fabtunectl status say it. */
#pragma once

#include <stddef.h>

#include "findings.h"

/* The distinct check ids named before "+N more". */
#define VERDICT_CAUSE_IDS 4

/* The cause of findings_verdict(FS), into BUF (truncated to LEN):
 *   NOT_READY, DEGRADED  "N errors (ID, ID, ID, ID, +K more)", "1 warning (ID)": the
 *                        checks in the order they were found
 *   READY                "N checks ok", with ", M unknown" when some data was missing
 *   UNKNOWN              "no check produced data", or "a finding was lost (out of memory)" */
void verdict_cause(const struct findings *fs, char *buf, size_t len);
