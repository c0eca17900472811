/* SPDX-License-Identifier: ISC */
/* The rates between two counter samples, their peaks and the carrier history: the state
 * kept between passes. The previous sample persists with the boot id, so a reboot or a
 * counter reset never gives a negative rate. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counter_sample.h"
#include "inventory.h"
#include "policy.h"
#include "timeutil.h"

#define CARRIER_HISTORY 64

struct class_rate {
    bool present;               /* the driver has counters of this class */
    bool known;                 /* a rate could be computed */
    double per_second;
    double peak;                /* the highest rate within the hold time (counter_state) */
    usec_t peak_at;             /* when the peak was sampled */
    char peak_top[COUNTER_NAME_MAX]; /* the counter that rose most then */
    char top[COUNTER_NAME_MAX]; /* the counter that rose most */
    uint64_t total;             /* the sum of its counters in the last sample: events since
                                 * their last reset (a saturated one adds no more) */
};

/* The port's symbol errors (the IB PMA's symbol_error, which mlx5 keeps for RoCE ports
 * too): the count since its last reset, and its rate between the last two samples. */
struct symbol_rate {
    bool present;               /* the port has the counter */
    bool known;                 /* a rate could be computed (two samples, no reset, and
                                 * not saturated) */
    bool saturated;             /* a PMA counter stopped at its maximum: a rise is not seen */
    uint64_t total;
    double per_second;
    usec_t over;                /* the interval the rate is measured over */
};

/* The FEC's and the PHY's error counts, for the bit error ratios (model/fec.h): FEC_GET's
 * statistics ("fec:*", source_fec.h) and mlx5's PHY statistics ("ethtool:*_phy",
 * drivers/net/ethernet/mellanox/mlx5/core/en_stats.c's PPCNT physical-layer group). Each
 * a count since its last reset and its rate between the last two samples, as symbols. */
#define LINK_LANES 8            /* ETHTOOL_MAX_LANES: the per-lane counts kept */

enum link_rate {
    LINK_RATE_FEC_CORRECTED_BITS,   /* fec:corrected_bits */
    LINK_RATE_FEC_UNCORRECTABLE,    /* fec:uncorrectable (blocks) */
    LINK_RATE_PHY_CORRECTED_BITS,   /* ethtool:rx_corrected_bits_phy */
    LINK_RATE_PHY_SYMBOL_ERR,       /* ethtool:rx_pcs_symbol_err_phy: errors FEC left (not
                                     * rx_symbol_err_phy: packets dropped, no bits) */
    LINK_RATES
};
const char *link_rate_counter(enum link_rate r);     /* "fec:corrected_bits" */

/* A link's bit error ratios from those rates (model/fec.h's fec_ber) at RATE_GBPS:
 * pre-FEC from the bits FEC corrected (FEC_GET's, else mlx5's PHY count); post-FEC from
 * the symbol errors FEC left (mlx5's rx_pcs_symbol_err_phy), else the uncorrectable blocks
 * (one bit each at least: a lower bound). A rate unknown (one sample, a reset) leaves the
 * BER unknown and the count's total in the struct. */
struct link_ber {
    bool pre_present, post_present;         /* a counter to take it from */
    enum link_rate pre_from, post_from;
    struct symbol_rate pre, post;           /* the counts taken */
    bool pre_known, post_known;
    double pre_ber, post_ber;
};
void link_ber_of(const struct symbol_rate link[LINK_RATES], double rate_gbps, struct link_ber *b);

/* Each lane's pre-FEC count: FEC_GET's corrected bits per lane ("fec:corrected_bits:laneN"),
 * else mlx5's raw errors per lane before FEC (ethtool:rx_err_lane_N_phy). A single bad lane
 * (one fibre of a DR4, one pair of a DAC) hides in the link's mean: 1 lane of 8 at 8x. */
const char *link_lane_counter(unsigned lane, bool phy, char *buf, size_t len);
/* The lanes' pre-FEC BERs of rail R, each at a lane's rate as the kernel tells the link's
 * lanes (link_lane_gbps), and the worst known one. LANES_PHY: the counts are mlx5's PHY
 * ones (rx_err_lane_N_phy), not FEC_GET's. */
struct lane_ber {
    unsigned n;                 /* lanes with a count (the first N) */
    bool known[LINK_LANES];
    double ber[LINK_LANES];
    int worst;                  /* -1: none known */
    double lane_gbps;           /* the rate each lane's BER is taken at; 0: unknown */
    const char *why;            /* why the lane rate is unknown (a static text) */
};
/* The rate of one lane of R's link, or 0 with *WHY:
 * - InfiniBand: the rate over the width of the port's rate text ("400 Gb/sec (4X NDR)":
 *   drivers/infiniband/core/sysfs.c rate_show prints ib_port_attr's active_width, the IB
 *   link width, its lanes);
 * - Ethernet: that width is the RDMA core's translation of the netdev's speed
 *   (ib_get_eth_speed: 25G reads 1X, 100G 4X, whatever the link's lanes), never its lane
 *   count. FEC_GET's per-lane statistics are the driver's lanes (net/ethtool/fec.c: the
 *   lanes it sets, up to ETHTOOL_MAX_LANES): the rate over those; mlx5's PHY per-lane
 *   counts are a fixed set of the driver's, no lane count: unknown. */
double link_lane_gbps(const struct rail *r, const struct symbol_rate lanes[LINK_LANES],
                      bool lanes_phy, const char **why);
void link_lane_ber_of(const struct symbol_rate lanes[LINK_LANES], bool lanes_phy,
                      const struct rail *r, struct lane_ber *b);

struct carrier_mark {
    usec_t at;                  /* CLOCK_BOOTTIME */
    uint64_t changes;
};

/* What is kept of one rail between samples. */
struct rail_counters {
    char rail[80];
    struct counter_sample last;
    bool have_last;
    struct class_rate rates[COUNTER_CLASSES];
    struct symbol_rate symbols;
    struct symbol_rate link[LINK_RATES];    /* same meaning as symbols */
    struct symbol_rate lanes[LINK_LANES];   /* each lane's corrected bits (link_lane_counter) */
    bool lanes_phy;             /* ... mlx5's PHY counts, not FEC_GET's */
    unsigned resets;            /* counters seen going backwards since the last reading */
    char note[160];             /* why no rates: first sample, a reboot */
    struct carrier_mark carrier[CARRIER_HISTORY];
    size_t n_carrier;
    /* The rail's traffic, the larger of rx and tx, between the last two samples with byte
     * counts, and since when it has stayed under its fold's busy_bps. */
    bool traffic_known;
    double traffic_bps;         /* bits per second */
    usec_t quiet_since;         /* CLOCK_BOOTTIME; 0: busy, or not measured yet */
    double busy_bps;            /* the traffic last judged busy */
    /* An interval since the first sample or the last reset was judged busy or quiet (one
     * the daemon's own probes ran in is not): until then the rail's traffic is unknown. */
    bool traffic_judged;
    /* CLOCK_BOOTTIME of the latest sample whose link-class rate was over its fold's
     * link_limit: when an error burst was last seen (0: not in this boot). Saved with the
     * held peaks (state/counters_store), so a restart neither forgets a burst the peak
     * still holds nor dates it at the new process's first sample. */
    usec_t link_over_at;
    /* ... and of the latest sample at or under it: one after the burst was last seen ends
     * it, so a rise past the limit again, within the held peak, is a second burst. */
    usec_t link_under_at;
};

/* Rails kept in the state and its file (2 KiB each): one per inventory rail, no more. */
#define COUNTER_MAX_RAILS INVENTORY_MAX_RAILS

struct counter_state {
    bool snapshot;              /* one sample of a --sysfs-root tree: no history */
    /* The daemon's own probe traffic (CLOCK_BOOTTIME): an interval between two samples
     * that began before it is not judged busy or quiet. UINT64_MAX while a run goes. */
    usec_t own_traffic_until;
    char boot_id[40];
    struct rail_counters *rails;
    size_t n, cap;              /* cap: room in rails (grown by doubling) */
};


/* What a fold judges the samples by: the policy's values, handed to every fold (the
 * daemon's, --once's, the counters timer's), never kept in the state, so that every path
 * judges alike. counter_limits_of() makes them from a policy. */
struct counter_limits {
    usec_t peak_hold;           /* how long a peak rate stays reported (0: the last rate) */
    double busy_bps;            /* traffic at or above this is busy (probes.defer.busy_gbps) */
    double link_limit;          /* a link-class rate over this is a burst (checks.counters.link) */
};

/* The limits of policy P: the peaks held over a check interval (a burst between two passes
 * is not averaged away, nor lost to an event-driven pass right after), probes.defer's busy
 * traffic, checks.counters.link. */
struct counter_limits counter_limits_of(const struct policy *p);

/* Folds one rail's new sample (taken under BOOT_ID) into the state, judged by LIM: rates against the
 * previous sample where there is one from this boot, peaks, the carrier history (kept to
 * span CARRIER_WINDOW). The state keeps a copy of the sample. -EFBIG for a rail past
 * COUNTER_MAX_RAILS; -ENOMEM. */
int counters_fold(struct counter_state *st, const struct counter_limits *lim,
                  const char *boot_id, const char *rail, const struct counter_sample *s, bool has_carrier, uint64_t carrier_changes,
                  usec_t carrier_window);
struct rail_counters *counters_find(struct counter_state *st, const char *rail);
const struct rail_counters *counters_find_const(const struct counter_state *st, const char *rail);
/* Carrier changes within WINDOW before the latest mark; -1 with one mark or none. SPAN
 * gets the time actually covered. */
int64_t counters_carrier_changes(const struct rail_counters *rc, usec_t window, usec_t *span);
void counters_done(struct counter_state *st);
/* A deep copy of FROM into TO (overwritten): either can then change or go alone. -ENOMEM
 * leaves TO empty. */
int counters_copy(const struct counter_state *from, struct counter_state *to);
/* Folds every rail of INV (its counters and carrier_changes) under BOOT_ID. */
int counters_fold_inventory(struct counter_state *st, const struct counter_limits *lim,
                            const char *boot_id, const struct inventory *inv,
                            usec_t carrier_window);

