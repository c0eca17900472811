/* SPDX-License-Identifier: ISC */
/* The policy: a typed model of fabtune.yaml, its defaults, loader and dumper. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>

#include "cc_params.h"
#include "cidr.h"
#include "sha256.h"
#include "timeutil.h"

#define POLICY_NAME_MAX 64
#define POLICY_MAX_RAILS 64
#define POLICY_MAX_SYSCTLS 128
/* One limit for a sysctl's key and value, from the policy to the tuning state and its
 * snapshot (characters, without the terminating NUL). */
#define POLICY_SYSCTL_KEY_MAX 127
#define POLICY_SYSCTL_VALUE_MAX 255
#define POLICY_MAX_ERRORS 16
#define POLICY_MAX_FILE_SIZE (1024 * 1024)
#define POLICY_GID_INDEX_AUTO (-1)
/* probes.light_dscp: "default", the port's own class (RDMA CM's default ToS, a socket's 0). */
#define POLICY_DSCP_DEFAULT (-1)
/* A count the policy leaves unset (null): rails.expect_count. */
#define POLICY_COUNT_UNSET UINT32_MAX

enum rail_select { RAIL_SELECT_ALL, RAIL_SELECT_LIST };
enum link_layer { LINK_LAYER_ETHERNET, LINK_LAYER_INFINIBAND, LINK_LAYER_ANY };
enum addr_family { ADDR_FAMILY_IPV4, ADDR_FAMILY_IPV6 };
enum qos_trust { QOS_TRUST_DSCP, QOS_TRUST_PCP };
enum requirement { REQ_REQUIRED, REQ_OPTIONAL, REQ_IGNORE };
enum tuning_mode { TUNING_ENFORCE, TUNING_VERIFY, TUNING_OFF };
/* rails.topology: ANY, or each rail on its own switch (rail-optimized). */
enum rail_topology { TOPOLOGY_ANY, TOPOLOGY_DISTINCT_SWITCHES };
#define RAILS_UNIFORM_ATTRS 6

struct rail_ref {
    char device[POLICY_NAME_MAX];
    uint32_t port;
};

struct sysctl_setting {
    char *key;                  /* dotted form, "net.core.rmem_max" */
    char *value;                /* as written; multi-value keys keep their spaces */
};

struct policy {
    /* The SHA-256 of the bytes it was read from (sha256sum of the file); fabtunectl status
     * and the daemon's start and reload lines show it. "" for one not read from text. */
    char digest[SHA256_HEX_LEN + 1];
    uint32_t version;
    struct {
        enum rail_select select;
        struct rail_ref list[POLICY_MAX_RAILS];
        size_t n_list;
        enum link_layer link_layer;
        uint32_t expect_count;  /* POLICY_COUNT_UNSET (null, the default): a node without
                                 * rails is NOT_READY; 0: a TCP-only node, none expected */
        uint32_t min_rate_gbps; /* 0: no minimum */
        struct { uint32_t netdev_min, rdma_active_min; } mtu;
        struct {
            uint32_t version;
            enum addr_family address_family;
            int32_t gid_index;  /* POLICY_GID_INDEX_AUTO or 0..255 */
            struct cidr subnet;
        } roce;
        struct {
            uint32_t dscp, pfc_priority, cnp_dscp;
            bool pfc_exclusive;
            enum qos_trust trust;
            enum requirement ecn;
        } qos;
        struct {
            uint32_t min_width;
            double min_speed_gts;
            uint32_t min_mrrs;
            enum requirement acs;   /* P2P redirect off between HCA and GPU */
        } pcie;
        /* Congestion control (DCQCN): the profile the rails are judged against, the
         * site's own values over it, and the firmware tool's bounds (model/cc.h). */
        struct {
            enum cc_profile profile;
            uint32_t params[CC_PARAMS];     /* CC_PARAM_UNSET: the profile's value */
            enum cc_firmware firmware;
            usec_t firmware_timeout, firmware_every;
        } cc;
        enum requirement gpudirect;
        enum rail_topology topology;
        /* rails.uniform: which attributes the rails are compared in with their siblings
         * (checks/check_uniform.c's order: rate, width, mtu, firmware, vendor, driver);
         * false where the site means its rails to differ. */
        struct { bool compare[RAILS_UNIFORM_ATTRS]; } uniform;
        struct {
            enum requirement lldp;  /* required: a rail without a neighbour is an error */
            char *lldpd_socket;     /* lldpd's control socket (lldpd -u) */
            usec_t bound;           /* after link up, how long a neighbour may take */
            char *switch_pattern;   /* glob on the switch's name, {index}: the rail's */
            char *port_pattern;     /* glob on the switch's port; NULL: any */
            uint32_t vlan;          /* the rails' VLAN; 0: none (fabric.vlan skipped) */
        } neighbors;
    } rails;
    struct {
        usec_t interval;
        struct { usec_t window; uint32_t max; } flaps;
        struct {
            usec_t interval;
            /* events per second above which a class is reported (counters.h) */
            double loss, congestion, misconfig, starvation, pfc_storm;
            double link, link_down, qp_error;
            /* A rail stays DEGRADED this long after its last flap, link down or error
             * burst (0: off); N warnings of one link check on one rail within a window
             * are an error (warnings 0: off). model/link_memory.h. */
            usec_t sticky_window;
            struct { uint32_t warnings; usec_t window; } escalate;
        } counters;
        /* link.fec and link.ber (checks/check_fec.c, model/fec.h): the pre-FEC BER each
         * FEC corrects to its target (RS(544,514) on 50G/100G PAM4 lanes, RS(528,514) on
         * 25G lanes), the fraction of it that warns, and the post-FEC BER limit. */
        struct { double kp4_limit, kr4_limit, pre_fec_margin, post_fec_ber; } fec;
        /* link.module's trend (model/rx_trend.h): a lane whose Rx power's fit falls this
         * many dB per window is a warning (0: off). */
        struct { double rx_power_fall; usec_t rx_power_window; } module;
        /* nic.* (checks/check_nic.c): a non-fatal kernel message about a rail warns for
         * WINDOW after it was printed, and REPEATS of one check within WINDOW are an error
         * (0: never); a fatal one is an error for the rest of its boot. */
        struct { usec_t window; uint32_t repeats; } nic;
    } checks;
    struct {
        enum tuning_mode mode;
        bool revert_on_stop;
        struct sysctl_setting sysctl[POLICY_MAX_SYSCTLS];
        size_t n_sysctl;
    } tuning;
    struct {
        bool enabled;
        usec_t interval;
        struct {
            uint32_t iterations, size;
            struct { usec_t duration; uint32_t size; } bandwidth;
        } rdma;
        struct {
            uint32_t iterations, size;
            struct { usec_t duration; } bandwidth;
        } tcp;
        struct {
            uint32_t baseline_runs, consecutive;
            double ratio;
            double rdma_min_excess_us, tcp_min_excess_us;   /* over the baseline, to be bad */
        } regression;
        struct { double rdma_p99_us, tcp_p99_us, rdma_min_bw_fraction; } limits;
        struct {
            char **hosts;               /* names or addresses, sorted, no duplicates */
            size_t n_hosts;
            char *file;                 /* one host per line, written by a cluster tool */
            uint32_t k;                 /* neighbours probed on each rail */
            uint32_t port;              /* the responder's TCP port */
            uint32_t max_sessions;      /* concurrent probe sessions the responder serves */
            usec_t session_limit;       /* a session's time bound */
            uint32_t unreachable_degraded;  /* unreachable peers that degrade; 0: never */
        } peers;
        /* The intensive probes (the bandwidth streams, and a ping-pong whose payload
         * both ways exceeds light_bytes) wait while the rail carries busy_gbps or more
         * (its netdev's, else its port's, bytes), until it has been under that for hold;
         * and, with jobs, while a Slurm job holds the node. */
        struct { double busy_gbps; usec_t hold; bool jobs; uint64_t light_bytes; } defer;
        /* The DSCP of the light probes (the ping-pongs): 0..63, or POLICY_DSCP_DEFAULT. */
        int32_t light_dscp;
    } probes;
    struct {
        enum requirement iommu;         /* HCAs and GPUs untranslated (identity groups) */
        enum requirement irq_affinity;  /* the HCA's interrupts on its NUMA node */
        char *cpufreq;                  /* the governor wanted of the HCA's CPUs; "any" */
    } host;
    /* The NCCL jobs on the node: their RAS service asked for STATUS every ras.interval,
     * in the daemon's jobs worker, each query bounded by ras.timeout. */
    struct {
        struct { bool enabled; usec_t interval, timeout; } ras;
    } jobs;
    struct { char *nccl_env, *nccl_conf, *prometheus_textfile; } outputs;
    struct { char *socket, *group; } control;
};

/* Errors collected by a load, each already formatted as
 * "FILE:LINE:COL: message\n    source line\n    ^". */
struct policy_errors {
    char *msgs[POLICY_MAX_ERRORS];
    size_t n;
    size_t n_dropped;
};

/* The built-in default (conf/fabtune.yaml compiled in). */
extern const char policy_builtin_yaml[];
extern const size_t policy_builtin_yaml_len;

void policy_init_defaults(struct policy *p);
void policy_done(struct policy *p);
/* policy_done() and free() of a policy on the heap; NULL is a no-op. */
void policy_free(struct policy *p);
/* The light probes' IP TOS byte, probes.light_dscp << 2 (ECN bits clear); -1 for
 * "default", the port's own. */
int policy_light_tos(const struct policy *p);
/* rails.roce.address_family as AF_INET or AF_INET6. */
int policy_roce_family(const struct policy *p);
/* Loads YAML text over the defaults. On error returns -EINVAL, fills errs, and leaves
 * *ret untouched, so a failed reload keeps the old policy. */
int policy_load_string(const char *text, size_t len, const char *filename,
                       struct policy *ret, struct policy_errors *errs);
/* Reads FILE; -ENOENT if it is absent (the caller decides on the built-in default). */
int policy_load_file(const char *path, struct policy *ret, struct policy_errors *errs);
int policy_load_builtin(struct policy *ret, struct policy_errors *errs);
/* fabtuned's rule: the file at path; when it is absent and path was not given explicitly
 * (-c), the built-in copy. A missing explicit file is an error in errs, never a silent
 * fallback. *ret_source is path or "<built-in>". */
int policy_load_configured(const char *path, bool explicit_path, struct policy *ret,
                           struct policy_errors *errs, const char **ret_source);
/* A check of one name or path value against this host (a group exists, a file can be
 * written there), called by the loader at the value's node, so that a refusal reads
 * FILE:LINE:COL like any policy error. The loader reads nothing itself: CHECK, the
 * caller's, does. KEY is the dotted key ("control.group"); 0, or -errno with WHY filled. */
struct policy_host_check {
    int (*check)(void *userdata, const char *key, const char *value, char *why, size_t len);
    void *userdata;
};
/* The loads above, each value also checked by HOST (NULL: none, as above). */
int policy_load_string_on_host(const char *text, size_t len, const char *filename,
                               const struct policy_host_check *host, struct policy *ret,
                               struct policy_errors *errs);
int policy_load_file_on_host(const char *path, const struct policy_host_check *host,
                             struct policy *ret, struct policy_errors *errs);
int policy_load_configured_on_host(const char *path, bool explicit_path,
                                   const struct policy_host_check *host, struct policy *ret,
                                   struct policy_errors *errs, const char **ret_source);
void policy_errors_print(const struct policy_errors *errs, FILE *f);
void policy_errors_done(struct policy_errors *errs);

/* The effective policy as YAML text that loads back to an equal policy. */
char *policy_dump(const struct policy *p);
bool policy_equal(const struct policy *a, const struct policy *b);

bool policy_sysctl_key_allowed(const char *key);
const char *policy_sysctl_get(const struct policy *p, const char *key);
/* probes.peers names hosts, or a file of them. */
bool policy_peers_configured(const struct policy *p);

const char *link_layer_to_string(enum link_layer l);
const char *tuning_mode_to_string(enum tuning_mode m);
