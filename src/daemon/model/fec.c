/* SPDX-License-Identifier: ISC */
/* FEC modes and the rules on them (fec.h). */
#include "config.h"

#include "fec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* include/uapi/linux/ethtool.h, enum ethtool_link_mode_bit_indices. */
#define LINK_MODE_FEC_NONE 49
#define LINK_MODE_FEC_RS 50
#define LINK_MODE_FEC_BASER 51
#define LINK_MODE_FEC_LLRS 74

enum fec_mode fec_mode_of_link_bit(uint32_t bit)
{
    switch (bit) {
    case LINK_MODE_FEC_NONE: return FEC_MODE_OFF;
    case LINK_MODE_FEC_RS: return FEC_MODE_RS;
    case LINK_MODE_FEC_BASER: return FEC_MODE_BASER;
    case LINK_MODE_FEC_LLRS: return FEC_MODE_LLRS;
    default: return FEC_MODE_UNKNOWN;
    }
}

const char *fec_mode_name(enum fec_mode m)
{
    static const char *const names[FEC_MODES] = { "unknown", "off", "rs", "baser", "llrs" };
    return (unsigned)m < FEC_MODES ? names[m] : "unknown";
}

const char *fec_stat_name(enum fec_stat s)
{
    static const char *const names[FEC_STATS] = { "corrected", "uncorrectable", "corrected_bits" };
    return (unsigned)s < FEC_STATS ? names[s] : "?";
}

double fec_lane_gbps(double rate_gbps, const char *rate_text)
{
    const char *p = rate_text ? strchr(rate_text, '(') : NULL;
    if (!p || !(rate_gbps > 0))
        return 0;
    char *end;
    long width = strtol(p + 1, &end, 10);
    if (end == p + 1 || *end != 'X' || width <= 0 || width > 16)
        return 0;
    return rate_gbps / (double)width;
}

enum fec_need fec_need_of_lane(double lane_gbps)
{
    /* InfiniBand rates are not round (EDR 25.78125 Gb/s a lane reads "25"); a lane of HDR
     * (50G PAM4) or NDR (100G PAM4) and the Ethernet 50G/100G lanes are all PAM4. */
    if (lane_gbps >= 45)
        return FEC_NEED_RS_KP4;
    if (lane_gbps >= 24)
        return FEC_NEED_RS_KR4;
    return FEC_NEED_NONE;
}

const char *fec_need_text(enum fec_need n)
{
    switch (n) {
    case FEC_NEED_RS_KP4: return "RS(544,514) (IEEE 802.3 clause 134, PAM4 lanes)";
    case FEC_NEED_RS_KR4: return "RS(528,514) (IEEE 802.3 clause 91, 25G lanes)";
    default: return "no FEC";
    }
}

double fec_ber_limit(enum fec_need n)
{
    switch (n) {
    case FEC_NEED_RS_KP4: return 2.4e-4;
    case FEC_NEED_RS_KR4: return 5e-5;
    default: return 0;
    }
}

double fec_ber(double errors_per_second, double rate_gbps)
{
    if (!(rate_gbps > 0) || errors_per_second < 0)
        return -1;
    return errors_per_second / (rate_gbps * 1e9);
}

double fec_errors_per_second(double ber, double rate_gbps)
{
    return ber * rate_gbps * 1e9;
}
