/* SPDX-License-Identifier: ISC */
/* An address the peer responder listens on: a rail's (responder.h, responder_rdma.h). */
#pragma once

#include <stdint.h>

struct responder_address {
    int family;                 /* AF_INET or AF_INET6 */
    uint8_t addr[16];
};
#define RESPONDER_MAX_ADDRESSES 64
