/* SPDX-License-Identifier: ISC */
/* The findings as the report's text lists them: errors, then warnings, then a count of
 * the unknown ones and those; ok ones counted. Grouped, a check that says the same on
 * several rails is one line naming them ("on mlx5_0..7/1"); ungrouped (-v), one line
 * per finding. JSON keeps one entry per rail. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "findings.h"

void findings_print_text(const struct findings *fs, bool grouped, FILE *out);
/* "mlx5_0..7/1" for a run of devices on one port, else "a/1, b/1": RAILS joined. */
void rails_compact(const char *const *rails, size_t n, char *buf, size_t len);
