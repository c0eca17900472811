/* SPDX-License-Identifier: ISC */
/* Tests of the RAS parser on NCCL 2.28.9's real replies (tests/fixtures/ras: text and JSON,
 * normal, MISMATCH, missing, dead, its malformed JSON) and on cut, huge and hostile ones;
 * of the RAS client's transport against servers on loopback that replay those replies,
 * never answer, drip, flood or reset (fake servers: they test the client, not NCCL); and
 * of the tracker on sequences of the real replies. */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check_run.h"
#include "fileio.h"
#include "macro.h"
#include "ras_client.h"
#include "ras_parse.h"
#include "ras_tracker.h"

/* tests/fixtures/ras/NAME, whole (malloc'd). */
static char *fixture(const char *name, size_t *len)
{
    char path[512], *buf;
    snprintf(path, sizeof(path), "%s/tests/fixtures/ras/%s", TEST_SRCDIR, name);
    ck_assert_msg(read_file_full(path, 1u << 20, &buf, len) == 0, "%s", path);
    return buf;
}

/* Parses fixture NAME into S; returns the parser's result. */
static int parse_fixture(const char *name, struct ras_status *s)
{
    size_t len;
    char *buf = fixture(name, &len);
    ras_status_init(s);
    int r = ras_parse_reply(buf, len, s);
    free(buf);
    return r;
}

static const struct ras_rank *rank_of(const struct ras_status *s, int rank)
{
    ck_assert_uint_eq(s->n_comms, 1);
    for (size_t i = 0; i < s->comms[0].n_ranks; i++)
        if (s->comms[0].ranks[i].rank == rank)
            return &s->comms[0].ranks[i];
    ck_abort_msg("no rank %d", rank);
    return NULL;
}

static uint64_t allreduce(const struct ras_status *s, const struct ras_rank *r)
{
    int t = -1;
    for (size_t i = 0; i < s->n_coll; i++)
        if (streq(s->coll_names[i], "AllReduce"))
            t = (int)i;
    ck_assert_int_ge(t, 0);
    ck_assert(r->counts_known & (1u << t));
    return r->counts[t];
}

/* ---- the parser on NCCL 2.28.9's replies -------------------------------------------- */

START_TEST(test_text_normal)
{
    struct ras_status s;
    ck_assert_int_eq(parse_fixture("run1/normal_text.reply", &s), 0);
    ck_assert_int_eq(s.format, RAS_FORMAT_TEXT);
    ck_assert_str_eq(s.nccl_version, "2.28.9");
    ck_assert_int_eq(s.server_protocol, 2);
    ck_assert(s.complete);
    ck_assert_uint_eq(s.n_comms, 0);    /* the text details only a communicator in trouble */
    ck_assert(!s.json_refused);
    ras_status_done(&s);
}
END_TEST

START_TEST(test_json_normal)
{
    struct ras_status s;
    ck_assert_int_eq(parse_fixture("run1/normal_json.reply", &s), 0);
    ck_assert_int_eq(s.format, RAS_FORMAT_JSON);
    ck_assert_str_eq(s.nccl_version, "2.28.9");
    ck_assert_str_eq(s.comms[0].hash, "98846fe8cb5fc125");
    ck_assert_int_eq(s.comms[0].size, 2);
    ck_assert_uint_eq(s.comms[0].n_ranks, 2);
    const struct ras_rank *r1 = rank_of(&s, 1);
    ck_assert_int_eq(r1->pid, 474);
    ck_assert_str_eq(r1->host, "127.0.0.1");
    ck_assert_int_eq(r1->nvml_dev, 0);
    ck_assert_uint_eq(allreduce(&s, r1), 248);
    ck_assert_uint_eq(s.comms[0].n_behind, 0);
    ck_assert_int_eq(r1->status, RAS_RANK_OK);
    ck_assert_str_eq(s.note, "");
    ras_status_done(&s);
}
END_TEST

/* The straggler: rank 1 one AllReduce behind, named with its process and GPU. */
START_TEST(test_text_mismatch)
{
    struct ras_status s;
    ck_assert_int_eq(parse_fixture("run2/slow0_text.reply", &s), 0);
    ck_assert_str_eq(s.comms[0].hash, "3992478aad60ff17");
    ck_assert(s.comms[0].errors & RAS_COMM_MISMATCH);
    ck_assert_int_eq(s.comms[0].size, 2);
    const struct ras_rank *r0 = rank_of(&s, 0), *r1 = rank_of(&s, 1);
    ck_assert_uint_eq(allreduce(&s, r0), 282);
    ck_assert_uint_eq(allreduce(&s, r1), 281);
    ck_assert_int_eq(r1->pid, 643);
    ck_assert_int_eq(r1->cuda_dev, 0);
    ck_assert_int_eq(r1->nvml_dev, 0);
    ck_assert(r1->behind && !r0->behind);
    ck_assert_uint_eq(r1->behind_by, 1);
    ck_assert_int_eq(r1->status, RAS_RANK_MISMATCH);
    ck_assert(s.comms[0].minority);
    ras_status_done(&s);
}
END_TEST

START_TEST(test_json_lag)
{
    struct ras_status s;
    ck_assert_int_eq(parse_fixture("run1/lag0_json.reply", &s), 0);
    ck_assert_uint_eq(allreduce(&s, rank_of(&s, 0)), 310);
    ck_assert_uint_eq(allreduce(&s, rank_of(&s, 1)), 309);
    ck_assert_int_eq(rank_of(&s, 1)->status, RAS_RANK_MISMATCH);
    ck_assert_int_eq(rank_of(&s, 0)->status, RAS_RANK_OK);
    ras_status_done(&s);
}
END_TEST

/* NCCL 2.28.9's missing rank: no comma after "nvml_dev"; read past, and said. */
START_TEST(test_json_missing_comma)
{
    struct ras_status s;
    ck_assert_int_eq(parse_fixture("run1/dead0_json.reply", &s), 0);
    ck_assert(s.complete);
    ck_assert_ptr_nonnull(strstr(s.note, "comma"));
    const struct ras_rank *r0 = rank_of(&s, 0), *r1 = rank_of(&s, 1);
    ck_assert(r1->missing && !r1->dead);
    ck_assert_int_eq(r1->pid, 474);
    ck_assert_int_eq(r1->status, RAS_RANK_INCOMPLETE);
    ck_assert_int_eq(r0->async_error, RAS_NCCL_REMOTE_ERROR);
    ck_assert_int_eq(r0->status, RAS_RANK_OK);  /* another's failure echoed, not its own */
    ck_assert(s.comms[0].errors & RAS_COMM_INCOMPLETE);
    ck_assert(s.comms[0].errors & RAS_COMM_ERROR);
    ras_status_done(&s);
}
END_TEST

START_TEST(test_json_dead)
{
    struct ras_status s;
    ck_assert_int_eq(parse_fixture("run1/dead3_json.reply", &s), 0);
    ck_assert(rank_of(&s, 1)->dead);
    ck_assert_int_eq(rank_of(&s, 1)->status, RAS_RANK_DEAD);
    ras_status_done(&s);
}
END_TEST

START_TEST(test_text_incomplete_and_dead)
{
    struct ras_status s;
    ck_assert_int_eq(parse_fixture("run2/dead0_text.reply", &s), 0);
    ck_assert_uint_eq(s.n_missing, 1);
    ck_assert_int_eq(s.missing[0].pid, 643);
    ck_assert_int_eq(rank_of(&s, 1)->status, RAS_RANK_INCOMPLETE);
    ck_assert_str_eq(rank_of(&s, 0)->error, "Remote process error");
    ck_assert_int_eq(rank_of(&s, 0)->status, RAS_RANK_OK);
    ras_status_done(&s);
    ck_assert_int_eq(parse_fixture("run2/dead3_text.reply", &s), 0);
    ck_assert_uint_eq(s.n_dead, 1);
    ck_assert_int_eq(s.dead[0].pid, 643);
    ck_assert_str_eq(s.dead[0].host, "127.0.0.1");
    ck_assert_int_eq(rank_of(&s, 1)->status, RAS_RANK_DEAD);
    ras_status_done(&s);
}
END_TEST

/* capture.py's own marks where NCCL sent nothing: no STATUS, said so. */
START_TEST(test_no_status)
{
    static const char *const names[] = { "run2/dead3_json.reply", "run2/dead4_text.reply",
                                         "run2/bad_command.reply" };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        struct ras_status s;
        ck_assert_int_eq(parse_fixture(names[i], &s), -EBADMSG);
        ck_assert_ptr_nonnull(strstr(s.why, "no STATUS"));
        ras_status_done(&s);
    }
}
END_TEST

/* MONITOR is unknown to 2.28.9: its ERROR line (run1/monitor.jsonl, without capture.py's
 * time mark) is kept, and a STATUS after such lines is read. */
START_TEST(test_unknown_command)
{
    size_t len;
    char *json = fixture("run1/normal_json.reply", &len), buf[8192];
    const char *body = strchr(json, '{');
    struct ras_status s;
    ras_status_init(&s);
    ck_assert_int_eq(ras_parse_reply("SERVER PROTOCOL 2\nOK\nERROR: Unknown command MONITOR all\n",
                                     55, &s), -EBADMSG);
    ck_assert_str_eq(s.server_error, "ERROR: Unknown command MONITOR all");
    ras_status_done(&s);
    int n = snprintf(buf, sizeof(buf), "SERVER PROTOCOL 2\nOK\nERROR: Unknown command MONITOR all\n%s",
                     body);
    ck_assert_int_eq(ras_parse_reply(buf, (size_t)n, &s), 0);
    ck_assert_uint_eq(s.comms[0].n_ranks, 2);
    ck_assert(!s.json_refused);
    ras_status_done(&s);
    free(json);
}
END_TEST

/* An NCCL before 2.28.7: SET FORMAT json refused, the STATUS in text. */
START_TEST(test_old_nccl_text_only)
{
    struct ras_status s;
    ck_assert_int_eq(parse_fixture("derived/old-nccl-text.reply", &s), 0);
    ck_assert(s.json_refused);
    ck_assert_int_eq(s.format, RAS_FORMAT_TEXT);
    ck_assert_int_eq(rank_of(&s, 1)->status, RAS_RANK_MISMATCH);
    ras_status_done(&s);
}
END_TEST

/* ras.rst's sample of a 32-rank communicator (NCCL before 2.26: one "collective" count):
 * 26 ranks at 6650 not named, 6 named at 6649: those 6 are the lagging minority. */
START_TEST(test_doc_groups)
{
    static const char text[] =
        "NCCL version 2.24.3 compiled with CUDA 12.8\n\nCommunicators... (0.00s)\n=============\n\n"
        "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n"
        "    #  in group  per comm  per node  per comm  in group\n"
        "    0         1         4         8        32        32   RUNNING  MISMATCH\n\n"
        "Errors\n======\n\nWarnings\n========\n\n"
        "#0-0 (27a079b828ff1a75) MISMATCH\n"
        "  Communicator ranks have different collective operation counts\n"
        "  26 ranks have launched up to operation 6650\n"
        "  6 ranks have launched up to operation 6649\n"
        "  Rank 0 -- GPU 0 managed by process 483072 on node 172.16.64.210\n"
        "  Rank 2 -- GPU 2 managed by process 483074 on node 172.16.64.210\n"
        "  Rank 3 -- GPU 3 managed by process 483075 on node 172.16.64.210\n"
        "  Rank 4 -- GPU 4 managed by process 483076 on node 172.16.64.210\n"
        "  Rank 5 -- GPU 5 managed by process 483077 on node 172.16.64.210\n"
        "  Rank 7 -- GPU 7 (NVML 6) managed by process 483079 on node 172.16.64.210\n\n";
    struct ras_status s;
    ras_status_init(&s);
    ck_assert_int_eq(ras_parse_reply(text, sizeof(text) - 1, &s), 0);
    ck_assert_int_eq(s.comms[0].size, 32);
    ck_assert_uint_eq(s.comms[0].n_behind, 6);
    ck_assert(s.comms[0].minority);
    ck_assert_int_eq(rank_of(&s, 7)->nvml_dev, 6);
    ck_assert_int_eq(rank_of(&s, 7)->cuda_dev, 7);
    ck_assert_uint_eq(rank_of(&s, 7)->behind_by, 1);
    ras_status_done(&s);
}
END_TEST

/* Every prefix of real replies: never a crash, never "whole" before the end. */
START_TEST(test_truncated)
{
    static const char *const names[] = { "run1/dead0_json.reply", "run2/slow0_text.reply",
                                         "run2/dead3_text.reply", "run1/normal_json.reply" };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        size_t len;
        char *buf = fixture(names[i], &len);
        size_t whole = 0;
        for (size_t cut = 0; cut <= len; cut++) {
            char *copy = malloc(cut ? cut : 1);
            memcpy(copy, buf, cut);
            struct ras_status s;
            ras_status_init(&s);
            int r = ras_parse_reply(copy, cut, &s);
            ck_assert_msg(r == 0 || r == -ENODATA || r == -EBADMSG, "%s cut at %zu: %d", names[i], cut, r);
            ck_assert(r != 0 || s.complete);
            whole += r == 0;
            ras_status_done(&s);
            free(copy);
        }
        /* JSON is whole only at its closing brace (and its newline); text once its
         * Warnings section began. */
        ck_assert_msg(whole >= 1 && (strstr(names[i], "json") ? whole <= 2 : whole < len / 2),
                      "%s: %zu prefixes read as whole", names[i], whole);
        free(buf);
    }
}
END_TEST

/* A reply past the model's bounds: refused with the reason, within the bounds. */
START_TEST(test_huge)
{
    size_t cap = 80u << 20, n = 0;
    char *buf = malloc(cap);
    n += (size_t)sprintf(buf + n, "{\"communicators\": [{\"hash\": \"0x1\", \"ranks\": [");
    for (int i = 0; i < RAS_MAX_RANKS + 10; i++)
        n += (size_t)sprintf(buf + n, "%s{\"rank\": %d, \"pid\": %d, \"collective_counts\": "
                             "{\"AllReduce\": %d}}", i ? "," : "", i, i, i);
    n += (size_t)sprintf(buf + n, "]}]}");
    struct ras_status s;
    ras_status_init(&s);
    ck_assert_int_eq(ras_parse_reply(buf, n, &s), -EFBIG);
    ck_assert_uint_eq(s.n_ranks, RAS_MAX_RANKS);
    ck_assert_ptr_nonnull(strstr(s.why, "more than fabtune keeps"));
    ras_status_done(&s);
    free(buf);
}
END_TEST

START_TEST(test_hostile)
{
    static const struct { const char *text; int want; } cases[] = {
        { "{\"communicators\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}", -EBADMSG },
        { "{\"communicators\": [{\"ranks\": [{\"rank\": 99999999999999999999}]}]}", -EBADMSG },
        { "{\"communicators\": [{\"ranks\": [{\"rank\": 1, \"collective_counts\": {\"A\": -5}}]}]}", -EBADMSG },
        { "{\"communicators\": [{\"ranks\": [{\"pid\": 5}]}]}", -EBADMSG },     /* no rank */
        { "{\"nccl_version\": \"2.\x01\"}", -EBADMSG },
        { "{\"a\" 1}", -EBADMSG },
        { "{\"a\": tru", -ENODATA },
        { "{\"a\": \"\\u00", -ENODATA },
        { "NCCL version 9\n#0-0 (zz) MISMATCH\n  Rank -1 has launched up to operation 5\n", -ENODATA },
        { "Job summary\n\x00\x00\n#99999999999-0 (ab) MISMATCH\nWarnings\n", 0 },
        { "{\"communicators\": [{\"hash\": \"0xabc\"} {\"hash\": \"0xdef\"}]}", 0 },  /* a comma missing */
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct ras_status s;
        ras_status_init(&s);
        size_t len = strlen(cases[i].text);
        if (i == 9)
            len = sizeof("Job summary\n\x00\x00\n#99999999999-0 (ab) MISMATCH\nWarnings\n") - 1;
        int r = ras_parse_reply(cases[i].text, len, &s);
        ck_assert_msg(r == cases[i].want, "case %zu: %d, not %d (%s)", i, r, cases[i].want, s.why);
        ck_assert(r == 0 || s.why[0]);
        ras_status_done(&s);
    }
}
END_TEST

/* ---- the client's transport, against servers on loopback ---------------------------- */

struct server {
    int fd;
    uint16_t port;
    const char *reply;          /* sent after the request's STATUS line */
    size_t reply_len;
    enum { SERVE_REPLY, SERVE_SILENT, SERVE_DRIP, SERVE_FLOOD, SERVE_RESET } how;
    char request[256];
    pthread_t thread;
};

static void server_listen(struct server *s)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(s->fd, 0);
    ck_assert_int_eq(bind(s->fd, (struct sockaddr *)&a, sizeof(a)), 0);
    ck_assert_int_eq(listen(s->fd, 4), 0);
    ck_assert_int_eq(getsockname(s->fd, (struct sockaddr *)&a, &len), 0);
    s->port = ntohs(a.sin_port);
}

static void read_request(int c, struct server *s)
{
    size_t n = 0;
    while (n + 1 < sizeof(s->request) && !strstr(s->request, "STATUS\n")) {
        ssize_t k = read(c, s->request + n, sizeof(s->request) - 1 - n);
        if (k <= 0)
            break;
        n += (size_t)k;
        s->request[n] = '\0';
    }
}

static void *serve(void *arg)
{
    struct server *s = arg;
    int c = accept(s->fd, NULL, NULL);
    if (c < 0)
        return NULL;
    read_request(c, s);
    if (s->how == SERVE_REPLY)
        (void)!send(c, s->reply, s->reply_len, MSG_NOSIGNAL);
    else if (s->how == SERVE_DRIP)
        for (size_t i = 0; i < s->reply_len && send(c, s->reply + i, 1, MSG_NOSIGNAL) == 1; i++)
            usleep(50 * 1000);
    else if (s->how == SERVE_FLOOD) {
        static char junk[65536];
        memset(junk, 'x', sizeof(junk));
        for (int i = 0; i < 64 && send(c, junk, sizeof(junk), MSG_NOSIGNAL) > 0; i++)
            ;
    } else if (s->how == SERVE_RESET) {
        struct linger l = { .l_onoff = 1, .l_linger = 0 };
        (void)!send(c, s->reply, s->reply_len / 2, MSG_NOSIGNAL);
        usleep(100 * 1000);
        setsockopt(c, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
    } else
        sleep(3);       /* SERVE_SILENT: accepts, reads, never answers */
    close(c);
    return NULL;
}

static void server_start(struct server *s)
{
    server_listen(s);
    ck_assert_int_eq(pthread_create(&s->thread, NULL, serve, s), 0);
}

static void server_stop(struct server *s)
{
    shutdown(s->fd, SHUT_RDWR);
    pthread_join(s->thread, NULL);
    close(s->fd);
}

static int query_port(uint16_t port, usec_t within, const struct ras_query_opts *o, struct ras_result *r)
{
    char addr[64];
    snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
    return ras_query_with(addr, now_usec(CLOCK_MONOTONIC) + within, o, r);
}

/* One query, ending WITHIN from now, of a server that answers as HOW says with fixture
 * NAME (NULL: none): the query's result; the server's side in *S, NAME's length in *LEN. */
static int served(const char *name, int how, usec_t within, const struct ras_query_opts *o,
                  struct ras_result *r, struct server *s, size_t *len)
{
    char *reply = name ? fixture(name, len) : NULL;
    *s = (struct server){ .reply = reply, .reply_len = reply ? *len : 0, .how = how };
    server_start(s);
    int err = query_port(s->port, within, o, r);
    server_stop(s);
    free(reply);
    return err;
}

START_TEST(test_client_replays_capture)
{
    struct server s;
    struct ras_result r;
    size_t len;
    ck_assert_int_eq(served("run1/normal_json.reply", SERVE_REPLY, 5 * USEC_PER_SEC, NULL, &r,
                            &s, &len), 0);
    ck_assert_str_eq(s.request, "CLIENT PROTOCOL 2\nTIMEOUT 5\nSET FORMAT json\nSTATUS\n");
    ck_assert_int_eq(r.status.format, RAS_FORMAT_JSON);
    ck_assert_uint_eq(r.status.comms[0].n_ranks, 2);
    ck_assert_uint_eq(r.raw_len, len);
    ck_assert(!r.truncated);
    ras_result_done(&r);
}
END_TEST

START_TEST(test_client_text_fallback)
{
    struct server s;
    struct ras_result r;
    size_t len;
    ck_assert_int_eq(served("derived/old-nccl-text.reply", SERVE_REPLY, 5 * USEC_PER_SEC, NULL,
                            &r, &s, &len), 0);
    ck_assert(r.status.json_refused);
    ck_assert_int_eq(r.status.format, RAS_FORMAT_TEXT);
    ras_result_done(&r);
    /* And asked for text, it asks no JSON. */
    struct ras_query_opts o = { .text = true, .ras_timeout_s = 2 };
    ck_assert_int_eq(served("run2/slow0_text.reply", SERVE_REPLY, 5 * USEC_PER_SEC, &o, &r, &s,
                            &len), 0);
    ck_assert_str_eq(s.request, "CLIENT PROTOCOL 2\nTIMEOUT 2\nSTATUS\n");
    ras_result_done(&r);
}
END_TEST

/* A port that takes the connection and never answers: the client gives up at its deadline,
 * not the server's. */
START_TEST(test_client_never_answers)
{
    struct server s = { .how = SERVE_SILENT };
    struct ras_result r;
    server_start(&s);
    usec_t t0 = now_usec(CLOCK_MONOTONIC);
    ck_assert_int_eq(query_port(s.port, 300 * USEC_PER_MSEC, NULL, &r), -ETIMEDOUT);
    usec_t took = now_usec(CLOCK_MONOTONIC) - t0;
    ck_assert_msg(took >= 250 * USEC_PER_MSEC && took < 2 * USEC_PER_SEC, "took %llu us",
                  (unsigned long long)took);
    ck_assert(r.connected && r.truncated);
    ck_assert_ptr_nonnull(strstr(r.why, "deadline"));
    server_stop(&s);
    ras_result_done(&r);
}
END_TEST

/* Listening, never accepting (a RAS thread that is stuck): the same deadline holds. */
START_TEST(test_client_backlog_only)
{
    struct server s = { 0 };
    struct ras_result r;
    server_listen(&s);
    usec_t t0 = now_usec(CLOCK_MONOTONIC);
    ck_assert_int_eq(query_port(s.port, 300 * USEC_PER_MSEC, NULL, &r), -ETIMEDOUT);
    ck_assert_uint_lt(now_usec(CLOCK_MONOTONIC) - t0, 2 * USEC_PER_SEC);
    close(s.fd);
    ras_result_done(&r);
}
END_TEST

START_TEST(test_client_drip)
{
    struct server s;
    struct ras_result r;
    size_t len;
    ck_assert_int_eq(served("run1/normal_json.reply", SERVE_DRIP, 400 * USEC_PER_MSEC, NULL, &r,
                            &s, &len), -ETIMEDOUT);
    ck_assert(r.truncated);
    ck_assert_uint_gt(r.raw_len, 0);
    ck_assert_uint_lt(r.raw_len, len);
    ras_result_done(&r);
}
END_TEST

START_TEST(test_client_flood)
{
    struct server s;
    struct ras_query_opts o = { .max_bytes = 65536 };
    struct ras_result r;
    size_t len;
    ck_assert_int_eq(served(NULL, SERVE_FLOOD, 5 * USEC_PER_SEC, &o, &r, &s, &len), -EFBIG);
    ck_assert_uint_le(r.raw_len, 65536 + 1);
    ck_assert_ptr_nonnull(strstr(r.why, "more than 65536 bytes"));
    ras_result_done(&r);
}
END_TEST

/* A reset mid-reply (the process exiting): what came is kept, and said to be cut. */
START_TEST(test_client_reset)
{
    struct server s;
    struct ras_result r;
    size_t len;
    int err = served("run1/dead0_json.reply", SERVE_RESET, 5 * USEC_PER_SEC, NULL, &r, &s, &len);
    ck_assert_msg(err == -ECONNRESET || err == -ENODATA, "%d", err);
    ck_assert(r.truncated);
    ck_assert_uint_eq(r.raw_len, len / 2);
    ras_result_done(&r);
}
END_TEST

START_TEST(test_client_refused)
{
    struct server s = { 0 };
    struct ras_result r;
    server_listen(&s);
    close(s.fd);        /* the port is free now: nothing listens */
    ck_assert_int_eq(query_port(s.port, USEC_PER_SEC, NULL, &r), -ECONNREFUSED);
    ck_assert(!r.connected);
    ck_assert_ptr_nonnull(strstr(r.why, "the job has ended, or RAS is off"));
    ras_result_done(&r);
}
END_TEST

struct busy_arg {
    uint16_t port;
    int err;
};

static void *busy_query(void *p)
{
    struct busy_arg *a = p;
    struct ras_result r;
    a->err = query_port(a->port, 600 * USEC_PER_MSEC, NULL, &r);
    ras_result_done(&r);
    return NULL;
}

/* One query at a time per address: a second, while the first waits, gets -EBUSY. */
START_TEST(test_client_one_at_a_time)
{
    struct server s = { .how = SERVE_SILENT };
    struct busy_arg a;
    struct ras_result r;
    pthread_t t;
    server_start(&s);
    a.port = s.port;
    ck_assert_int_eq(pthread_create(&t, NULL, busy_query, &a), 0);
    usleep(150 * 1000);
    ck_assert_int_eq(query_port(s.port, USEC_PER_SEC, NULL, &r), -EBUSY);
    ras_result_done(&r);
    pthread_join(t, NULL);
    ck_assert_int_eq(a.err, -ETIMEDOUT);
    server_stop(&s);
}
END_TEST

START_TEST(test_addr_parse)
{
    struct sockaddr_storage ss[2];
    socklen_t lens[2];
    char why[256];
    ck_assert_int_eq(ras_addr_parse("127.0.0.1:28029", ss, lens, why, sizeof(why)), 1);
    ck_assert_uint_eq(ntohs(((struct sockaddr_in *)&ss[0])->sin_port), 28029);
    ck_assert_int_eq(ras_addr_parse("[::1]:28030", ss, lens, why, sizeof(why)), 1);
    ck_assert_int_eq(ss[0].ss_family, AF_INET6);
    ck_assert_int_eq(ras_addr_parse(NULL, ss, lens, why, sizeof(why)), 2);
    ck_assert_uint_eq(ntohs(((struct sockaddr_in *)&ss[0])->sin_port), 28028);
    ck_assert_int_eq(ss[1].ss_family, AF_INET6);
    ck_assert_int_eq(ras_addr_parse("localhost", ss, lens, why, sizeof(why)), 2);
    ck_assert_int_eq(ras_addr_parse("node7:28028", ss, lens, why, sizeof(why)), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "no numeric address"));
    ck_assert_int_eq(ras_addr_parse("10.0.0.1:99999", ss, lens, why, sizeof(why)), -EINVAL);
    ck_assert_int_eq(ras_addr_parse("[::1", ss, lens, why, sizeof(why)), -EINVAL);
}
END_TEST

/* ---- the tracker on sequences of real replies --------------------------------------- */

static enum ras_verdict fold(struct ras_tracker *t, const char *name, double at_s)
{
    struct ras_status s;
    ck_assert_int_eq(parse_fixture(name, &s), 0);
    ck_assert_int_eq(ras_tracker_fold(t, &s, (usec_t)(at_s * 1e6)), 0);
    ras_status_done(&s);
    const struct ras_track_rank *k = t->n_ranks ? &t->ranks[0] : NULL;
    return k ? k->verdict : RAS_VERDICT_HEALTHY;
}

/* run2: the straggler is named at its second reply behind, and survives the one OK reply
 * among ten; then the hang at the third reply of frozen counts; then missing, then dead. */
START_TEST(test_tracker_run2)
{
    static const struct { const char *name; double t; enum ras_verdict want; } seq[] = {
        { "run2/normal_text.reply", 6.0, RAS_VERDICT_HEALTHY },
        { "run2/slow0_text.reply", 9.4, RAS_VERDICT_SUSPECT },
        { "run2/slow1_text.reply", 11.8, RAS_VERDICT_STRAGGLER },
        { "run2/slow2_text.reply", 14.2, RAS_VERDICT_STRAGGLER },
        { "run2/slow3_text.reply", 16.6, RAS_VERDICT_STRAGGLER },
        { "run2/slow4_text.reply", 19.0, RAS_VERDICT_STRAGGLER },
        { "run2/slow5_text.reply", 21.4, RAS_VERDICT_STRAGGLER },   /* the one OK */
        { "run2/slow6_text.reply", 23.8, RAS_VERDICT_STRAGGLER },
        { "run2/slow7_text.reply", 26.2, RAS_VERDICT_STRAGGLER },
        { "run2/slow8_text.reply", 28.6, RAS_VERDICT_STRAGGLER },
        { "run2/slow9_text.reply", 31.0, RAS_VERDICT_STRAGGLER },
        { "run2/lag0_text.reply", 39.4, RAS_VERDICT_STRAGGLER },    /* moved since slow9 */
        { "run2/lag1_text.reply", 48.4, RAS_VERDICT_STRAGGLER },    /* frozen once */
        { "run2/lag2_text.reply", 57.4, RAS_VERDICT_HUNG },
        { "run2/lag3_text.reply", 66.4, RAS_VERDICT_HUNG },
        { "run2/dead0_text.reply", 82.4, RAS_VERDICT_MISSING },
        { "run2/dead2_text.reply", 114.4, RAS_VERDICT_MISSING },
        { "run2/dead3_text.reply", 130.4, RAS_VERDICT_DEAD },
    };
    struct ras_tracker t = { 0 };
    for (size_t i = 0; i < ARRAY_SIZE(seq); i++) {
        enum ras_verdict v = fold(&t, seq[i].name, seq[i].t);
        ck_assert_msg(v == seq[i].want, "%s: %s, not %s", seq[i].name, ras_verdict_name(v),
                      ras_verdict_name(seq[i].want));
    }
    const struct ras_track_rank *k = ras_tracker_find(&t, "3992478aad60ff17", 1);
    ck_assert_ptr_nonnull(k);
    ck_assert_int_eq(k->pid, 643);
    ck_assert_int_eq(k->nvml_dev, 0);
    ck_assert_uint_eq(k->since, 9400000);       /* the first reply that had it behind */
    ck_assert_uint_eq(t.n_ranks, 1);            /* rank 0, reporting the remote error, is not */
    ras_tracker_done(&t);
}
END_TEST

/* run1 in JSON: a hang from healthy, named at its third reply. */
START_TEST(test_tracker_run1_hang)
{
    struct ras_tracker t = { 0 };
    ck_assert_int_eq(fold(&t, "run1/normal_json.reply", 6.4), RAS_VERDICT_HEALTHY);
    ck_assert_int_eq(fold(&t, "run1/lag0_json.reply", 15.8), RAS_VERDICT_SUSPECT);
    ck_assert_int_eq(fold(&t, "run1/lag1_json.reply", 24.8), RAS_VERDICT_SUSPECT);
    ck_assert_int_eq(fold(&t, "run1/lag2_json.reply", 33.8), RAS_VERDICT_HUNG);
    ck_assert_int_eq(fold(&t, "run1/dead0_json.reply", 58.8), RAS_VERDICT_MISSING);
    ras_tracker_fail(&t, -ECONNREFUSED, "refused", 60000000);
    ck_assert_int_eq(t.ranks[0].verdict, RAS_VERDICT_MISSING);   /* a failure keeps it */
    ck_assert_uint_eq(t.failure_streak, 1);
    ck_assert_int_eq(fold(&t, "run1/dead3_json.reply", 106.8), RAS_VERDICT_DEAD);
    ck_assert_uint_eq(t.failure_streak, 0);
    ras_tracker_done(&t);
}
END_TEST

/* In step RAS_TRACK_CLEAR times in a row clears a straggler; fewer do not. */
START_TEST(test_tracker_clears)
{
    struct ras_tracker t = { 0 };
    fold(&t, "run2/slow0_text.reply", 1);
    ck_assert_int_eq(fold(&t, "run2/slow1_text.reply", 2), RAS_VERDICT_STRAGGLER);
    fold(&t, "run2/normal_text.reply", 3);
    fold(&t, "run2/normal_text.reply", 4);
    ck_assert_int_eq(fold(&t, "run2/slow2_text.reply", 5), RAS_VERDICT_STRAGGLER);
    fold(&t, "run2/normal_text.reply", 6);
    fold(&t, "run2/normal_text.reply", 7);
    ck_assert_int_eq(fold(&t, "run2/normal_text.reply", 8), RAS_VERDICT_HEALTHY);
    ck_assert_uint_eq(t.n_ranks, 0);
    ras_tracker_done(&t);
}
END_TEST

static Suite *ras_suite(void)
{
    Suite *s = suite_create("ras");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_text_normal);
    tcase_add_test(tc, test_json_normal);
    tcase_add_test(tc, test_text_mismatch);
    tcase_add_test(tc, test_json_lag);
    tcase_add_test(tc, test_json_missing_comma);
    tcase_add_test(tc, test_json_dead);
    tcase_add_test(tc, test_text_incomplete_and_dead);
    tcase_add_test(tc, test_no_status);
    tcase_add_test(tc, test_unknown_command);
    tcase_add_test(tc, test_old_nccl_text_only);
    tcase_add_test(tc, test_doc_groups);
    tcase_add_test(tc, test_truncated);
    tcase_add_test(tc, test_huge);
    tcase_add_test(tc, test_hostile);
    suite_add_tcase(s, tc);
    tc = tcase_create("client");
    tcase_add_test(tc, test_client_replays_capture);
    tcase_add_test(tc, test_client_text_fallback);
    tcase_add_test(tc, test_client_never_answers);
    tcase_add_test(tc, test_client_backlog_only);
    tcase_add_test(tc, test_client_drip);
    tcase_add_test(tc, test_client_flood);
    tcase_add_test(tc, test_client_reset);
    tcase_add_test(tc, test_client_refused);
    tcase_add_test(tc, test_client_one_at_a_time);
    tcase_add_test(tc, test_addr_parse);
    suite_add_tcase(s, tc);
    tc = tcase_create("tracker");
    tcase_add_test(tc, test_tracker_run2);
    tcase_add_test(tc, test_tracker_run1_hang);
    tcase_add_test(tc, test_tracker_clears);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run(ras_suite());
}
