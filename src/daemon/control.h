/* SPDX-License-Identifier: ISC */
/* The control socket: newline-delimited JSON requests, SO_PEERCRED authorisation. */
#pragma once

#include <stdbool.h>
#include <sys/socket.h>

#define CONTROL_MAX_CLIENTS 64
#define CONTROL_CLIENT_TIMEOUT_USEC (5 * 1000000ULL)

struct manager;
struct control;

/* Listens on the policy's socket, or takes the one systemd passes (socket activation). */
int control_new(struct manager *m, struct control **ret);
void control_free(struct control *c);
