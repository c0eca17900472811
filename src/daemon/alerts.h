/* SPDX-License-Identifier: ISC */
/* journald alerts: raised and cleared on transitions of a finding, rate-limited. */
#pragma once

#include <stddef.h>

#include "findings.h"
#include "timeutil.h"

#define ALERT_BURST 5                   /* transitions per key ... */
#define ALERT_WINDOW (10 * USEC_PER_MINUTE) /* ... per window */

struct alert_key {
    char check[48];
    char rail[200];
    char subject[128];
    enum severity severity;         /* the last one seen */
    usec_t window_start;
    unsigned in_window, suppressed;
};

struct alerts {
    struct alert_key *keys;
    size_t n;
};

/* The fixed MESSAGE_ID (32 hex digits) of a check's alert class. */
const char *alerts_message_id(const char *check);
/* Compares the new findings with the last ones and logs each raise (ok/unknown ->
 * warning/error, or a change of severity) and each clear (-> ok). The first call only
 * records. Returns the number of entries sent. */
size_t alerts_update(struct alerts *a, const struct findings *now, usec_t now_usec, int first);
void alerts_done(struct alerts *a);
