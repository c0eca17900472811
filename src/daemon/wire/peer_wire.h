/* SPDX-License-Identifier: ISC */
/* The peer probe's TCP session, between a node's prober and a peer's responder.
 *
 * The prober opens a connection to the peer's probes.peers.port and sends a hello, all
 * integers in network order:
 *     u32 magic "FTP1", u8 version (1), u8 kind, u16 zero, u32 message size
 * The responder answers one byte: PEER_ACK_OK, or PEER_ACK_BUSY (then closes) when it
 * serves max_sessions already. A peer outside its allowlist gets no byte: the connection
 * is reset before anything is allocated for it.
 *   echo: the prober sends size bytes, the responder sends them back, until the prober
 *         closes (the TCP ping-pong);
 *   sink: the prober streams, then shuts its side down; the responder answers with the
 *         u64 count of bytes it received and closes (the TCP bandwidth);
 *   links: the responder answers with its netdevs' counters, MACs and addresses
 *         (peer_links.h) and closes: before and after each probe, where its bytes went.
 *         The hello's size is the answer's layout (enum peer_links_layout): 0, or 1 with
 *         the RDMA ports' data counters. A responder older than layout 1 takes a links
 *         hello of size 1 for a malformed one and closes without an ack; the prober then
 *         asks again for layout 0 (probes/probe_tcp.h).
 * A session ends at the responder's session_limit whatever the prober does, and a hello
 * that has not arrived 2 s after the connection (or at session_limit) ends it too. */
#pragma once

#include <stdint.h>

#define PEER_WIRE_MAGIC 0x46545031u     /* "FTP1" */
#define PEER_WIRE_VERSION 1
#define PEER_WIRE_HELLO_LEN 12
#define PEER_WIRE_MAX_SIZE 65536        /* the largest echo message */

enum peer_session_kind { PEER_SESSION_ECHO = 1, PEER_SESSION_SINK = 2, PEER_SESSION_LINKS = 3 };
enum peer_ack { PEER_ACK_OK = 0, PEER_ACK_BUSY = 1 };

struct peer_hello {
    enum peer_session_kind kind;
    uint32_t size;              /* echo: 1..PEER_WIRE_MAX_SIZE; sink: 0; links: the layout */
};

/* The RDMA peer probe goes through the RDMA connection manager to the same port number
 * (in RDMA_PS_TCP, its own port space). The connect request carries the prober's
 * hello, the accept the responder's answer, as private data (network order):
 *   hello:  u32 magic "FTR1", u8 version (1), 3 zero bytes, u32 message size (1..65536),
 *           u32 rounds (warm-up and measured, 1..PEER_RDMA_MAX_ROUNDS), u64 the prober's
 *           poll buffer, u32 its rkey                                       (28 bytes)
 *   accept: u32 magic, u64 the responder's poll buffer, u32 its rkey, u32 its length,
 *           which bounds the prober's stream messages                       (20 bytes)
 * A reject carries one byte: PEER_ACK_BUSY, or nothing for a peer outside the allowlist
 * or a malformed hello. */
#define PEER_RDMA_MAGIC 0x46545231u     /* "FTR1" */
#define PEER_RDMA_HELLO_LEN 28
#define PEER_RDMA_ACCEPT_LEN 20
#define PEER_RDMA_MAX_ROUNDS 2000000

struct peer_rdma_hello {
    uint32_t size, rounds;
    uint64_t addr;
    uint32_t rkey;
};

struct peer_rdma_accept {
    uint64_t addr;
    uint32_t rkey, len;
};

void peer_rdma_hello_write(const struct peer_rdma_hello *h, uint8_t out[PEER_RDMA_HELLO_LEN]);
int peer_rdma_hello_parse(const uint8_t *in, size_t len, struct peer_rdma_hello *ret);
void peer_rdma_accept_write(const struct peer_rdma_accept *a, uint8_t out[PEER_RDMA_ACCEPT_LEN]);
int peer_rdma_accept_parse(const uint8_t *in, size_t len, struct peer_rdma_accept *ret);

/* Writes a hello; parses one from a peer (-EBADMSG for anything but a valid hello). */
void peer_hello_write(const struct peer_hello *h, uint8_t out[PEER_WIRE_HELLO_LEN]);
int peer_hello_parse(const uint8_t in[PEER_WIRE_HELLO_LEN], struct peer_hello *ret);
