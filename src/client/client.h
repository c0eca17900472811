/* SPDX-License-Identifier: ISC */
/* fabtunectl's pieces: talking to fabtuned, and rendering its replies for people. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

#include "exit_status.h"

/* Sends {"v":1,"cmd":cmd,"args":args} and waits up to timeout_ms. Returns 0 with *ret the
 * reply object, or -errno (the socket cannot be reached, the reply is malformed). */
int client_request(const char *socket_path, const char *cmd, json_object *args, int timeout_ms,
                   json_object **ret);

/* One reply line: a JSON object (*ret, to put), or -EBADMSG. */
int client_parse_reply(const char *line, json_object **ret);

void render_status(json_object *data);
void render_gids(json_object *data);
void render_checks(json_object *data);
void render_probes(json_object *data);
void render_tuning(json_object *data);
void render_reload(json_object *data);
void render_probe_now(json_object *data);
/* Captures the sysfs and procfs files fabtune reads into a tarball; 0 or 1. */
int snapshot_take(const char *tarball);
/* fabtunectl diff: fabtuned's reports on snapshot A and on B (NULL: this node live),
 * compared; prints the differences and returns 0 (the same), 1 (they differ) or
 * EXIT_NOINPUT (no report on one side). */
int diff_run(const char *fabtuned, const char *config, const char *a, const char *b, bool json);
