/* SPDX-License-Identifier: ISC */
/* The check ids, one row each: its family (the journal catalog entry its alerts carry), the
 * report's rail fields fabtunectl diff compares under it, and what it means in a line or
 * two (fabtunectl explain, fabtune-checks(7)). The daemon and fabtunectl both read it;
 * tests/check_check_ids holds the checks' findings, fabtuned(8)'s list, the generated
 * fabtune-checks(7) and systemd/fabtune.catalog to it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* One per entry of systemd/fabtune.catalog, and one for the ids no finding carries. */
enum check_family {
    CHECK_FAMILY_RAILS,
    CHECK_FAMILY_PORT,
    CHECK_FAMILY_NETDEV,
    CHECK_FAMILY_GID,
    CHECK_FAMILY_QOS,
    CHECK_FAMILY_COUNTERS,
    CHECK_FAMILY_HOST,          /* pcie.*, gpudirect.*, host.*: the host path */
    CHECK_FAMILY_TUNING,
    CHECK_FAMILY_PROBE,
    CHECK_FAMILY_FABRIC,        /* fabric.*: what the rails are plugged into (LLDP) */
    CHECK_FAMILY_JOB,           /* job.*: the NCCL jobs on the node (RAS, their settings) */
    CHECK_FAMILY_NIC,           /* nic.*: what the kernel says of the NICs, their device nodes */
    CHECK_FAMILY_DIFF,          /* a difference's id only: no check emits it, no alert */
    CHECK_FAMILY_COUNT
};

#define CHECK_ID_DIFF_FIELDS 4

struct check_id {
    const char *id;             /* as findings, alerts, metrics and diffs name it */
    enum check_family family;
    /* The report's rail fields ("qos.trust": a path into a rail's JSON) that fabtunectl
     * diff shows under this id; NULL after the last. */
    const char *diff_fields[CHECK_ID_DIFF_FIELDS];
    /* For the operator, each a line or two of plain text (no trailing period; at most
     * CHECK_ID_TEXT_MAX bytes): what the check asks, what it reads, what passes (and
     * what is a warning or an error), and what to do when it fails. From what the check
     * does (src/daemon/checks/); fabtuned(8)'s CHECKS has the whole rule. */
    const char *meaning, *reads, *expects, *fix;
};

#define CHECK_ID_TEXT_MAX 200
/* The longest id, as wide as fabtunectl's check column ("probe.rdma.bandwidth"). */
#define CHECK_ID_WIDTH 22

/* In the order fabtunectl diff compares their fields. */
extern const struct check_id check_ids[];
extern const size_t check_ids_count;

/* The row of ID, or NULL. */
const struct check_id *check_id_find(const char *id);
/* Whether ID is PATTERN, or of the family PATTERN names ("gid" or "gid.": every gid.*). */
bool check_id_matches(const char *id, const char *pattern);
/* Whether some row is PATTERN or of its family. */
bool check_id_known(const char *pattern);
/* The id or family (every dotted prefix of an id: "route", "probe.rdma") closest to S, a
 * likely typo of it, into BUF; false when none is close. */
bool check_id_closest(const char *s, char *buf, size_t len);
/* The family's MESSAGE_ID in systemd/fabtune.catalog; NULL for CHECK_FAMILY_DIFF. */
const char *check_family_message_id(enum check_family f);
/* "rails", "port", ..., "diff". */
const char *check_family_name(enum check_family f);
