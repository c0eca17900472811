/* SPDX-License-Identifier: ISC */
/* The NCCL contract, computed from the verified inventory and the policy. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "nccl.h"
#include "nccl_gid.h"
#include "topology.h"

__attribute__((format(printf, 3, 4)))
static void set(struct nccl_contract *c, const char *name, const char *fmt, ...)
{
    if (c->n >= NCCL_MAX_VARS)
        return;
    va_list ap;
    c->vars[c->n].name = name;
    va_start(ap, fmt);
    vsnprintf(c->vars[c->n].value, sizeof(c->vars[0].value), fmt, ap);
    va_end(ap);
    c->n++;
}

/* "=mlx5_0:1,mlx5_1:1": the leading '=' makes NCCL match names exactly, in rail order. */
static bool hca_list(const struct inventory *inv, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "=");
    for (size_t i = 0; i < inv->n_rails && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s:%u", i ? "," : "", inv->rails[i].device,
                              inv->rails[i].port);
    return n < len;
}

/* One index for every RoCE rail, or -1 (NCCL's own per-rail selection) if they differ. */
static int common_gid_index(const struct inventory *inv, const struct policy *p, bool *ret_roce)
{
    int idx = -2;
    *ret_roce = false;
    for (size_t i = 0; i < inv->n_rails; i++) {
        if (!streq(inv->rails[i].link_layer, "Ethernet"))
            continue;
        *ret_roce = true;
        int r = inv->rails[i].gid_index;
        if (idx != -2 && r != idx)
            return -1;
        idx = r;
    }
    return idx;
}

/* GPUDirect RDMA is ready when nvidia_peermem is loaded and every rail has a GPU behind
 * its own PCIe switch: then NCCL may use it up to that distance (PXB). Otherwise NCCL's own
 * default stands, and the gpudirect.* findings say why. */
static bool gpudirect_ready(const struct inventory *inv, const struct policy *p)
{
    if (p->rails.gpudirect == REQ_IGNORE || inv->n_gpus == 0 || !inv->peermem_loaded)
        return false;
    for (size_t i = 0; i < inv->n_rails; i++) {
        const char *dist = NULL;
        if (!topology_nearest_gpu(inv, &inv->rails[i], &dist) || !streq(dist, "PXB"))
            return false;
    }
    return true;
}

void nccl_contract_compute(const struct inventory *inv, const struct policy *p,
                           struct nccl_contract *c)
{
    char hca[NCCL_VALUE_MAX];
    bool roce;

    memset(c, 0, sizeof(*c));
    if (inv->n_rails == 0) {
        snprintf(c->why_empty, sizeof(c->why_empty), "no rails");
        return;
    }
    /* A cut list would steer NCCL off the rails it leaves out: no contract beats that. */
    if (!hca_list(inv, hca, sizeof(hca))) {
        snprintf(c->why_empty, sizeof(c->why_empty),
                 "the %zu rails do not fit NCCL_IB_HCA (%d bytes)", inv->n_rails, NCCL_VALUE_MAX);
        return;
    }
    set(c, "NCCL_IB_HCA", "%s", hca);
    if (gpudirect_ready(inv, p))
        set(c, "NCCL_NET_GDR_LEVEL", "PXB");
    int gid = common_gid_index(inv, p, &roce);
    if (!roce)
        return;     /* InfiniBand: NCCL addresses ports by LID */
    set(c, "NCCL_IB_GID_INDEX", "%d", gid);
    set(c, "NCCL_IB_ROCE_VERSION_NUM", "%u", p->rails.roce.version);
    set(c, "NCCL_IB_ADDR_FAMILY", "%s",
        p->rails.roce.address_family == ADDR_FAMILY_IPV4 ? "AF_INET" : "AF_INET6");
    if (gid < 0 && p->rails.roce.subnet.set) {
        char range[64];
        set(c, "NCCL_IB_ADDR_RANGE", "%s", cidr_format(&p->rails.roce.subnet, range, sizeof(range)));
    }
    /* The traffic class is DSCP << 2, with ECT(0) in the ECN bits when ECN is in use. */
    set(c, "NCCL_IB_TC", "%u", p->rails.qos.dscp << 2 | (p->rails.qos.ecn != REQ_IGNORE ? 2u : 0u));
}

const char *nccl_contract_get(const struct nccl_contract *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (streq(c->vars[i].name, name))
            return c->vars[i].value;
    return NULL;
}

char *nccl_contract_render(const struct nccl_contract *c, bool conf_format)
{
    size_t cap = 128 + c->n * (sizeof(c->vars[0].value) + 48);
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    size_t n = (size_t)snprintf(buf, cap, "# written by fabtune; do not edit\n");
    for (size_t i = 0; i < c->n; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s=%s\n", conf_format ? "" : "export ",
                              c->vars[i].name, c->vars[i].value);
    return buf;
}
