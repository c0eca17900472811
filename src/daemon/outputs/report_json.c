/* SPDX-License-Identifier: ISC */
/* A report as JSON (what --once --json prints and the daemon's replies serve). Renders
 * only: the verdicts it shows were worked out by report_finish(). */
#include "config.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cc_json.h"
#include "dcb_parse.h"
#include "macro.h"
#include "jobs_json.h"
#include "report_json.h"
#include "routes.h"

static void add_string(json_object *o, const char *key, const char *value)
{
    json_object_object_add(o, key, value ? json_object_new_string(value) : NULL);
}

static json_object *finding_to_json(const struct finding *f)
{
    json_object *o = json_object_new_object();
    add_string(o, "check", f->check);
    add_string(o, "severity", severity_to_string(f->severity));
    add_string(o, "rail", f->rail);
    add_string(o, "message", f->message);
    add_string(o, "expected", f->expected);
    add_string(o, "actual", f->actual);
    add_string(o, "hint", f->hint);
    if (f->subject)     /* what within the rail or node: a sysctl key, a peer */
        add_string(o, "subject", f->subject);
    return o;
}

static json_object *prios_to_json(bool known, uint8_t mask)
{
    if (!known)
        return NULL;
    json_object *a = json_object_new_array();
    for (int p = 0; p < QOS_PRIOS; p++)
        if (mask & (1u << p))
            json_object_array_add(a, json_object_new_int(p));
    return a;
}

static json_object *int_or_null(int v)
{
    return v < 0 ? NULL : json_object_new_int(v);
}

/* What the QoS sources read (the qos.* findings judge it); null where not exposed. */
static json_object *qos_to_json(const struct qos_state *q)
{
    json_object *o = json_object_new_object();
    char dcbx[64];
    const struct dcb_state *d = &q->dcb;
    add_string(o, "dcb_unavailable", d->known ? NULL : d->why);
    json_object_object_add(o, "pfc_priorities", prios_to_json(d->known && d->has_pfc, d->pfc_en));
    dcb_dcbx_format(d->dcbx, dcbx, sizeof(dcbx));
    add_string(o, "dcbx", d->known ? dcbx : NULL);
    json_object_object_add(o, "app_entries", d->known && d->has_app_table
                           ? json_object_new_int((int)d->n_app) : NULL);
    add_string(o, "trust", q->trust[0] ? q->trust : NULL);
    add_string(o, "trust_source", q->trust_source == TRUST_FROM_SYSFS ? "sysfs"
               : q->trust_source == TRUST_FROM_APP_TABLE ? "app_table" : NULL);
    json_object_object_add(o, "ecn_np_priorities", prios_to_json(q->ecn_known, q->ecn_np));
    json_object_object_add(o, "ecn_rp_priorities", prios_to_json(q->ecn_known, q->ecn_rp));
    json_object_object_add(o, "cnp_dscp", int_or_null(q->cnp_dscp));
    json_object_object_add(o, "cnp_802p_prio", int_or_null(q->cnp_802p_prio));
    json_object_object_add(o, "global_pause_rx", q->pause_rx < 0 ? NULL : json_object_new_boolean(q->pause_rx));
    json_object_object_add(o, "global_pause_tx", q->pause_tx < 0 ? NULL : json_object_new_boolean(q->pause_tx));
    return o;
}

/* The HCA's PCIe link and Max Read Request; null for a software device. */
static json_object *pcie_to_json(const struct pcie_link *l)
{
    if (!l->known && !l->max_read_request)
        return NULL;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "speed_gts", l->known ? json_object_new_double(l->speed_gts) : NULL);
    json_object_object_add(o, "width", l->known ? json_object_new_int((int)l->width) : NULL);
    json_object_object_add(o, "max_speed_gts", l->known ? json_object_new_double(l->max_speed_gts) : NULL);
    json_object_object_add(o, "max_width", l->known ? json_object_new_int((int)l->max_width) : NULL);
    json_object_object_add(o, "max_read_request_bytes", l->max_read_request
                           ? json_object_new_int((int)l->max_read_request) : NULL);
    return o;
}

/* Where the rail's packets go, in what two healthy nodes share (fabtunectl diff compares
 * the subnet, the effective ARP and rp_filter sysctls, and whether the address is source
 * routed); the address itself differs from node to node. NULL: no IPv4 rail to judge. */
static json_object *routes_to_json(const struct rail_routes *rr)
{
    json_object *o = json_object_new_object();
    char addr[INET_ADDRSTRLEN], subnet[INET_ADDRSTRLEN + 4];
    uint32_t table = 0;

    json_object_object_add(o, "known", json_object_new_boolean(rr->known));
    if (!rr->known) {
        add_string(o, "why", rr->why[0] ? rr->why : NULL);
        return o;
    }
    routes_addr_text(rr->addr, addr, sizeof(addr));
    add_string(o, "address", rr->addr ? addr : NULL);
    routes_addr_text(routes_subnet(rr->addr, rr->prefix_len), subnet, sizeof(subnet));
    snprintf(subnet + strlen(subnet), sizeof(subnet) - strlen(subnet), "/%u", rr->prefix_len);
    add_string(o, "subnet", rr->addr && rr->prefix_len ? subnet : NULL);
    json_object_object_add(o, "arp_ignore", int_or_null(rail_routes_arp_ignore(rr)));
    json_object_object_add(o, "arp_announce", int_or_null(rail_routes_arp_announce(rr)));
    json_object_object_add(o, "rp_filter", int_or_null(rail_routes_rp_filter(rr)));
    json_object_object_add(o, "accept_local", int_or_null(rail_routes_accept_local(rr)));
    bool routed = rail_routes_source_routed(rr, &table);
    json_object_object_add(o, "source_routed", json_object_new_boolean(routed));
    json_object_object_add(o, "source_table", routed ? json_object_new_int64(table) : NULL);
    json_object_object_add(o, "rules", json_object_new_int((int)rr->n_rules));
    json_object_object_add(o, "neighbors", json_object_new_int((int)rr->n_neigh));
    return o;
}

/* What the rail's netdev is plugged into (model/lldp.h), or why that is unknown. */
static json_object *neighbors_to_json(const struct rail_lldp *l)
{
    json_object *o = json_object_new_object(), *a = json_object_new_array();
    add_string(o, "unknown_reason", l->known ? NULL : l->why);
    for (size_t i = 0; l->known && i < l->n; i++) {
        const struct lldp_neighbor *n = &l->nb[i];
        json_object *e = json_object_new_object(), *m = json_object_new_array(),
                    *v = json_object_new_array();
        add_string(e, "chassis_id", n->chassis_id[0] ? n->chassis_id : NULL);
        add_string(e, "chassis_id_subtype", n->chassis_subtype[0] ? n->chassis_subtype : NULL);
        add_string(e, "system_name", n->sysname[0] ? n->sysname : NULL);
        add_string(e, "system_description", n->sysdescr[0] ? n->sysdescr : NULL);
        add_string(e, "port_id", n->port_id[0] ? n->port_id : NULL);
        add_string(e, "port_id_subtype", n->port_subtype[0] ? n->port_subtype : NULL);
        add_string(e, "port_description", n->port_descr[0] ? n->port_descr : NULL);
        for (size_t k = 0; k < n->n_mgmt; k++)
            json_object_array_add(m, json_object_new_string(n->mgmt[k]));
        json_object_object_add(e, "management_addresses", m);
        for (size_t k = 0; k < n->n_vlans; k++)
            json_object_array_add(v, json_object_new_int(n->vlans[k]));
        json_object_object_add(e, "vlans", v);
        json_object_object_add(e, "pvid", n->pvid ? json_object_new_int(n->pvid) : NULL);
        json_object_object_add(e, "max_frame_size", n->mfs ? json_object_new_int((int)n->mfs) : NULL);
        json_object_object_add(e, "age_seconds", json_object_new_int64(n->age_s));
        json_object_array_add(a, e);
    }
    json_object_object_add(o, "list", a);
    return o;
}

static json_object *double_or_null(bool known, double v)
{
    return known && isfinite(v) ? json_object_new_double(v) : NULL;
}

static double dbm(double watts)
{
    return watts > 0 ? 10 * log10(watts * 1e3) : NAN;
}

/* The lane whose Rx power is lowest, against the module's low thresholds for Rx power. */
static json_object *weakest_rx_to_json(const struct module_info *info)
{
    int weakest = -1;
    for (unsigned l = 0; l < info->lanes && l < MODULE_LANES_MAX; l++)
        if (info->rx_power[l].valid &&
            (weakest < 0 || info->rx_power[l].raw < info->rx_power[weakest].raw))
            weakest = (int)l;
    if (weakest < 0)
        return NULL;
    const struct module_thresholds *t = &info->thresholds[MODULE_Q_RX_POWER];
    double w = module_value(info, MODULE_Q_RX_POWER, info->rx_power[weakest].raw);
    double warn = t->valid ? module_value(info, MODULE_Q_RX_POWER, t->low_warn) : NAN;
    double alarm = t->valid ? module_value(info, MODULE_Q_RX_POWER, t->low_alarm) : NAN;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "lane", json_object_new_int(weakest + 1));
    json_object_object_add(o, "watts", json_object_new_double(w));
    json_object_object_add(o, "dbm", double_or_null(true, dbm(w)));
    json_object_object_add(o, "low_warning_watts", double_or_null(t->valid, warn));
    json_object_object_add(o, "low_warning_dbm", double_or_null(t->valid, dbm(warn)));
    json_object_object_add(o, "low_alarm_watts", double_or_null(t->valid, alarm));
    /* Above the warning (> 0) or under it (< 0), in dB. */
    json_object_object_add(o, "margin_db", double_or_null(t->valid, dbm(w) - dbm(warn)));
    return o;
}

/* The rail's module as its source read it (model/module_eeprom.h); NULL where no source
 * asks (InfiniBand rails, rails without a netdev, a snapshot that kept no answers). */
static json_object *module_to_json(const struct module_state *m)
{
    const struct module_info *info = &m->info;
    char id[8];
    if (!m->read)
        return NULL;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "known", json_object_new_boolean(m->known));
    add_string(o, "unknown_reason", m->known ? NULL : m->why);
    if (!m->known)
        return o;
    add_string(o, "type", module_identifier_name(info->identifier, id));
    add_string(o, "media", module_media_name(info->media));
    add_string(o, "vendor", info->vendor[0] ? info->vendor : NULL);
    add_string(o, "part", info->part[0] ? info->part : NULL);
    add_string(o, "serial", info->serial[0] ? info->serial : NULL);
    json_object_object_add(o, "monitored", json_object_new_boolean(info->monitored));
    const struct module_thresholds *t = &info->thresholds[MODULE_Q_TEMPERATURE];
    bool temp = info->monitored && info->temperature.valid;
    json_object_object_add(o, "temperature_celsius", double_or_null(temp,
                           module_value(info, MODULE_Q_TEMPERATURE, info->temperature.raw)));
    json_object_object_add(o, "temperature_high_warning_celsius", double_or_null(
                           info->monitored && t->valid,
                           module_value(info, MODULE_Q_TEMPERATURE, t->high_warn)));
    json_object_object_add(o, "rx_power_weakest", info->monitored ? weakest_rx_to_json(info) : NULL);
    return o;
}

static json_object *event_to_json(const struct link_event *ev)
{
    json_object *o = json_object_new_object();
    char at[32] = "";
    time_t t = (time_t)(ev->wall / USEC_PER_SEC);
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%SZ", &tm);
    add_string(o, "kind", link_event_kind_name(ev->kind));
    add_string(o, "at", at[0] ? at : NULL);
    json_object_object_add(o, "at_usec", json_object_new_int64((int64_t)ev->wall));
    json_object_object_add(o, "count", json_object_new_int64((int64_t)ev->count));
    add_string(o, "what", ev->what);
    add_string(o, "boot_id", ev->boot_id);
    return o;
}

/* A FEC statistic: its total and lanes, null when the driver gives none. */
static json_object *fec_counter_to_json(const struct fec_counter *c)
{
    if (!c->valid)
        return NULL;
    json_object *o = json_object_new_object(), *lanes = json_object_new_array();
    json_object_object_add(o, "total", json_object_new_uint64(c->total));
    for (unsigned k = 0; k < c->n_lanes; k++)
        json_object_array_add(lanes, json_object_new_uint64(c->lanes[k]));
    json_object_object_add(o, "lanes", lanes);
    return o;
}

/* FEC_GET's answer: the configured modes, the active one, the statistics. */
static json_object *fec_to_json(const struct fec_state *f)
{
    if (!f->known)
        return NULL;
    json_object *o = json_object_new_object(), *modes = NULL;
    if (f->info.configured_known) {
        modes = json_object_new_array();
        for (int m = FEC_MODE_OFF; m < FEC_MODES; m++)
            if (f->info.configured & (1u << m))
                json_object_array_add(modes, json_object_new_string(fec_mode_name(m)));
    }
    json_object_object_add(o, "configured", modes);
    json_object_object_add(o, "auto", json_object_new_boolean(f->info.autoneg));
    add_string(o, "active", f->info.active == FEC_MODE_UNKNOWN ? NULL
                                                               : fec_mode_name(f->info.active));
    json_object_object_add(o, "corrected_blocks",
                           fec_counter_to_json(&f->info.stats[FEC_STAT_CORRECTED]));
    json_object_object_add(o, "uncorrectable_blocks",
                           fec_counter_to_json(&f->info.stats[FEC_STAT_UNCORRECTABLE]));
    json_object_object_add(o, "corrected_bits",
                           fec_counter_to_json(&f->info.stats[FEC_STAT_CORRECTED_BITS]));
    return o;
}

/* Each lane's pre-FEC BER (index: the driver's lane, from 0), null where unknown; null
 * when the driver gives no lanes. */
static json_object *lanes_to_json(const struct report_link *l, const struct rail *rail)
{
    struct lane_ber lb;
    if (!l)
        return NULL;
    link_lane_ber_of(l->lanes, l->lanes_phy, rail, &lb);
    if (lb.n == 0)
        return NULL;
    json_object *a = json_object_new_array();
    for (unsigned i = 0; i < lb.n; i++)
        json_object_array_add(a, double_or_null(lb.known[i], lb.ber[i]));
    return a;
}

/* Why the BER is unknown, or NULL when both are known. */
static const char *ber_unknown_reason(const struct rail *rail, const struct report_link *l,
                                      const struct link_ber *b)
{
    if (b->pre_known && b->post_known)
        return NULL;
    if (!l)
        return "the pass kept no counters";
    if (!b->pre_present && !b->post_present)
        return rail->fec.read && !rail->fec.known ? rail->fec.why
             : "the driver gives no corrected bits or symbol errors";
    if (!(rail->rate_gbps > 0))
        return "the port's rate is unknown";
    if ((b->pre_present && !b->pre.known) || (b->post_present && !b->post.known))
        return "a rate needs two samples of the counters (one so far, or a reset between)";
    return !b->pre_present ? "the driver gives no corrected bits"
                           : "the driver gives no symbol errors or uncorrectable blocks";
}

/* The module's lane whose Rx power falls fastest, fitted over the trend window. */
static json_object *rx_fit_to_json(const struct report *r, const struct report_link *l)
{
    const struct rx_fit *f = &l->rx_fit;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "lane", json_object_new_int((int)f->lane + 1));
    json_object_object_add(o, "db_per_window", json_object_new_double(f->db_per_window));
    json_object_object_add(o, "window_seconds",
                           json_object_new_double((double)r->rx_window / USEC_PER_SEC));
    json_object_object_add(o, "samples", json_object_new_int64((int64_t)f->samples));
    json_object_object_add(o, "span_seconds",
                           json_object_new_double((double)f->span / USEC_PER_SEC));
    json_object_object_add(o, "first_dbm", json_object_new_double(f->first_dbm));
    json_object_object_add(o, "last_dbm", json_object_new_double(f->last_dbm));
    return o;
}

/* What fabtunectl links shows of a rail: FEC and BER (unknown: null, with the reason),
 * its symbol errors, its link memory's day and latest events, its module. */
static json_object *link_to_json(const struct report *r, size_t i)
{
    const struct report_link *l = r->rail_links ? &r->rail_links[i] : NULL;
    const struct symbol_rate *y = l ? &l->symbols : NULL;
    const struct rail *rail = &r->inventory.rails[i];
    json_object *o = json_object_new_object();
    struct link_ber b;
    link_ber_of(l ? l->link : (struct symbol_rate[LINK_RATES]){ 0 }, rail->rate_gbps, &b);
    enum fec_mode mode = rail->fec.known ? rail->fec.info.active : FEC_MODE_UNKNOWN;
    add_string(o, "fec_mode", mode == FEC_MODE_UNKNOWN ? NULL : fec_mode_name(mode));
    json_object_object_add(o, "pre_fec_ber", double_or_null(b.pre_known, b.pre_ber));
    json_object_object_add(o, "post_fec_ber", double_or_null(b.post_known, b.post_ber));
    json_object_object_add(o, "pre_fec_ber_lanes", lanes_to_json(l, rail));
    add_string(o, "fec_unknown_reason", mode != FEC_MODE_UNKNOWN ? NULL
               : !rail->fec.read ? (!streq(rail->link_layer, "Ethernet")
                                    ? "FEC is read through an Ethernet netdev's ethtool"
                                    : r->inventory.source == INVENTORY_OFFLINE
                                    ? "the snapshot kept no FEC_GET answer"
                                    : "no netdev to ask for its FEC")
               : rail->fec.known ? "the driver names no active FEC mode" : rail->fec.why);
    add_string(o, "ber_unknown_reason", ber_unknown_reason(rail, l, &b));
    json_object_object_add(o, "fec", fec_to_json(&rail->fec));
    json_object_object_add(o, "symbol_errors_total", y && y->present
                           ? json_object_new_int64((int64_t)y->total) : NULL);
    json_object_object_add(o, "symbol_errors_per_hour",
                           double_or_null(y && y->known, y ? y->per_second * 3600 : 0));
    json_object_object_add(o, "symbol_errors_interval_seconds", double_or_null(
                           y && y->known, y ? (double)y->over / (double)USEC_PER_SEC : 0));
    /* Why there is no rate: the counter stopped at its maximum (perfquery -R resets it). */
    json_object_object_add(o, "symbol_errors_saturated", y && y->present
                           ? json_object_new_boolean(y->saturated) : NULL);
    bool mem = l && l->has_memory;
    json_object_object_add(o, "link_downs_24h", mem ? json_object_new_int64((int64_t)l->memory.downs) : NULL);
    json_object_object_add(o, "carrier_changes_24h",
                           mem ? json_object_new_int64((int64_t)l->memory.carrier_changes) : NULL);
    json_object_object_add(o, "error_bursts_24h", mem ? json_object_new_int((int)l->memory.bursts) : NULL);
    add_string(o, "memory_unknown_reason", mem ? NULL
               : r->inventory.source == INVENTORY_LIVE ? "no link memory: the pass kept no counters"
               : "the snapshot kept no link memory (no daemon state it could read)");
    json_object *events = mem ? json_object_new_array() : NULL;
    for (size_t k = 0; mem && k < l->memory.n_last; k++)
        json_object_array_add(events, event_to_json(&l->memory.last[k]));
    json_object_object_add(o, "events", events);
    json_object_object_add(o, "module", module_to_json(&r->inventory.rails[i].module));
    json_object_object_add(o, "rx_power_trend", l && l->has_rx_fit ? rx_fit_to_json(r, l) : NULL);
    return o;
}

static json_object *rail_to_json(const struct report *r, size_t i)
{
    const struct rail *rail = &r->inventory.rails[i];
    json_object *o = json_object_new_object(), *nd = json_object_new_object();
    int idx = rail->gid_index;
    char ip[64] = "";

    add_string(o, "name", rail->name);
    add_string(o, "device", rail->device);
    json_object_object_add(o, "port", json_object_new_int((int)rail->port));
    add_string(o, "driver", rail->driver[0] ? rail->driver : NULL);
    add_string(o, "fw_ver", rail->fw_ver[0] ? rail->fw_ver : NULL);
    add_string(o, "node_guid", rail->node_guid[0] ? rail->node_guid : NULL);
    add_string(o, "pci_address", rail->pci_addr[0] ? rail->pci_addr : NULL);
    json_object_object_add(o, "numa_node", json_object_new_int(rail->numa_node));
    add_string(o, "link_layer", rail->link_layer);
    add_string(o, "state", rail->state_name);
    add_string(o, "phys_state", rail->phys_state_name);
    json_object_object_add(o, "rate_bits_per_second",
                           json_object_new_int64((int64_t)(rail->rate_gbps * 1e9)));
    json_object_object_add(o, "active_mtu_bytes", json_object_new_int((int)rail->active_mtu));
    json_object_object_add(o, "gid_index", idx >= 0 ? json_object_new_int(idx) : NULL);
    if (idx >= 0 && (uint32_t)idx < rail->n_gids && !gid_is_zero(rail->gids[idx].raw))
        gid_format(rail->gids[idx].raw, true, ip, sizeof(ip));
    add_string(o, "roce_address", ip[0] ? ip : NULL);
    json_object_object_add(o, "gid_table_size", json_object_new_int((int)rail->n_gids));
    add_string(nd, "name", rail->netdev.name[0] ? rail->netdev.name : NULL);
    json_object_object_add(nd, "present", json_object_new_boolean(rail->netdev.present));
    add_string(nd, "operstate", rail->netdev.operstate);
    json_object_object_add(nd, "carrier", rail->netdev.carrier < 0 ? NULL
                                          : json_object_new_boolean(rail->netdev.carrier));
    json_object_object_add(nd, "mtu_bytes", json_object_new_int((int)rail->netdev.mtu));
    json_object_object_add(nd, "carrier_changes", rail->netdev.has_carrier_changes
                           ? json_object_new_int64((int64_t)rail->netdev.carrier_changes) : NULL);
    json_object_object_add(o, "netdev", nd);
    json_object_object_add(o, "pcie", pcie_to_json(&rail->pcie));
    if (streq(rail->link_layer, "Ethernet"))
        json_object_object_add(o, "qos", qos_to_json(&rail->qos));
    if (streq(rail->link_layer, "Ethernet") && rail->netdev.present)
        json_object_object_add(o, "cc", cc_to_json(&rail->cc));
    if (streq(rail->link_layer, "Ethernet") && rail->netdev.name[0])
        json_object_object_add(o, "routes", routes_to_json(&rail->routes));
    json_object_object_add(o, "neighbors", neighbors_to_json(&rail->lldp));
    json_object_object_add(o, "link", link_to_json(r, i));
    add_string(o, "verdict", verdict_to_string(report_rail_verdict(r, i)));
    return o;
}

json_object *report_neighbors_json(const struct report *r)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < r->inventory.n_rails; i++) {
        const struct rail *rail = &r->inventory.rails[i];
        json_object *o = json_object_new_object();
        add_string(o, "name", rail->name);
        add_string(o, "device", rail->device);
        json_object_object_add(o, "port", json_object_new_int((int)rail->port));
        add_string(o, "netdev", rail->netdev.name[0] ? rail->netdev.name : NULL);
        json_object_object_add(o, "neighbors", neighbors_to_json(&rail->lldp));
        json_object_array_add(a, o);
    }
    return a;
}

json_object *tuning_to_json(const struct tuning *t)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < t->n; i++) {
        const struct tuning_key *k = &t->keys[i];
        json_object *o = json_object_new_object();
        add_string(o, "key", k->key);
        add_string(o, "wanted", k->wanted[0] ? k->wanted : NULL);
        add_string(o, "live", k->live_known ? k->live : NULL);
        add_string(o, "original", k->has_original ? k->original : NULL);
        add_string(o, "state", tuning_state_to_string(k->state));
        add_string(o, "writer", k->writer[0] ? k->writer : NULL);
        add_string(o, "error", k->error[0] ? k->error : NULL);
        json_object_array_add(a, o);
    }
    return a;
}

static json_object *result_to_json(const struct probe_result *r)
{
    if (!r->ran && !r->deferred[0])
        return NULL;
    json_object *o = json_object_new_object();
    /* A deferred probe: why it waits, and the figure it keeps from its last run, stale. */
    add_string(o, "deferred", r->deferred[0] ? r->deferred : NULL);
    json_object_object_add(o, "stale", json_object_new_boolean(probe_result_stale(r)));
    if (r->at) {
        json_object_object_add(o, "measured_at", json_object_new_double((double)r->at / USEC_PER_SEC));
        json_object_object_add(o, "age_seconds", json_object_new_double(probe_result_age(r)));
    }
    if (!r->ran)
        return o;
    add_string(o, "error", r->error ? r->error_text : NULL);
    if (!r->error && r->latency.n) {
        const struct stats *s = &r->latency;
        json_object *l = json_object_new_object();
        json_object_object_add(l, "samples", json_object_new_int64((int64_t)s->n));
        json_object_object_add(l, "min", json_object_new_double(s->min));
        json_object_object_add(l, "p50", json_object_new_double(s->p50));
        json_object_object_add(l, "p90", json_object_new_double(s->p90));
        json_object_object_add(l, "p99", json_object_new_double(s->p99));
        json_object_object_add(l, "p99_9", json_object_new_double(s->p999));
        json_object_object_add(l, "max", json_object_new_double(s->max));
        json_object_object_add(l, "mean", json_object_new_double(s->mean));
        json_object_object_add(l, "stddev", json_object_new_double(s->stddev));
        json_object_object_add(o, "latency_seconds", l);
    }
    if (!r->error && r->bandwidth > 0)
        json_object_object_add(o, "bandwidth_bytes_per_second", json_object_new_double(r->bandwidth));
    /* The ping-pong's class as the kernel held it (probes.light_dscp): the TOS byte, and
     * its DSCP. */
    if (r->has_tclass) {
        json_object_object_add(o, "traffic_class", json_object_new_int(r->tclass));
        json_object_object_add(o, "dscp", json_object_new_int(r->tclass >> 2));
    }
    /* What the probe cost this node (probe_result.h), failed or not. */
    json_object *c = json_object_new_object();
    json_object_object_add(c, "cpu_seconds", json_object_new_double(r->cpu_seconds));
    json_object_object_add(c, "wall_seconds", json_object_new_double(r->wall_seconds));
    json_object_object_add(c, "bytes", json_object_new_int64((int64_t)r->bytes));
    json_object_object_add(c, "cpu_wait_seconds", isnan(r->cpu_wait_seconds) ? NULL :
                           json_object_new_double(r->cpu_wait_seconds));
    json_object_object_add(o, "cost", c);
    return o;
}

/* Each kind's result under its name ("rdma_latency", ...). */
static json_object *side_to_json(const struct isolation_side *s, uint64_t payload)
{
    static const char *const verdicts[] = { [ISOLATION_UNMEASURED] = "unmeasured", [ISOLATION_RIGHT] = "right",
                                            [ISOLATION_ELSEWHERE] = "elsewhere", [ISOLATION_UNSEEN] = "unseen" };
    json_object *o = json_object_new_object();
    add_string(o, "netdev", s->want);
    json_object_object_add(o, "bytes", json_object_new_int64((int64_t)s->want_bytes));
    add_string(o, "counter", isolation_counter_name(s->want_counter));
    if (*s->other) {
        add_string(o, "other_netdev", s->other);
        json_object_object_add(o, "other_bytes", json_object_new_int64((int64_t)s->other_bytes));
        add_string(o, "other_counter", isolation_counter_name(s->other_counter));
    }
    add_string(o, "verdict", verdicts[isolation_side_judge(s, payload)]);
    return o;
}

/* route.isolation's figures: per transport, each side's bytes on the rail's netdev and on
 * the busiest other one, and the counter each came from ("netdev", or "port_data": the
 * netdev's RDMA port's data counters, on the RDMA leg). */
static json_object *isolation_to_json(const struct path_isolation *p)
{
    json_object *o = json_object_new_object();
    if (*p->error) {
        add_string(o, "error", p->error);
        return o;
    }
    char mac[18];
    add_string(o, "netdev", p->rail);
    add_string(o, "peer_netdev", p->peer_rail);
    link_traffic_mac_text(p->peer_rail_mac, mac, sizeof(mac));
    add_string(o, "peer_mac", mac);
    for (int k = 0; k < ISOLATION_TRANSPORTS; k++) {
        const struct isolation_leg *l = &p->leg[k];
        if (!l->measured)
            continue;
        json_object *j = json_object_new_object();
        json_object_object_add(j, "out_bytes", json_object_new_int64((int64_t)l->out_bytes));
        json_object_object_add(j, "back_bytes", json_object_new_int64((int64_t)l->back_bytes));
        json_object_object_add(j, "sent", side_to_json(&l->own_tx, l->out_bytes));
        json_object_object_add(j, "peer_received", side_to_json(&l->peer_rx, l->out_bytes));
        json_object_object_add(j, "peer_sent", side_to_json(&l->peer_tx, l->back_bytes));
        json_object_object_add(j, "received", side_to_json(&l->own_rx, l->back_bytes));
        json_object_object_add(o, k == ISOLATION_RDMA ? "rdma" : "tcp", j);
    }
    if (p->flux) {
        json_object *f = json_object_new_object();
        link_traffic_mac_text(p->neigh_mac, mac, sizeof(mac));
        add_string(f, "neighbour_mac", mac);
        add_string(f, "way", p->flux_back ? "back" : "out");
        add_string(f, p->flux_back ? "own_netdev_of_mac" : "peer_netdev_of_mac", p->neigh_owner);
        json_object_object_add(o, "arp_flux", f);
    }
    return o;
}

static void add_results(json_object *j, const struct probe_result *results)
{
    for (enum probe_kind k = 0; k < PROBE_KIND_COUNT; k++)
        json_object_object_add(j, probe_kinds[k].name, result_to_json(&results[k]));
}

static json_object *probes_to_json(const struct report *r)
{
    const struct probe_run *run = &r->probes;
    if (!r->probed)
        return NULL;
    json_object *o = json_object_new_object(), *targets = json_object_new_array();
    json_object *cross = json_object_new_array();
    json_object_object_add(o, "wall_seconds", json_object_new_double(run->wall_seconds));
    json_object_object_add(o, "cpu_seconds", json_object_new_double(run->cpu_seconds));
    for (size_t i = 0; i < run->n; i++) {
        const struct probe_target *t = &run->targets[i];
        json_object *j = json_object_new_object();
        add_string(j, "target", t->name);
        add_results(j, t->result);
        if (report_latencies_compare(t->result)) {
            const struct stats *rdma = &t->result[PROBE_RDMA_LATENCY].latency,
                               *tcp = &t->result[PROBE_TCP_LATENCY].latency;
            json_object_object_add(j, "roce_tcp_p50_ratio", json_object_new_double(rdma->p50 / tcp->p50));
            json_object_object_add(j, "rdma_jitter_p99_p50", json_object_new_double(rdma->p99 / rdma->p50));
            json_object_object_add(j, "tcp_jitter_p99_p50", json_object_new_double(tcp->p99 / tcp->p50));
        }
        json_object_array_add(targets, j);
    }
    for (size_t i = 0; i < run->n_cross; i++) {
        json_object *j = json_object_new_object();
        add_string(j, "pair", run->cross[i].name);
        json_object_object_add(j, probe_kinds[PROBE_RDMA_LATENCY].name, result_to_json(&run->cross[i].lat));
        json_object_object_add(j, probe_kinds[PROBE_RDMA_BANDWIDTH].name, result_to_json(&run->cross[i].bw));
        json_object_array_add(cross, j);
    }
    json_object *peers = json_object_new_array();
    for (size_t i = 0; i < run->n_peers; i++) {
        const struct probe_peer *e = &run->peers[i];
        json_object *j = json_object_new_object();
        add_string(j, "peer", e->peer);
        add_string(j, "rail", e->rail);
        if (*e->addr)
            add_string(j, "address", e->addr);
        json_object_object_add(j, "port", json_object_new_int(e->port));
        add_results(j, e->result);
        if (*e->isolation.rail || *e->isolation.error)
            json_object_object_add(j, "isolation", isolation_to_json(&e->isolation));
        json_object_array_add(peers, j);
    }
    json_object_object_add(o, "targets", targets);
    json_object_object_add(o, "cross_rail", cross);
    json_object_object_add(o, "peers", peers);
    return o;
}

static json_object *nccl_to_json(const struct nccl_contract *c)
{
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < c->n; i++)
        add_string(o, c->vars[i].name, c->vars[i].value);
    return o;
}

json_object *report_findings_json(const struct report *r, bool failing_only)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < r->findings.n; i++)
        if (!failing_only || r->findings.items[i].severity == SEVERITY_WARNING ||
            r->findings.items[i].severity == SEVERITY_ERROR)
            json_object_array_add(a, finding_to_json(&r->findings.items[i]));
    return a;
}

json_object *report_tuning_json(const struct report *r)
{
    return tuning_to_json(&r->tuning);
}

json_object *report_probes_json(const struct report *r)
{
    return probes_to_json(r);
}

json_object *report_to_json(const struct report *r)
{
    json_object *o = json_object_new_object();
    json_object *findings = json_object_new_array(), *rails = json_object_new_array();
    json_object *notes = json_object_new_array();

    add_string(o, "version", PACKAGE_VERSION);
    add_string(o, "hostname", r->hostname);
    add_string(o, "kernel", r->kernel);
    add_string(o, "policy", r->policy_source);
    add_string(o, "verdict", verdict_to_string(r->verdict));
    add_string(o, "verdict_cause", r->verdict_cause);
    add_string(o, "inventory", r->inventory.source == INVENTORY_LIVE ? "live" : "snapshot");
    for (size_t i = 0; i < r->inventory.n_rails; i++)
        json_object_array_add(rails, rail_to_json(r, i));
    json_object_object_add(o, "rails", rails);
    add_string(o, "why_no_rails", r->inventory.n_rails ? NULL : r->inventory.why_no_rails);
    for (size_t i = 0; i < r->inventory.n_notes; i++)
        json_object_array_add(notes, json_object_new_string(r->inventory.notes[i]));
    json_object_object_add(o, "notes", notes);
    /* What this run could not read as its user (fabtuned --once as a user): judged without. */
    json_object *unread = json_object_new_array();
    for (size_t i = 0; i < r->n_unread; i++)
        json_object_array_add(unread, json_object_new_string(r->unread[i]));
    json_object_object_add(o, "unread", unread);
    json_object_object_add(o, "nccl", nccl_to_json(&r->nccl));
    json_object *gpus = json_object_new_array();
    for (size_t i = 0; i < r->inventory.n_gpus; i++) {
        const struct gpu *g = &r->inventory.gpus[i];
        json_object *j = json_object_new_object();
        add_string(j, "pci_address", g->pci_addr);
        add_string(j, "vendor", g->vendor);
        add_string(j, "path", g->path);
        json_object_object_add(j, "numa_node", json_object_new_int(g->numa_node));
        json_object_array_add(gpus, j);
    }
    json_object_object_add(o, "gpus", gpus);
    json_object_object_add(o, "tuning", tuning_to_json(&r->tuning));
    json_object_object_add(o, "probes", probes_to_json(r));
    json_object_object_add(o, "jobs", jobs_to_json(r));
    for (size_t i = 0; i < r->findings.n; i++)
        json_object_array_add(findings, finding_to_json(&r->findings.items[i]));
    json_object_object_add(o, "findings", findings);
    return o;
}
