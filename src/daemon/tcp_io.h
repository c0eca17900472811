/* SPDX-License-Identifier: ISC */
/* Blocking TCP helpers the probes and the responder share: whole-buffer I/O, socket
 * timeouts from a deadline, and socket addresses from raw bytes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* SO_RCVTIMEO and SO_SNDTIMEO to what is left until deadline (probe_now() seconds), and
 * TCP_NODELAY. */
void tcp_set_deadline(int fd, double deadline);
/* Sends or receives exactly len bytes: 0, -errno, or -ECONNRESET when the peer closed. */
int tcp_full_io(int fd, void *buf, size_t len, bool writing);
/* A sockaddr for family (AF_INET: 4 bytes of addr, AF_INET6: 16) and port. */
socklen_t tcp_make_addr(int family, const uint8_t addr[16], uint16_t port, struct sockaddr_storage *ss);
