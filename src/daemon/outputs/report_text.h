/* SPDX-License-Identifier: ISC */
/* A report as a human text: what fabtuned --once prints. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "report.h"

/* GROUPED: the findings folded by cause (findings_text.h); else one line per finding,
 * oks included (-v). */
void report_print_text(const struct report *r, bool grouped, FILE *f);
