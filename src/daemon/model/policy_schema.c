/* SPDX-License-Identifier: ISC */
/* The policy schema: every key, its type, bounds and where it lives in struct policy. */
#include "config.h"

#include <stddef.h>

#include "cc.h"
#include "policy.h"
#include "policy_schema.h"

const char *const link_layer_names[] = { "ethernet", "infiniband", "any", NULL };
const char *const requirement_names[] = { "required", "optional", "ignore", NULL };
const char *const tuning_mode_names[] = { "enforce", "verify", "off", NULL };
static const char *const rail_select_names[] = { "all", NULL };
static const char *const family_names[] = { "ipv4", "ipv6", NULL };
static const char *const trust_names[] = { "dscp", "pcp", NULL };
static const char *const topology_names[] = { "any", "distinct_switches", NULL };

#define AT(member) .offset = offsetof(struct policy, member)
#define UINT(n, member, lo, hi) { n, FIELD_UINT, AT(member), .min = (lo), .max = (hi) }
#define DBL(n, member, lo, hi) { n, FIELD_DOUBLE, AT(member), .fmin = (lo), .fmax = (hi) }
#define DUR(n, member, lo, hi) { n, FIELD_DURATION, AT(member), .min = (lo), .max = (hi) }
#define ENUM(n, member, tbl) { n, FIELD_ENUM, AT(member), .names = (tbl) }
#define BOOL(n, member) { n, FIELD_BOOL, AT(member) }
#define MAP(n, tbl) { n, FIELD_MAP, .children = (tbl) }
#define END { NULL, 0 }

#define MS (int64_t)USEC_PER_MSEC
#define S (int64_t)USEC_PER_SEC
#define MIN (int64_t)USEC_PER_MINUTE
#define HOUR (int64_t)USEC_PER_HOUR

static const struct policy_field mtu_fields[] = {
    UINT("netdev_min", rails.mtu.netdev_min, 0, 65535),
    { "rdma_active_min", FIELD_IB_MTU, AT(rails.mtu.rdma_active_min) },
    END,
};

static const struct policy_field roce_fields[] = {
    UINT("version", rails.roce.version, 1, 2),
    ENUM("address_family", rails.roce.address_family, family_names),
    { "gid_index", FIELD_GID_INDEX, AT(rails.roce.gid_index), .min = 0, .max = 4095 },
    { "subnet", FIELD_CIDR, AT(rails.roce.subnet), .nullable = 1 },
    END,
};

static const struct policy_field qos_fields[] = {
    UINT("dscp", rails.qos.dscp, 0, 63),
    UINT("pfc_priority", rails.qos.pfc_priority, 0, 7),
    BOOL("pfc_exclusive", rails.qos.pfc_exclusive),
    ENUM("trust", rails.qos.trust, trust_names),
    ENUM("ecn", rails.qos.ecn, requirement_names),
    UINT("cnp_dscp", rails.qos.cnp_dscp, 0, 63),
    END,
};

static const struct policy_field pcie_fields[] = {
    UINT("min_width", rails.pcie.min_width, 0, 32),
    DBL("min_speed_gts", rails.pcie.min_speed_gts, 0, 128),
    UINT("min_mrrs", rails.pcie.min_mrrs, 0, 4096),
    ENUM("acs", rails.pcie.acs, requirement_names),
    END,
};

static const struct policy_field neighbors_fields[] = {
    ENUM("lldp", rails.neighbors.lldp, requirement_names),
    { "lldpd_socket", FIELD_PATH, AT(rails.neighbors.lldpd_socket), .max = 107 },
    DUR("bound", rails.neighbors.bound, 1 * S, 1 * HOUR),
    { "switch", FIELD_PATTERN, AT(rails.neighbors.switch_pattern), .nullable = 1 },
    { "port", FIELD_PATTERN, AT(rails.neighbors.port_pattern), .nullable = 1 },
    UINT("vlan", rails.neighbors.vlan, 0, 4094),
    END,
};

/* rails.cc: the profile, each parameter of cc_params.h (null: the profile's), the tool. */
static const char *const cc_firmware_names[] = { "auto", "off", NULL };
#define CC_FIELD(id, name, hi) \
    { #name, FIELD_UINT, AT(rails.cc.params[CC_##id]), .min = 0, .max = (hi), .nullable = 1 },
static const struct policy_field cc_param_fields[] = {
    CC_PARAM_LIST(CC_FIELD)
    END,
};
#undef CC_FIELD

static const struct policy_field cc_fields[] = {
    ENUM("profile", rails.cc.profile, cc_profile_names),
    MAP("params", cc_param_fields),
    ENUM("firmware", rails.cc.firmware, cc_firmware_names),
    DUR("firmware_timeout", rails.cc.firmware_timeout, 1 * S, 5 * MIN),
    DUR("firmware_every", rails.cc.firmware_every, 1 * MIN, 7 * 24 * HOUR),
    END,
};

/* In check_uniform.c's order. */
static const struct policy_field uniform_fields[] = {
    BOOL("rate", rails.uniform.compare[0]),
    BOOL("width", rails.uniform.compare[1]),
    BOOL("mtu", rails.uniform.compare[2]),
    BOOL("firmware", rails.uniform.compare[3]),
    BOOL("vendor", rails.uniform.compare[4]),
    BOOL("driver", rails.uniform.compare[5]),
    END,
};

static const struct policy_field rails_fields[] = {
    { "select", FIELD_RAIL_SELECT, AT(rails), .names = rail_select_names },
    ENUM("link_layer", rails.link_layer, link_layer_names),
    { "expect_count", FIELD_UINT, AT(rails.expect_count), .min = 0, .max = POLICY_MAX_RAILS,
      .nullable = 1 },
    UINT("min_rate_gbps", rails.min_rate_gbps, 0, 3200),
    MAP("mtu", mtu_fields),
    MAP("roce", roce_fields),
    MAP("qos", qos_fields),
    MAP("cc", cc_fields),
    MAP("pcie", pcie_fields),
    ENUM("gpudirect", rails.gpudirect, requirement_names),
    ENUM("topology", rails.topology, topology_names),
    MAP("neighbors", neighbors_fields),
    MAP("uniform", uniform_fields),
    END,
};

static const struct policy_field flaps_fields[] = {
    DUR("window", checks.flaps.window, 10 * S, 24 * HOUR),
    UINT("max", checks.flaps.max, 0, 100000),
    END,
};

static const struct policy_field escalate_fields[] = {
    UINT("warnings", checks.counters.escalate.warnings, 0, 64),  /* LINK_ESCALATE_MAX */
    DUR("window", checks.counters.escalate.window, 1 * S, 7 * 24 * HOUR),
    END,
};

static const struct policy_field counters_fields[] = {
    DUR("interval", checks.counters.interval, 1 * S, 1 * HOUR),
    DBL("loss", checks.counters.loss, 0, 1e12),
    DBL("congestion", checks.counters.congestion, 0, 1e12),
    DBL("misconfig", checks.counters.misconfig, 0, 1e12),
    DBL("starvation", checks.counters.starvation, 0, 1e12),
    DBL("pfc_storm", checks.counters.pfc_storm, 0, 1e12),
    DBL("link", checks.counters.link, 0, 1e12),
    DBL("link_down", checks.counters.link_down, 0, 1e12),
    DBL("qp_error", checks.counters.qp_error, 0, 1e12),
    DUR("sticky_window", checks.counters.sticky_window, 0, 7 * 24 * HOUR),
    MAP("escalate", escalate_fields),
    END,
};

static const struct policy_field fec_fields[] = {
    DBL("kp4_limit", checks.fec.kp4_limit, 1e-15, 1e-1),
    DBL("kr4_limit", checks.fec.kr4_limit, 1e-15, 1e-1),
    DBL("pre_fec_margin", checks.fec.pre_fec_margin, 1e-6, 1.0),
    DBL("post_fec_ber", checks.fec.post_fec_ber, 1e-18, 1e-3),
    END,
};

static const struct policy_field module_fields[] = {
    DBL("rx_power_fall", checks.module.rx_power_fall, 0, 40),
    DUR("rx_power_window", checks.module.rx_power_window, 1 * S, 7 * 24 * HOUR),
    END,
};

static const struct policy_field nic_fields[] = {
    DUR("window", checks.nic.window, 1 * S, 7 * 24 * HOUR),
    UINT("repeats", checks.nic.repeats, 0, 16),     /* NIC_EVENTS_KEPT */
    END,
};

static const struct policy_field checks_fields[] = {
    DUR("interval", checks.interval, 1 * S, 1 * HOUR),
    MAP("flaps", flaps_fields),
    MAP("counters", counters_fields),
    MAP("fec", fec_fields),
    MAP("module", module_fields),
    MAP("nic", nic_fields),
    END,
};

static const struct policy_field tuning_fields[] = {
    ENUM("mode", tuning.mode, tuning_mode_names),
    BOOL("revert_on_stop", tuning.revert_on_stop),
    /* Keys, per-rail ones (@rail, @multirail) too: policy_load.c and rail_sysctl.h. */
    { "sysctl", FIELD_SYSCTL_MAP, AT(tuning) },
    END,
};

static const struct policy_field rdma_bw_fields[] = {
    DUR("duration", probes.rdma.bandwidth.duration, 10 * MS, 10 * S),
    UINT("size", probes.rdma.bandwidth.size, 1, 16 * 1024 * 1024),
    END,
};

static const struct policy_field rdma_probe_fields[] = {
    UINT("iterations", probes.rdma.iterations, 10, 1000000),
    UINT("size", probes.rdma.size, 1, 65536),
    MAP("bandwidth", rdma_bw_fields),
    END,
};

static const struct policy_field tcp_bw_fields[] = {
    DUR("duration", probes.tcp.bandwidth.duration, 10 * MS, 10 * S),
    END,
};

static const struct policy_field tcp_probe_fields[] = {
    UINT("iterations", probes.tcp.iterations, 10, 1000000),
    UINT("size", probes.tcp.size, 1, 65536),
    MAP("bandwidth", tcp_bw_fields),
    END,
};

static const struct policy_field regression_fields[] = {
    UINT("baseline_runs", probes.regression.baseline_runs, 1, 1000),
    DBL("ratio", probes.regression.ratio, 1.0, 100.0),
    UINT("consecutive", probes.regression.consecutive, 1, 100),
    DBL("rdma_min_excess_us", probes.regression.rdma_min_excess_us, 0, 1e6),
    DBL("tcp_min_excess_us", probes.regression.tcp_min_excess_us, 0, 1e6),
    END,
};

static const struct policy_field limits_fields[] = {
    DBL("rdma_p99_us", probes.limits.rdma_p99_us, 0, 1e6),
    DBL("tcp_p99_us", probes.limits.tcp_p99_us, 0, 1e6),
    DBL("rdma_min_bw_fraction", probes.limits.rdma_min_bw_fraction, 0, 1),
    END,
};

static const struct policy_field peers_fields[] = {
    { "hosts", FIELD_HOST_LIST, AT(probes.peers) },
    { "file", FIELD_PATH, AT(probes.peers.file), .nullable = 1 },
    UINT("k", probes.peers.k, 1, 64),
    UINT("port", probes.peers.port, 1, 65535),
    UINT("max_sessions", probes.peers.max_sessions, 1, 64),
    DUR("session_limit", probes.peers.session_limit, 1 * S, 10 * MIN),
    UINT("unreachable_degraded", probes.peers.unreachable_degraded, 0, 4096),
    END,
};

static const struct policy_field defer_fields[] = {
    DBL("busy_gbps", probes.defer.busy_gbps, 0, 1e6),
    DUR("hold", probes.defer.hold, 0, 24 * HOUR),
    BOOL("jobs", probes.defer.jobs),
    { "light_bytes", FIELD_UINT64, AT(probes.defer.light_bytes), .min = 0, .max = 1000000000000LL },
    END,
};

static const struct policy_field probes_fields[] = {
    BOOL("enabled", probes.enabled),
    DUR("interval", probes.interval, 1 * S, 24 * HOUR),
    MAP("rdma", rdma_probe_fields),
    MAP("tcp", tcp_probe_fields),
    MAP("regression", regression_fields),
    MAP("limits", limits_fields),
    MAP("peers", peers_fields),
    MAP("defer", defer_fields),
    { "light_dscp", FIELD_DSCP, AT(probes.light_dscp), .min = 0, .max = 63 },
    END,
};

static const struct policy_field ras_fields[] = {
    BOOL("enabled", jobs.ras.enabled),
    DUR("interval", jobs.ras.interval, 1 * S, 1 * HOUR),
    DUR("timeout", jobs.ras.timeout, 1 * S, 1 * MIN),
    END,
};

static const struct policy_field jobs_fields[] = {
    MAP("ras", ras_fields),
    END,
};

static const struct policy_field outputs_fields[] = {
    { "nccl_env", FIELD_PATH, AT(outputs.nccl_env), .nullable = 1 },
    { "nccl_conf", FIELD_PATH, AT(outputs.nccl_conf), .nullable = 1 },
    { "prometheus_textfile", FIELD_PATH, AT(outputs.prometheus_textfile), .nullable = 1 },
    END,
};

static const struct policy_field control_fields[] = {
    { "socket", FIELD_PATH, AT(control.socket), .max = 107 },  /* sun_path */
    { "group", FIELD_NAME, AT(control.group) },
    END,
};

static const struct policy_field host_fields[] = {
    ENUM("iommu", host.iommu, requirement_names),
    ENUM("irq_affinity", host.irq_affinity, requirement_names),
    { "cpufreq", FIELD_NAME, AT(host.cpufreq) },
    END,
};

const struct policy_field policy_schema[] = {
    { "version", FIELD_VERSION, AT(version) },
    MAP("rails", rails_fields),
    MAP("checks", checks_fields),
    MAP("tuning", tuning_fields),
    MAP("probes", probes_fields),
    MAP("host", host_fields),
    MAP("jobs", jobs_fields),
    MAP("outputs", outputs_fields),
    MAP("control", control_fields),
    END,
};
