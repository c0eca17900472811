/* SPDX-License-Identifier: ISC */
/* A port's forward error correction: its mode (configured and active) and statistics as
 * ETHTOOL_MSG_FEC_GET gives them (include/uapi/linux/ethtool_netlink.h, ETHTOOL_A_FEC_*;
 * Documentation/networking/ethtool-netlink.rst, "FEC_GET"), and the pure rules on them:
 * the mode a lane rate needs, the FEC's correction limit, bit error ratios. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fec_mode {
    FEC_MODE_UNKNOWN,           /* not reported */
    FEC_MODE_OFF,               /* ETHTOOL_LINK_MODE_FEC_NONE_BIT */
    FEC_MODE_RS,                /* Reed-Solomon: clause 91 RS(528,514), clause 134 RS(544,514) */
    FEC_MODE_BASER,             /* clause 74 Fire code (BASE-R) */
    FEC_MODE_LLRS,              /* Ethernet Technology Consortium low-latency RS(272,257+1) */
    FEC_MODES
};

/* ETHTOOL_MAX_LANES (include/uapi/linux/ethtool.h): the kernel's per-lane arrays. */
#define FEC_LANES_MAX 8

enum fec_stat {
    FEC_STAT_CORRECTED,         /* ETHTOOL_A_FEC_STAT_CORRECTED: blocks corrected */
    FEC_STAT_UNCORRECTABLE,     /* ETHTOOL_A_FEC_STAT_UNCORR: blocks not correctable */
    FEC_STAT_CORRECTED_BITS,    /* ETHTOOL_A_FEC_STAT_CORR_BITS: bits corrected */
    FEC_STATS
};

/* One statistic: the kernel's array is the total, then one value per lane (its
 * fec_stats_recalc(): the total is the lanes' sum when the driver gives lanes). */
struct fec_counter {
    bool valid;
    uint64_t total;
    unsigned n_lanes;
    uint64_t lanes[FEC_LANES_MAX];
};

struct fec_info {
    bool configured_known;
    unsigned configured;        /* bits 1 << enum fec_mode: ETHTOOL_A_FEC_MODES */
    bool autoneg;               /* ETHTOOL_A_FEC_AUTO: the mode follows autonegotiation */
    enum fec_mode active;       /* ETHTOOL_A_FEC_ACTIVE */
    struct fec_counter stats[FEC_STATS];
};

/* A rail's FEC as its source read it: known, or why not (the kernel's reason). */
struct fec_state {
    bool read;                  /* a source asked (Ethernet rails with a netdev) */
    bool known;
    int err;                    /* the failed read's -errno when !known */
    char why[160];
    struct fec_info info;
};

/* The FEC mode of an ethtool link-mode bit (ETHTOOL_LINK_MODE_FEC_*_BIT); UNKNOWN else. */
enum fec_mode fec_mode_of_link_bit(uint32_t bit);
const char *fec_mode_name(enum fec_mode m);          /* "off", "rs", "baser", "llrs" */
const char *fec_stat_name(enum fec_stat s);          /* "corrected", "uncorrectable", ... */

/* The rate of one lane: RATE_GBPS over the width in RATE_TEXT ("400 Gb/sec (4X NDR)":
 * 4 lanes of 100G); 0 when either is unknown. */
double fec_lane_gbps(double rate_gbps, const char *rate_text);

/* What a lane rate needs (IEEE 802.3): 50G and 100G lanes are PAM4 and need RS(544,514)
 * (clause 134, "KP4"); 25G lanes RS(528,514) (clause 91, "KR4"; mandatory for
 * 100GBASE-SR4/CR4/KR4); slower lanes need none. */
enum fec_need { FEC_NEED_NONE, FEC_NEED_RS_KR4, FEC_NEED_RS_KP4 };
enum fec_need fec_need_of_lane(double lane_gbps);
const char *fec_need_text(enum fec_need n);         /* "RS(544,514) (IEEE 802.3 clause 134)" */

/* The pre-FEC bit error ratio the FEC corrects to a post-FEC BER below 1e-12/1e-13 (its
 * limit): RS(544,514) 2.4e-4 (IEEE 802.3 clause 134 / 802.3bs), RS(528,514) 5e-5
 * (clause 91); 0 when unknown (FEC off, BASE-R, LLRS). */
double fec_ber_limit(enum fec_need n);

/* Errors per second over the bits per second of a link of RATE_GBPS: a bit error ratio.
 * -1 when the rate is unknown. */
double fec_ber(double errors_per_second, double rate_gbps);
/* The errors per second a bit error ratio BER allows on a link of RATE_GBPS. */
double fec_errors_per_second(double ber, double rate_gbps);
