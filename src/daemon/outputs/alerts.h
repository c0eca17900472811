/* SPDX-License-Identifier: ISC */
/* journald alerts: raised and cleared on transitions of a finding, rate-limited. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "findings.h"
#include "timeutil.h"

#define ALERT_BURST 5                   /* transitions per key ... */
#define ALERT_WINDOW (10 * USEC_PER_MINUTE) /* ... per window */
#define ALERT_GROUP_MAX 64              /* rails named in one record */

struct inventory;

struct alert_key {
    char check[48];
    char rail[200];
    char subject[128];
    enum severity severity;         /* the last one seen */
    usec_t window_start;
    unsigned in_window, suppressed;
};

/* Keys (check, rail, subject) remembered since the start. A node's: its checks on each of
 * 16 rails, one per GID (16 x 256) and per peer path (16 x 64), about 7,000 at most; a key
 * is 400 bytes, so the bound keeps the table to 6.5 MiB. Past it, new keys send no alert. */
#define ALERT_MAX_KEYS 16384

struct alerts {
    struct alert_key *keys;
    size_t n, cap;              /* cap: room in keys (grown by doubling) */
    bool full;                  /* ALERT_MAX_KEYS was reached: logged once */
};

/* The fixed MESSAGE_ID (32 hex digits) of a check's alert class. */
const char *alerts_message_id(const char *check);
/* Compares the new findings with the last ones and logs each raise (ok/unknown ->
 * warning/error, or a change of severity) and each clear (-> ok); on the FIRST call, only
 * what fails. The transitions of one pass that say the same thing on several rails (the
 * report's rule, findings_fold.h; INV's rails and netdevs, NULL: none) are one record
 * naming them; one alone keeps its own record. Returns the records sent. */
size_t alerts_update(struct alerts *a, const struct findings *now, const struct inventory *inv,
                     usec_t now_usec, int first);
void alerts_done(struct alerts *a);
