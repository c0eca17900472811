/* SPDX-License-Identifier: ISC */
/* The findings as the report's text lists them (findings_fold.h's rule): errors, then
 * warnings, each folded across rails; the unknowns by cause and the oks counted by family,
 * unless FOLD_EVERY (-v) asks for a line each. JSON keeps one entry per finding. */
#pragma once

#include <stdio.h>

#include "findings.h"
#include "findings_fold.h"
#include "inventory.h"

/* FLAGS: findings_fold.h's; the rails of INV name the netdevs the folding takes out. */
void findings_print_text(const struct findings *fs, const struct inventory *inv, unsigned flags, FILE *out);
