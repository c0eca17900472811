/* SPDX-License-Identifier: ISC */
/* A client of NCCL's RAS service (NCCL 2.24+): one bounded STATUS query of a job, from a
 * worker thread. It connects to the job's RAS address (the process's NCCL_RAS_ADDR, else
 * localhost:28028), sends "CLIENT PROTOCOL 2", "TIMEOUT s", "SET FORMAT json" (an NCCL
 * before 2.28.7 answers it with an error and sends its STATUS as text, which is read as
 * such) and "STATUS" in one write, reads until the server closes (it does after a STATUS),
 * and parses what came (ras_parse.h).
 *
 * Bounded: a deadline covers connecting, writing and reading; the reply has a size limit;
 * one query at a time per address (a second gets -EBUSY). No effect on the job: it sends
 * only those read commands (never CONTROL, which changes a running job, nor DIAGNOSTICS),
 * and each query costs the job one RAS collective over its processes' RAS threads, on the
 * out-of-band TCP network, not the GPUs' or the rails' traffic. Blocking: call it off the
 * event loop. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "ras_status.h"
#include "timeutil.h"

#define RAS_DEFAULT_ADDR "localhost:28028"
#define RAS_DEFAULT_PORT 28028
/* A JSON rank is 333 bytes in NCCL 2.28.9: 16 MiB holds some 50,000 ranks. The text lists
 * only the outliers, and stays small for any job. */
#define RAS_REPLY_MAX_DEFAULT (16u << 20)
/* RAS's own collective timeout sent with TIMEOUT (the ncclras client's default). */
#define RAS_TIMEOUT_DEFAULT_S 5
/* Addresses queried at once, at most (a query beyond gets -EBUSY too). */
#define RAS_INFLIGHT_MAX 64

struct ras_query_opts {
    size_t max_bytes;           /* 0: RAS_REPLY_MAX_DEFAULT */
    bool text;                  /* do not ask for JSON (a job too large for it) */
    unsigned ras_timeout_s;     /* 0: RAS_TIMEOUT_DEFAULT_S */
};

struct ras_result {
    int err;                    /* 0: a whole STATUS; else -errno (ras_query's return) */
    char why[384];              /* what went wrong, for a log line or a finding */
    char *raw;                  /* every byte read, NUL-terminated (fixtures, debugging) */
    size_t raw_len;
    bool connected;
    bool truncated;             /* the reply stopped before its end (deadline, limit, reset) */
    char addr[96];              /* the address that answered (or the last one tried) */
    usec_t elapsed;             /* connect to close */
    struct ras_status status;   /* what the reply says (format NONE: nothing) */
};

/* An address in NCCL_RAS_ADDR's form ("127.0.0.1:28029", "[::1]:28028", "localhost:28028";
 * no port: 28028) into at most 2 socket addresses (localhost: 127.0.0.1, then ::1, as
 * NCCL's getaddrinfo may bind either). Host names are refused: a DNS lookup has no
 * deadline. Returns how many, or -EINVAL with WHY. */
int ras_addr_parse(const char *text, struct sockaddr_storage out[2], socklen_t lens[2],
                   char *why, size_t len);

/* One STATUS query of ADDR (NULL: RAS_DEFAULT_ADDR), to end by DEADLINE (CLOCK_MONOTONIC,
 * now_usec's) with the defaults. Returns 0 with a whole STATUS in RET->status; -ENODATA when
 * the reply was cut short (RET->status holds its start); -EBADMSG when the reply holds no
 * STATUS; -ECONNREFUSED (no RAS there: the job is gone, RAS is disabled); -ETIMEDOUT; -EFBIG
 * past the size limit; -EBUSY when ADDR is being queried already. RET->why says which;
 * free RET with ras_result_done. */
int ras_query(const char *addr, usec_t deadline, struct ras_result *ret);
int ras_query_with(const char *addr, usec_t deadline, const struct ras_query_opts *opts,
                   struct ras_result *ret);
void ras_result_done(struct ras_result *r);
