/* SPDX-License-Identifier: ISC */
/* The peer probe session's hello (peer_wire.h). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

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
    else
        return -EBADMSG;
    return 0;
}
