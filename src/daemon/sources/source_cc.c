/* SPDX-License-Identifier: ISC */
/* DCQCN parameters. Running: MLNX_OFED's class/net/IF/ecn/roce_rp|roce_np/NAME (roce_np
 * also under params/, as source_qos_sysfs.c reads cnp_dscp), else the upstream driver's
 * debugfs kernel/debug/mlx5/PCI/cc_params/NAME (drivers/infiniband/hw/mlx5/cong.c: mode
 * 0600, "%u\n", root only). Next boot: mstconfig or mlxconfig, run off the event loop
 * within rails.cc.firmware_timeout, its answer kept per PCI function for
 * rails.cc.firmware_every; a snapshot's copy offline. Absent files are unknown. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <time.h>

#include "fw_config.h"
#include "fw_config_parse.h"
#include "grow.h"
#include "macro.h"
#include "snapshot_read.h"
#include "source_cc.h"
#include "sysfs.h"

#define DEBUGFS_MAGIC 0x64626720    /* include/uapi/linux/magic.h */

static int read_sysfs(const char *root, const char *ifname, const struct cc_param_info *pi,
                      uint64_t *v)
{
    const char *dir = pi->node == CC_NODE_RP ? "roce_rp" : "roce_np";
    int r = sysfs_read_u64(root, v, "class/net/%s/ecn/%s/%s", ifname, dir, pi->name);
    if (r < 0 && pi->node == CC_NODE_NP)
        r = sysfs_read_u64(root, v, "class/net/%s/ecn/%s/params/%s", ifname, dir, pi->name);
    return r;
}

/* Why debugfs gave nothing for PCI: unmounted, root's, or no mlx5 cc_params there. */
static void debugfs_why(const char *root, const char *pci, int err, char *buf, size_t len)
{
    struct statfs sf;
    if (err == -EACCES || err == -EPERM)
        snprintf(buf, len, "debugfs is readable by root only");
    else if (streq(root, "/sys") && (statfs("/sys/kernel/debug", &sf) < 0 ||
                                     (unsigned long)sf.f_type != DEBUGFS_MAGIC))
        snprintf(buf, len, "debugfs is not mounted at /sys/kernel/debug");
    else if (!sysfs_exists(root, "kernel/debug/mlx5"))
        snprintf(buf, len, "debugfs holds no mlx5 directory");
    else
        snprintf(buf, len, "debugfs holds no mlx5/%s/cc_params (mlx5_ib not loaded, or the "
                 "firmware allows no congestion-control query)", pci);
}

void source_cc_running(const char *root, const struct rail *r, struct cc_state *c)
{
    bool from_sysfs = false, from_debugfs = false;
    int debugfs_err = -ENOENT;
    char dbg_why[160];
    for (size_t i = 0; i < CC_PARAMS; i++) {
        const struct cc_param_info *pi = &cc_params[i];
        uint64_t v;
        int e = -ENOENT;
        if (pi->node == CC_NODE_SWITCH)
            continue;
        if (read_sysfs(root, r->netdev.name, pi, &v) == 0)
            from_sysfs = true;
        else if (r->pci_addr[0] &&
                 (e = sysfs_read_u64(root, &v, "kernel/debug/mlx5/%s/cc_params/%s", r->pci_addr,
                                     pi->debugfs)) == 0)
            from_debugfs = true;
        else {
            debugfs_err = e == -EACCES || e == -EPERM ? e : debugfs_err;
            continue;
        }
        c->running[i] = v <= UINT32_MAX ? (int64_t)v : CC_UNKNOWN;
    }
    if (r->qos.ecn_known) {
        c->running[CC_RP_PRIO_MASK] = r->qos.ecn_rp;
        c->running[CC_NP_ENABLED] = r->qos.ecn_np != 0;
    }
    snprintf(c->source, sizeof(c->source), "%s%s%s", from_sysfs ? "sysfs" : "",
             from_sysfs && from_debugfs ? "+" : "", from_debugfs ? "debugfs" : "");
    c->known = from_sysfs || from_debugfs;
    if (c->known)
        return;
    if (!r->pci_addr[0]) {
        snprintf(c->why, sizeof(c->why), "no ecn/ parameters and no PCI function for debugfs");
        return;
    }
    debugfs_why(root, r->pci_addr, debugfs_err, dbg_why, sizeof(dbg_why));
    snprintf(c->why, sizeof(c->why), "no ecn/roce_rp parameters (MLNX_OFED's sysfs), and %s",
             dbg_why);
}

/* The firmware port of a rail: mlx5 has one PCI function per port, function N is _P(N+1). */
static unsigned fw_port(const struct rail *r)
{
    const char *dot = strrchr(r->pci_addr, '.');
    return dot && dot[1] >= '0' && dot[1] <= '7' && !dot[2] ? (unsigned)(dot[1] - '0') + 1 : 1;
}

static void fw_apply(const char *tool, const char *text, size_t len, const struct rail *r,
                     struct cc_state *c)
{
    char why[160];
    snprintf(c->fw_tool, sizeof(c->fw_tool), "%s", tool);
    if (fw_config_parse(text, len, fw_port(r), c->fw_current, c->fw_next, why, sizeof(why)) > 0)
        c->fw_known = true;
    else
        snprintf(c->fw_why, sizeof(c->fw_why), "%s: %s", tool[0] ? tool : "the firmware tool", why);
}

static void fw_query(const struct rail *r, const struct policy *p, struct cc_state *c)
{
    char *text = NULL, tool[16] = "";
    size_t len = 0;
    int err = fw_config_query(r->pci_addr, p->rails.cc.firmware_timeout, &text, &len, tool,
                              sizeof(tool), c->fw_why, sizeof(c->fw_why));
    if (err == 0)
        fw_apply(tool, text, len, r, c);
    free(text);
}

void fw_answers_done(struct fw_answers *a)
{
    free(a->v);
    *a = (struct fw_answers){ 0 };
}

/* PCI's answer in ANSWERS, added empty (never asked) if new; NULL past the bound or out
 * of memory. */
static struct fw_answer *fw_answer_of(struct fw_answers *answers, const char *pci)
{
    for (size_t i = 0; i < answers->n; i++)
        if (streq(answers->v[i].pci, pci))
            return &answers->v[i];
    if (GROW_ARRAY(answers->v, answers->cap, answers->n + 1, INVENTORY_MAX_RAILS) < 0)
        return NULL;
    struct fw_answer *a = &answers->v[answers->n++];
    memset(a, 0, sizeof(*a));
    snprintf(a->pci, sizeof(a->pci), "%s", pci);
    return a;
}

static void fw_live(const struct rail *r, const struct policy *p, struct fw_answers *answers,
                    struct cc_state *c)
{
    usec_t now = now_usec(CLOCK_BOOTTIME);
    struct fw_answer *a;
    if (!answers) {
        fw_query(r, p, c);
        return;
    }
    if (!(a = fw_answer_of(answers, r->pci_addr))) {
        snprintf(c->fw_why, sizeof(c->fw_why), "more PCI functions than fabtune keeps answers for");
        return;
    }
    if (!a->at || now - a->at >= p->rails.cc.firmware_every) {
        cc_state_init(&a->fw);
        fw_query(r, p, &a->fw);
        a->at = now ? now : 1;
    }
    c->fw_known = a->fw.fw_known;
    memcpy(c->fw_why, a->fw.fw_why, sizeof(c->fw_why));
    memcpy(c->fw_tool, a->fw.fw_tool, sizeof(c->fw_tool));
    memcpy(c->fw_current, a->fw.fw_current, sizeof(c->fw_current));
    memcpy(c->fw_next, a->fw.fw_next, sizeof(c->fw_next));
}

static void fw_snapshot(const char *sysroot, const struct rail *r, struct cc_state *c)
{
    char *text = NULL, *tool = NULL, *why = NULL;
    size_t len, tlen, wlen;
    int err;
    int k = snapshot_read_reply(sysroot, r->netdev.name, "fw_config", &text, &len, &err);
    if (snapshot_read_reply(sysroot, r->netdev.name, "fw_config.tool", &tool, &tlen, &err) == 1)
        tool[strcspn(tool, "\n")] = '\0';
    if (k == 1)
        fw_apply(tool ? tool : "", text, len, r, c);
    else if (k == 0 && snapshot_read_reply(sysroot, r->netdev.name, "fw_config.why", &why, &wlen,
                                           &err) == 1)
        snprintf(c->fw_why, sizeof(c->fw_why), "when the snapshot was taken: %.*s",
                 (int)strcspn(why, "\n"), why);
    else
        snprintf(c->fw_why, sizeof(c->fw_why), "the captured tree holds no firmware tool's answer");
    free(text);
    free(tool);
    free(why);
}

void source_cc_fill(const char *sysroot, bool live, const struct policy *p,
                    struct fw_answers *answers, struct inventory *inv)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct rail *r = &inv->rails[i];
        struct cc_state *c = &r->cc;
        if (!streq(r->link_layer, "Ethernet") || !r->netdev.present)
            continue;
        cc_state_init(c);
        source_cc_running(sysroot, r, c);
        if (p->rails.cc.firmware == CC_FIRMWARE_OFF)
            snprintf(c->fw_why, sizeof(c->fw_why), "rails.cc.firmware is off");
        else if (!streq(r->driver, "mlx5_core") || !r->pci_addr[0])
            snprintf(c->fw_why, sizeof(c->fw_why), "not an mlx5 PCI function (%s)",
                     r->driver[0] ? r->driver : "driver unknown");
        else if (live)
            fw_live(r, p, answers, c);
        else
            fw_snapshot(sysroot, r, c);
    }
}
