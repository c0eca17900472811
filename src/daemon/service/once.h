/* SPDX-License-Identifier: ISC */
/* fabtuned --once: one full pass of sources, checks and probes, printed as a report. */
#pragma once

#include "options.h"
#include "policy.h"

/* Returns the health exit code (npd column) of the verdict, or EXIT_SOFTWARE. */
int once_run(const struct options *o, const struct policy *p, const char *policy_source);
