/* SPDX-License-Identifier: ISC */
/* The peer probe session's hello (peer_wire.h). */
#include "config.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "peer_links.h"
#include "peer_wire.h"

void peer_hello_write(const struct peer_hello *h, uint8_t out[PEER_WIRE_HELLO_LEN])
{
    uint32_t magic = htonl(PEER_WIRE_MAGIC), size = htonl(h->size);
    memset(out, 0, PEER_WIRE_HELLO_LEN);
    memcpy(out, &magic, 4);
    out[4] = PEER_WIRE_VERSION;
    out[5] = (uint8_t)h->kind;
    memcpy(out + 8, &size, 4);
}

int peer_hello_parse(const uint8_t in[PEER_WIRE_HELLO_LEN], struct peer_hello *ret)
{
    uint32_t magic, size;
    memcpy(&magic, in, 4);
    memcpy(&size, in + 8, 4);
    size = ntohl(size);
    if (ntohl(magic) != PEER_WIRE_MAGIC || in[4] != PEER_WIRE_VERSION || in[6] || in[7])
        return -EBADMSG;
    if (in[5] == PEER_SESSION_ECHO && size >= 1 && size <= PEER_WIRE_MAX_SIZE)
        *ret = (struct peer_hello){ PEER_SESSION_ECHO, size };
    else if (in[5] == PEER_SESSION_SINK && size == 0)
        *ret = (struct peer_hello){ PEER_SESSION_SINK, 0 };
    else if (in[5] == PEER_SESSION_LINKS && size <= PEER_LINKS_LAYOUT_MAX)
        *ret = (struct peer_hello){ PEER_SESSION_LINKS, size };
    else
        return -EBADMSG;
    return 0;
}

static void put32(uint8_t *p, uint32_t v) { v = htonl(v); memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { v = htobe64(v); memcpy(p, &v, 8); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return ntohl(v); }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return be64toh(v); }

void peer_rdma_hello_write(const struct peer_rdma_hello *h, uint8_t out[PEER_RDMA_HELLO_LEN])
{
    memset(out, 0, PEER_RDMA_HELLO_LEN);
    put32(out, PEER_RDMA_MAGIC);
    out[4] = PEER_WIRE_VERSION;
    put32(out + 8, h->size);
    put32(out + 12, h->rounds);
    put64(out + 16, h->addr);
    put32(out + 24, h->rkey);
}

/* The connection manager may pad private data: len is at least, not exactly, the size. */
int peer_rdma_hello_parse(const uint8_t *in, size_t len, struct peer_rdma_hello *ret)
{
    if (!in || len < PEER_RDMA_HELLO_LEN || get32(in) != PEER_RDMA_MAGIC ||
        in[4] != PEER_WIRE_VERSION || in[5] || in[6] || in[7])
        return -EBADMSG;
    struct peer_rdma_hello h = { .size = get32(in + 8), .rounds = get32(in + 12),
                                 .addr = get64(in + 16), .rkey = get32(in + 24) };
    if (h.size < 1 || h.size > PEER_WIRE_MAX_SIZE || h.rounds < 1 || h.rounds > PEER_RDMA_MAX_ROUNDS)
        return -EBADMSG;
    *ret = h;
    return 0;
}

void peer_rdma_accept_write(const struct peer_rdma_accept *a, uint8_t out[PEER_RDMA_ACCEPT_LEN])
{
    put32(out, PEER_RDMA_MAGIC);
    put64(out + 4, a->addr);
    put32(out + 12, a->rkey);
    put32(out + 16, a->len);
}

int peer_rdma_accept_parse(const uint8_t *in, size_t len, struct peer_rdma_accept *ret)
{
    if (!in || len < PEER_RDMA_ACCEPT_LEN || get32(in) != PEER_RDMA_MAGIC)
        return -EBADMSG;
    struct peer_rdma_accept a = { .addr = get64(in + 4), .rkey = get32(in + 12), .len = get32(in + 16) };
    if (a.len < 1 || a.len > PEER_WIRE_MAX_SIZE)
        return -EBADMSG;
    *ret = a;
    return 0;
}
