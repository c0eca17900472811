/* SPDX-License-Identifier: ISC */
/* Blocking TCP helpers the probes and the responder share: whole-buffer I/O, socket
 * timeouts from a deadline, I/O bound by a deadline, and socket addresses from raw bytes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* SO_RCVTIMEO and SO_SNDTIMEO to what is left until deadline (probe_now() seconds), and
 * TCP_NODELAY. */
void tcp_set_deadline(int fd, double deadline);
/* Sends or receives exactly len bytes: 0, -errno, or -ECONNRESET when the peer closed. */
int tcp_full_io(int fd, void *buf, size_t len, bool writing);
/* One send() or recv() of at most len bytes, once fd is ready, but never past deadline
 * (probe_now() seconds) however the peer trickles: the count (0: the peer closed),
 * -ETIMEDOUT, or -errno. */
ssize_t tcp_io_by(int fd, void *buf, size_t len, bool writing, double deadline);
/* Sends or receives exactly len bytes by deadline: 0, -ETIMEDOUT, -errno, or -ECONNRESET
 * when the peer closed. A socket timeout bounds each call, not the whole transfer; this
 * bounds the whole. */
int tcp_full_io_by(int fd, void *buf, size_t len, bool writing, double deadline);
/* The socket's IP TOS byte (IPv4's IP_TOS, IPv6's IPV6_TCLASS, and IP_TOS too for an
 * IPv6 socket's IPv4-mapped traffic) to TOS; a TOS below 0 leaves the socket's own (0).
 * FAMILY: the socket's, or AF_UNSPEC to ask it. 0 or -errno. */
int tcp_set_tos(int fd, int family, int tos);
/* A sockaddr for family (AF_INET: 4 bytes of addr, AF_INET6: 16) and port. */
socklen_t tcp_make_addr(int family, const uint8_t addr[16], uint16_t port, struct sockaddr_storage *ss);
