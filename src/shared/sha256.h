/* SPDX-License-Identifier: ISC */
/* SHA-256 (FIPS 180-4) of a buffer, as sha256sum prints it: the policy's digest that
 * fabtunectl status and the daemon's start line show, so an operator can tell which
 * file's bytes the daemon runs on (sha256sum /etc/fabtune/fabtune.yaml). */
#pragma once

#include <stddef.h>

#define SHA256_HEX_LEN 64

/* DATA[0..LEN)'s digest as 64 lowercase hex digits and a NUL into HEX. */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);
