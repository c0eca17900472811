/* SPDX-License-Identifier: ISC */
/* fabtuned's entry point, kept in the library so the tests can drive it. */
#pragma once

/* Exit codes besides the health codes of --once (sysexits.h values). */
#define EXIT_USAGE 64
#define EXIT_SOFTWARE 70
#define EXIT_UNAVAILABLE 69
#define EXIT_BAD_CONFIG 78
#define EXIT_LOCKED 75        /* EX_TEMPFAIL: another fabtuned holds the state */

int fabtuned_main(int argc, char **argv);
