/* SPDX-License-Identifier: ISC */
/* The control socket: newline-delimited JSON requests, SO_PEERCRED authorisation. */
#pragma once

#include <stdbool.h>
#include <sys/socket.h>

#define CONTROL_MAX_CLIENTS 64
#define CONTROL_ROOT_SLOTS 8                /* of those, kept for uid 0 */
#define CONTROL_MAX_PER_UID 16              /* for any other uid */
#define CONTROL_CLIENT_TIMEOUT_USEC (5 * 1000000ULL)        /* idle */
#define CONTROL_REQUEST_DEADLINE_USEC (2 * 1000000ULL)      /* one line, from its first byte */
#define CONTROL_MAX_QUEUED (1024 * 1024)    /* unread reply bytes before reading stops */
#define CONTROL_MAX_REQUESTS_PER_WAKE 4
#define CONTROL_ACCEPT_PAUSE_USEC (100 * 1000ULL)          /* after EMFILE */

struct manager;
struct control;

/* Listens on the policy's socket, or takes the one systemd passes (socket activation). */
int control_new(struct manager *m, struct control **ret);
void control_free(struct control *c);
