/* SPDX-License-Identifier: ISC */
/* Output from outside bytes (a snapshot's files, a live sysfs, a policy), made safe where it
 * leaves a program: valid UTF-8 for a strict JSON decoder, and no control byte that a
 * terminal would act on. The control socket's replies get the same (control.c). */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

/* TEXT (LEN bytes) to F with every invalid UTF-8 sequence replaced by U+FFFD and every
 * control character but newline and tab (C0, DEL, C1) shown as '?'. */
void clean_text_write(const char *text, size_t len, FILE *f);
/* O rendered with FLAGS (json-c escapes the control characters) and made valid UTF-8,
 * then a newline, to F. 0, or -ENOMEM. */
int clean_json_write(json_object *o, int flags, FILE *f);
