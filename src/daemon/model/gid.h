/* SPDX-License-Identifier: ISC */
/* GIDs: their types as sysfs names them, and the tests and forms every source and check
 * shares. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* UNREADABLE: gid_attrs/types/N exists but reading it fails (EINVAL: an empty slot, or a GID
 * not mapped into a container); MISSING: there is no such file (ENOENT, as in a capture
 * without it), which NCCL's open() fails on; OTHER: readable text NCCL does not recognise. */
enum gid_type {
    GID_TYPE_UNREADABLE, GID_TYPE_IB_ROCE_V1, GID_TYPE_ROCE_V2, GID_TYPE_OTHER, GID_TYPE_MISSING,
};

bool gid_is_zero(const uint8_t raw[16]);
bool gid_is_link_local(const uint8_t raw[16]);
bool gid_is_ipv4_mapped(const uint8_t raw[16]);
/* AF_INET for an IPv4-mapped GID, else AF_INET6 (NCCL's getGidAddrFamily). */
int gid_family(const uint8_t raw[16]);
/* "::ffff:10.0.0.1" style text, or "10.0.0.1" for an IPv4-mapped GID with ip_form. */
void gid_format(const uint8_t raw[16], bool ip_form, char *buf, size_t len);
int gid_parse_sysfs(const char *text, uint8_t raw[16]);
const char *gid_type_to_string(enum gid_type t);
enum gid_type gid_type_parse(const char *text);
