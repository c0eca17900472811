/* SPDX-License-Identifier: ISC */
/* The control socket: newline-delimited JSON requests, SO_PEERCRED authorisation. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#define CONTROL_MAX_CLIENTS 64
#define CONTROL_ROOT_SLOTS 8                /* of those, kept for uid 0 */
#define CONTROL_MAX_PER_UID 16              /* for any other uid */
#define CONTROL_CLIENT_TIMEOUT_USEC (5 * 1000000ULL)        /* idle */
#define CONTROL_REQUEST_DEADLINE_USEC (2 * 1000000ULL)      /* one line, from its first byte */
#define CONTROL_MAX_QUEUED (1024 * 1024)    /* unread reply bytes before reading stops */
#define CONTROL_MAX_REQUESTS_PER_WAKE 4
#define CONTROL_ACCEPT_PAUSE_USEC (100 * 1000ULL)          /* after EMFILE */
/* Descriptors left under RLIMIT_NOFILE for the daemon's own use (a pass's netlink sockets
 * and files, the probes' sockets): clients take none of them. */
#define CONTROL_FD_RESERVE 24

/* Who is asking: SO_PEERCRED and SO_PEERGROUPS, read once at accept(). A group held only
 * as a supplementary group counts, as the kernel counts it for file access. */
struct peer {
    struct ucred cred;
    gid_t groups[64];
    size_t n_groups;
};

/* Fills a peer from a connected Unix socket; -errno when its credentials are unreadable. */
int peer_from_socket(int fd, struct peer *ret);

/* Answers one parsed request: the reply's data, or NULL with *ret_code and a message. */
typedef json_object *(*control_handler_fn)(void *userdata, const char *cmd, json_object *args,
                                           const struct peer *peer, const char **ret_code,
                                           char *msg, size_t len);

struct control;

/* Listens on path (the socket's group: group, mode 0660), or takes the one systemd passes
 * (socket activation); each request goes to handler(userdata, ...) on the event loop. */
int control_new(sd_event *event, const char *path, const char *group, control_handler_fn handler,
                void *userdata, struct control **ret);
void control_free(struct control *c);
