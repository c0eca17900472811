/* SPDX-License-Identifier: ISC */
/* NCCL RAS replies into the model (model/ras_status.h): everything one connection read
 * after "CLIENT PROTOCOL 2", "TIMEOUT s", "SET FORMAT json" and "STATUS", that is the
 * greeting lines (SERVER PROTOCOL n, OK, ERROR: ...) and then the STATUS, in JSON
 * (NCCL 2.28.7+) or in text (2.24+: client_support.cc's rasClientRunComms layout).
 *
 * Written against the replies of NCCL 2.28.9 captured from a real job
 * (tests/fixtures/ras), and tolerant of the faults seen there: the JSON of a missing
 * rank lacks the comma after "nvml_dev" (read past, said in the note); an
 * "ERROR: Unknown command ..." line between the others; a reply cut short (what came is
 * kept, and it says so). Never more than the reply's length is read; depth, names and
 * tables are bounded (ras_status.h). */
#pragma once

#include <stddef.h>

#include "ras_status.h"

/* Parses LEN bytes of BUF (no NUL needed) into S (ras_status_init'ed), derives it
 * (ras_status_derive), and returns 0 when a whole STATUS was read; -ENODATA when it was
 * cut short (S holds what came before, S->complete is false); -EBADMSG when there is no
 * STATUS or it is malformed (S->why says where); -EFBIG or -ENOMEM when a table is full. */
int ras_parse_reply(const char *buf, size_t len, struct ras_status *s);
