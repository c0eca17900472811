/* SPDX-License-Identifier: ISC */
/* The GID checks: a RoCE GID of the policy's version and family, in the subnet, at one
 * index across rails, and the same one NCCL's own selection would pick. */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"
#include "nccl_gid.h"

static enum gid_type wanted_type(const struct policy *p)
{
    return p->rails.roce.version == 2 ? GID_TYPE_ROCE_V2 : GID_TYPE_IB_ROCE_V1;
}

static const char *family_name(const struct policy *p)
{
    return p->rails.roce.address_family == ADDR_FAMILY_IPV4 ? "IPv4" : "IPv6";
}

/* A valid GID of the policy's version and family: the entries that can carry its jobs. */
static bool entry_usable(const struct gid_entry *g, const struct policy *p)
{
    return g->type == wanted_type(p) && !gid_is_zero(g->raw) && !gid_is_link_local(g->raw) &&
           gid_family(g->raw) == policy_roce_family(p);
}

/* Is the entry at idx what the policy asks for? */
static bool entry_good(const struct rail *r, int idx, const struct policy *p)
{
    return idx >= 0 && (uint32_t)idx < r->n_gids && entry_usable(&r->gids[idx], p);
}

static bool in_subnet(const struct gid_entry *g, const struct cidr *c)
{
    int fam = gid_family(g->raw);
    return cidr_contains(c, fam, fam == AF_INET ? g->raw + 12 : g->raw);
}

/* With "auto" and a subnet: the first usable entry when every usable one is outside the
 * subnet (so NCCL's selection, confined to it, keeps index 0); else -1. */
static int first_out_of_subnet(const struct rail *r, const struct policy *p)
{
    int first = -1;
    if (p->rails.roce.gid_index != POLICY_GID_INDEX_AUTO || !p->rails.roce.subnet.set)
        return -1;
    for (uint32_t i = 0; i < r->n_gids; i++) {
        if (!entry_usable(&r->gids[i], p))
            continue;
        if (in_subnet(&r->gids[i], &p->rails.roce.subnet))
            return -1;
        if (first < 0)
            first = (int)i;
    }
    return first;
}

static bool out_of_subnet(const struct rail *r, const struct policy *p)
{
    return first_out_of_subnet(r, p) >= 0;
}

static void describe(const struct rail *r, int idx, char *buf, size_t len)
{
    char ip[64];
    if (idx < 0 || (uint32_t)idx >= r->n_gids) {
        snprintf(buf, len, "index %d: none", idx);
        return;
    }
    const struct gid_entry *g = &r->gids[idx];
    gid_format(g->raw, true, ip, sizeof(ip));
    snprintf(buf, len, "index %d: %s %s", idx, gid_type_to_string(g->type), ip);
}

static void check_version_and_family(const struct rail *r, int idx, const struct policy *p,
                                     struct findings *out)
{
    char want[64], got[96];
    bool any_version = false, any_family = false;
    for (uint32_t i = 0; i < r->n_gids; i++) {
        const struct gid_entry *g = &r->gids[i];
        if (g->type != wanted_type(p) || gid_is_zero(g->raw))
            continue;
        any_version = true;
        any_family |= !gid_is_link_local(g->raw) && gid_family(g->raw) == policy_roce_family(p);
    }
    snprintf(want, sizeof(want), "RoCE v%u", p->rails.roce.version);
    describe(r, idx, got, sizeof(got));
    if (!any_version)
        findings_add(out, "gid.roce_v2", SEVERITY_ERROR, r->name, want, "none",
                     "RoCE GIDs appear when the netdev has addresses; check 'rdma link show' "
                     "and the netdev's addresses", "no RoCE v%u GID in the table",
                     p->rails.roce.version);
    else
        findings_add(out, "gid.roce_v2", SEVERITY_OK, r->name, want, want, NULL,
                     "RoCE v%u GIDs present", p->rails.roce.version);

    snprintf(want, sizeof(want), "RoCE v%u %s", p->rails.roce.version, family_name(p));
    if (!any_family)
        findings_add(out, "gid.family", SEVERITY_ERROR, r->name, want, "none",
                     "add an address of that family to the rail's netdev",
                     "no RoCE v%u GID with an %s address", p->rails.roce.version, family_name(p));
    else if (!entry_good(r, idx, p) && out_of_subnet(r, p))
        findings_add(out, "gid.family", SEVERITY_OK, r->name, want, want, NULL,
                     "%s GIDs present, none in the subnet (gid.subnet)", want);
    else if (!entry_good(r, idx, p))
        findings_add(out, "gid.family", SEVERITY_ERROR, r->name, want, got,
                     "rails.roce.gid_index names an entry of another type or family",
                     "the policy's GID %s is not %s", got, want);
    else
        findings_add(out, "gid.family", SEVERITY_OK, r->name, want, got, NULL, "GID %s", got);
}

static void check_subnet(const struct rail *r, int idx, const struct policy *p,
                         struct findings *out)
{
    char want[64], got[96];
    const struct cidr *c = &p->rails.roce.subnet;
    if (!c->set) {
        findings_add(out, "gid.subnet", SEVERITY_OK, r->name, NULL, NULL, NULL,
                     "no subnet in the policy");
        return;
    }
    cidr_format(c, want, sizeof(want));
    int outside = first_out_of_subnet(r, p);
    if (outside >= 0) {
        gid_format(r->gids[outside].raw, true, got, sizeof(got));
        findings_add(out, "gid.subnet", SEVERITY_ERROR, r->name, want, got,
                     "the rail's address is on the wrong network: check its netdev's address",
                     "%s (GID index %d) is outside %s, and no RoCE v%u %s GID is in it", got,
                     outside, want, p->rails.roce.version, family_name(p));
        return;
    }
    if (!entry_good(r, idx, p)) {
        findings_add(out, "gid.subnet", SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "no usable GID to compare with the subnet");
        return;
    }
    const uint8_t *raw = r->gids[idx].raw;
    int fam = gid_family(raw);
    gid_format(raw, true, got, sizeof(got));
    if (cidr_contains(c, fam, fam == AF_INET ? raw + 12 : raw))
        findings_add(out, "gid.subnet", SEVERITY_OK, r->name, want, got, NULL, "%s is in %s", got, want);
    else
        findings_add(out, "gid.subnet", SEVERITY_ERROR, r->name, want, got,
                     "the rail's address is on the wrong network: check its netdev's address",
                     "%s is outside %s", got, want);
}

/* NCCL's selection fails on a types file it cannot open: under NCCL's defaults (a job
 * without NCCL_IB_* variables), or under the policy's settings (fabtune's nccl.env with
 * NCCL_IB_GID_INDEX=-1). Returns 0 after adding the error, -1 when it does not fail. */
static int check_nccl_failure(const struct rail *r, const struct policy *p, struct findings *out)
{
    bool defaults;
    int at = nccl_selection_fails_at(r, policy_roce_family(p), p->rails.roce.version,
                                     &p->rails.roce.subnet, &defaults);
    if (at < 0)
        return -1;
    char got[96];
    describe(r, at, got, sizeof(got));
    findings_add(out, "gid.nccl", SEVERITY_ERROR, r->name, "a GID index", got,
                 "restore the file (a container or a capture without it?), or set "
                 "NCCL_IB_GID_INDEX so that no selection runs",
                 "NCCL's GID selection fails%s: gid_attrs/types/%d does not exist, and every "
                 "NCCL since 2.21 returns an error when it cannot open it", defaults ? ""
                 : " under the policy's family, version and subnet", at);
    return 0;
}

static void check_nccl_pick(const struct rail *r, int idx, const struct policy *p,
                            struct findings *out)
{
    char want[96], got[96];
    if (check_nccl_failure(r, p, out) == 0)
        return;
    /* What a job gets with no NCCL_IB_* variables: NCCL's defaults, IPv4 and RoCE v2. */
    int nccl = nccl_replay_gid_index(r, AF_INET, 2, NULL);
    const char *fallback = nccl >= 0 ? nccl_gid_skip_reason(&r->gids[nccl], AF_INET, 2, NULL) : NULL;
    describe(r, idx, want, sizeof(want));
    describe(r, nccl, got, sizeof(got));
    if (nccl == idx && fallback)
        findings_add(out, "gid.nccl", SEVERITY_WARNING, r->name, want, got,
                     streq(fallback, "link-local")
                     ? "a link-local GID does not route: a job across subnets will not run; "
                       "give the rail's netdev an IPv4 address"
                     : "give the rail's netdev an address of the family and version NCCL wants",
                     "NCCL's automatic selection finds no RoCE v2 IPv4 GID and falls back to %s "
                     "(%s)", got, fallback);
    else if (nccl == idx)
        findings_add(out, "gid.nccl", SEVERITY_OK, r->name, want, got, NULL,
                     "NCCL's automatic selection picks %s", got);
    else
        findings_add(out, "gid.nccl", SEVERITY_WARNING, r->name, want, got,
                     "jobs must use fabtune's nccl.env (NCCL_IB_GID_INDEX) on this node",
                     "NCCL's automatic selection would pick %s", got);
}

/* NCCL 2.21 to 2.25 read the RoCE type of the current pick and of every candidate of the
 * wanted family in range (ncclUpdateGidIndex's ncclIbRoceGetVersionNum) and fail the
 * whole selection on one whose read fails (EINVAL); 2.26+ go on past it. Judged under the
 * policy's family, version and subnet (what fabtune's nccl.env gives a job that runs the
 * selection), on the entries that replay reads; a file that cannot be opened fails every
 * version, and is gid.nccl's. */
static void check_nccl_legacy(const struct rail *r, const struct policy *p, struct findings *out)
{
    int at = nccl_replay_failure(r, policy_roce_family(p), p->rails.roce.version,
                                 &p->rails.roce.subnet, NCCL_2_21);
    if (at >= 0 && r->gids[at].type == GID_TYPE_UNREADABLE) {
        char got[96];
        describe(r, at, got, sizeof(got));
        findings_add(out, "gid.nccl_legacy", SEVERITY_WARNING, r->name, "readable GID types", got,
                     "use NCCL 2.26 or later, or source fabtune's nccl.env (NCCL_IB_GID_INDEX "
                     "set: no selection runs)",
                     "GID index %d's RoCE type cannot be read (gid_attrs/types/%d): NCCL 2.21 to "
                     "2.25 fail their GID selection on it, 2.26+ skip it", at, at);
        return;
    }
    findings_add(out, "gid.nccl_legacy", SEVERITY_OK, r->name, NULL, NULL, NULL, "%s",
                 at >= 0 ? "no failure particular to NCCL 2.21 to 2.25 (a missing types file "
                           "fails every version: gid.nccl)"
                         : "every GID type NCCL 2.21's selection reads is readable");
}

/* A port without ports/N/gids/: nothing to pick from, and nothing known of its GIDs. */
static void no_gid_table(const struct rail *r, struct findings *out)
{
    findings_add(out, "gid.roce_v2", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL,
                 "no GID table (ports/%u/gids/ is absent)", r->port);
    findings_add(out, "gid.nccl", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL,
                 "no GID table: NCCL has no GID to pick");
}

static void check_consistent(const struct inventory *inv, const struct policy *p,
                             struct findings *out)
{
    int first = -2;
    bool same = true;
    char list[512] = "";
    size_t len = 0, n = 0;
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        if (!rail_is_roce(r))
            continue;
        int idx = r->gid_index;
        same &= first == -2 || idx == first;
        if (first == -2)
            first = idx;
        n++;
        len += (size_t)snprintf(list + len, len < sizeof(list) ? sizeof(list) - len : 0,
                                "%s%s=%d", len ? " " : "", r->name, idx);
        if (len >= sizeof(list))
            len = sizeof(list) - 1;
    }
    if (n == 0)
        return;
    char got[16];
    snprintf(got, sizeof(got), "%d", first);
    if (same)
        findings_add(out, "gid.consistent", SEVERITY_OK, NULL, got, got, NULL,
                     "GID index %d on every RoCE rail", first);
    else
        findings_add(out, "gid.consistent", SEVERITY_WARNING, NULL, "one index", list,
                     "NCCL_IB_GID_INDEX is one value for all rails: configure the rails' "
                     "addresses alike so their GIDs land at the same index",
                     "the GID index differs across rails: %s", list);
}

void check_gids(const struct inventory *inv, const struct policy *p, struct findings *out)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        if (!rail_is_roce(r))
            continue;   /* InfiniBand is addressed by LID; its GIDs need no checking here */
        if (!r->has_gid_table) {
            no_gid_table(r, out);
            continue;
        }
        int idx = r->gid_index;
        check_version_and_family(r, idx, p, out);
        check_subnet(r, idx, p, out);
        check_nccl_pick(r, idx, p, out);
        check_nccl_legacy(r, p, out);
    }
    check_consistent(inv, p, out);
}
