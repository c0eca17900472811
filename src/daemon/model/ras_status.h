/* SPDX-License-Identifier: ISC */
/* What one STATUS reply of NCCL's RAS service says (NCCL 2.24+ in text, 2.28.7+ in JSON;
 * NVIDIA/nccl src/ras/client_support.cc): per communicator, its ranks with their host,
 * pid, GPU and collective counts, which ranks are missing, dead or in error, and, derived
 * from the counts, the lagging minority. sources/ras_parse.c fills it; the tracker
 * (ras_tracker.h) follows it from reply to reply. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Collective types RAS counts: NCCL 2.26+ names five (Broadcast, Reduce, AllGather,
 * ReduceScatter, AllReduce); older text replies count them as one ("collective"). */
#define RAS_COLL_TYPES 8
#define RAS_COLL_NAME_MAX 24
#define RAS_HOST_MAX 48             /* an address as ncclSocketToHost prints it (INET6) */
#define RAS_HASH_MAX 20             /* "98846fe8cb5fc125": 64 bits in hex */
#define RAS_ERROR_MAX 40            /* "Remote process error" */
#define RAS_VERSION_MAX 32
/* The most communicators and ranks one reply may describe: a JSON rank is 333 bytes in
 * NCCL 2.28.9, so a reply within the client's 16 MiB holds some 50,000 of them. */
#define RAS_MAX_COMMS 4096
#define RAS_MAX_RANKS 65536
/* Processes the text's job-wide INCOMPLETE and DEAD lists name (RAS prints at most 10). */
#define RAS_MAX_PROCS 64

enum ras_format { RAS_FORMAT_NONE, RAS_FORMAT_TEXT, RAS_FORMAT_JSON };

/* A communicator's errors, as RAS's table sums them up (rasACError). */
enum {
    RAS_COMM_MISMATCH = 1,          /* counts or status differ between ranks */
    RAS_COMM_ERROR = 2,             /* a rank reports an initialization or async error */
    RAS_COMM_INCOMPLETE = 4,        /* ranks that did not answer */
};

/* One rank's status, derived (ras_status_derive), worst first in this order: DEAD,
 * INCOMPLETE, ERROR, MISMATCH (behind: of the lagging minority), OK. */
enum ras_rank_status {
    RAS_RANK_OK, RAS_RANK_MISMATCH, RAS_RANK_ERROR, RAS_RANK_INCOMPLETE, RAS_RANK_DEAD,
};

/* ncclRemoteError and ncclInProgress (nccl.h): an error a rank reports because another
 * failed, and an initialization still under way. */
#define RAS_NCCL_REMOTE_ERROR 6
#define RAS_NCCL_IN_PROGRESS 7

struct ras_rank {
    int rank;
    int pid;                        /* -1: not said */
    int cuda_dev, nvml_dev;         /* -1: not said (nvml_dev: the node's GPU index) */
    char host[RAS_HOST_MAX];        /* the process's RAS address, "" when not said */
    uint32_t counts_known;          /* bit t: counts[t] was said */
    uint64_t counts[RAS_COLL_TYPES];
    bool missing;                   /* listed among the missing ranks (no data from it) */
    bool dead;                      /* considered dead (RAS gave up reaching it) */
    int init_state, async_error;    /* ncclResult_t; 0 when not said */
    char error[RAS_ERROR_MAX];      /* the text's "reported ..." error, "" none */
    /* Derived. */
    bool behind;                    /* in the lagging minority */
    uint64_t behind_by;             /* operations behind the leaders, the most of any type */
    enum ras_rank_status status;
};

struct ras_comm {
    char hash[RAS_HASH_MAX];        /* lower-case hex, no "0x" */
    int group, index;               /* the text's "#group-index"; -1 in JSON */
    int size;                       /* ranks in the communicator; 0 not said */
    unsigned errors;                /* RAS_COMM_*: the text's table, or derived */
    char state[16];                 /* the text's RUNNING, INIT, FINALIZE, ABORT, NOCOMM */
    struct ras_rank *ranks;
    size_t n_ranks, cap_ranks;
    int max_rank;                   /* the highest rank number in RANKS; -1 none */
    /* The highest count of each type: over the ranks and, in text, over the groups RAS
     * names without their ranks ("26 ranks have launched up to operation 6650"). */
    uint32_t top_known;
    uint64_t top[RAS_COLL_TYPES];
    /* Derived. */
    size_t n_behind;                /* ranks behind the top */
    bool minority;                  /* they are at most half the communicator: lagging */
};

/* A process the text's job-wide INCOMPLETE or DEAD list names. */
struct ras_process {
    int pid;
    char host[RAS_HOST_MAX];
    char gpus[32];                  /* "0", "0,1", "5 (NVML 3)" */
};

struct ras_status {
    enum ras_format format;
    int server_protocol;            /* SERVER PROTOCOL n; 0 when not said */
    char nccl_version[RAS_VERSION_MAX];
    bool json_refused;              /* SET FORMAT json answered with an error: NCCL < 2.28.7 */
    char server_error[128];         /* the last "ERROR: ..." line of the server */
    char coll_names[RAS_COLL_TYPES][RAS_COLL_NAME_MAX];
    size_t n_coll;
    unsigned timeouts;              /* communication timeouts while RAS gathered the data */
    struct ras_comm *comms;
    size_t n_comms, cap_comms;
    size_t n_ranks;                 /* over all communicators (RAS_MAX_RANKS) */
    struct ras_process missing[RAS_MAX_PROCS], dead[RAS_MAX_PROCS];
    size_t n_missing, n_dead;
    bool complete;                  /* the reply reached its end */
    char note[160];                 /* a fault of the reply that was tolerated */
    char why[160];                  /* why the reply was not (wholly) understood */
};

void ras_status_init(struct ras_status *s);
void ras_status_done(struct ras_status *s);
/* A new communicator: -EFBIG past RAS_MAX_COMMS, -ENOMEM. */
int ras_status_add_comm(struct ras_status *s, struct ras_comm **ret);
/* The text's communicator "#GROUP-INDEX", created when new. */
int ras_status_text_comm(struct ras_status *s, int group, int index, struct ras_comm **ret);
/* RANK of C, created (pid and GPUs unknown) when new: -EFBIG past RAS_MAX_RANKS, -ENOMEM. */
int ras_comm_rank(struct ras_status *s, struct ras_comm *c, int rank, struct ras_rank **ret);
/* The index of the collective type NAME, added when new; -1 past RAS_COLL_TYPES. */
int ras_status_coll(struct ras_status *s, const char *name);
/* Sets RANK's count of type T, and the communicator's top. */
void ras_rank_set_count(struct ras_comm *c, struct ras_rank *r, int t, uint64_t value);
/* A group of ranks RAS counts without naming them: only the top moves. */
void ras_comm_group_count(struct ras_comm *c, int t, uint64_t value);
/* Adds a process to LIST (missing or dead), once per pid; beyond RAS_MAX_PROCS dropped. */
void ras_status_add_process(struct ras_process *list, size_t *n, int pid, const char *host,
                            const char *gpus);
/* Copies the hash as RAS prints it ("0x98846fe8cb5fc125" or "98846fe8cb5fc125"). */
void ras_comm_set_hash(struct ras_comm *c, const char *text);
/* Derives each rank's behind, behind_by and status and each communicator's n_behind,
 * minority and errors. The lagging minority: the ranks whose count of some type is below
 * the communicator's top, when they are at most half of it (RAS counts launches: more
 * than half behind means a few ranks launched ahead, none lags). A pid in the dead list
 * marks its ranks dead. */
void ras_status_derive(struct ras_status *s);
/* Whether the reply names PID among its ranks or processes (which job answered: jobs
 * on one node share RAS's default port, NCCL binds it with SO_REUSEPORT). */
bool ras_status_names_pid(const struct ras_status *s, int pid);
const char *ras_rank_status_name(enum ras_rank_status st);   /* "OK", "MISMATCH", ... */
const char *ras_format_name(enum ras_format f);               /* "text", "json", "none" */
