/* SPDX-License-Identifier: ISC */
/* A report as a human text: what fabtuned --once prints. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "report.h"

/* GROUPED: one line per problem across rails (findings_text.h); else one per finding. */
void report_print_text(const struct report *r, bool grouped, FILE *f);
