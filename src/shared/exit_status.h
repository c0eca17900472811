/* SPDX-License-Identifier: ISC */
/* The programs' exit codes besides the health codes (verdict.h): sysexits.h values, one
 * table for fabtuned and fabtunectl. */
#pragma once

#define EXIT_DAEMON_ERROR 1     /* fabtunectl: the daemon answered with an error */
#define EXIT_USAGE 64           /* EX_USAGE */
#define EXIT_NOINPUT 66          /* EX_NOINPUT: a snapshot that cannot be read */
#define EXIT_UNAVAILABLE 69     /* EX_UNAVAILABLE */
#define EXIT_UNREACHABLE 69     /* fabtunectl: no daemon to talk to (EX_UNAVAILABLE) */
#define EXIT_SOFTWARE 70        /* EX_SOFTWARE */
#define EXIT_LOCKED 75          /* EX_TEMPFAIL: another fabtuned holds the state */
#define EXIT_NOPERM 77          /* EX_NOPERM */
#define EXIT_BAD_CONFIG 78      /* EX_CONFIG */
