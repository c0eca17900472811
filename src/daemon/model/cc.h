/* SPDX-License-Identifier: ISC */
/* A rail's congestion control (DCQCN): the parameters the NIC runs with and the ones its
 * firmware boots with next, the built-in profiles they are judged against, and the
 * digest that compares them across rails and nodes. Part of the inventory; the qos.cc*
 * checks read it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cc_params.h"

/* A value nothing exposed (running), or that a profile does not judge (wanted). */
#define CC_UNKNOWN (-1)

enum cc_node { CC_NODE_RP, CC_NODE_NP, CC_NODE_SWITCH };

struct cc_param_info {
    const char *name;           /* the MLNX_OFED sysfs file, the policy's key */
    enum cc_node node;          /* which ecn/ directory: roce_rp or roce_np */
    const char *debugfs;        /* the upstream driver's cc_params/ file; NULL: none */
    const char *firmware;       /* mlxconfig's name without _P<port>; NULL: none */
    const char *unit;           /* for people: "us", "Mb/s", ... */
    const char *effect;         /* one line: what it does */
};

extern const struct cc_param_info cc_params[CC_PARAMS];

struct cc_state {
    bool known;                 /* at least one running value was read */
    char why[256];              /* why none was read */
    char source[24];            /* "sysfs", "debugfs", "sysfs+debugfs" */
    int64_t running[CC_PARAMS]; /* CC_UNKNOWN where not exposed */
    bool fw_known;              /* the firmware tool answered */
    char fw_why[192];           /* why not */
    char fw_tool[16];           /* "mstconfig", "mlxconfig" */
    int64_t fw_current[CC_PARAMS];  /* what the firmware booted with; CC_UNKNOWN: not shown */
    int64_t fw_next[CC_PARAMS];     /* what it boots with next */
};

void cc_state_init(struct cc_state *c);

/* The profiles' names as the policy writes them, indexed by enum cc_profile. */
extern const char *const cc_profile_names[];
/* Where a built-in profile's values come from, in one line. */
const char *cc_profile_source(enum cc_profile p);
/* What profile P, with the policy's OVERRIDES (CC_PARAM_UNSET: none), wants of parameter
 * I; CC_UNKNOWN when it does not judge it. */
int64_t cc_wanted(enum cc_profile p, const uint32_t overrides[CC_PARAMS], enum cc_param i);

/* "0-7", "3,4", "none" for the reaction point's mask, "on"/"off" for switches, else the
 * number; "?" for CC_UNKNOWN. */
void cc_format(enum cc_param i, int64_t v, char *buf, size_t len);
/* FNV-1a 64 over every parameter's name and value in the table's order, as 16 hex digits:
 * rails and nodes with the same parameters have the same digest. */
void cc_digest(const int64_t values[CC_PARAMS], char buf[17]);
/* Parameter I by its name, or -1. */
int cc_param_by_name(const char *name);
