/* SPDX-License-Identifier: ISC */
/* The control protocol's commands, with their authorisation. */
#pragma once

#include <json-c/json.h>
#include <stddef.h>

#include "control.h"

/* Runs cmd for the peer: the control socket's handler (control_handler_fn), with the
 * manager as its userdata. Returns the reply's data, or NULL with *ret_code ("EPERM",
 * "EACCES", "ENOTSUP", "EBUSY", "EINVAL", ...) and a message. */
json_object *commands_run(void *manager, const char *cmd, json_object *args,
                          const struct peer *peer, const char **ret_code, char *msg, size_t len);
