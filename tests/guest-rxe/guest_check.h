/* SPDX-License-Identifier: ISC */
/* Assertions for the in-guest C tests: one "ok: ..." or "FAIL: ..." line each, and the
 * closing "N passed, N failed" that tests/guest-rxe/run.sh and CI read. */
#pragma once

#include <stdarg.h>
#include <stdio.h>

static int checks_passed, checks_failed;

__attribute__((format(printf, 2, 3)))
static void check(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s: ", cond ? "ok" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    cond ? checks_passed++ : checks_failed++;
    fflush(stdout);
}

static int checks_finish(void)
{
    printf("%d passed, %d failed\n", checks_passed, checks_failed);
    return checks_failed || !checks_passed;
}
