/* SPDX-License-Identifier: ISC */
/* fabtunectl's pieces: talking to fabtuned, and rendering its replies for people. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "exit_status.h"

/* What the command line asked for (fabtunectl.c parses it). */
struct ctl {
    const char *socket;
    bool json, failed, conf;
    const char *format;
    double wait_timeout;
    const char *config;         /* diff: the policy both sides are judged by */
    const char *rail;           /* checks --rail: a rail ("mlx5_0/1") or a device's rails */
    const char *state_dir;      /* snapshot --state-dir: the daemon's, for its link memory */
};

/* Runs CMD on the daemon (errors reported, as fabtunectl's exit code); on 0, *ret_data is
 * the reply's data, owned by *ret_reply (to put). */
int ctl_call(const struct ctl *c, const char *cmd, json_object *args, json_object **ret_reply,
             json_object **ret_data);
/* fabtunectl health: prints the line and returns the exit code of c->format. */
int ctl_health(const struct ctl *c);

/* Sends {"v":1,"cmd":cmd,"args":args} and waits up to timeout_ms. Returns 0 with *ret the
 * reply object, or -errno (the socket cannot be reached, the reply is malformed). */
int client_request(const char *socket_path, const char *cmd, json_object *args, int timeout_ms,
                   json_object **ret);
/* The same with a deadline on client_now_ms()'s clock: several tries share one budget. */
int client_request_until(const char *socket_path, const char *cmd, json_object *args,
                         long long deadline_ms, json_object **ret);
/* Milliseconds on CLOCK_MONOTONIC. */
long long client_now_ms(void);

/* One reply line: a JSON object (*ret, to put), or -EBADMSG. */
int client_parse_reply(const char *line, json_object **ret);

/* TEXT from column INDENT on (the caller has printed up to it), wrapped at spaces before
 * column WIDTH, each further line indented as far; a word longer than the room stays whole. */
void print_wrapped(const char *text, int indent, int width);
void render_status(json_object *data);
void render_gids(json_object *data);
/* fabtunectl neighbors: a row per rail's LLDP neighbour (src/client/neighbors.c). */
void render_neighbors(json_object *rails);
/* The rail column's width for FINDINGS: their longest rail, and at least a pair of rails
 * ("mlx5_0/1<>mlx5_1/1"), so that the message column stays put from one list to another. */
int findings_rail_width(json_object *findings);
/* Sorts the array FINDINGS in place: by severity (error, warning, unknown, ok), then by
 * rail in device order (the node's findings first; "mlx5_2/1" before "mlx5_10/1"), else
 * as they came (the pass's order). Anything but an array is left alone. */
void findings_sort(json_object *findings);
/* Findings (the checks reply's form) through the one renderer (findings_fold.h): folded
 * across RAILS (the status reply's rails: their netdevs) unless render_every_finding (-v)
 * asks for a line each; the rail column RAIL_WIDTH wide; with DETAILS, their expected and
 * actual values and hint beneath. */
void render_findings(json_object *findings, json_object *rails, bool details, int rail_width);
/* fabtunectl -v: every finding its own line, none folded. */
extern bool render_every_finding;
/* fabtunectl checks [--failed] [--rail RAIL] [CHECK]: CHECK is an id ("port.state") or a
 * family of ids ("gid"), an unknown one a usage error, as is a rail the node does not
 * have. The findings sorted by severity (errors first), then by rail in device order. */
int ctl_checks(const struct ctl *c, const char *check);
/* fabtunectl explain [CHECK]: the check-id table's texts, without the daemon; 0, or
 * EXIT_USAGE for a CHECK that is no id or family. */
int ctl_explain(const struct ctl *c, const char *check);
/* fabtunectl links, from the status reply's data: its rails[].link as a row per rail and
 * the latest events; for --json, an array (a new one) of each rail's name and netdev with
 * its link's fields. */
void render_links(json_object *data);
json_object *links_json(json_object *data);
/* fabtunectl jobs, from the status reply's data: each NCCL job, its RAS and the ranks of
 * this node behind, missing or dead (GPU, rail, state, whether its rail is why); for
 * --json, the reply's "jobs" (a new reference; NULL where no jobs watch ran). */
void render_jobs(json_object *data);
json_object *jobs_json(json_object *data);
void render_probes(json_object *data);
void render_tuning(json_object *data);
/* An apply's or a revert's reply (its keys, with the verdict of the check that followed
 * added by the client), CMD naming it; a bare array of keys is rendered as the table. */
void render_tune(json_object *data, const char *cmd);
void render_reload(json_object *data);
void render_probe_now(json_object *data);
/* Captures the sysfs and procfs files fabtune reads into a tarball; 0 or 1. */
/* Writes TARBALL; the link memory comes from STATE_DIR. */
int snapshot_take(const char *tarball, const char *state_dir);
/* fabtunectl diff: fabtuned's reports on snapshot A and on B (NULL: this node live),
 * compared; prints the differences and returns 0 (the same), 1 (they differ),
 * EXIT_NOINPUT (no report on one side) or EXIT_USAGE (a snapshot that is not there). */
int diff_run(const char *fabtuned, const char *config, const char *a, const char *b, bool json);
/* The fabtuned that diff runs: $FABTUNED when set; else the one beside this fabtunectl (an
 * installed pair in one directory, or the build tree's ../daemon/fabtuned); else
 * SBINDIR/fabtuned. Written to BUF. */
void fabtuned_locate(char *buf, size_t len);
