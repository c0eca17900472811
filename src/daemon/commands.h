/* The control protocol's commands, with their authorisation. */
#pragma once

#include <json-c/json.h>
#include <stddef.h>
#include <sys/socket.h>

struct manager;

/* Runs cmd for the peer. Returns the reply's data, or NULL with *ret_code ("EPERM",
 * "EACCES", "ENOTSUP", "EBUSY", "EINVAL", ...) and a message. */
json_object *commands_run(struct manager *m, const char *cmd, json_object *args,
                          const struct ucred *peer, const char **ret_code, char *msg, size_t len);
