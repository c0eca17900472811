/* SPDX-License-Identifier: ISC */
/* rails.uniform: rails that should be alike and are not. A node's rails of one design are
 * one part number on one cable plan, so one that differs from its siblings is suspect even
 * where the policy sets no bound: a rail trained at 200G among 400G ones, a netdev left at
 * MTU 1500, an HCA missed by a firmware update, a card of another vendor (which NCCL also
 * pairs by HCA order). NVSentinel's "uncabled port anomaly" has the same idea: no expected
 * value, the siblings are the reference. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"
#include "strutil.h"

/* What the rails are compared in, the policy's switch for it (rails.uniform.NAME), and
 * which rails count as siblings: the same link layer always; for the attributes a card
 * model sets (its rate, width, MTU and firmware line), the same PCI vendor and device too,
 * so a storage NIC of another model beside the compute rails is not compared with them. */
struct uniform_attr {
    const char *name;           /* rails.uniform's key */
    const char *what;           /* in the message */
    bool same_model;
    bool ordered;               /* a tie goes to the higher value (strverscmp) */
    const char *judged_by;      /* the check that holds the value to the policy, if any */
    const char *hint;
    void (*value)(const struct rail *r, char *buf, size_t len);   /* "" unknown */
};

static bool active(const struct rail *r)
{
    return r->state == 4;
}

static void rate_of(const struct rail *r, char *buf, size_t len)
{
    if (active(r) && r->rate_gbps > 0)
        snprintf(buf, len, "%g Gb/s", r->rate_gbps);
}

/* "400 Gb/sec (4X NDR)": the port's width, "4X" (drivers/infiniband/core/sysfs.c rate_show). */
static void width_of(const struct rail *r, char *buf, size_t len)
{
    const char *p = strchr(r->rate_text, '(');
    size_t n = p ? strspn(p + 1, "0123456789") : 0;
    if (active(r) && n && p[1 + n] == 'X')
        snprintf(buf, len, "%.*sX", (int)n, p + 1);
}

static void mtu_of(const struct rail *r, char *buf, size_t len)
{
    if (r->netdev.present && r->netdev.mtu)
        snprintf(buf, len, "%u", r->netdev.mtu);
}

static void firmware_of(const struct rail *r, char *buf, size_t len)
{
    strscpy(buf, r->fw_ver, len);
}

static void vendor_of(const struct rail *r, char *buf, size_t len)
{
    strscpy(buf, r->pci_vendor, len);
}

static void driver_of(const struct rail *r, char *buf, size_t len)
{
    strscpy(buf, r->driver, len);
}

static const struct uniform_attr attrs[] = {
    { "rate", "rate", true, true, "port.rate",
      "a rail slower than its siblings trained down or is cabled differently: check its cable, "
      "transceiver and switch port speed (rails.uniform.rate: false if intended)", rate_of },
    { "width", "link width", true, true, "port.rate",
      "a narrower link lost lanes: reseat or replace the cable or transceiver "
      "(rails.uniform.width: false if intended)", width_of },
    { "mtu", "netdev MTU", true, true, "netdev.mtu",
      "set its MTU as its siblings' (ip link set dev IF mtu N, and in the interface's "
      "persistent configuration) (rails.uniform.mtu: false if intended)", mtu_of },
    { "firmware", "firmware", true, true, NULL,
      "bring the HCA to its siblings' firmware (mlxfwmanager, or the vendor's tool) "
      "(rails.uniform.firmware: false if intended)", firmware_of },
    { "vendor", "PCI vendor", false, false, NULL,
      "a rail of another vendor among the others: NCCL pairs ranks by HCA order, so leave it out "
      "with rails.select, or set rails.uniform.vendor: false if it is meant to be a rail", vendor_of },
    { "driver", "driver", false, false, NULL,
      "a rail on another driver among the others: leave it out with rails.select, or set "
      "rails.uniform.driver: false if it is meant to be a rail", driver_of },
};

_Static_assert(ARRAY_SIZE(attrs) == RAILS_UNIFORM_ATTRS, "rails.uniform's keys, one per attribute");

static bool compared(const struct policy *p, size_t a)
{
    return p->rails.uniform.compare[a];
}

/* Whether rails I and J are siblings for ATTR. */
static bool siblings(const struct rail *i, const struct rail *j, const struct uniform_attr *attr)
{
    return streq(i->link_layer, j->link_layer) &&
           (!attr->same_model ||
            (streq(i->pci_vendor, j->pci_vendor) && streq(i->pci_device, j->pci_device)));
}

#define VALUE_LEN 64

/* Of the siblings of rail FIRST with a known value: the value most have (a tie: the higher
 * of ordered values, else the first rail's), how many have it, and how many are known. */
static void reference(const struct inventory *inv, size_t first, const struct uniform_attr *attr,
                      char ref[VALUE_LEN], size_t *ret_have, size_t *ret_known)
{
    size_t best = 0, known = 0;
    ref[0] = '\0';
    for (size_t i = first; i < inv->n_rails; i++) {
        char v[VALUE_LEN] = "", w[VALUE_LEN];
        if (!siblings(&inv->rails[first], &inv->rails[i], attr))
            continue;
        attr->value(&inv->rails[i], v, sizeof(v));
        if (!v[0])
            continue;
        known++;
        size_t have = 0;
        for (size_t j = first; j < inv->n_rails; j++) {
            w[0] = '\0';
            if (siblings(&inv->rails[first], &inv->rails[j], attr))
                attr->value(&inv->rails[j], w, sizeof(w));
            have += streq(v, w);
        }
        if (have > best || (have == best && attr->ordered && strverscmp(v, ref) > 0)) {
            best = have;
            strscpy(ref, v, VALUE_LEN);
        }
    }
    *ret_have = best;
    *ret_known = known;
}

/* Whether rail I is the first of its siblings for ATTR (their group is judged there). */
static bool first_sibling(const struct inventory *inv, size_t i, const struct uniform_attr *attr)
{
    for (size_t j = 0; j < i; j++)
        if (siblings(&inv->rails[j], &inv->rails[i], attr))
            return false;
    return true;
}

static const char *kind_of(const struct rail *r, const struct uniform_attr *attr, char *buf,
                           size_t len)
{
    if (attr->same_model && r->pci_vendor[0])
        snprintf(buf, len, "%s rails of PCI ID %s:%s", r->link_layer, r->pci_vendor, r->pci_device);
    else
        snprintf(buf, len, "%s rails", r->link_layer);
    return buf;
}

/* Whether CHECK already flags RAIL (a warning or an error in OUT): the policy's own bound
 * named the cause, and a second finding would only repeat it. */
static bool flagged(const struct findings *out, const char *check, const char *rail)
{
    for (size_t i = 0; check && i < out->n; i++) {
        const struct finding *f = &out->items[i];
        if (streq(f->check, check) && f->rail && streq(f->rail, rail) &&
            (f->severity == SEVERITY_WARNING || f->severity == SEVERITY_ERROR))
            return true;
    }
    return false;
}

/* The odd rails of ATTR among rail FIRST's siblings; the number of them. */
static size_t judge_group(const struct inventory *inv, size_t first,
                          const struct uniform_attr *attr, struct findings *out)
{
    char ref[VALUE_LEN], kind[96];
    size_t have, known, odd = 0;
    reference(inv, first, attr, ref, &have, &known);
    if (known < 2 || have == known)
        return 0;
    for (size_t i = first; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        char v[VALUE_LEN] = "";
        if (!siblings(&inv->rails[first], r, attr))
            continue;
        attr->value(r, v, sizeof(v));
        if (!v[0] || streq(v, ref))
            continue;
        odd++;
        if (flagged(out, attr->judged_by, r->name))
            continue;
        findings_add(out, "rails.uniform", SEVERITY_WARNING, r->name, ref, v, attr->hint,
                     "%s %s, where %zu of the %zu %s have %s", attr->what, v, have, known,
                     kind_of(r, attr, kind, sizeof(kind)), ref);
    }
    return odd;
}

/* Appends ITEM to the list in BUF (", " between). */
static void list_add(char *buf, size_t len, const char *item)
{
    size_t n = strlen(buf);
    if (n < len)
        snprintf(buf + n, len - n, "%s%s", n ? ", " : "", item);
}

void check_uniform(const struct inventory *inv, const struct policy *p, struct findings *out)
{
    char alike[160] = "", off[160] = "";
    size_t odd = 0, n_alike = 0, n_off = 0;
    if (inv->n_rails < 2)
        return;
    for (size_t a = 0; a < ARRAY_SIZE(attrs); a++) {
        if (!compared(p, a)) {
            list_add(off, sizeof(off), attrs[a].name);
            n_off++;
            continue;
        }
        size_t before = odd;
        for (size_t i = 0; i < inv->n_rails; i++)
            if (first_sibling(inv, i, &attrs[a]))
                odd += judge_group(inv, i, &attrs[a], out);
        if (odd == before) {
            list_add(alike, sizeof(alike), attrs[a].name);
            n_alike++;
        }
    }
    if (n_alike)
        findings_add(out, "rails.uniform", SEVERITY_OK, NULL, NULL, NULL, NULL,
                     "%zu rails alike in %s%s%s%s", inv->n_rails, alike,
                     n_off ? " (not compared, as rails.uniform says: " : "", off,
                     n_off ? ")" : "");
}
