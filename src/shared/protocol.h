/* SPDX-License-Identifier: ISC */
/* The control protocol's constants, shared by fabtuned and fabtunectl; the protocol itself
 * is described in fabtunectl(1), PROTOCOL. */
#pragma once

#define PROTOCOL_VERSION 1
#define PROTOCOL_MAX_LINE (64 * 1024)
#define PROTOCOL_DEFAULT_SOCKET "/run/fabtune/fabtuned.sock"
