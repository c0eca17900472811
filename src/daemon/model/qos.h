/* SPDX-License-Identifier: ISC */
/* A rail's lossless-fabric state: what DCB netlink, the QoS and ECN sysfs files and the
 * ethtool pause parameters say. Part of the inventory; the qos.* checks read it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QOS_PRIOS 8             /* IEEE_8021QAZ_MAX_TCS */
#define QOS_MAX_APPS 128

/* One APP table entry (struct dcb_app): selector 5 is DSCP, protocol the DSCP value. */
struct dcb_app_entry {
    uint8_t selector, priority;
    uint16_t protocol;
};

/* The reply to RTM_GETDCB / DCB_CMD_IEEE_GET (net/dcb/dcbnl.c, dcbnl_ieee_fill). */
struct dcb_state {
    bool known;                 /* a reply was parsed */
    char why[160];              /* why not, when !known */
    bool has_pfc;
    uint8_t pfc_cap, pfc_en;    /* pfc_en: bit N set = PFC on for priority N */
    uint64_t pfc_requests[QOS_PRIOS], pfc_indications[QOS_PRIOS];
    bool has_ets;
    uint8_t ets_prio_tc[QOS_PRIOS], ets_tc_tsa[QOS_PRIOS], ets_tc_tx_bw[QOS_PRIOS];
    bool has_app_table;
    struct dcb_app_entry app[QOS_MAX_APPS];
    size_t n_app;
    bool app_truncated;         /* more entries than QOS_MAX_APPS */
    int dcbx;                   /* DCB_CAP_DCBX_* bits, or -1 when the driver has no getdcbx */
};

enum trust_source { TRUST_UNKNOWN, TRUST_FROM_SYSFS, TRUST_FROM_APP_TABLE };

struct qos_state {
    struct dcb_state dcb;
    char trust[8];              /* "dscp" or "pcp"; "" when unknown */
    enum trust_source trust_source;
    char trust_why[256];        /* whole: the longest DCB reason and qos/trust line fit */
    bool ecn_known;             /* ecn/roce_np and ecn/roce_rp exist */
    char ecn_why[96];
    uint8_t ecn_np, ecn_rp;     /* bit N set = enabled for priority N */
    int cnp_dscp, cnp_802p_prio; /* -1 when not exposed */
    int pause_rx, pause_tx, pause_autoneg; /* 0/1; -1 when not exposed */
    char pause_why[96];
};

void qos_state_init(struct qos_state *q);
/* The priority the APP table maps DSCP value DSCP to, or -1. */
int qos_dscp_priority(const struct dcb_state *d, unsigned dscp);
/* Whether the APP table has any DSCP (selector 5) entry: the device trusts DSCP. */
bool qos_app_has_dscp(const struct dcb_state *d);
