/* SPDX-License-Identifier: ISC */
/* Congestion control (DCQCN) of each Ethernet rail: qos.cc, every parameter and switch
 * against the policy's profile; qos.cc_next_boot, the running values against those the
 * firmware boots with next; qos.cc_alike, the rails of the node against each other,
 * whatever the policy. What a driver does not expose is unknown, never an error. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"

/* The list "name value (wants W), ..." of a rail's differences, built item by item. */
struct cc_list {
    char text[1536];
    size_t len;
    unsigned n;
};

__attribute__((format(printf, 2, 3)))
static void list_add(struct cc_list *l, const char *fmt, ...)
{
    va_list ap;
    if (l->len + 2 >= sizeof(l->text))
        return;
    if (l->n++)
        l->len += (size_t)snprintf(l->text + l->len, sizeof(l->text) - l->len, ", ");
    va_start(ap, fmt);
    int k = vsnprintf(l->text + l->len, sizeof(l->text) - l->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        l->len = l->len + (size_t)k < sizeof(l->text) ? l->len + (size_t)k : sizeof(l->text) - 1;
}

static bool profile_set(const struct policy *p)
{
    if (p->rails.cc.profile != CC_PROFILE_NONE)
        return true;
    for (size_t i = 0; i < CC_PARAMS; i++)
        if (p->rails.cc.params[i] != CC_PARAM_UNSET)
            return true;
    return false;
}

static bool judged_rail(const struct rail *r)
{
    return streq(r->link_layer, "Ethernet") && r->netdev.present;
}

static void check_profile(const struct rail *r, const struct policy *p, struct findings *out)
{
    const char *name = cc_profile_names[p->rails.cc.profile];
    struct cc_list got = { .len = 0 }, want = { .len = 0 }, said = { .len = 0 };
    unsigned judged = 0, missing = 0;
    char a[32], w[32], expected[64];
    snprintf(expected, sizeof(expected), "profile %s", name);
    for (size_t i = 0; i < CC_PARAMS; i++) {
        int64_t wanted = cc_wanted(p->rails.cc.profile, p->rails.cc.params, i);
        int64_t running = r->cc.running[i];
        if (wanted == CC_UNKNOWN)
            continue;
        if (running == CC_UNKNOWN) {
            missing++;
            continue;
        }
        judged++;
        if (running == wanted)
            continue;
        cc_format(i, running, a, sizeof(a));
        cc_format(i, wanted, w, sizeof(w));
        list_add(&said, "%s %s (wants %s)", cc_params[i].name, a, w);
        list_add(&got, "%s %s", cc_params[i].name, a);
        list_add(&want, "%s %s", cc_params[i].name, w);
    }
    if (judged == 0)
        findings_add(out, "qos.cc", SEVERITY_UNKNOWN, r->name, expected, NULL, NULL,
                     "%s: DCQCN parameters unknown: %s", r->netdev.name,
                     r->cc.why[0] ? r->cc.why : r->qos.ecn_why);
    else if (got.n)
        findings_add(out, "qos.cc", SEVERITY_WARNING, r->name, want.text, got.text,
                     "this rail reacts to congestion unlike the others, and its flows take an "
                     "unfair share or back off too far: write the values to "
                     "/sys/class/net/NETDEV/ecn/roce_rp|roce_np/NAME, and with mstconfig set "
                     "NAME_P1=VALUE for the next boot",
                     "%s: %u DCQCN parameter%s differ%s from profile %s: %s", r->netdev.name,
                     got.n, PLURAL_S(got.n), got.n == 1 ? "s" : "", name, said.text);
    else if (p->rails.cc.profile == CC_PROFILE_OFF)
        findings_add(out, "qos.cc", SEVERITY_OK, r->name, expected, "off", NULL,
                     "%s: DCQCN off by design (profile off): no CNPs sent, no rate cut",
                     r->netdev.name);
    else
        findings_add(out, "qos.cc", SEVERITY_OK, r->name, expected, expected, NULL,
                     "%s: DCQCN as profile %s (%u parameters; %u more not exposed)",
                     r->netdev.name, name, judged, missing);
}

/* Running against next boot: a value changed at run time that a reboot undoes, or one set
 * with the tool that a reboot brings. */
static void check_next_boot(const struct rail *r, struct findings *out)
{
    const struct cc_state *c = &r->cc;
    struct cc_list undo = { .len = 0 }, bring = { .len = 0 };
    unsigned compared = 0;
    char a[32], n[32];
    if (!c->fw_known) {
        findings_add(out, "qos.cc_next_boot", SEVERITY_UNKNOWN, r->name, "as running", NULL, NULL,
                     "%s: the firmware's next-boot values are unknown: %s", r->netdev.name,
                     c->fw_why);
        return;
    }
    for (size_t i = 0; i < CC_PARAMS; i++) {
        if (c->running[i] == CC_UNKNOWN || c->fw_next[i] == CC_UNKNOWN)
            continue;
        compared++;
        if (c->running[i] == c->fw_next[i])
            continue;
        cc_format(i, c->running[i], a, sizeof(a));
        cc_format(i, c->fw_next[i], n, sizeof(n));
        if (c->fw_current[i] != CC_UNKNOWN && c->fw_current[i] != c->fw_next[i])
            list_add(&bring, "%s %s -> %s", cc_params[i].name, a, n);
        else
            list_add(&undo, "%s %s -> %s", cc_params[i].name, a, n);
    }
    if (undo.n || bring.n)
        findings_add(out, "qos.cc_next_boot", SEVERITY_WARNING, r->name, "as running",
                     undo.n ? undo.text : bring.text,
                     "make the running and the next-boot values one: set the firmware's with "
                     "mstconfig -d PCI set NAME_P1=VALUE, or the running ones in ecn/",
                     "%s: a reboot changes DCQCN (%s): %s%s%s%s%s", r->netdev.name, c->fw_tool,
                     undo.n ? "undoes " : "", undo.text, undo.n && bring.n ? "; " : "",
                     bring.n ? "brings the firmware's pending " : "", bring.text);
    else if (compared)
        findings_add(out, "qos.cc_next_boot", SEVERITY_OK, r->name, "as running", "as running",
                     NULL, "%s: DCQCN runs as the firmware boots it (%u parameters, %s)",
                     r->netdev.name, compared, c->fw_tool);
    else
        findings_add(out, "qos.cc_next_boot", SEVERITY_UNKNOWN, r->name, "as running", NULL, NULL,
                     "%s: no parameter is known both running and for the next boot",
                     r->netdev.name);
}

/* The value most rails with parameter I known hold (the first rail's in a tie). */
static int64_t node_value(const struct inventory *inv, size_t i, unsigned *ret_holders)
{
    int64_t best = CC_UNKNOWN;
    unsigned best_n = 0;
    for (size_t a = 0; a < inv->n_rails; a++) {
        int64_t v = inv->rails[a].cc.running[i];
        unsigned n = 0;
        if (!judged_rail(&inv->rails[a]) || !inv->rails[a].cc.known || v == CC_UNKNOWN)
            continue;
        for (size_t b = 0; b < inv->n_rails; b++)
            n += judged_rail(&inv->rails[b]) && inv->rails[b].cc.known &&
                 inv->rails[b].cc.running[i] == v;
        if (n > best_n) {
            best = v;
            best_n = n;
        }
    }
    *ret_holders = best_n;
    return best;
}

static void check_alike(const struct inventory *inv, struct findings *out)
{
    int64_t node[CC_PARAMS];
    unsigned holders, rails = 0, odd = 0;
    char digest[17], a[32], w[32];
    for (size_t k = 0; k < inv->n_rails; k++)
        rails += judged_rail(&inv->rails[k]) && inv->rails[k].cc.known;
    if (rails < 2)
        return;
    for (size_t i = 0; i < CC_PARAMS; i++)
        node[i] = node_value(inv, i, &holders);
    for (size_t k = 0; k < inv->n_rails; k++) {
        const struct rail *r = &inv->rails[k];
        struct cc_list got = { .len = 0 }, want = { .len = 0 }, said = { .len = 0 };
        if (!judged_rail(r) || !r->cc.known)
            continue;
        for (size_t i = 0; i < CC_PARAMS; i++) {
            if (r->cc.running[i] == CC_UNKNOWN || r->cc.running[i] == node[i])
                continue;
            cc_format(i, r->cc.running[i], a, sizeof(a));
            cc_format(i, node[i], w, sizeof(w));
            list_add(&said, "%s %s (the others %s)", cc_params[i].name, a, w);
            list_add(&got, "%s %s", cc_params[i].name, a);
            list_add(&want, "%s %s", cc_params[i].name, w);
        }
        if (!got.n)
            continue;
        odd++;
        findings_add(out, "qos.cc_alike", SEVERITY_WARNING, r->name, want.text, got.text,
                     "a NIC reset or firmware update returns one NIC to its defaults: set it as "
                     "the others are (fabtunectl diff names the values)",
                     "%s: its DCQCN parameters differ from the node's other rails: %s",
                     r->netdev.name, said.text);
    }
    cc_digest(node, digest);
    if (!odd)
        findings_add(out, "qos.cc_alike", SEVERITY_OK, NULL, "alike", "alike", NULL,
                     "the %u rails with DCQCN parameters share them (digest %s)", rails, digest);
}

void check_cc(const struct inventory *inv, const struct policy *p, struct findings *out)
{
    bool profile = profile_set(p);
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        if (!judged_rail(r))
            continue;
        if (profile)
            check_profile(r, p, out);
        if (r->cc.known && p->rails.cc.firmware != CC_FIRMWARE_OFF)
            check_next_boot(r, out);
    }
    check_alike(inv, out);
}
