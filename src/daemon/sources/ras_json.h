/* SPDX-License-Identifier: ISC */
/* The JSON of RAS's STATUS (SET FORMAT json, NCCL 2.28.7+; client_support.cc's
 * rasDumpCommsToJSON), read by a small reader of its own: it reads past the comma NCCL
 * 2.28.9 leaves out after a missing rank's "nvml_dev", which a strict parser refuses, and
 * needs no library, so the RAS client also builds as a static program. */
#pragma once

#include <stddef.h>

#include "ras_status.h"

/* The most nested objects and arrays read (RAS's own JSON goes 5 deep). */
#define RAS_JSON_DEPTH_MAX 16

/* Reads the JSON document at BUF (LEN bytes) into S: 0 when it closed; -ENODATA when it
 * was cut short (what came is in S); -EBADMSG when malformed (S->why says at which
 * byte); -EFBIG or -ENOMEM when a table of S is full. S->note says what was tolerated. */
int ras_json_parse(const char *buf, size_t len, struct ras_status *s);
