/* SPDX-License-Identifier: ISC */
/* The policy: defaults, lifetime, comparison, and loading from a file or the built-in copy. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"
#include "policy.h"
#include "policy_schema.h"
#include "fileio.h"

void policy_init_defaults(struct policy *p)
{
    *p = (struct policy){
        .version = 1,
        .rails = {
            .select = RAIL_SELECT_ALL,
            .link_layer = LINK_LAYER_ANY,
            .expect_count = POLICY_COUNT_UNSET,
            .roce = { .version = 2, .address_family = ADDR_FAMILY_IPV4,
                      .gid_index = POLICY_GID_INDEX_AUTO },
            .qos = { .dscp = 26, .pfc_priority = 3, .pfc_exclusive = true,
                     .trust = QOS_TRUST_DSCP, .ecn = REQ_OPTIONAL, .cnp_dscp = 48 },
            .gpudirect = REQ_OPTIONAL,
            .neighbors = { .lldp = REQ_OPTIONAL, .bound = 90 * USEC_PER_SEC },
            .pcie = { .acs = REQ_OPTIONAL },
            .uniform = { .compare = { true, true, true, true, true, true } },
            .cc = { .firmware_timeout = 10 * USEC_PER_SEC, .firmware_every = USEC_PER_HOUR },
        },
        .host = { .iommu = REQ_OPTIONAL, .irq_affinity = REQ_OPTIONAL },
        .checks = {
            .interval = 30 * USEC_PER_SEC,
            .flaps = { .window = 10 * USEC_PER_MINUTE, .max = 2 },
            .counters = { .interval = 10 * USEC_PER_SEC, .loss = 1, .congestion = 100000,
                          .misconfig = 0, .starvation = 1, .pfc_storm = 0,
                          .link = 1, .link_down = 0, .qp_error = 1000,
                          .sticky_window = 30 * USEC_PER_MINUTE,
                          .escalate = { .warnings = 5, .window = 24 * USEC_PER_HOUR } },
            .fec = { .kp4_limit = 2.4e-4, .kr4_limit = 5e-5, .pre_fec_margin = 0.1,
                     .post_fec_ber = 1e-12 },
            .module = { .rx_power_fall = 1.0, .rx_power_window = 24 * USEC_PER_HOUR },
            /* NVSentinel's NIC health monitor: three of a non-fatal pattern in an hour */
            .nic = { .window = USEC_PER_HOUR, .repeats = 3 },
        },
        .tuning = { .mode = TUNING_VERIFY },
        .probes = {
            .enabled = true,
            .interval = 60 * USEC_PER_SEC,
            .rdma = { .iterations = 1000, .size = 8,
                      .bandwidth = { .duration = 200 * USEC_PER_MSEC, .size = 65536 } },
            .tcp = { .iterations = 1000, .size = 64,
                     .bandwidth = { .duration = 200 * USEC_PER_MSEC } },
            .regression = { .baseline_runs = 10, .ratio = 1.5, .consecutive = 3,
                            .rdma_min_excess_us = 5, .tcp_min_excess_us = 100 },
            .peers = { .k = 2, .port = 18516, .max_sessions = 4,
                       .session_limit = 30 * USEC_PER_SEC, .unreachable_degraded = 2 },
            .defer = { .busy_gbps = 1, .hold = 60 * USEC_PER_SEC, .jobs = true,
                       .light_bytes = 1048576 },
            .light_dscp = 0,
        },
        .jobs = { .ras = { .enabled = true, .interval = 10 * USEC_PER_SEC,
                           .timeout = 8 * USEC_PER_SEC } },
    };
    /* On allocation failure these stay NULL, which every user treats as "not set". */
    p->outputs.nccl_env = strdup("/run/fabtune/nccl.env");
    p->outputs.nccl_conf = strdup("/run/fabtune/nccl.conf");
    p->control.socket = strdup("/run/fabtune/fabtuned.sock");
    p->control.group = strdup("fabtune");
    p->host.cpufreq = strdup("performance");
    p->rails.neighbors.lldpd_socket = strdup("/run/lldpd.socket");
    for (size_t i = 0; i < CC_PARAMS; i++)
        p->rails.cc.params[i] = CC_PARAM_UNSET;
}

void policy_done(struct policy *p)
{
    for (size_t i = 0; i < p->tuning.n_sysctl; i++) {
        free(p->tuning.sysctl[i].key);
        free(p->tuning.sysctl[i].value);
    }
    free(p->outputs.nccl_env);
    free(p->outputs.nccl_conf);
    free(p->outputs.prometheus_textfile);
    free(p->control.socket);
    free(p->control.group);
    free(p->host.cpufreq);
    free(p->rails.neighbors.lldpd_socket);
    free(p->rails.neighbors.switch_pattern);
    free(p->rails.neighbors.port_pattern);
    for (size_t i = 0; i < p->probes.peers.n_hosts; i++)
        free(p->probes.peers.hosts[i]);
    free(p->probes.peers.hosts);
    free(p->probes.peers.file);
    memset(p, 0, sizeof(*p));
}

void policy_free(struct policy *p)
{
    if (!p)
        return;
    policy_done(p);
    free(p);
}

static bool str_eq_null(const char *a, const char *b)
{
    return (!a && !b) || (a && b && streq(a, b));
}

static bool field_equal(const struct policy_field *f, const char *a, const char *b)
{
#define EQ(type) (*FIELD_AT_CONST(a, f, type) == *FIELD_AT_CONST(b, f, type))
    switch (f->kind) {
    case FIELD_MAP:
        for (const struct policy_field *c = f->children; c->name; c++)
            if (!field_equal(c, a, b))
                return false;
        return true;
    case FIELD_VERSION:
    case FIELD_UINT:
    case FIELD_IB_MTU:
        return EQ(uint32_t);
    case FIELD_GID_INDEX:
    case FIELD_DSCP:
        return EQ(int32_t);
    case FIELD_UINT64:
        return EQ(uint64_t);
    case FIELD_DOUBLE:
        return EQ(double);
    case FIELD_BOOL:
        return EQ(bool);
    case FIELD_DURATION:
        return EQ(usec_t);
    case FIELD_ENUM:
        return EQ(int);
    case FIELD_PATH:
    case FIELD_NAME:
    case FIELD_PATTERN:
        return str_eq_null(*FIELD_AT_CONST(a, f, char *), *FIELD_AT_CONST(b, f, char *));
    case FIELD_CIDR: {
        const struct cidr *c = FIELD_AT_CONST(a, f, struct cidr);
        const struct cidr *d = FIELD_AT_CONST(b, f, struct cidr);
        return c->set == d->set && (!c->set || (c->family == d->family &&
               c->prefix_len == d->prefix_len && memcmp(c->addr, d->addr, 16) == 0));
    }
    case FIELD_RAIL_SELECT: {
        const struct policy *p = (const void *)a, *q = (const void *)b;
        if (p->rails.select != q->rails.select || p->rails.n_list != q->rails.n_list)
            return false;
        for (size_t i = 0; i < p->rails.n_list; i++)
            if (!streq(p->rails.list[i].device, q->rails.list[i].device) ||
                p->rails.list[i].port != q->rails.list[i].port)
                return false;
        return true;
    }
    case FIELD_SYSCTL_MAP: {
        const struct policy *p = (const void *)a, *q = (const void *)b;
        if (p->tuning.n_sysctl != q->tuning.n_sysctl)
            return false;
        for (size_t i = 0; i < p->tuning.n_sysctl; i++)
            if (!streq(p->tuning.sysctl[i].key, q->tuning.sysctl[i].key) ||
                !streq(p->tuning.sysctl[i].value, q->tuning.sysctl[i].value))
                return false;
        return true;
    }
    case FIELD_HOST_LIST: {
        const struct policy *p = (const void *)a, *q = (const void *)b;
        if (p->probes.peers.n_hosts != q->probes.peers.n_hosts)
            return false;
        for (size_t i = 0; i < p->probes.peers.n_hosts; i++)
            if (!streq(p->probes.peers.hosts[i], q->probes.peers.hosts[i]))
                return false;
        return true;
    }
    }
#undef EQ
    return false;
}

bool policy_equal(const struct policy *a, const struct policy *b)
{
    for (const struct policy_field *f = policy_schema; f->name; f++)
        if (!field_equal(f, (const char *)a, (const char *)b))
            return false;
    return true;
}

bool policy_sysctl_key_allowed(const char *key)
{
    static const char *const prefixes[] = { "net.", "vm." };
    for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
        if (strncmp(key, prefixes[i], strlen(prefixes[i])) == 0 && key[strlen(prefixes[i])])
            return true;
    return streq(key, "kernel.numa_balancing") ||
           strncmp(key, "kernel.numa_balancing_", 22) == 0;
}

bool policy_peers_configured(const struct policy *p)
{
    return p->probes.peers.n_hosts > 0 || p->probes.peers.file;
}

const char *policy_sysctl_get(const struct policy *p, const char *key)
{
    for (size_t i = 0; i < p->tuning.n_sysctl; i++)
        if (streq(p->tuning.sysctl[i].key, key))
            return p->tuning.sysctl[i].value;
    return NULL;
}

const char *link_layer_to_string(enum link_layer l) { return link_layer_names[l]; }
const char *tuning_mode_to_string(enum tuning_mode m) { return tuning_mode_names[m]; }

int policy_load_file(const char *path, struct policy *ret, struct policy_errors *errs)
{
    return policy_load_file_on_host(path, NULL, ret, errs);
}

int policy_load_file_on_host(const char *path, const struct policy_host_check *host,
                             struct policy *ret, struct policy_errors *errs)
{
    _cleanup_free_ char *text = NULL;
    size_t len;
    int r = read_file_full(path, POLICY_MAX_FILE_SIZE, &text, &len);
    if (r == -ENOENT)
        return r;
    if (r < 0) {
        char *msg = NULL;
        if (asprintf(&msg, "%s: cannot read policy: %s%s", path, strerror(-r),
                     r == -EFBIG ? " (limit is 1 MiB)" : "") >= 0)
            errs->msgs[errs->n++] = msg;
        return r;
    }
    return policy_load_string_on_host(text, len, path, host, ret, errs);
}

int policy_load_builtin(struct policy *ret, struct policy_errors *errs)
{
    return policy_load_string(policy_builtin_yaml, policy_builtin_yaml_len,
                              "<built-in>", ret, errs);
}

int policy_load_configured(const char *path, bool explicit_path, struct policy *ret,
                           struct policy_errors *errs, const char **ret_source)
{
    return policy_load_configured_on_host(path, explicit_path, NULL, ret, errs, ret_source);
}

int policy_load_configured_on_host(const char *path, bool explicit_path,
                                   const struct policy_host_check *host, struct policy *ret,
                                   struct policy_errors *errs, const char **ret_source)
{
    int r = policy_load_file_on_host(path, host, ret, errs);
    *ret_source = path;
    if (r == -ENOENT && !explicit_path) {
        *ret_source = "<built-in>";
        return policy_load_string_on_host(policy_builtin_yaml, policy_builtin_yaml_len,
                                          "<built-in>", host, ret, errs);
    }
    if (r == -ENOENT && errs->n < POLICY_MAX_ERRORS) {
        char *msg = NULL;
        if (asprintf(&msg, "%s: cannot read policy: %s", path, strerror(ENOENT)) >= 0)
            errs->msgs[errs->n++] = msg;
    }
    return r;
}

void policy_errors_print(const struct policy_errors *errs, FILE *f)
{
    for (size_t i = 0; i < errs->n; i++)
        fprintf(f, "%s\n", errs->msgs[i]);
    if (errs->n_dropped)
        fprintf(f, "(%zu more errors not shown)\n", errs->n_dropped);
}

void policy_errors_done(struct policy_errors *errs)
{
    for (size_t i = 0; i < errs->n; i++)
        free(errs->msgs[i]);
    memset(errs, 0, sizeof(*errs));
}

int policy_light_tos(const struct policy *p)
{
    return p->probes.light_dscp == POLICY_DSCP_DEFAULT ? -1 : p->probes.light_dscp << 2;
}

int policy_roce_family(const struct policy *p)
{
    return p->rails.roce.address_family == ADDR_FAMILY_IPV4 ? AF_INET : AF_INET6;
}
