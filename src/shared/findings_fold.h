/* SPDX-License-Identifier: ISC */
/* The findings list as people read it: one renderer, one rule for folding, for fabtuned
 * --once, fabtunectl status and fabtunectl checks (issue 43, item 1; issue 42, item 4).
 * Errors first, then warnings, unknowns and oks; within each, by check. A check that says
 * the same thing on several rails is one line naming them in device order ("on
 * mlx5_0..7/1"), with its expected/actual and hint once. "The same thing" is the same
 * words once each rail's own names are taken out: its device ("mlx5_3", shown "<dev>") and
 * its netdev ("enp94s0f0np0", shown "<netdev>"); a node-wide finding that names a rail's
 * netdev (tuning.drift's net.ipv4.conf.NETDEV keys) folds by that rail. Different values
 * (a count, a rate) are different words: they never fold. The JSON keeps every finding. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One finding, as the daemon holds it or as the JSON carries it (NULL: none). */
struct fold_finding {
    const char *check;
    const char *severity;       /* "error", "warning", "unknown" or "ok" */
    const char *rail;           /* "mlx5_0/1", a pair "mlx5_0/1<>mlx5_1/1"; NULL: the node's */
    const char *message, *expected, *actual, *hint;
};

/* A rail of the node: its name and its netdev ("" or NULL when it has none). */
struct fold_rail {
    const char *name, *netdev;
};

enum fold_flag {
    FOLD_EVERY = 1 << 0,            /* -v: a line per finding, none folded, oks listed */
    FOLD_DETAILS = 1 << 1,          /* "expected X, actual Y" and the hint beneath */
    FOLD_UNKNOWN_CAUSES = 1 << 2,   /* unknowns as one paragraph, by cause (unless EVERY) */
    FOLD_OK_ROWS = 1 << 3,          /* oks as rows; else a count per check family */
};

/* Prints F[0..N) as FLAGS say, each row "  SEVERITY CHECK RAIL MESSAGE" with the message
 * at one column: RAIL_WIDTH wide (at least; 0: as wide as the rows need). Returns the rows
 * printed (details and wrapped lines included). */
size_t findings_fold_print(const struct fold_finding *f, size_t n, const struct fold_rail *rails,
                           size_t n_rails, unsigned flags, int rail_width, FILE *out);

/* The words a finding folds by: its own with its rail's device and netdev names taken out
 * ("<dev>", "<netdev>"). RAIL is the rail it folds under: its own, or the rail whose netdev
 * a node-wide finding names; NULL: it never folds (each its own line or record). Two
 * findings are one problem when they share check, severity and fold_words_cmp() == 0:
 * the rule of the report, and of fabtuned's journal alerts. */
struct fold_words {
    const char *rail;
    char *message, *expected, *actual, *hint;     /* NULL where F has none */
};
void fold_words_fill(struct fold_words *w, const struct fold_finding *f, const struct fold_rail *rails,
                     size_t n_rails);
void fold_words_done(struct fold_words *w);
/* 0 when A and B say the same words (both with a RAIL); an order otherwise. */
int fold_words_cmp(const struct fold_words *a, const struct fold_words *b);
/* A folded message without a leading "<netdev>: " or "<dev>: ": its rails are named. */
const char *fold_message_without_lead(const char *m);

/* Rail names in device order: digit runs compare as numbers ("mlx5_2/1" before
 * "mlx5_10/1"), the rest byte by byte. */
int rail_name_order(const char *a, const char *b);

/* "mlx5_0..7/1" for a run of devices on one port, else "a/1, b/1": RAILS joined. */
void rails_compact(const char *const *rails, size_t n, char *buf, size_t len);

/* The width of the rail column for F[0..N): at least 18 ("mlx5_0/1<>mlx5_1/1"). */
int findings_fold_rail_width(const struct fold_finding *f, size_t n);
