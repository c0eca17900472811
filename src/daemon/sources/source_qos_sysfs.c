/* SPDX-License-Identifier: ISC */
/* Trust, ECN and CNP marking from sysfs. These files come from the mlx5 driver of
 * MLNX_OFED (class/net/IF/qos/trust, class/net/IF/ecn/roce_np|roce_rp/enable/0..7,
 * ecn/roce_np/[params/]cnp_dscp and cnp_802p_prio, as NVIDIA's MLNX_OFED "Explicit
 * Congestion Notification" page documents them); the upstream driver and other vendors have
 * none, and then trust is read off the DCB APP table and ECN is left unknown. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "source_qos.h"
#include "sysfs.h"

static void read_trust(const char *root, const char *ifname, struct qos_state *q)
{
    char line[128];
    int r = sysfs_read_line(root, line, sizeof(line), "class/net/%s/qos/trust", ifname);
    if (r == 0) {
        /* "dscp", or "Priority trust state: pcp" (mlnx_qos style): find the word. */
        const char *s = strcasestr(line, "dscp") ? "dscp" : strcasestr(line, "pcp") ? "pcp" : NULL;
        if (s) {
            snprintf(q->trust, sizeof(q->trust), "%s", s);
            q->trust_source = TRUST_FROM_SYSFS;
            return;
        }
        snprintf(q->trust_why, sizeof(q->trust_why),
                 "qos/trust reads \"%s\", neither dscp nor pcp", line);
        return;
    }
    if (q->dcb.known && q->dcb.has_app_table) {
        snprintf(q->trust, sizeof(q->trust), "%s", qos_app_has_dscp(&q->dcb) ? "dscp" : "pcp");
        q->trust_source = TRUST_FROM_APP_TABLE;
        return;
    }
    snprintf(q->trust_why, sizeof(q->trust_why), "no qos/trust file and no DCB APP table%s%s",
             q->dcb.why[0] ? ": " : "", q->dcb.why);
}

/* ROOT/class/net/IF/ecn/DIR/enable/0..7 as a bitmap; -1 when absent or malformed. */
static int read_ecn_dir(const char *root, const char *ifname, const char *dir, char *why,
                        size_t whylen)
{
    int mask = 0;
    for (int prio = 0; prio < QOS_PRIOS; prio++) {
        uint64_t v;
        int r = sysfs_read_u64(root, &v, "class/net/%s/ecn/%s/enable/%d", ifname, dir, prio);
        if (r < 0 || v > 1) {
            snprintf(why, whylen, r < 0 ? "ecn/%s/enable/%d is not readable"
                                        : "ecn/%s/enable/%d holds neither 0 nor 1", dir, prio);
            return -1;
        }
        mask |= (int)v << prio;
    }
    return mask;
}

/* An ecn/roce_np parameter, directly or under params/ (both layouts are documented). */
static int read_np_param(const char *root, const char *ifname, const char *name, uint64_t max)
{
    uint64_t v;
    if (sysfs_read_u64(root, &v, "class/net/%s/ecn/roce_np/%s", ifname, name) == 0 ||
        sysfs_read_u64(root, &v, "class/net/%s/ecn/roce_np/params/%s", ifname, name) == 0)
        return v <= max ? (int)v : -1;
    return -1;
}

static void read_ecn(const char *root, const char *ifname, struct qos_state *q)
{
    if (!sysfs_exists(root, "class/net/%s/ecn", ifname)) {
        snprintf(q->ecn_why, sizeof(q->ecn_why), "the driver exposes no ECN sysfs (ecn/roce_np)");
        return;
    }
    int np = read_ecn_dir(root, ifname, "roce_np", q->ecn_why, sizeof(q->ecn_why));
    int rp = np < 0 ? -1 : read_ecn_dir(root, ifname, "roce_rp", q->ecn_why, sizeof(q->ecn_why));
    if (np >= 0 && rp >= 0) {
        q->ecn_known = true;
        q->ecn_np = (uint8_t)np;
        q->ecn_rp = (uint8_t)rp;
    }
    q->cnp_dscp = read_np_param(root, ifname, "cnp_dscp", 63);
    q->cnp_802p_prio = read_np_param(root, ifname, "cnp_802p_prio", 7);
}

void source_qos_sysfs(const char *root, const char *ifname, struct qos_state *q)
{
    read_trust(root, ifname, q);
    read_ecn(root, ifname, q);
}
