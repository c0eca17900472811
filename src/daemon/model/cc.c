/* SPDX-License-Identifier: ISC */
/* The DCQCN parameter table, the built-in profiles with their sources, the digest. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cc.h"
#include "macro.h"

/* Names: the MLNX_OFED sysfs files (NVIDIA's "DCQCN CC Parameters" page, MLNX_OFED
 * column), the upstream debugfs files (drivers/infiniband/hw/mlx5/cong.c,
 * mlx5_ib_dbg_cc_name[]), mlxconfig's NVConfig names (the same page's NVConfig column). */
const struct cc_param_info cc_params[CC_PARAMS] = {
    [CC_CLAMP_TGT_RATE] = { "clamp_tgt_rate", CC_NODE_RP, "rp_clamp_tgt_rate", "CLAMP_TGT_RATE",
        "flag", "1: the target rate is set only on the first rate cut after an increase" },
    [CC_CLAMP_TGT_RATE_ATI] = { "clamp_tgt_rate_after_time_inc", CC_NODE_RP, "rp_clamp_tgt_rate_ati",
        "CLAMP_TGT_RATE_AFTER_TIME_INC", "flag",
        "1: the target rate is also updated on a rate increase by the timer" },
    [CC_RPG_TIME_RESET] = { "rpg_time_reset", CC_NODE_RP, "rp_time_reset", "RPG_TIME_RESET",
        "us", "time between rate increases without a CNP" },
    [CC_RPG_BYTE_RESET] = { "rpg_byte_reset", CC_NODE_RP, "rp_byte_reset", "RPG_BYTE_RESET",
        "bytes", "data sent between rate increases without a CNP (0: off)" },
    [CC_RPG_THRESHOLD] = { "rpg_threshold", CC_NODE_RP, "rp_threshold", "RPG_THRESHOLD",
        "count", "time or byte stages before the next, faster increase phase" },
    [CC_RPG_MAX_RATE] = { "rpg_max_rate", CC_NODE_RP, "rp_max_rate", "RPG_MAX_RATE",
        "Mb/s", "the highest rate a flow is raised to (0: line rate)" },
    [CC_RPG_AI_RATE] = { "rpg_ai_rate", CC_NODE_RP, "rp_ai_rate", "RPG_AI_RATE",
        "Mb/s", "the additive-increase step" },
    [CC_RPG_HAI_RATE] = { "rpg_hai_rate", CC_NODE_RP, "rp_hai_rate", "RPG_HAI_RATE",
        "Mb/s", "the hyper-increase step" },
    [CC_RPG_GD] = { "rpg_gd", CC_NODE_RP, "rp_gd", "RPG_GD",
        "log2", "the shift between alpha and a rate cut: larger cuts less" },
    [CC_RPG_MIN_DEC_FAC] = { "rpg_min_dec_fac", CC_NODE_RP, "rp_min_dec_fac", "RPG_MIN_DEC_FAC",
        "%", "the largest cut of one event, as the share of the rate kept" },
    [CC_RPG_MIN_RATE] = { "rpg_min_rate", CC_NODE_RP, "rp_min_rate", "RPG_MIN_RATE",
        "Mb/s", "the lowest rate a flow is cut to" },
    [CC_RATE_TO_SET_ON_FIRST_CNP] = { "rate_to_set_on_first_cnp", CC_NODE_RP,
        "rp_rate_to_set_on_first_cnp", "RATE_TO_SET_ON_FIRST_CNP",
        "Mb/s", "the rate a flow drops to on its first CNP (0: the line rate)" },
    [CC_DCE_TCP_G] = { "dce_tcp_g", CC_NODE_RP, "rp_dce_tcp_g", "DCE_TCP_G",
        "1/1024", "alpha's gain: how fast alpha follows the CNPs" },
    [CC_DCE_TCP_RTT] = { "dce_tcp_rtt", CC_NODE_RP, "rp_dce_tcp_rtt", "DCE_TCP_RTT",
        "us", "the period of alpha's update" },
    [CC_RATE_REDUCE_MONITOR_PERIOD] = { "rate_reduce_monitor_period", CC_NODE_RP,
        "rp_rate_reduce_monitor_period", "RATE_REDUCE_MONITOR_PERIOD",
        "us", "the least time between two rate cuts" },
    [CC_INITIAL_ALPHA_VALUE] = { "initial_alpha_value", CC_NODE_RP, "rp_initial_alpha_value",
        "INITIAL_ALPHA_VALUE", "1/1024", "alpha at a flow's first CNP" },
    [CC_MIN_TIME_BETWEEN_CNPS] = { "min_time_between_cnps", CC_NODE_NP, "np_min_time_between_cnps",
        "MIN_TIME_BETWEEN_CNPS", "us", "the least time between two CNPs to one flow" },
    [CC_CNP_DSCP] = { "cnp_dscp", CC_NODE_NP, "np_cnp_dscp", "CNP_DSCP",
        "DSCP", "the DSCP CNPs are sent with" },
    [CC_CNP_802P_PRIO] = { "cnp_802p_prio", CC_NODE_NP, "np_cnp_prio", "CNP_802P_PRIO",
        "priority", "the 802.1p priority CNPs are sent with" },
    [CC_RP_PRIO_MASK] = { "rp_priority_mask", CC_NODE_SWITCH, NULL, "ROCE_CC_PRIO_MASK",
        "bitmap", "the priorities whose flows react to CNPs (roce_rp/enable/N)" },
    [CC_NP_ENABLED] = { "np_enabled", CC_NODE_SWITCH, NULL, NULL,
        "flag", "the port sends CNPs (any roce_np/enable/N)" },
};

const char *const cc_profile_names[] = {
    [CC_PROFILE_NONE] = "none",
    [CC_PROFILE_DRIVER_DEFAULTS] = "driver-defaults",
    [CC_PROFILE_ROCE_OPTIMIZED_V26_7] = "roce-optimized-v26.7",
    [CC_PROFILE_ROCE_OPTIMIZED_V26_10] = "roce-optimized-v26.10",
    [CC_PROFILE_OFF] = "off",
    [CC_PROFILE_SITE] = "site",
    NULL,
};

/* The firmware's Default column of `mlxconfig -e query` in the public dumps of
 * k8snetworkplumbingwg/sriov-network-operator#358 and #968 (ConnectX-6 Lx), the same in
 * #492 (ConnectX-5); the switches from ROCE_CC_PRIO_MASK's default 255 ("Enable" on NVIDIA's
 * DCQCN CC Parameters page). What the driver shows after a reset or a firmware update. */
static const int64_t driver_defaults[CC_PARAMS] = {
    [CC_CLAMP_TGT_RATE] = 0, [CC_CLAMP_TGT_RATE_ATI] = 1, [CC_RPG_TIME_RESET] = 300,
    [CC_RPG_BYTE_RESET] = 32767, [CC_RPG_THRESHOLD] = 1, [CC_RPG_MAX_RATE] = 0,
    [CC_RPG_AI_RATE] = 5, [CC_RPG_HAI_RATE] = 50, [CC_RPG_GD] = 11,
    [CC_RPG_MIN_DEC_FAC] = 50, [CC_RPG_MIN_RATE] = 1, [CC_RATE_TO_SET_ON_FIRST_CNP] = 0,
    [CC_DCE_TCP_G] = 1019, [CC_DCE_TCP_RTT] = 1, [CC_RATE_REDUCE_MONITOR_PERIOD] = 4,
    [CC_INITIAL_ALPHA_VALUE] = 1023, [CC_MIN_TIME_BETWEEN_CNPS] = 4, [CC_CNP_DSCP] = 48,
    [CC_CNP_802P_PRIO] = 6, [CC_RP_PRIO_MASK] = 255, [CC_NP_ENABLED] = 1,
};

const char *cc_profile_source(enum cc_profile p)
{
    switch (p) {
    case CC_PROFILE_DRIVER_DEFAULTS:
        return "the firmware's defaults (mlxconfig's Default column)";
    case CC_PROFILE_ROCE_OPTIMIZED_V26_7:
        return "NVIDIA Network Operator v26.7.0 roceOptimized: CNP DSCP 4, 802.1p 6, all priorities";
    case CC_PROFILE_ROCE_OPTIMIZED_V26_10:
        return "NVIDIA Network Operator v26.10.0 roceOptimized: CNP DSCP 48, 802.1p 6, all priorities";
    case CC_PROFILE_OFF:
        return "DCQCN off by design: no CNPs sent, no rate cut on any priority";
    case CC_PROFILE_SITE:
        return "the policy's rails.cc.params";
    default:
        return "no profile: the rails are only compared with each other";
    }
}

/* The Network Operator's roceOptimized sets ROCE_CC_PRIO_MASK, CNP_DSCP and CNP_802P_PRIO
 * and puts every other NVConfig parameter at the device's default. */
static int64_t profile_value(enum cc_profile p, enum cc_param i)
{
    switch (p) {
    case CC_PROFILE_DRIVER_DEFAULTS:
        return driver_defaults[i];
    case CC_PROFILE_ROCE_OPTIMIZED_V26_7:
        return i == CC_CNP_DSCP ? 4 : driver_defaults[i];
    case CC_PROFILE_ROCE_OPTIMIZED_V26_10:
        return i == CC_CNP_DSCP ? 48 : driver_defaults[i];
    case CC_PROFILE_OFF:
        return i == CC_RP_PRIO_MASK || i == CC_NP_ENABLED ? 0 : CC_UNKNOWN;
    default:
        return CC_UNKNOWN;
    }
}

int64_t cc_wanted(enum cc_profile p, const uint32_t overrides[CC_PARAMS], enum cc_param i)
{
    if (overrides && overrides[i] != CC_PARAM_UNSET)
        return overrides[i];
    return profile_value(p, i);
}

void cc_state_init(struct cc_state *c)
{
    memset(c, 0, sizeof(*c));
    for (size_t i = 0; i < CC_PARAMS; i++)
        c->running[i] = c->fw_current[i] = c->fw_next[i] = CC_UNKNOWN;
}

static void format_mask(int64_t v, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    if (v == 0xff) {
        snprintf(buf, len, "0-7");
        return;
    }
    for (int p = 0; p < 8 && n < len; p++)
        if (v & (1 << p))
            n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", p);
    if (!buf[0])
        snprintf(buf, len, "none");
}

void cc_format(enum cc_param i, int64_t v, char *buf, size_t len)
{
    if (v == CC_UNKNOWN)
        snprintf(buf, len, "?");
    else if (i == CC_RP_PRIO_MASK)
        format_mask(v, buf, len);
    else if (i == CC_NP_ENABLED)
        snprintf(buf, len, "%s", v ? "on" : "off");
    else
        snprintf(buf, len, "%" PRId64, v);
}

void cc_digest(const int64_t values[CC_PARAMS], char buf[17])
{
    uint64_t h = 0xcbf29ce484222325ull;
    char item[64];
    for (size_t i = 0; i < CC_PARAMS; i++) {
        int n = snprintf(item, sizeof(item), "%s=%" PRId64 "\n", cc_params[i].name, values[i]);
        for (int k = 0; k < n && k < (int)sizeof(item); k++) {
            h ^= (unsigned char)item[k];
            h *= 0x100000001b3ull;
        }
    }
    snprintf(buf, 17, "%016" PRIx64, h);
}

int cc_param_by_name(const char *name)
{
    for (size_t i = 0; i < CC_PARAMS; i++)
        if (streq(cc_params[i].name, name))
            return (int)i;
    return -1;
}
