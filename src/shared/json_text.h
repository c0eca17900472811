/* SPDX-License-Identifier: ISC */
/* JSON fields made safe for a terminal, and the GID table printed from its JSON. */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

/* KEY's value as text, "-" when absent or null; control characters (C0, C1: an escape
 * sequence would reach the terminal) shown as '?'. The text is O's own (a string is
 * cleaned in place, once): it lives as long as O. */
const char *json_text(json_object *o, const char *key);
/* KEY's value as a number; 0 when absent. */
double json_num(json_object *o, const char *key);
/* The GID table (gid_table_json()'s form) as show_gids prints it, with an NCCL column. */
void gid_table_print(json_object *rails, FILE *f);
