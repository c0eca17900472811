/* SPDX-License-Identifier: ISC */
/* The names of the congestion-control (DCQCN) parameters of an mlx5 port, one list that
 * the policy's rails.cc.params keys and the model's tables (cc.h) share. */
#pragma once

#include <stdint.h>

/* A parameter the policy leaves to the profile (rails.cc.params: null, or absent). */
#define CC_PARAM_UNSET UINT32_MAX

/* X(ID, name, max): the name is the MLNX_OFED sysfs file's (ecn/roce_rp/, ecn/roce_np/),
 * max the largest value the policy takes. The last two are the switches: the reaction
 * point's priorities (roce_rp/enable/0..7 as a bitmap) and the notification point, which
 * sends CNPs for the whole port once any roce_np/enable/N is 1. */
#define CC_PARAM_LIST(X) \
    X(CLAMP_TGT_RATE, clamp_tgt_rate, 1) \
    X(CLAMP_TGT_RATE_ATI, clamp_tgt_rate_after_time_inc, 1) \
    X(RPG_TIME_RESET, rpg_time_reset, 131071) \
    X(RPG_BYTE_RESET, rpg_byte_reset, 32767) \
    X(RPG_THRESHOLD, rpg_threshold, 31) \
    X(RPG_MAX_RATE, rpg_max_rate, 1000000) \
    X(RPG_AI_RATE, rpg_ai_rate, 1000000) \
    X(RPG_HAI_RATE, rpg_hai_rate, 1000000) \
    X(RPG_GD, rpg_gd, 15) \
    X(RPG_MIN_DEC_FAC, rpg_min_dec_fac, 100) \
    X(RPG_MIN_RATE, rpg_min_rate, 1000000) \
    X(RATE_TO_SET_ON_FIRST_CNP, rate_to_set_on_first_cnp, 1000000) \
    X(DCE_TCP_G, dce_tcp_g, 1023) \
    X(DCE_TCP_RTT, dce_tcp_rtt, 131071) \
    X(RATE_REDUCE_MONITOR_PERIOD, rate_reduce_monitor_period, 1000000) \
    X(INITIAL_ALPHA_VALUE, initial_alpha_value, 1023) \
    X(MIN_TIME_BETWEEN_CNPS, min_time_between_cnps, 1000000) \
    X(CNP_DSCP, cnp_dscp, 63) \
    X(CNP_802P_PRIO, cnp_802p_prio, 7) \
    X(RP_PRIO_MASK, rp_priority_mask, 255) \
    X(NP_ENABLED, np_enabled, 1)

#define CC_PARAM_ENUM(id, name, max) CC_##id,
enum cc_param { CC_PARAM_LIST(CC_PARAM_ENUM) CC_PARAMS };
#undef CC_PARAM_ENUM

/* The built-in profiles (cc.c holds their values and sources). NONE: no profile, the rails
 * are only compared with each other; SITE: the policy's params alone. */
enum cc_profile {
    CC_PROFILE_NONE,
    CC_PROFILE_DRIVER_DEFAULTS,
    CC_PROFILE_ROCE_OPTIMIZED_V26_7,
    CC_PROFILE_ROCE_OPTIMIZED_V26_10,
    CC_PROFILE_OFF,
    CC_PROFILE_SITE,
    CC_PROFILES
};

/* rails.cc.firmware: ask mstconfig (or mlxconfig) for the next-boot values, or not. */
enum cc_firmware { CC_FIRMWARE_AUTO, CC_FIRMWARE_OFF };
