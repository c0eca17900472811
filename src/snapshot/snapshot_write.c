/* SPDX-License-Identifier: ISC */
/* fabtunectl snapshot's capture of what is not a file: each netdev's DCB netlink and
 * ethtool replies, written as raw bytes in snapshot_layout.h's layout. */
#include "config.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "kernel_module.h"
#include "kernel_replies.h"
#include "kernel_routes.h"
#include "lldp_capture.h"
#include "macro.h"
#include "snapshot_layout.h"
#include "snapshot_write.h"
#include "strutil.h"

/* 1 when written, or -errno. The snapshot's scratch tree is this process's own. */
static int write_bytes(const char *dir, const char *name, const void *data, size_t len)
{
    char path[640];             /* DIR (512) "/" NAME (< 64) */
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int r = write_file_atomic(path, data, len, 0644);
    return r < 0 ? r : 1;
}

static int write_errno(const char *dir, const char *name, int err)
{
    char file[64], text[16];
    snprintf(file, sizeof(file), "%s.errno", name);
    int n = snprintf(text, sizeof(text), "%d\n", -err);
    return write_bytes(dir, file, text, (size_t)n);
}

/* The module EEPROM: the lower page, then each upper page the decoder reads, whatever the
 * module's memory model (a page it lacks is kept as the kernel's refusal). A driver
 * without module access leaves the lower page's refusal alone. */
static int write_module(const char *dir, const char *ifname)
{
    static const uint8_t pages[] = { 0x00, 0x01, 0x02, 0x03, 0x11 };
    char why[128], name[32];
    unsigned char *reply = NULL;
    int kept = 0;
    int n = kernel_module_eeprom_get(ifname, 0, 0, 128, &reply, why, sizeof(why));
    int r = n > 0 ? write_bytes(dir, "module_lower", reply, (size_t)n)
                  : write_errno(dir, "module_lower", n);
    /* The kernel refused the lower page (its NLMSG_ERROR is kept): no upper page to ask. */
    struct nlmsghdr h = { .nlmsg_type = NLMSG_ERROR };
    if (n >= (int)sizeof(h))
        memcpy(&h, reply, sizeof(h));
    free(reply);
    kept += r > 0;
    for (size_t i = 0; h.nlmsg_type != NLMSG_ERROR && i < ARRAY_SIZE(pages); i++) {
        reply = NULL;
        snprintf(name, sizeof(name), "module_page_%02x", pages[i]);
        int m = kernel_module_eeprom_get(ifname, pages[i], 128, 128, &reply, why, sizeof(why));
        r = m > 0 ? write_bytes(dir, name, reply, (size_t)m) : write_errno(dir, name, m);
        free(reply);
        kept += r > 0;
    }
    return kept;
}

int snapshot_write_replies(const char *top, const char *ifname)
{
    char dir[512], why[128];
    int kept = 0, r;
    if (!ifname[0] || strchr(ifname, '/') || streq(ifname, ".") || streq(ifname, ".."))
        return -EINVAL;
    snprintf(dir, sizeof(dir), "%s/fabtune", top);
    (void)mkdir(dir, 0755);
    snprintf(dir, sizeof(dir), "%s/%s", top, SNAPSHOT_REPLIES_DIR);
    (void)mkdir(dir, 0755);
    snprintf(dir, sizeof(dir), "%s/%s/%s", top, SNAPSHOT_REPLIES_DIR, ifname);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return -errno;

    unsigned char *reply = NULL;
    int n = kernel_dcb_ieee_get(ifname, &reply, why, sizeof(why));
    r = n > 0 ? write_bytes(dir, "dcb_ieee", reply, (size_t)n) : write_errno(dir, "dcb_ieee", n);
    free(reply);
    kept += r > 0;

    struct ethtool_pauseparam pp;
    int e = kernel_ethtool_pause(ifname, &pp);
    r = e == 0 ? write_bytes(dir, "ethtool_pause", &pp, sizeof(pp)) : write_errno(dir, "ethtool_pause", e);
    kept += r > 0;

    struct ethtool_gstrings *names = NULL;
    struct ethtool_stats *stats = NULL;
    size_t cap;
    e = kernel_ethtool_stats(ifname, &names, &stats, &cap);
    if (e == 0) {
        /* Header and the COUNT entries both replies cover, as the kernel laid them out. */
        size_t count = names->len < stats->n_stats ? names->len : stats->n_stats;
        names->len = stats->n_stats = (uint32_t)count;
        r = write_bytes(dir, "ethtool_strings", names, sizeof(*names) + count * ETH_GSTRING_LEN);
        kept += r > 0;
        r = write_bytes(dir, "ethtool_stats", stats, sizeof(*stats) + count * sizeof(uint64_t));
        kept += r > 0;
    } else
        kept += write_errno(dir, "ethtool_stats", e) > 0;
    free(names);
    free(stats);

    kept += write_module(dir, ifname);

    /* Its FEC: FEC_GET's answer with the statistics, reply or refusal, as sent. */
    reply = NULL;
    n = kernel_fec_get(ifname, &reply, why, sizeof(why));
    r = n > 0 ? write_bytes(dir, "fec", reply, (size_t)n) : write_errno(dir, "fec", n);
    free(reply);
    kept += r > 0;

    /* Where its packets go: the destinations are its neighbours and gateways (a snapshot
     * knows no policy, so not the peers; a probed peer has a neighbour entry). */
    struct kernel_capture c = { 0 };
    e = kernel_routes_capture(ifname, 0, NULL, 0, true, &c, why, sizeof(why));
    r = e == 0 ? write_bytes(dir, "routes", c.buf, c.len) : write_errno(dir, "routes", e);
    kept += r > 0;
    kernel_capture_done(&c);

    /* What it is plugged into: lldpd's neighbours (its default socket). */
    char *text = NULL;
    size_t tlen;
    e = lldp_capture(NULL, ifname, &text, &tlen, why, sizeof(why));
    r = e == 0 ? write_bytes(dir, "lldp", text, tlen) : write_errno(dir, "lldp", e);
    kept += r > 0;
    free(text);
    return kept;
}

