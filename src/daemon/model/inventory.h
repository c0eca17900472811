/* SPDX-License-Identifier: ISC */
/* The inventory: what the sources found on the node. Sources fill it; checks read it. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cc.h"
#include "counter_sample.h"
#include "fec.h"
#include "gid.h"
#include "lldp.h"
#include "module_eeprom.h"
#include "qos.h"
#include "routes.h"

#define INV_NAME_MAX 64
#define INV_MAX_ADDRS 16

enum inventory_source { INVENTORY_LIVE, INVENTORY_OFFLINE };

struct gid_entry {
    uint8_t raw[16];
    enum gid_type type;         /* from gid_attrs/types; UNREADABLE for an empty slot */
    char ndev[IFNAMSIZ];        /* from gid_attrs/ndevs, or the verbs ndev_ifindex */
};

struct ip_address {
    int family;                 /* AF_INET or AF_INET6 */
    uint8_t addr[16];
    uint8_t prefix_len;
};

/* A bonding master's slaves (drivers/net/bonding/bond_sysfs.c): class/net/IF/bonding/slaves
 * lists their names, space-separated (bonding_show_slaves; "++more++" past a page), and
 * bonding/mode names the mode ("802.3ad 4"). Each slave's own operstate and carrier. */
#define BOND_SLAVES_MAX 8
struct bond_slave {
    char name[IFNAMSIZ];
    bool present;               /* class/net/NAME is in the tree */
    char operstate[16];
    int carrier;                /* 1, 0, or -1 when the kernel does not say */
};
struct bond_info {
    bool is_bond;               /* class/net/IF/bonding/slaves was read */
    char mode[24];              /* "802.3ad", "active-backup", ...; "" unknown */
    size_t n_slaves;            /* kept, at most BOND_SLAVES_MAX */
    bool more;                  /* the list held more than were kept */
    struct bond_slave slaves[BOND_SLAVES_MAX];
};

struct netdev_info {
    bool present;
    char name[IFNAMSIZ];
    char operstate[16];         /* "up", "down", "lowerlayerdown", ... */
    int carrier;                /* 1, 0, or -1 when the kernel does not say */
    bool carrier_absent;        /* -1 because the tree has no carrier file (not EINVAL) */
    uint32_t mtu;
    bool has_carrier_changes;
    uint64_t carrier_changes;
    bool addresses_known;       /* rtnetlink only; a sysfs snapshot has none */
    struct ip_address addrs[INV_MAX_ADDRS];
    size_t n_addrs;
    struct bond_info bond;      /* a RoCE LAG's bond0, say */
};

struct pcie_link {
    bool known;                 /* the HCA is a PCI function with link attributes */
    double speed_gts, max_speed_gts;
    uint32_t width, max_width;
    uint32_t max_read_request;  /* bytes, from config space's Device Control; 0 unknown */
    char config_why[96];        /* why max_read_request is unknown */
};

/* ACS Control bits (PCI_ACS_*). */
#define PCI_ACS_SV 0x0001       /* Source Validation */
#define PCI_ACS_TB 0x0002       /* Translation Blocking */
#define PCI_ACS_RR 0x0004       /* P2P Request Redirect */
#define PCI_ACS_CR 0x0008       /* P2P Completion Redirect */
#define PCI_ACS_UF 0x0010       /* Upstream Forwarding */
/* The bits that send peer-to-peer traffic up through the root complex. */
#define PCI_ACS_P2P_REDIRECT (PCI_ACS_SV | PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_UF)

/* A PCI bridge on a rail's or a GPU's path (a switch port, a root port), and its ACS. */
struct pci_bridge {
    char addr[16];              /* "0000:17:00.0" */
    bool read;                  /* its config space was read past the header */
    char why[96];               /* why not */
    bool acs;                   /* it has an ACS extended capability */
    uint16_t acs_ctrl;          /* its ACS Control register */
    /* Its Link Status and Capabilities (pci-sysfs current_/max_link_*): a root or switch
     * downstream port's is the link below it, a switch upstream port's the link above. */
    struct pcie_link link;
};

/* A GPU found by PCI vendor (NVIDIA 0x10de, AMD 0x1002) and display class (0x03). */
struct gpu {
    char pci_addr[16];
    char vendor[8];
    char path[256];             /* sysfs devices path: its PCI bridges, root first */
    int numa_node;
    char iommu_type[16];        /* its IOMMU group's type; "" without a group */
};

/* What the host does to a rail's path beside the link: the IOMMU group's type, the CPU
 * frequency governor of its local CPUs, and where its interrupts are served. */
struct host_path {
    char iommu_type[16];        /* "identity", "DMA", "DMA-FQ", ...; "" without a group */
    char governor[32];          /* scaling_governor of the first CPU local to the HCA */
    char cpufreq_driver[32];
    char cpufreq_why[96];       /* why governor is "" */
    bool irq_known;
    unsigned irqs, irqs_off_node; /* MSI-X vectors, and those served by no local CPU */
    char irq_why[96];           /* why !irq_known */
};

/* A character device node a job opens (issue 45, item 2): what sysfs lists for it and what
 * /dev holds. */
struct devnode {
    char name[24];              /* "uverbs0", "umad1", "rdma_cm"; "" when sysfs lists none */
    unsigned major, minor;      /* sysfs's dev */
    bool looked;                /* /dev was looked at (live; not in a captured tree) */
    int err;                    /* lstat's -errno; 0: it exists */
    bool is_char;
    unsigned dev_major, dev_minor;  /* the node's own numbers */
    unsigned mode;              /* its permission bits */
};

struct rail_devnodes {
    bool known;                 /* the device-node source ran for the rail */
    struct devnode uverbs;      /* every RDMA device's: class/infiniband_verbs */
    struct devnode umad;        /* an InfiniBand port's: class/infiniband_mad */
};

struct rail {
    char device[INV_NAME_MAX];
    uint32_t port;
    char name[INV_NAME_MAX + 8];  /* "mlx5_0/1" */
    char driver[32];            /* "mlx5_core", "rdma_rxe", "bnxt_en"; "" if unknown */
    char fw_ver[64];
    char node_guid[32];
    char pci_addr[16];          /* "0000:1a:00.0"; "" for a virtual device (rxe) */
    char pci_vendor[8], pci_device[8];  /* "0x15b3", "0x1021"; "" for a virtual device */
    int numa_node;              /* -1 when unknown */

    int node_type;              /* node_type's number: 1 CA, 4 RNIC (iWARP); 0 unknown */
    char link_layer[16];        /* "Ethernet", "InfiniBand" */
    int gid_index;              /* the RoCE GID index the policy means, resolved once when
                                 * the inventory is taken (inventory_take); -1: none or not RoCE */
    int state;                  /* 4: ACTIVE; 0 when unknown */
    char state_name[16];
    int phys_state;             /* 5: LinkUp; 0 when unknown */
    char phys_state_name[24];
    double rate_gbps;           /* 0 when unknown */
    char rate_text[48];         /* "400 Gb/sec (4X NDR)" */
    uint32_t active_mtu;        /* bytes; 0 when unknown (a snapshot has no active MTU) */

    struct gid_entry *gids;     /* dense, indexed by GID index */
    uint32_t n_gids;            /* the GID table length */
    bool has_gid_table;         /* ports/N/gids/ exists */

    char pci_path[256];         /* devices/pci0000:00/.../ADDR: the PCI topology above it */
    struct pcie_link pcie;
    bool has_counters;          /* ports/N/counters/ exists (bnxt_re has none) */
    bool has_hw_counters;
    struct netdev_info netdev;
    struct qos_state qos;       /* Ethernet rails: DCB, trust, ECN, global pause */
    struct cc_state cc;         /* Ethernet rails: DCQCN parameters (source_cc.h) */
    struct counter_sample counters; /* hw_counters/, counters/, classified ethtool stats */
    struct host_path host;
    struct rail_routes routes;  /* Ethernet rails with an IPv4 address: where packets go */
    struct module_state module; /* live Ethernet rails: the pluggable module (about 700 B) */
    struct fec_state fec;       /* Ethernet rails: FEC mode and statistics (448 B) */
    struct rail_lldp lldp;      /* what its netdev is plugged into (source_lldp.h) */
    struct rail_devnodes devnodes;  /* its uverbs and umad nodes (source_devnodes.h) */
};

/* The bounds of the inventory's tables. A node has 8 to 16 rails (16 HCAs, or 8 of two
 * ports); SR-IOV functions left on the host add theirs (8 PFs of 127 VFs: 1016). A rail is
 * 7.8 KiB (sizeof 7984 B: 0.6 KiB of it its module, 0.4 its FEC, 2.1 its LLDP
 * neighbours, 1.0 its DCQCN parameters), so a hostile --sysfs-root tree stays under 8 MiB
 * of rails. GPUs: 8 to 16
 * per node. The bridges on the rails' and GPUs' paths: a few per device, a few hundred. */
#define INVENTORY_MAX_RAILS 1024
#define INVENTORY_MAX_GPUS 256
#define INVENTORY_MAX_BRIDGES 1024

struct inventory {
    enum inventory_source source;
    struct rail *rails;
    size_t n_rails, cap_rails;  /* cap_rails: room in rails (grown by doubling) */
    size_t n_ports_seen;        /* all RDMA ports, before the policy's selection */
    char why_no_rails[256];     /* set when n_rails is 0 */
    char missing[64][INV_NAME_MAX + 8]; /* rails the policy lists that do not exist */
    size_t n_missing;
    char notes[4][160];         /* source disagreements worth showing (verbs vs sysfs) */
    size_t n_notes;
    struct gpu *gpus;
    size_t n_gpus, cap_gpus;
    struct pci_bridge *bridges; /* on the rails' and GPUs' paths */
    bool iommu_groups;          /* /sys/kernel/iommu_groups has entries */
    bool net_class_absent;      /* a captured tree without class/net: no netdev is known */
    char iommu_cmdline[128];    /* the kernel command line's iommu words, if read */
    size_t n_bridges, cap_bridges;
    struct host_path node_host; /* a node without rails: cpu0's cpufreq (host.* per node) */
    bool peermem_loaded;        /* /sys/module/nvidia_peermem */
    bool nvidia_loaded;         /* /sys/module/nvidia */
    bool memlock_known;
    uint64_t memlock_soft;      /* bytes; UINT64_MAX for unlimited: what jobs get */
    char memlock_source[160];   /* where memlock_soft was read (source_limits.h) */
    struct devnode rdma_cm;     /* /dev/infiniband/rdma_cm (class/misc/rdma_cm) */
};

/* RDMA_NODE_RNIC (include/rdma/ib_verbs.h): an iWARP device, whose ports read "Ethernet". */
#define RAIL_NODE_TYPE_RNIC 4

bool rail_is_iwarp(const struct rail *r);
/* A RoCE port: link layer Ethernet, and not iWARP. */
bool rail_is_roce(const struct rail *r);
/* Why a rail has no PCI function: a software device (rxe, siw), or a tree without the
 * class/infiniband/DEV/device link. */
const char *rail_no_pci_why(const struct rail *r);

void inventory_done(struct inventory *inv);
/* A new rail, or NULL: past INVENTORY_MAX_RAILS, or out of memory. */
struct rail *inventory_add_rail(struct inventory *inv, const char *device, uint32_t port);
const struct pci_bridge *inventory_find_bridge(const struct inventory *inv, const char *addr);
void inventory_note(struct inventory *inv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
