/* SPDX-License-Identifier: ISC */
/* The control protocol's commands, with their authorisation. */
#pragma once

#include <json-c/json.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

struct manager;

/* Who is asking: SO_PEERCRED and SO_PEERGROUPS, read once at accept(). A group held only
 * as a supplementary group counts, as the kernel counts it for file access. */
struct peer {
    struct ucred cred;
    gid_t groups[64];
    size_t n_groups;
};

/* Fills a peer from a connected Unix socket; -errno when its credentials are unreadable. */
int peer_from_socket(int fd, struct peer *ret);

/* Runs cmd for the peer. Returns the reply's data, or NULL with *ret_code ("EPERM",
 * "EACCES", "ENOTSUP", "EBUSY", "EINVAL", ...) and a message. */
json_object *commands_run(struct manager *m, const char *cmd, json_object *args,
                          const struct peer *peer, const char **ret_code, char *msg, size_t len);
