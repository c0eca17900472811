/* SPDX-License-Identifier: ISC */
/* Malformed policies and the exact first error each must produce ("LINE:COL: message").
 * The test also asserts the source line and caret printed under each message. */
#pragma once

struct bad_policy {
    const char *name;
    const char *yaml;
    const char *error;
};

static const struct bad_policy bad_policies[] = {
    /* unknown keys */
    { "unknown top-level key", "version: 1\nrail:\n  select: all\n",
      "2:1: unknown key 'rail' at top level (did you mean 'rails'?)" },
    { "unknown nested key", "rails:\n  qos:\n    pfc_prio: 3\n",
      "3:5: unknown key 'pfc_prio' in rails.qos (did you mean 'pfc_priority'?)" },
    { "unknown key, no close match", "checks:\n  zzzz: 1\n",
      "2:3: unknown key 'zzzz' in checks (expected one of: interval, flaps, counters, fec, module, nic)" },
    { "unknown key in a rail entry", "rails:\n  select:\n    - {device: mlx5_0, prot: 1}\n",
      "3:24: unknown key 'prot' in rails.select[0] (did you mean 'port'?)" },
    { "non-scalar key", "? [a]\n: 1\n", "1:3: keys must be strings (in top level)" },
    /* rails.cc (issue 46): a profile by its name, its 21 parameters each once, in range */
    { "unknown cc profile", "rails:\n  cc: {profile: driver-default}\n",
      "2:17: invalid value 'driver-default' for rails.cc.profile (did you mean "
      "'driver-defaults'? expected one of: none, driver-defaults, roce-optimized-v26.7, "
      "roce-optimized-v26.10, off, site)" },
    { "cc parameter twice, past the 16th key",
      "rails:\n  cc:\n    params:\n      np_enabled: 1\n      np_enabled: 0\n",
      "5:7: duplicate key 'rails.cc.params.np_enabled' (first set at line 4)" },
    { "cc parameter out of range", "rails:\n  cc:\n    params: {cnp_dscp: 64}\n",
      "3:24: value 64 out of range for rails.cc.params.cnp_dscp (0..63)" },
    /* wrong types */
    { "scalar for a mapping", "rails: 5\n", "1:8: expected a mapping for rails, got '5'" },
    { "sequence for a mapping", "probes:\n  - a\n",
      "2:3: expected a mapping for probes, got a sequence" },
    { "word for an integer", "rails:\n  expect_count: eight\n",
      "2:17: expected an integer for rails.expect_count, got 'eight'" },
    { "quoted integer", "rails:\n  expect_count: \"8\"\n",
      "2:17: expected an integer for rails.expect_count, got the quoted string '8'" },
    { "mapping for an integer", "rails:\n  expect_count: {a: 1}\n",
      "2:17: expected an integer for rails.expect_count, got a mapping" },
    { "fraction for an integer", "rails:\n  expect_count: 1.5\n",
      "2:17: expected an integer for rails.expect_count, got '1.5'" },
    { "yes for a boolean", "tuning:\n  revert_on_stop: yes\n",
      "2:19: expected a boolean (true or false) for tuning.revert_on_stop, got 'yes'" },
    { "word for a number", "probes:\n  regression:\n    ratio: fast\n",
      "3:12: expected a number for probes.regression.ratio, got 'fast'" },
    { "nan for a number", "probes:\n  regression:\n    ratio: .nan\n",
      "3:12: expected a number for probes.regression.ratio, got '.nan'" },
    { "sequence for sysctl", "tuning:\n  sysctl: [a, b]\n",
      "2:11: expected a mapping for tuning.sysctl, got a sequence" },
    /* ranges */
    { "negative busy rate", "probes:\n  defer:\n    busy_gbps: -1\n",
      "3:16: value -1 out of range for probes.defer.busy_gbps (0..1e+06)" },
    { "light budget above 1e12", "probes:\n  defer:\n    light_bytes: 1000000000001\n",
      "3:18: value 1000000000001 out of range for probes.defer.light_bytes (0..1000000000000)" },
    { "negative light budget", "probes:\n  defer: {light_bytes: -1}\n",
      "2:24: value -1 out of range for probes.defer.light_bytes (0..1000000000000)" },
    { "light dscp 64", "probes:\n  light_dscp: 64\n",
      "2:15: value 64 out of range for probes.light_dscp (0..63)" },
    { "light dscp a word", "probes:\n  light_dscp: cs1\n",
      "2:15: expected 'default' or an integer for probes.light_dscp, got 'cs1'" },
    { "size above range", "probes:\n  rdma:\n    size: 70000\n",
      "3:11: value 70000 out of range for probes.rdma.size (1..65536)" },
    { "negative dscp", "rails:\n  qos:\n    dscp: -1\n",
      "3:11: value -1 out of range for rails.qos.dscp (0..63)" },
    { "dscp 64", "rails:\n  qos:\n    dscp: 64\n",
      "3:11: value 64 out of range for rails.qos.dscp (0..63)" },
    { "pfc priority 8", "rails:\n  qos: {pfc_priority: 8}\n",
      "2:23: value 8 out of range for rails.qos.pfc_priority (0..7)" },
    { "integer overflow", "rails:\n  expect_count: 99999999999999999999999\n",
      "2:17: value 99999999999999999999999 out of range for rails.expect_count (0..64)" },
    { "ratio below 1", "probes:\n  regression:\n    ratio: 0.5\n",
      "3:12: value 0.5 out of range for probes.regression.ratio (1..100)" },
    { "fraction above 1", "probes:\n  limits: {rdma_min_bw_fraction: 1.5}\n",
      "2:34: value 1.5 out of range for probes.limits.rdma_min_bw_fraction (0..1)" },
    { "RDMA MTU not a power of two", "rails:\n  mtu:\n    rdma_active_min: 4000\n",
      "3:22: invalid RDMA MTU 4000 for rails.mtu.rdma_active_min "
      "(expected 0, 256, 512, 1024, 2048 or 4096)" },
    { "gid index word", "rails:\n  roce:\n    gid_index: first\n",
      "3:16: expected 'auto' or an integer for rails.roce.gid_index, got 'first'" },
    { "gid index range", "rails:\n  roce:\n    gid_index: 5000\n",
      "3:16: value 5000 out of range for rails.roce.gid_index (0..4095)" },
    { "port 0", "rails:\n  select:\n    - {device: mlx5_0, port: 0}\n",
      "3:30: value 0 out of range for rails.select[0].port (1..255)" },
    /* durations */
    { "duration without unit", "checks:\n  interval: 30\n",
      "2:13: invalid duration '30' for checks.interval (write e.g. 250ms, 30s, 10m)" },
    { "duration with a long unit", "checks:\n  interval: 30sec\n",
      "2:13: invalid duration '30sec' for checks.interval (write e.g. 250ms, 30s, 10m)" },
    { "duration below range", "checks:\n  interval: 500ms\n",
      "2:13: duration 500ms out of range for checks.interval (1s..1h)" },
    { "duration overflow", "probes:\n  interval: 99999999999999999999h\n",
      "2:13: duration 99999999999999999999h out of range for probes.interval (1s..24h)" },
    { "negative duration", "checks:\n  flaps:\n    window: -5m\n",
      "3:13: invalid duration '-5m' for checks.flaps.window (write e.g. 250ms, 30s, 10m)" },
    { "sticky window past a week", "checks:\n  counters:\n    sticky_window: 200h\n",
      "3:20: duration 200h out of range for checks.counters.sticky_window (0s..168h)" },
    { "escalation past its bound", "checks:\n  counters:\n    escalate: {warnings: 65}\n",
      "3:26: value 65 out of range for checks.counters.escalate.warnings (0..64)" },
    /* enums */
    { "enum typo", "rails:\n  qos:\n    trust: dcsp\n",
      "3:12: invalid value 'dcsp' for rails.qos.trust (did you mean 'dscp'? "
      "expected one of: dscp, pcp)" },
    { "enum unknown", "tuning:\n  mode: yolo\n",
      "2:9: invalid value 'yolo' for tuning.mode (expected one of: enforce, verify, off)" },
    { "link layer roce", "rails:\n  link_layer: roce\n",
      "2:15: invalid value 'roce' for rails.link_layer "
      "(expected one of: ethernet, infiniband, any)" },
    /* CIDR */
    { "CIDR prefix too long", "rails:\n  roce:\n    subnet: 10.0.0.0/33\n",
      "3:13: invalid CIDR subnet '10.0.0.0/33' for rails.roce.subnet "
      "(write e.g. 10.0.0.0/8 or fd00::/64)" },
    { "CIDR without prefix", "rails:\n  roce:\n    subnet: 10.0.0.0\n",
      "3:13: invalid CIDR subnet '10.0.0.0' for rails.roce.subnet "
      "(write e.g. 10.0.0.0/8 or fd00::/64)" },
    { "CIDR host bits", "rails:\n  roce:\n    subnet: 10.1.2.3/8\n",
      "3:13: CIDR subnet '10.1.2.3/8' for rails.roce.subnet has host bits set "
      "(did you mean '10.0.0.0/8'?)" },
    { "CIDR bad IPv6", "rails:\n  roce:\n    subnet: fd00::zz/64\n",
      "3:13: invalid CIDR subnet 'fd00::zz/64' for rails.roce.subnet "
      "(write e.g. 10.0.0.0/8 or fd00::/64)" },
    { "subnet of the other family (IPv6 range, ipv4 default)", "rails:\n  roce:\n    subnet: fd00::/64\n",
      "3:13: rails.roce.subnet fd00::/64 is an IPv6 range, but rails.roce.address_family is ipv4: "
      "no GID could match it (and NCCL would ignore it as NCCL_IB_ADDR_RANGE)" },
    { "subnet of the other family (family after it)",
      "rails:\n  roce:\n    subnet: 10.0.0.0/8\n    address_family: ipv6\n",
      "3:13: rails.roce.subnet 10.0.0.0/8 is an IPv4 range, but rails.roce.address_family is ipv6: "
      "no GID could match it (and NCCL would ignore it as NCCL_IB_ADDR_RANGE)" },
    /* duplicates */
    { "duplicate top-level key", "version: 1\nversion: 1\n",
      "2:1: duplicate key 'version' (first set at line 1)" },
    { "duplicate key in a flow mapping", "rails:\n  mtu: {netdev_min: 9000, netdev_min: 4200}\n",
      "2:27: duplicate key 'rails.mtu.netdev_min' (first set at line 2)" },
    { "duplicate sysctl key",
      "tuning:\n  sysctl:\n    net.core.rmem_max: 1\n    net.core.rmem_max: 2\n",
      "4:5: duplicate key 'net.core.rmem_max' in tuning.sysctl" },
    { "duplicate rail", "rails:\n  select:\n    - {device: mlx5_0, port: 1}\n"
      "    - {device: mlx5_0, port: 1}\n",
      "4:7: duplicate rail mlx5_0/1 in rails.select" },
    /* YAML syntax, at libyaml's own position */
    { "unclosed flow mapping", "rails: {select: all\n",
      "2:1: YAML syntax error: did not find expected ',' or '}' "
      "(while parsing a flow mapping at line 1)" },
    { "tab indentation", "rails:\n\tselect: all\n",
      "2:1: YAML syntax error: found character that cannot start any token "
      "(while scanning for the next token at line 2)" },
    { "bad indentation", "rails:\n  select: all\n bad: 1\n",
      "3:2: YAML syntax error: did not find expected key "
      "(while parsing a block mapping at line 1)" },
    { "undefined alias", "rails: *nowhere\n",
      "1:8: YAML syntax error: found undefined alias" },
    /* the root */
    { "sequence root", "- a\n- b\n",
      "1:1: the policy must be a mapping of keys at the top level, not a sequence" },
    { "scalar root", "hello\n",
      "1:1: the policy must be a mapping of keys at the top level, not 'hello'" },
    { "two documents", "version: 1\n---\nversion: 1\n",
      "3:1: the policy must be a single YAML document" },
    /* version */
    { "version 2", "version: 2\n",
      "1:10: unsupported policy version 2 (this fabtune reads version 1)" },
    { "version word", "version: one\n", "1:10: expected an integer for version, got 'one'" },
    /* sysctl allowlist and shape */
    { "sysctl outside allowlist", "tuning:\n  sysctl:\n    kernel.panic: 1\n",
      "3:5: sysctl key 'kernel.panic' is not allowed "
      "(allowed prefixes: net., vm., kernel.numa_balancing)" },
    { "sysctl slash form", "tuning:\n  sysctl:\n    net/core/rmem_max: 1\n",
      "3:5: invalid sysctl key 'net/core/rmem_max' in tuning.sysctl "
      "(dotted, at most 127 characters, e.g. net.core.rmem_max)" },
    { "sysctl bare prefix", "tuning:\n  sysctl:\n    net.: 1\n",
      "3:5: invalid sysctl key 'net.' in tuning.sysctl "
      "(dotted, at most 127 characters, e.g. net.core.rmem_max)" },
    /* per-rail sysctl keys (rail_sysctl.h) */
    { "sysctl @ inside a component", "tuning:\n  sysctl:\n    net.ipv4.conf.eth@rail.rp_filter: 2\n",
      "3:5: invalid per-rail sysctl key 'net.ipv4.conf.eth@rail.rp_filter' in tuning.sysctl: "
      "'@' must begin a component (net.ipv4.conf.@rail.arp_ignore)" },
    { "sysctl unknown @ name", "tuning:\n  sysctl:\n    net.ipv4.conf.@rails.rp_filter: 2\n",
      "3:5: invalid per-rail sysctl key 'net.ipv4.conf.@rails.rp_filter' in tuning.sysctl: "
      "the @ component is @rail (each rail's netdev) or @multirail (each rail's netdev on a "
      "node with two or more)" },
    { "sysctl two @ components", "tuning:\n  sysctl:\n    net.ipv4.conf.@rail.@rail: 2\n",
      "3:5: invalid per-rail sysctl key 'net.ipv4.conf.@rail.@rail' in tuning.sysctl: "
      "a key has at most one @ component" },
    { "sysctl @ outside per-interface", "tuning:\n  sysctl:\n    net.core.@rail.rmem_max: 1\n",
      "3:5: invalid per-rail sysctl key 'net.core.@rail.rmem_max' in tuning.sysctl: the @ "
      "component follows net.ipv4.conf, net.ipv4.neigh, net.ipv6.conf or net.ipv6.neigh, "
      "the kernel's per-interface directories" },
    { "sysctl @ last", "tuning:\n  sysctl:\n    net.ipv4.conf.@multirail: 1\n",
      "3:5: invalid per-rail sysctl key 'net.ipv4.conf.@multirail' in tuning.sysctl: "
      "the @ component needs a sysctl after it (net.ipv4.conf.@rail.arp_ignore)" },
    { "sysctl @ key too long", "tuning:\n  sysctl:\n    net.ipv4.conf.@rail.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: 1\n",
      "3:5: invalid per-rail sysctl key 'net.ipv4.conf.@rail.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' in tuning.sysctl: "
      "a 15-character netdev name would make the key too long" },
    { "sysctl @rail and @multirail", "tuning:\n  sysctl:\n    net.ipv4.conf.@rail.arp_ignore: 1\n"
      "    net.ipv4.conf.@multirail.arp_ignore: 2\n",
      "4:5: duplicate key 'net.ipv4.conf.@multirail.arp_ignore' in tuning.sysctl: "
      "'net.ipv4.conf.@rail.arp_ignore' names the same sysctls" },
    { "sysctl value null", "tuning:\n  sysctl:\n    net.core.rmem_max:\n",
      "3:23: expected a value for sysctl key 'net.core.rmem_max', got null" },
    { "sysctl value mapping", "tuning:\n  sysctl:\n    vm.swappiness: {a: 1}\n",
      "3:20: expected a value for sysctl key 'vm.swappiness', got a mapping" },
    /* rails.select */
    { "select word", "rails:\n  select: some\n",
      "2:11: invalid value 'some' for rails.select (expected 'all' or a list of "
      "{device: NAME, port: N})" },
    { "select empty list", "rails:\n  select: []\n",
      "2:11: rails.select lists no rails (write 'all' or list at least one)" },
    { "rail without port", "rails:\n  select:\n    - {device: mlx5_0}\n",
      "3:7: rails.select[0] needs both 'device' and 'port'" },
    { "rail device with a space", "rails:\n  select:\n    - {device: 'mlx5 0', port: 1}\n",
      "3:16: invalid name 'mlx5 0' for rails.select[0].device "
      "(letters, digits, '_', '-', '.'; 63 characters at most)" },
    /* paths and names */
    { "relative output path", "outputs:\n  nccl_env: nccl.env\n",
      "2:13: outputs.nccl_env must be an absolute path or null, got 'nccl.env'" },
    { "null socket", "control:\n  socket: null\n",
      "2:11: control.socket must be an absolute path, got null" },
    { "socket path too long", "control:\n  socket: /run/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.sock\n",
      "2:11: path for control.socket is too long (107 bytes at most)" },
    { "group with a space", "control:\n  group: 'bad group'\n",
      "2:10: invalid name 'bad group' for control.group "
      "(letters, digits, '_', '-', '.'; 32 characters at most)" },
    { "NUL in a string", "control:\n  group: \"a\\0b\"\n",
      "2:10: value for control.group contains a NUL byte" },
    /* probes.peers */
    { "peer host with an underscore", "probes:\n  peers:\n    hosts: [node-a, node_b]\n",
      "3:21: invalid host 'node_b' in probes.peers.hosts (a host name, an IPv4 or an IPv6 address)" },
    { "peer hosts as a string", "probes:\n  peers:\n    hosts: node-a\n",
      "3:12: invalid value 'node-a' for probes.peers.hosts (expected a list of host names or addresses)" },
    { "peer host a mapping", "probes:\n  peers:\n    hosts: [{a: 1}]\n",
      "3:13: expected a host name or an address for probes.peers.hosts, got a mapping" },
    { "peers k of 0", "probes:\n  peers: {k: 0}\n",
      "2:14: value 0 out of range for probes.peers.k (1..64)" },
    /* aliases cannot loop: a mapping that refers to itself is just a wrong shape */
    { "self-referencing alias", "rails: &r\n  mtu: *r\n",
      "2:3: unknown key 'mtu' in rails.mtu (expected one of: netdev_min, rdma_active_min)" },
};
