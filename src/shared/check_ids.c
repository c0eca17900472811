/* SPDX-License-Identifier: ISC */
/* The check-id table (check_ids.h): a new check id is one row here, with its texts for the
 * operator, in fabtuned(8)'s CHECKS list, and under its family's entry in
 * systemd/fabtune.catalog. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "check_ids.h"
#include "macro.h"
#include "strutil.h"

static const struct {
    const char *name, *message_id;
} families[CHECK_FAMILY_COUNT] = {
    [CHECK_FAMILY_RAILS] = { "rails", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a01" },
    [CHECK_FAMILY_PORT] = { "port", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a02" },
    [CHECK_FAMILY_NETDEV] = { "netdev", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a03" },
    [CHECK_FAMILY_GID] = { "gid", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a04" },
    [CHECK_FAMILY_QOS] = { "qos", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a05" },
    [CHECK_FAMILY_COUNTERS] = { "counters", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a06" },
    [CHECK_FAMILY_HOST] = { "host", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a07" },
    [CHECK_FAMILY_TUNING] = { "tuning", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a08" },
    [CHECK_FAMILY_PROBE] = { "probe", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a09" },
    [CHECK_FAMILY_FABRIC] = { "fabric", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a0a" },
    [CHECK_FAMILY_JOB] = { "job", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a0b" },
    [CHECK_FAMILY_NIC] = { "nic", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a0c" },
    [CHECK_FAMILY_DIFF] = { "diff", NULL },
};

const struct check_id check_ids[] = {
    { "port.link_layer", CHECK_FAMILY_PORT, { "link_layer" },
      .meaning = "each rail's port runs the policy's link layer: Ethernet (RoCE) or InfiniBand",
      .reads = "ports/N/link_layer and the device's node_type under /sys/class/infiniband/DEV",
      .expects = "rails.link_layer's; another is an error; an iWARP device (node_type 4) is unknown: "
                 "fabtune judges InfiniBand and RoCE only",
      .fix = "set a VPI HCA's port type with mlxconfig LINK_TYPE_P1, or leave the rail out with "
             "rails.select" },
    { "port.state", CHECK_FAMILY_PORT, { "state" },
      .meaning = "the port is ACTIVE",
      .reads = "ports/N/state under /sys/class/infiniband/DEV",
      .expects = "4: ACTIVE; any other state is an error, one the driver does not expose unknown",
      .fix = "a DOWN port has lost its link: check the cable, the switch port and 'ip link show' of "
             "its netdev" },
    { "port.phys_state", CHECK_FAMILY_PORT, { "phys_state" },
      .meaning = "the port's physical link is up",
      .reads = "ports/N/phys_state under /sys/class/infiniband/DEV",
      .expects = "5: LinkUp; Sleep, Polling, Disabled, PortConfigurationTraining, LinkErrorRecovery "
                 "and Phy Test are errors, a state the kernel does not name unknown",
      .fix = "Polling: no peer answers, check the cable and switch port; Disabled: bring the port up; "
             "LinkErrorRecovery: a bad cable, transceiver or connector" },
    { "port.rate", CHECK_FAMILY_PORT, { "rate_bits_per_second" },
      .meaning = "the port trained at its full rate",
      .reads = "ports/N/rate (\"400 Gb/sec (4X NDR)\")",
      .expects = "at least rails.min_rate_gbps (below: an error); a rate not exposed is unknown",
      .fix = "a port below its rate trained down: check the cable, the transceiver and the switch "
             "port's speed" },
    { "port.mtu", CHECK_FAMILY_PORT, { "active_mtu_bytes" },
      .meaning = "the RDMA port's active MTU is large enough",
      .reads = "the port's active MTU from verbs (ibv_query_port); a sysfs tree or snapshot holds "
               "none: unknown",
      .expects = "at least rails.mtu.rdma_active_min (below: an error)",
      .fix = "RoCE's active MTU follows the netdev's: 4096 needs a netdev MTU of at least 4200, on "
             "the switch ports too" },
    { "rails.count", CHECK_FAMILY_RAILS, { "driver" },
      .meaning = "the node has the RDMA rails the policy expects",
      .reads = "the RDMA devices and ports under /sys/class/infiniband, as rails.select and "
               "rails.link_layer keep them",
      .expects = "rails.expect_count rails (unset: at least one) and every rail rails.select names; "
                 "expect_count 0 is a TCP-only node",
      .fix = "check the HCAs' drivers and names ('rdma link show'); on a TCP-only node set "
             "rails: {expect_count: 0}" },
    { "rails.gone", CHECK_FAMILY_RAILS, { NULL },
      .meaning = "no rail that was in the last inventory has left it (an HCA off the bus, a "
                 "driver that let it go)",
      .reads = "the link memory's rails (links.json) against the inventory, and whether a gone "
               "rail's PCI function is still under /sys/bus/pci/devices",
      .expects = "every remembered rail present; a gone one is an error, unless the policy's "
                 "count is met, rails.select leaves it out, or it was forgotten",
      .fix = "reset or reseat the HCA (lspci, the kernel log); a rail meant to be gone: "
             "'fabtunectl forget RAIL', or a policy that no longer expects it" },
    { "rails.uniform", CHECK_FAMILY_RAILS, { NULL },
      .meaning = "the node's rails are alike: a rail that differs from its siblings is suspect",
      .reads = "each rail's rate and width, netdev MTU, fw_ver, PCI vendor and driver; siblings "
               "share a link layer (and, for all but vendor and driver, a PCI vendor:device)",
      .expects = "every rail as most of its siblings (a tie: the higher rate, width, MTU or "
                 "firmware); an odd rail is a warning, unless rails.uniform turns that off",
      .fix = "bring the odd rail to its siblings' value (cable, MTU, firmware), leave it out with "
             "rails.select, or set rails.uniform.ATTR: false where the difference is meant" },
    { "rails.firmware", CHECK_FAMILY_DIFF, { "fw_ver" },
      .meaning = "fabtunectl diff only: the two nodes' HCAs run different firmware",
      .reads = "each rail's fw_ver in the two nodes' reports",
      .expects = "the same firmware version on both nodes",
      .fix = "bring the odd node's HCA firmware to the fleet's version (mlxfwmanager, or the "
             "vendor's tool)" },
    { "gid.nccl", CHECK_FAMILY_GID, { "gid_index" },
      .meaning = "NCCL's own GID selection picks the GID the policy means",
      .reads = "the port's GID table (ports/N/gids, gid_attrs/types), replayed as NCCL 2.26 selects",
      .expects = "the same index for a job without NCCL_IB_* variables (else a warning); a types "
                 "file NCCL cannot open fails its selection: an error",
      .fix = "give jobs fabtune's nccl.env (NCCL_IB_GID_INDEX), or give the rail's netdev an IPv4 "
             "address so that NCCL finds a RoCE v2 GID" },
    { "gid.consistent", CHECK_FAMILY_GID, { "gid_table_size" },
      .meaning = "every RoCE rail uses the same GID index",
      .reads = "the GID index fabtune chose on each RoCE rail",
      .expects = "one index on every rail, as NCCL_IB_GID_INDEX is one value (else a warning)",
      .fix = "configure the rails' addresses alike, so that their GIDs land at the same index" },
    { "gid.roce_v2", CHECK_FAMILY_GID, { NULL },
      .meaning = "the port has GIDs of the policy's RoCE version",
      .reads = "the port's GID table and each entry's type (ports/N/gid_attrs/types)",
      .expects = "a GID of rails.roce.version (none: an error); a port without a gids/ directory is "
                 "unknown",
      .fix = "RoCE GIDs appear when the netdev has addresses: check 'rdma link show' and the "
             "netdev's addresses" },
    { "gid.family", CHECK_FAMILY_GID, { NULL },
      .meaning = "the rail's GID is of the policy's RoCE version and address family",
      .reads = "the GID at rails.roce.gid_index, or with auto the one NCCL would pick under the policy",
      .expects = "a valid GID, not link-local, of rails.roce.version and rails.roce.address_family "
                 "(else an error)",
      .fix = "add an address of that family to the rail's netdev, or point rails.roce.gid_index at "
             "such an entry" },
    { "gid.subnet", CHECK_FAMILY_GID, { NULL },
      .meaning = "the rail's GID address is inside the policy's subnet",
      .reads = "the rail's GID (with auto, every usable one) and rails.roce.subnet",
      .expects = "the address inside rails.roce.subnet (else an error); ok where no subnet is set",
      .fix = "the rail's address is on the wrong network: fix its netdev's address, or "
             "rails.roce.subnet" },
    { "gid.nccl_legacy", CHECK_FAMILY_GID, { NULL },
      .meaning = "NCCL 2.21 to 2.25 can run their GID selection on this port",
      .reads = "the types files (gid_attrs/types/N) that NCCL 2.21's selection reads, under the "
               "policy's family, version and subnet",
      .expects = "each one readable; one that fails (EINVAL) breaks 2.21 to 2.25's selection, 2.26+ "
                 "skip it: a warning",
      .fix = "use NCCL 2.26 or later, or source fabtune's nccl.env: with NCCL_IB_GID_INDEX set no "
             "selection runs" },
    { "link.module", CHECK_FAMILY_PORT, { "link.module.type", "link.module.media", "link.module.vendor",
                                          "link.module.part" },
      .meaning = "the rail's pluggable module reads within its own thresholds, and no lane's Rx power "
                 "is falling",
      .reads = "the module EEPROM (ethtool netlink MODULE_EEPROM_GET: SFF-8636 or CMIS), and each "
               "lane's Rx power kept in the link memory",
      .expects = "every reading within the module's warnings (past an alarm: an error); no lane "
                 "falling faster than checks.module.rx_power_fall a window; a DAC is not monitored",
      .fix = "a falling Rx power is a dirty or damaged fibre or connector, or a failing far-end "
             "laser; a hot module, its airflow: clean, reseat or replace it" },
    { "link.fec", CHECK_FAMILY_PORT, { "link.fec_mode" },
      .meaning = "the rail runs the FEC its lane rate needs",
      .reads = "the active FEC mode (ethtool netlink FEC_GET), and the port's rate and width",
      .expects = "RS(544,514) on 50G and 100G PAM4 lanes (else an error), RS(528,514) on 25G lanes "
                 "(else a warning), any on slower lanes",
      .fix = "set RS-FEC on both ends (ethtool --set-fec IF encoding rs), or let autonegotiation "
             "pick it; the switch port must match" },
    { "link.ber", CHECK_FAMILY_PORT, { NULL },
      .meaning = "the link's bit error ratios before and after FEC are within the FEC's limits",
      .reads = "the bits FEC corrected and the errors it left (FEC_GET statistics, mlx5's *_phy "
               "counters) between two samples, per link and per lane",
      .expects = "pre-FEC under checks.fec.pre_fec_margin of the FEC's limit (past it a warning, past "
                 "the limit an error); post-FEC under checks.fec.post_fec_ber",
      .fix = "a rising pre-FEC BER is a dirty or damaged fibre or connector, a marginal cable or a "
             "failing module: clean or replace it" },
    { "netdev.oper", CHECK_FAMILY_NETDEV, { "netdev.name", "netdev.operstate" },
      .meaning = "the rail's netdev exists and is up, and so are a bond's slaves",
      .reads = "the port's netdev and its operstate under /sys/class/net/IF; a bond's "
               "bonding/slaves and each slave's operstate and carrier",
      .expects = "up (else an error); a bond's slave down is a warning; a RoCE port without its "
                 "netdev is an error, an InfiniBand port needs none",
      .fix = "'ip link set dev IF up'; lowerlayerdown means the link below is down; a netdev that "
             "vanished was renamed or its driver unloaded; a bond's slave down: its cable and "
             "switch port" },
    { "netdev.carrier", CHECK_FAMILY_NETDEV, { "netdev.carrier" },
      .meaning = "the rail's netdev has carrier",
      .reads = "/sys/class/net/IF/carrier",
      .expects = "1; 0 is an error; unreadable (the link administratively down) is unknown",
      .fix = "no carrier: check the cable, the transceiver and the switch port" },
    { "netdev.mtu", CHECK_FAMILY_NETDEV, { "netdev.mtu_bytes" },
      .meaning = "the rail's netdev MTU is large enough",
      .reads = "/sys/class/net/IF/mtu",
      .expects = "at least rails.mtu.netdev_min (below: an error)",
      .fix = "set the MTU on the netdev and on the switch ports alike, in the network's "
             "configuration (netplan, NetworkManager)" },
    { "netdev.flaps", CHECK_FAMILY_NETDEV, { NULL },
      .meaning = "the rail's link does not flap",
      .reads = "the netdev's carrier_changes, sampled by the daemon into its state directory",
      .expects = "at most checks.flaps.max carrier changes in checks.flaps.window (else a warning); "
                 "one sample (a snapshot) is unknown",
      .fix = "reseat or replace the cable or transceiver, and check the switch port's error "
             "counters" },
    { "route.egress", CHECK_FAMILY_NETDEV, { NULL },
      .meaning = "packets from the rail's address to the peers and gateways leave by the rail",
      .reads = "the kernel's route lookups (rtnetlink, as 'ip route get PEER from ADDR') to "
               "probes.peers and the rail's gateways",
      .expects = "each leaves by the rail's netdev (else an error where rails share a subnet, a "
                 "warning otherwise), and the lookup bound to it succeeds",
      .fix = "source routing for the rail: ip rule add from ADDR table N; ip route add SUBNET dev IF "
             "table N (the finding prints the lines)" },
    { "route.arp", CHECK_FAMILY_NETDEV, { "routes.arp_ignore", "routes.arp_announce" },
      .meaning = "no rail answers or asks ARP for another rail's address (ARP flux)",
      .reads = "the effective arp_ignore and arp_announce (the larger of net.ipv4.conf.all and "
               "conf.IF), on a node of two or more RoCE rails",
      .expects = "arp_ignore at least 1 and arp_announce 2 on every rail (else an error); ok on a "
                 "node of one rail",
      .fix = "sysctl -w net.ipv4.conf.IF.arp_ignore=1 net.ipv4.conf.IF.arp_announce=2, or "
             "tuning.sysctl's net.ipv4.conf.@multirail.* keys" },
    { "route.rp_filter", CHECK_FAMILY_NETDEV, { "routes.rp_filter" },
      .meaning = "strict reverse-path filtering drops nothing that arrives on a rail",
      .reads = "the effective rp_filter (net.ipv4.conf.all and conf.IF) of each rail that shares "
               "its subnet with another",
      .expects = "0 or 2 on such a rail (strict, 1, is an error); ok on a node of one rail",
      .fix = "sysctl -w net.ipv4.conf.IF.rp_filter=2, or tuning.sysctl's "
             "net.ipv4.conf.@multirail.rp_filter: 2" },
    { "route.subnets", CHECK_FAMILY_NETDEV, { "routes.subnet", "routes.source_routed" },
      .meaning = "rails that share a subnet have source routing",
      .reads = "the rails' addresses, the routing rules and the routes of each rule's table "
               "(rtnetlink)",
      .expects = "a rule from the rail's address to a table that routes the subnet through its "
                 "netdev (else an error); a rail in two subnets is a warning",
      .fix = "ip rule add from ADDR table N; ip route add SUBNET dev IF table N, or netplan's "
             "routing-policy (the finding prints the lines)" },
    { "route.neighbor", CHECK_FAMILY_NETDEV, { NULL },
      .meaning = "each probed peer's address resolves to its own MAC",
      .reads = "the rails' neighbour (ARP) entries for the addresses of probes.peers (rtnetlink)",
      .expects = "no two peer addresses on one MAC (the peer's ARP flux), no peer on one of this "
                 "node's own MACs (nccl#1405); either is an error",
      .fix = "on the peer: sysctl net.ipv4.conf.all.arp_ignore=1 and arp_announce=2; then here: "
             "ip neigh flush dev IF" },
    { "route.isolation", CHECK_FAMILY_NETDEV, { NULL },
      .meaning = "each peer probe's bytes really went by the rail and by the peer's matching NIC",
      .reads = "the netdevs' byte counters and the RDMA ports' data counters of both nodes around "
               "each peer probe (the peer's responder sends its own)",
      .expects = "the rail's netdev and the peer's netdev of the probed address count at least half "
                 "the payload, both ways (else an error)",
      .fix = "the ARP sysctls (route.arp) and source routing (route.subnets), on both nodes; the "
             "finding names the netdev that carried the bytes" },
    { "fabric.neighbor", CHECK_FAMILY_FABRIC, { NULL },
      .meaning = "the rail has an LLDP neighbour: the switch port it is plugged into",
      .reads = "lldpd's neighbours, asked through its control socket (rails.neighbors.lldpd_socket)",
      .expects = "one neighbour on a link that is up (none: a warning, an error where "
                 "rails.neighbors.lldp is required); without lldpd unknown",
      .fix = "install and enable lldpd; enable LLDP on the switch port; on mlx5 the firmware's own "
             "LLDP agent may take the frames (mlxconfig LLDP_NB_*)" },
    { "fabric.cabling", CHECK_FAMILY_FABRIC, { "neighbors.list.0.system_name" },
      .meaning = "each rail is cabled to the switch port the plan says",
      .reads = "each rail's LLDP neighbour: the switch's name (or chassis id) and its port",
      .expects = "no two rails on one switch port (nor one switch, with rails.topology: "
                 "distinct_switches); names that match rails.neighbors.switch and .port",
      .fix = "check the cable at both ends against the cabling plan: a rail on the wrong switch "
             "sends its traffic across the spine" },
    { "fabric.mtu", CHECK_FAMILY_FABRIC, { "neighbors.list.0.max_frame_size" },
      .meaning = "the switch port takes frames as large as the rail's MTU",
      .reads = "the switch port's advertised maximum frame size (LLDP, 802.3 TLV) and the netdev's "
               "MTU",
      .expects = "at least the MTU plus 18 bytes (22 with rails.neighbors.vlan; below: an error); "
                 "not advertised: unknown",
      .fix = "raise the switch port's MTU, or lower the rail's: the switch drops the larger frames "
             "and RDMA retransmits them without an error" },
    { "fabric.vlan", CHECK_FAMILY_FABRIC, { "neighbors.list.0.vlans", "neighbors.list.0.pvid" },
      .meaning = "the switch port carries the rail's VLAN",
      .reads = "the switch port's VLANs and port VLAN id (LLDP, 802.1 TLVs), where "
               "rails.neighbors.vlan is set",
      .expects = "rails.neighbors.vlan among them (else an error); a switch that advertises none: "
                 "unknown",
      .fix = "add the rail's VLAN to the switch port, or correct rails.neighbors.vlan" },
    { "pcie.link", CHECK_FAMILY_HOST, { "pcie.speed_gts", "pcie.width" },
      .meaning = "the HCA's PCIe link trained at its full speed and width",
      .reads = "current_link_speed, current_link_width and their max_* of the HCA's PCI function "
               "and of each bridge on its path to the root port (sysfs)",
      .expects = "at least rails.pcie.min_speed_gts and min_width (below: an error), else what the "
                 "path can carry (below: a warning; a link above the card's is named)",
      .fix = "reseat the card, check the riser and the slot: a link trained down cannot reach the "
             "NIC's rate" },
    { "pcie.mrrs", CHECK_FAMILY_HOST, { "pcie.max_read_request_bytes" },
      .meaning = "the HCA's PCIe Max Read Request Size is large enough",
      .reads = "the Device Control register of the function's PCI Express capability (its sysfs "
               "config; past 64 bytes only root reads it)",
      .expects = "at least rails.pcie.min_mrrs (below: an error), else 4096 bytes on mlx5 (below: a "
                 "warning)",
      .fix = "setpci -s PCI CAP_EXP+08.w=5000:7000 (the finding prints it), or the BIOS, or "
             "mlnx_tune" },
    { "pcie.acs", CHECK_FAMILY_HOST, { NULL },
      .meaning = "no PCIe switch port between an HCA and its GPU redirects their peer-to-peer "
                 "traffic",
      .reads = "the ACS control register of each switch port between the HCA and its nearest GPU "
               "(config space: root)",
      .expects = "P2P redirect off (a warning, an error where rails.pcie.acs or rails.gpudirect is "
                 "required); no switch in common: ok",
      .fix = "setpci -s BRIDGE ECAP_ACS+0x6.w=0000 on each port (the finding prints them), the BIOS, "
             "or pci=disable_acs_redir= on the kernel command line" },
    { "qos.pfc", CHECK_FAMILY_QOS, { "qos.pfc_priorities", "qos.dcbx" },
      .meaning = "PFC is on for the RoCE priority",
      .reads = "the netdev's IEEE PFC configuration (DCB netlink)",
      .expects = "PFC on for rails.qos.pfc_priority (else an error); a driver without DCB: unknown",
      .fix = "dcb pfc set dev IF prio-pfc N:on, or the vendor's tool (mlnx_qos --pfc)" },
    { "qos.pfc_exclusive", CHECK_FAMILY_QOS, { NULL },
      .meaning = "no other priority is lossless",
      .reads = "the netdev's IEEE PFC configuration (DCB netlink), where rails.qos.pfc_exclusive",
      .expects = "PFC on rails.qos.pfc_priority alone (others: a warning)",
      .fix = "turn PFC off on the other priorities: each shares the headroom and can spread pause "
             "storms" },
    { "qos.trust", CHECK_FAMILY_QOS, { "qos.trust" },
      .meaning = "the NIC classifies packets by the policy's field",
      .reads = "qos/trust under /sys/class/net/IF (MLNX_OFED), else the DCB APP table",
      .expects = "rails.qos.trust, dscp or pcp (else an error: RoCE lands on the default priority)",
      .fix = "mlnx_qos --trust dscp, or dcb app entries of DSCP" },
    { "qos.dscp_map", CHECK_FAMILY_QOS, { "qos.app_entries" },
      .meaning = "the RoCE DSCP maps to the PFC priority",
      .reads = "the DCB APP table (DCB netlink), under DSCP trust",
      .expects = "rails.qos.dscp mapped to rails.qos.pfc_priority (else an error); no entry: unknown "
                 "(the device's default map applies)",
      .fix = "dcb app replace dev IF dscp-prio DSCP:PRIO" },
    { "qos.ecn", CHECK_FAMILY_QOS, { "qos.ecn_np_priorities", "qos.ecn_rp_priorities" },
      .meaning = "DCQCN (the ECN notification and reaction points) is on for the PFC priority",
      .reads = "ecn/roce_np/enable/PRIO and ecn/roce_rp/enable/PRIO under /sys/class/net/IF",
      .expects = "both on for rails.qos.pfc_priority (else a warning, an error where rails.qos.ecn "
                 "is required)",
      .fix = "echo 1 > /sys/class/net/IF/ecn/roce_np/enable/PRIO (and roce_rp): without DCQCN "
             "congestion turns into PFC pauses" },
    { "qos.cnp", CHECK_FAMILY_QOS, { "qos.cnp_dscp", "qos.cnp_802p_prio" },
      .meaning = "congestion notifications (CNPs) are marked as the switch expects, on a lossy "
                 "priority",
      .reads = "ecn/roce_np/cnp_dscp and cnp_802p_prio under /sys/class/net/IF, with the DSCP map "
               "and PFC",
      .expects = "DSCP rails.qos.cnp_dscp (else a warning), on a priority without PFC (else an "
                 "error: DCQCN stops working)",
      .fix = "echo DSCP > /sys/class/net/IF/ecn/roce_np/cnp_dscp, and map that DSCP to a strict, "
             "lossy priority" },
    { "qos.global_pause", CHECK_FAMILY_QOS, { "qos.global_pause_rx", "qos.global_pause_tx" },
      .meaning = "802.3x global pause is off",
      .reads = "the netdev's pause parameters (ethtool)",
      .expects = "rx and tx pause off (on: a warning)",
      .fix = "ethtool -A IF rx off tx off: global pause stops every priority at once, and PFC "
             "needs it off" },
    { "qos.cc", CHECK_FAMILY_QOS, { "cc.running" },
      .meaning = "the rail's congestion control (DCQCN) runs as the policy's profile says",
      .reads = "every DCQCN parameter and switch of the rail (ecn/roce_rp and ecn/roce_np under "
               "/sys/class/net/IF)",
      .expects = "each as rails.cc.profile and rails.cc.params want (else a warning naming them); "
                 "judged only where a profile or parameter is set",
      .fix = "write the values to /sys/class/net/IF/ecn/roce_rp|roce_np/NAME, and set "
             "NAME_P1=VALUE with mstconfig for the next boot" },
    { "qos.cc_next_boot", CHECK_FAMILY_QOS, { "cc.next_boot" },
      .meaning = "a reboot keeps the rail's DCQCN parameters as they run",
      .reads = "the running parameters, and the firmware's next-boot values (mstconfig or "
               "mlxconfig query)",
      .expects = "the same values (else a warning); unknown without the tool, or when it fails or "
                 "passes rails.cc.firmware_timeout",
      .fix = "make them one: mstconfig -d PCI set NAME_P1=VALUE for the firmware, or write the "
             "running ones under ecn/" },
    { "qos.cc_alike", CHECK_FAMILY_QOS, { NULL },
      .meaning = "the node's rails all run the same DCQCN parameters",
      .reads = "the running DCQCN parameters of every Ethernet rail of the node",
      .expects = "each rail as most rails are, whatever the policy (one that differs: a warning)",
      .fix = "set the odd rail as the others (a NIC reset or firmware update returns one to its "
             "defaults); fabtunectl diff names the values" },
    { "gpudirect.affinity", CHECK_FAMILY_HOST, { NULL },
      .meaning = "each rail has a GPU behind the same PCIe switch",
      .reads = "the PCI topology of the HCA and of the GPUs (PCI vendor 0x10de or 0x1002, display "
               "class)",
      .expects = "the nearest GPU at PXB; PHB, NODE or SYS is a warning (an error where "
                 "rails.gpudirect is required); no GPU: unknown",
      .fix = "GPUDirect RDMA through the host bridge or across sockets is slow: pair each HCA with "
             "a GPU under one switch, or set rails.gpudirect: ignore" },
    { "gpudirect.peermem", CHECK_FAMILY_HOST, { NULL },
      .meaning = "GPUDirect RDMA's kernel module is loaded where there are GPUs",
      .reads = "/sys/module/nvidia_peermem, and the GPUs found",
      .expects = "loaded (else a warning, an error where rails.gpudirect is required); no GPU: "
                 "unknown",
      .fix = "modprobe nvidia_peermem (and list it in /etc/modules-load.d), or use dma-buf with "
             "NVIDIA's open kernel module" },
    { "host.iommu", CHECK_FAMILY_HOST, { NULL },
      .meaning = "no IOMMU translates the DMA of the HCA or of its GPU",
      .reads = "the type of each one's IOMMU group (/sys/kernel/iommu_groups/N/type), and the "
               "kernel command line",
      .expects = "identity; DMA or DMA-FQ is a warning (an error with host.iommu: required); no "
                 "IOMMU groups: unknown",
      .fix = "iommu=pt on the kernel command line (intel_iommu=on iommu=pt, or amd_iommu=on "
             "iommu=pt)" },
    { "host.irq_affinity", CHECK_FAMILY_HOST, { NULL },
      .meaning = "the HCA's interrupts are served on its own NUMA node",
      .reads = "the HCA's msi_irqs/, each one's /proc/irq/N/effective_affinity_list, and the HCA's "
               "local_cpulist",
      .expects = "at most half the vectors served off the HCA's node (more: a warning, an error "
                 "with host.irq_affinity: required)",
      .fix = "set_irq_affinity_bynode.sh NODE IF (mlnx-tools), or keep irqbalance from moving them" },
    { "host.cpufreq", CHECK_FAMILY_HOST, { NULL },
      .meaning = "the CPUs near each HCA run the policy's frequency governor",
      .reads = "scaling_governor and scaling_driver of the first CPU local to the HCA (cpufreq, "
               "sysfs)",
      .expects = "host.cpufreq, performance by default (another: a warning); no cpufreq, as in a "
                 "VM: unknown",
      .fix = "cpupower frequency-set -g performance, or tuned's latency-performance profile "
             "(host.cpufreq: any skips it)" },
    { "host.memlock", CHECK_FAMILY_HOST, { NULL },
      .meaning = "jobs may lock unlimited memory, as RDMA needs",
      .reads = "a running slurmd's limits, limits.conf and limits.d, systemd's DefaultLimitMEMLOCK, "
               "else fabtuned's own limit",
      .expects = "unlimited (a limit is a warning; unknown on a node without rails)",
      .fix = "LimitMEMLOCK=infinity in slurmd's unit, DefaultLimitMEMLOCK= in system.conf, or "
             "memlock unlimited in limits.conf" },
    { "host.state_dir", CHECK_FAMILY_HOST, { NULL },
      .meaning = "the daemon's state directory keeps what it learns",
      .reads = "the daemon's lock and saves in its state directory (/var/lib/fabtune)",
      .expects = "the lock taken and every save written (else an error: the daemon judges from "
                 "memory, nothing persists)",
      .fix = "free space on its file system, make it writable, or stop the process that holds its "
             "lock; fabtuned recovers by itself" },
    { "counters.loss", CHECK_FAMILY_COUNTERS, { NULL },
      .meaning = "the rail loses few packets",
      .reads = "the loss class's counters (retransmissions, sequence errors, timeouts, "
               "port_xmit_discards) between samples",
      .expects = "at most checks.counters.loss a second at the peak of the check interval (above: a "
                 "warning)",
      .fix = "packets are lost and retransmitted: check PFC on the path, the cable and the switch's "
             "drop counters" },
    { "counters.congestion", CHECK_FAMILY_COUNTERS, { NULL },
      .meaning = "the rail is not heavily congested",
      .reads = "CNPs sent and handled, ECN-marked packets and port_xmit_wait, between samples",
      .expects = "at most checks.counters.congestion a second (above: a warning; below, the rate is "
                 "information)",
      .fix = "check the job's traffic pattern and the switch's ECN thresholds" },
    { "counters.misconfig", CHECK_FAMILY_COUNTERS, { NULL },
      .meaning = "the host and the switch agree on the QoS contract",
      .reads = "ignored CNPs, constraint errors, and pause frames on priorities without PFC, "
               "between samples",
      .expects = "at most checks.counters.misconfig a second, 0 by default (above: a warning)",
      .fix = "CNPs are ignored or pauses arrive on a priority without PFC: align the host's and the "
             "switch's QoS settings" },
    { "counters.starvation", CHECK_FAMILY_COUNTERS, { NULL },
      .meaning = "the receivers keep up: no receive buffer runs dry",
      .reads = "out_of_buffer, rnr_nak_retry_err, VL15_dropped and rx_discards_phy, between samples",
      .expects = "at most checks.counters.starvation a second (above: a warning)",
      .fix = "receive buffers ran out: the consumer is too slow, or the PFC headroom too small" },
    { "counters.pfc_storm", CHECK_FAMILY_COUNTERS, { NULL },
      .meaning = "the NIC's pause-storm guard never fired",
      .reads = "the ethtool tx_pause_storm_* counters, between samples",
      .expects = "at most checks.counters.pfc_storm a second, 0 by default (above: an error)",
      .fix = "a stuck receiver is pausing the fabric: find it before the pauses spread" },
    { "counters.link", CHECK_FAMILY_COUNTERS, { NULL },
      .meaning = "the wire is clean: few physical errors",
      .reads = "symbol_error, link_error_recovery, port_rcv_errors and the port's other error "
               "counters (counters/), between samples",
      .expects = "at most checks.counters.link a second (above: a warning); a counter stopped at its "
                 "maximum: unknown",
      .fix = "reseat or replace the cable or transceiver, and read the switch port's counters; "
             "perfquery -R resets saturated counters" },
    { "counters.link_down", CHECK_FAMILY_COUNTERS, { NULL },
      .meaning = "the link did not go down",
      .reads = "the port's link_downed counter, between samples",
      .expects = "no rise beyond checks.counters.link_down, 0 by default (any rise: an error)",
      .fix = "every job on the rail lost its connections: check the cable, the transceiver and the "
             "switch port's log" },
    { "counters.qp_error", CHECK_FAMILY_COUNTERS, { NULL },
      .meaning = "few work completions end in error",
      .reads = "the requester's and responder's CQE error and flush counters (mlx5), between "
               "samples",
      .expects = "at most checks.counters.qp_error a second (above: a warning)",
      .fix = "find the job whose QPs fail (rdma resource show qp) before it blames the fabric" },
    { "counters.sticky", CHECK_FAMILY_COUNTERS, { NULL },
      .meaning = "a rail whose link just flapped, went down or burst errors stays DEGRADED a while",
      .reads = "the link memory (STATE_DIR/links.json): each rail's flaps, link downs, error bursts "
               "and returns",
      .expects = "no such event within checks.counters.sticky_window (else a warning, an error once "
                 "escalated)",
      .fix = "find the cause (the cable, the transceiver, the switch port's log); the rail is READY "
             "again when the window ends" },
    { "tuning.drift", CHECK_FAMILY_TUNING, { NULL },
      .meaning = "each sysctl of the profile holds the policy's value",
      .reads = "each key of tuning.sysctl under /proc/sys",
      .expects = "the policy's value (else a warning); a key this kernel lacks is unknown",
      .fix = "fabtunectl apply, or tuning.mode: enforce; where another writer sets the key "
             "(sysctl.d, tuned), align it with the policy" },
    { "probe.rdma.latency", CHECK_FAMILY_PROBE, { NULL },
      .meaning = "an RDMA WRITE ping-pong on the rail completes, fast enough",
      .reads = "the last probe run: a ping-pong on the rail's port, and between neighbouring rails",
      .expects = "a completed probe (a failure is an error), its p99 within "
                 "probes.limits.rdma_p99_us (above: a warning)",
      .fix = "a port that is up but carries no traffic: check the rail's GID, QoS and the switch; "
             "fabtunectl probes shows the figures" },
    { "probe.rdma.bandwidth", CHECK_FAMILY_PROBE, { NULL },
      .meaning = "an RDMA WRITE stream on the rail completes at a fair share of the port's rate",
      .reads = "the last probe run: a stream on the rail's port, and between neighbouring rails",
      .expects = "a completed stream (a failure is an error) of at least "
                 "probes.limits.rdma_min_bw_fraction of the port's rate (below: a warning)",
      .fix = "check the link's rate and errors, PFC pauses and competing traffic; fabtunectl probes "
             "shows the figures" },
    { "probe.tcp.latency", CHECK_FAMILY_PROBE, { NULL },
      .meaning = "a TCP ping-pong from the rail's address completes, fast enough",
      .reads = "the last probe run: a TCP ping-pong bound to the rail's address (127.0.0.1 without "
               "rails)",
      .expects = "a completed probe (a failure is an error), its p99 within probes.limits.tcp_p99_us "
                 "(above: a warning)",
      .fix = "check the rail's address and routes (the route.* checks); fabtunectl probes shows the "
             "figures" },
    { "probe.tcp.bandwidth", CHECK_FAMILY_PROBE, { NULL },
      .meaning = "a TCP stream from the rail's address completes",
      .reads = "the last probe run: a TCP stream bound to the rail's address (127.0.0.1 without "
               "rails)",
      .expects = "a completed stream (a failure is an error); its rate is shown, not judged",
      .fix = "check the rail's address and routes (the route.* checks); fabtunectl probes shows the "
             "figures" },
    { "probe.regression", CHECK_FAMILY_PROBE, { NULL },
      .meaning = "a probed path is no slower than its own learned baseline",
      .reads = "each ping-pong's p50 and p99 against the baseline learned over its first "
               "probes.regression.baseline_runs runs (kept in STATE_DIR)",
      .expects = "within probes.regression.ratio of it; probes.regression.consecutive runs over in a "
                 "row regress it (a warning), as many within clear it",
      .fix = "this node is slower than it was: check the counters, PFC storms, link flaps and "
             "competing load" },
    { "probe.peer", CHECK_FAMILY_PROBE, { NULL },
      .meaning = "a path to a neighbour node carries the probes",
      .reads = "the last probe run: TCP and RDMA ping-pongs and streams from each rail to the "
               "responders of probes.peers.k neighbours",
      .expects = "every probe completes; a failed path is unknown (it may be the neighbour's fault)",
      .fix = "is fabtuned running on the peer, with this node in its probes.peers, and its port "
             "reachable?" },
    { "probe.peers", CHECK_FAMILY_PROBE, { NULL },
      .meaning = "enough neighbour nodes answer the probes",
      .reads = "the probe.peer results of every neighbour, and the probes.peers file",
      .expects = "fewer than probes.peers.unreachable_degraded neighbours unreachable, and a "
                 "readable peers file (else a warning)",
      .fix = "fix the peers file, or fabtuned on the unreachable neighbours; "
             "probes.peers.unreachable_degraded sets the bound" },
    { "nic.firmware", CHECK_FAMILY_NIC, { NULL },
      .meaning = "the NIC's firmware answers: no command timed out, its heartbeat runs, no fatal syndrome",
      .reads = "the kernel's messages (journald's kernel transport, else /dev/kmsg; facility 0 "
               "only) since the last read, kept in the link memory (STATE_DIR/links.json)",
      .expects = "no such message: a command timeout, a lost heartbeat, a fatal error is an error "
                 "for the boot; a failed ACCESS_REG is a warning (checks.nic.repeats: an error)",
      .fix = "drain the node, reset the device (mlxfwreset, or reboot), keep mstdump output for the "
             "vendor: a hung firmware can leave every sysfs file reading ACTIVE" },
    { "nic.tx_timeout", CHECK_FAMILY_NIC, { NULL },
      .meaning = "no send or receive queue of the rail's netdev stalled (NETDEV WATCHDOG, the driver's TX or "
                 "RX timeout)",
      .reads = "the kernel's messages (journald's kernel transport, else /dev/kmsg; facility 0 "
               "only) since the last read, kept in the link memory (STATE_DIR/links.json)",
      .expects = "no such message; one within checks.nic.window is a warning, checks.nic.repeats of them "
                 "an error",
      .fix = "look for a PFC storm or a stuck peer, then the card's firmware; repeated, reset the device" },
    { "nic.power", CHECK_FAMILY_NIC, { NULL },
      .meaning = "the card's slot gives it the power it needs (mlx5: Detected insufficient power on the "
                 "PCIe slot)",
      .reads = "the kernel's messages (journald's kernel transport, else /dev/kmsg; facility 0 "
               "only) since the last read, kept in the link memory (STATE_DIR/links.json)",
      .expects = "no such message; one within checks.nic.window is a warning, checks.nic.repeats of them "
                 "an error",
      .fix = "check the slot's power limit (lspci -vv: SlotPowerLimit) and the riser; the card "
             "throttles while it lacks power" },
    { "nic.thermal", CHECK_FAMILY_NIC, { NULL },
      .meaning = "neither the card's sensors nor its module report a high temperature",
      .reads = "the kernel's messages (journald's kernel transport, else /dev/kmsg; facility 0 "
               "only) since the last read, kept in the link memory (STATE_DIR/links.json)",
      .expects = "no such message; one within checks.nic.window is a warning, checks.nic.repeats of them "
                 "an error",
      .fix = "check the airflow and fans, and the module's temperature (ethtool -m)" },
    { "nic.link", CHECK_FAMILY_NIC, { NULL },
      .meaning = "the driver did not report the rail's cable unplugged (module absent) or its "
                 "module in error",
      .reads = "the kernel's messages (journald's kernel transport, else /dev/kmsg; facility 0 "
               "only) since the last read, kept in the link memory (STATE_DIR/links.json)",
      .expects = "no such message within checks.nic.window (a warning; checks.nic.repeats an "
                 "error); a link down is a notice, shown only: counters.sticky judges it",
      .fix = "check the cable and the module's seating, then the switch port's log" },
    { "nic.pcie", CHECK_FAMILY_NIC, { NULL },
      .meaning = "no uncorrectable PCIe error (AER) on the rail's PCI function",
      .reads = "the kernel's messages (journald's kernel transport, else /dev/kmsg; facility 0 "
               "only) since the last read, kept in the link memory (STATE_DIR/links.json)",
      .expects = "no such message; one within checks.nic.window is a warning, checks.nic.repeats of them "
                 "an error",
      .fix = "reseat the card and check the riser and slot; repeated, replace the card" },
    { "nic.devnode", CHECK_FAMILY_NIC, { NULL },
      .meaning = "the device nodes a job opens exist: uverbs for every RDMA device, umad for every "
                 "InfiniBand port, rdma_cm",
      .reads = "the uverbs, umad and rdma_cm entries of sysfs's infiniband_verbs, infiniband_mad "
               "and misc classes, and lstat() of each node under /dev/infiniband (live only)",
      .expects = "character devices with the numbers sysfs gives; a missing uverbs or umad is an error, a "
                 "missing rdma_cm a warning; uverbs and rdma_cm not read-write for all users a warning",
      .fix = "load ib_uverbs (ib_umad, rdma_ucm); check rdma-core's udev rules (MODE=\"0666\"); in a "
             "container, pass /dev/infiniband through" },
    { "job.ras", CHECK_FAMILY_JOB, { NULL },
      .meaning = "no rank of this node's NCCL jobs lags, hangs, is missing or died, as NCCL's RAS "
                 "service tells; for one that does, what its rail showed meanwhile",
      .reads = "each job's RAS STATUS (NCCL 2.24+, NCCL_RAS_ADDR or localhost:28028), the GPU and "
               "rail of each rank here, the rail's link events and failing checks",
      .expects = "every rank of this node in step; a straggler, a hang, a missing or a dead rank "
                 "here is a warning; ranks on other nodes are only counted",
      .fix = "the message names the rank's GPU and rail: a rail with events is the likely cause, "
             "a clean one points at the rank's compute or at a peer" },
    { "job.nccl_env", CHECK_FAMILY_JOB, { NULL },
      .meaning = "the NCCL settings a job exported fit this node",
      .reads = "the NCCL_* variables of each NCCL process (/proc/PID/environ, as root), the rails, "
               "their GIDs and the node's interfaces",
      .expects = "NCCL_IB_HCA names up rails, NCCL_IB_GID_INDEX a RoCE v2 GID of the policy's "
                 "family, NCCL_SOCKET_IFNAME an interface, NCCL_IB_TC the policy's DSCP",
      .fix = "unset the variable in the job, or set it as fabtune's nccl.env does" },
    { "job.gid_drift", CHECK_FAMILY_JOB, { NULL },
      .meaning = "the GID index a running job started with still holds its GID on each rail",
      .reads = "the GID each job's NCCL took on each rail when the job was first seen, and the "
               "rail's GID table now",
      .expects = "the same GID at that index; another there is an error (NCCL keeps the index "
                 "it started with)",
      .fix = "restart the job, or give the rail its addresses back in their old order" },
    { "nccl.contract", CHECK_FAMILY_DIFF, { NULL },
      .meaning = "fabtunectl diff only: the two nodes' NCCL contracts differ",
      .reads = "each variable of the NCCL contract (nccl.env) in the two nodes' reports",
      .expects = "the same NCCL_* variables, with the same values, on both nodes",
      .fix = "find the rail, GID or policy difference that changed the variable: the other "
             "differences name it" },
    { "verdict", CHECK_FAMILY_DIFF, { "verdict" },
      .meaning = "fabtunectl diff only: the two nodes' verdicts differ, of the node or of a rail",
      .reads = "the verdict of each node and of each rail in the two nodes' reports",
      .expects = "the same verdicts on both nodes",
      .fix = "read the differences beside it, or fabtunectl checks --failed on the worse node" },
};

const size_t check_ids_count = ARRAY_SIZE(check_ids);

const struct check_id *check_id_find(const char *id)
{
    for (size_t i = 0; i < check_ids_count; i++)
        if (streq(check_ids[i].id, id))
            return &check_ids[i];
    return NULL;
}

bool check_id_matches(const char *id, const char *pattern)
{
    size_t n = strlen(pattern);
    if (n && pattern[n - 1] == '.')
        n--;
    return streq(id, pattern) || (n && strncmp(id, pattern, n) == 0 && id[n] == '.');
}

bool check_id_known(const char *pattern)
{
    for (size_t i = 0; i < check_ids_count; i++)
        if (check_id_matches(check_ids[i].id, pattern))
            return true;
    return false;
}

#define NAMES_MAX 256
#define NAME_LEN 64

/* Adds ID's first LEN bytes to the N NAMES, unless one of them is that already. */
static void add_name(char (*names)[NAME_LEN], size_t *n, const char *id, size_t len)
{
    if (*n >= NAMES_MAX)
        return;
    snprintf(names[*n], NAME_LEN, "%.*s", (int)len, id);
    for (size_t k = 0; k < *n; k++)
        if (streq(names[k], names[*n]))
            return;
    (*n)++;
}

bool check_id_closest(const char *s, char *buf, size_t len)
{
    /* The ids and their dotted prefixes: "probe.rdma.latency", "probe.rdma", "probe". */
    char names[NAMES_MAX][NAME_LEN];
    const char *list[NAMES_MAX];
    size_t n = 0;
    for (size_t i = 0; i < check_ids_count; i++) {
        const char *id = check_ids[i].id;
        for (const char *end = id + strlen(id); end; end = memrchr(id, '.', (size_t)(end - id)))
            add_name(names, &n, id, (size_t)(end - id));
    }
    for (size_t k = 0; k < n; k++)
        list[k] = names[k];
    const char *near = str_closest(s, list, n);
    if (near)
        snprintf(buf, len, "%s", near);
    return near != NULL;
}

const char *check_family_message_id(enum check_family f)
{
    return f < CHECK_FAMILY_COUNT ? families[f].message_id : NULL;
}

const char *check_family_name(enum check_family f)
{
    return f < CHECK_FAMILY_COUNT ? families[f].name : "unknown";
}
