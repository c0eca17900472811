/* SPDX-License-Identifier: ISC */
/* A port's counters from sysfs (ports/N/hw_counters/ and ports/N/counters/; bnxt_re has no
 * counters/, rxe only hw_counters/) and the classified ethtool statistics of its netdev. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "macro.h"
#include "snapshot_read.h"
#include "source_fec.h"
#include "source_counters.h"
#include "sysfs.h"

static void read_dir(const char *root, const struct rail *r, const char *dir,
                     struct counter_sample *s)
{
    _cleanup_(sysfs_dir_freep) struct sysfs_dir *d = NULL;
    if (sysfs_dir_open(root, &d, "class/infiniband/%s/ports/%u/%s", r->device, r->port, dir) < 0)
        return;
    for (size_t i = 0; i < sysfs_dir_count(d); i++) {
        const char *name = sysfs_dir_name(d, i);
        uint64_t v;
        /* hw_counters/lifespan is a setting, not a counter. */
        if (streq(name, "lifespan") || sysfs_dir_read_u64(d, i, &v) < 0)
            continue;
        /* counters/ is the IB PMA's PortCounters (fixed widths, saturating) */
        if (streq(dir, "counters"))
            (void)counter_sample_add_pma(s, name, v);
        else
            (void)counter_sample_add(s, name, v);
    }
}

/* mlx5's physical-layer statistics (drivers/net/ethernet/mellanox/mlx5/core/en_stats.c:
 * the phy group's link_down_events_phy, rx_pcs_symbol_err_phy (symbol errors FEC did not
 * correct), rx_corrected_bits_phy and rx_err_lane_N_phy; the 802_3 group's
 * rx_symbol_err_phy (packets dropped for a symbol error) and rx_crc_errors_phy), kept
 * unclassified for the BER (counters.h, link_rate) and
 * the report: a PAM4 link corrects bits all the time, so no class may count them. */
static bool phy_stat(const char *name)
{
    static const char *const names[] = {
        "rx_corrected_bits_phy", "rx_symbol_err_phy", "rx_pcs_symbol_err_phy",
        "rx_crc_errors_phy", "link_down_events_phy",
    };
    unsigned lane;
    char tail[8];
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        if (streq(name, names[i]))
            return true;
    return sscanf(name, "rx_err_lane_%u_%7s", &lane, tail) == 2 && streq(tail, "phy") && lane < 8;
}

/* Of a NIC's hundreds of statistics, those a class uses (counters.c), and the PHY's. */
static bool classified_stat(const char *name)
{
    char key[80];
    unsigned prio;
    snprintf(key, sizeof(key), "ethtool:%s", name);
    return phy_stat(name) || counter_classify(key, NULL) != COUNTER_UNCLASSIFIED ||
           sscanf(name, "rx_prio%u_pause", &prio) == 1 || sscanf(name, "tx_prio%u_pause", &prio) == 1;
}

/* Offline: the ethtool statistics the snapshot kept (GSTRINGS and GSTATS, raw). */
static void snapshot_stats(const char *sysroot, const char *ifname, struct counter_sample *s)
{
    char *names = NULL, *stats = NULL;
    size_t nlen, slen;
    int err;
    if (snapshot_read_reply(sysroot, ifname, "ethtool_strings", &names, &nlen, &err) == 1 &&
        snapshot_read_reply(sysroot, ifname, "ethtool_stats", &stats, &slen, &err) == 1)
        (void)source_ethtool_fold_bytes(names, nlen, stats, slen, classified_stat, s);
    free(names);
    free(stats);
}

/* The rail's traffic so far: its netdev's byte counters, else the port's PMA data
 * counters (4-byte words; an IB port without a netdev). */
static void sample_bytes(const char *sysroot, const struct rail *r, struct counter_sample *s)
{
    if (r->netdev.present &&
        sysfs_read_u64(sysroot, &s->rx_bytes, "class/net/%s/statistics/rx_bytes", r->netdev.name) == 0 &&
        sysfs_read_u64(sysroot, &s->tx_bytes, "class/net/%s/statistics/tx_bytes", r->netdev.name) == 0) {
        s->has_bytes = true;
        return;
    }
    bool rx = false, tx = false;
    for (size_t i = 0; i < s->n; i++) {
        if (s->values[i].pma && streq(s->values[i].name, "port_rcv_data")) {
            s->rx_bytes = s->values[i].value * 4;
            rx = true;
        } else if (s->values[i].pma && streq(s->values[i].name, "port_xmit_data")) {
            s->tx_bytes = s->values[i].value * 4;
            tx = true;
        }
    }
    s->has_bytes = rx && tx;
}

/* FABTUNE_TEST_HANG_COUNTERS=PATH: each sample first reads PATH to its end with a blocking
 * open and read. For tests only: a FIFO there, which the test opens for writing now and
 * then, stands for a driver whose counter or FEC_GET read hangs (real blocking I/O in the
 * thread that samples). Without the variable, or without the file, nothing happens. */
static void test_hang_counters(void)
{
    const char *path = getenv("FABTUNE_TEST_HANG_COUNTERS");
    char buf[64];
    if (!path || !*path)
        return;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return;
    for (;;) {
        ssize_t k = read(fd, buf, sizeof(buf));
        if (k == 0 || (k < 0 && errno != EINTR))
            break;
    }
    close(fd);
}

void source_counters_sample(const char *sysroot, bool live, const struct rail *r,
                            struct counter_sample *s)
{
    test_hang_counters();
    memset(s, 0, sizeof(*s));
    s->taken = now_usec(CLOCK_BOOTTIME);
    s->pfc_known = r->qos.dcb.known && r->qos.dcb.has_pfc;
    s->pfc_en = r->qos.dcb.pfc_en;
    read_dir(sysroot, r, "hw_counters", s);
    read_dir(sysroot, r, "counters", s);
    sample_bytes(sysroot, r, s);
    if (live && r->netdev.present)
        (void)source_ethtool_stats(r->netdev.name, classified_stat, s);
    else if (r->netdev.present)
        snapshot_stats(sysroot, r->netdev.name, s);
    source_fec_sample(live, r, s);
}

void source_counters_read(const char *sysroot, bool live, struct inventory *inv)
{
    for (size_t i = 0; i < inv->n_rails; i++)
        source_counters_sample(sysroot, live, &inv->rails[i], &inv->rails[i].counters);
}

void source_boot_id(const char *procroot, char *buf, size_t len)
{
    if (sysfs_read_line(procroot, buf, len, "sys/kernel/random/boot_id") < 0 || !buf[0])
        snprintf(buf, len, "unknown");
}
