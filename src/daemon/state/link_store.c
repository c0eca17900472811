/* SPDX-License-Identifier: ISC */
/* The link memory's file: STATE_DIR/links.json holds the boot id of its baselines and, per
 * rail, those baselines (this boot's carrier_changes and link-down total, whether a burst
 * or a link check's warning is going on) and its events, each with its boot id, CLOCK_BOOTTIME
 * and wall-clock times:
 *   {"boot_id":"...","rails":[{"rail":"mlx5_0/1","carrier_changes":4,"downs":1,
 *     "bursting":false,"failing":["counters.link"],"events":[{"kind":"link_down",
 *     "boot_id":"...","boottime_usec":..,"wall_usec":..,"count":1,"what":"link_downed"}],
 *     "rx_power":{"serial":"...","samples":[{"wall_usec":..,"rx":[5012,null,...]}]}}]}
 * where rx_power is its module's Rx power trend (model/rx_trend.h): per sample, each lane's
 * reading in 0.1 uW (1-65535, as the module's 16-bit monitor), null where it had none;
 * samples oldest first; "nic" the kernel's messages kept for the rail
 * ({"pattern":"mlx5.cmd_timeout","boot_id":..,"boottime_usec":..,"wall_usec":..,"line":".."},
 * one of a pattern this version lacks is skipped), and the root's "kernel_cursor" where the
 * kernel log's last read stopped; "absent_since_usec" (wall clock) on a rail gone from the inventory,
 * whose memory is kept for its return (model/link_memory.h), with "forgotten" true once an
 * operator forgot it (fabtunectl forget); "pci_addr" and "last_state" what was known of the
 * rail at the last pass it was there (rails.gone says them).
 * A file is outside data: every string is checked for its type and length, rails and
 * events past their bounds are refused, and any fault refuses the whole file. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <json-c/json.h>
#include <string.h>

#include "link_store.h"
#include "state_file.h"
#include "strutil.h"

/* A string member of O that fits SIZE bytes with its NUL and holds no NUL of its own. */
static int get_string(json_object *o, const char *key, char *buf, size_t size)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return -EBADMSG;
    size_t len = (size_t)json_object_get_string_len(v);
    const char *s = json_object_get_string(v);
    if (len >= size || strlen(s) != len)
        return -EBADMSG;
    memcpy(buf, s, len + 1);
    return 0;
}

/* An unsigned integer member, or absent (HAS false). */
static int get_u64(json_object *o, const char *key, uint64_t *ret, bool *has)
{
    json_object *v;
    *ret = 0;
    if (has)
        *has = false;
    if (!json_object_object_get_ex(o, key, &v))
        return has ? 0 : -EBADMSG;
    if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
        return -EBADMSG;
    *ret = json_object_get_uint64(v);
    if (has)
        *has = true;
    return 0;
}

static int load_event(json_object *o, struct link_event *ev)
{
    char kind[32];
    int k;
    memset(ev, 0, sizeof(*ev));
    if (!json_object_is_type(o, json_type_object) || get_string(o, "kind", kind, sizeof(kind)) < 0 ||
        (k = link_event_kind_from_name(kind)) < 0 ||
        get_string(o, "boot_id", ev->boot_id, sizeof(ev->boot_id)) < 0 ||
        get_string(o, "what", ev->what, sizeof(ev->what)) < 0 ||
        get_u64(o, "boottime_usec", &ev->boottime, NULL) < 0 ||
        get_u64(o, "wall_usec", &ev->wall, NULL) < 0 || get_u64(o, "count", &ev->count, NULL) < 0)
        return -EBADMSG;
    ev->kind = (enum link_event_kind)k;
    return 0;
}

static int load_rx_sample(json_object *o, struct rx_sample *s)
{
    json_object *rx;
    memset(s, 0, sizeof(*s));
    if (!json_object_is_type(o, json_type_object) || get_u64(o, "wall_usec", &s->wall, NULL) < 0 ||
        !json_object_object_get_ex(o, "rx", &rx) || !json_object_is_type(rx, json_type_array) ||
        json_object_array_length(rx) > MODULE_LANES_MAX)
        return -EBADMSG;
    for (size_t l = 0; l < json_object_array_length(rx); l++) {
        json_object *v = json_object_array_get_idx(rx, l);
        if (!v)
            continue;               /* null: the lane had no reading */
        int64_t raw = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
        if (raw < 1 || raw > UINT16_MAX)
            return -EBADMSG;
        s->rx[l] = (uint32_t)raw;
        s->valid |= (uint8_t)(1u << l);
    }
    return 0;
}

/* The optional "rx_power" member: samples within bounds, in time order. */
static int load_rx_trend(json_object *o, struct rx_trend *t)
{
    json_object *rx, *samples;
    if (!json_object_object_get_ex(o, "rx_power", &rx))
        return 0;
    if (!json_object_is_type(rx, json_type_object) ||
        get_string(rx, "serial", t->serial, sizeof(t->serial)) < 0 ||
        !json_object_object_get_ex(rx, "samples", &samples) ||
        !json_object_is_type(samples, json_type_array) ||
        json_object_array_length(samples) > RX_TREND_SAMPLES)
        return -EBADMSG;
    for (size_t i = 0; i < json_object_array_length(samples); i++) {
        struct rx_sample *s = &t->samples[i];
        if (load_rx_sample(json_object_array_get_idx(samples, i), s) < 0 ||
            (i > 0 && s->wall < t->samples[i - 1].wall))
            return -EBADMSG;
        t->n = i + 1;
    }
    return 0;
}

static json_object *rx_trend_json(const struct rx_trend *t)
{
    json_object *o = json_object_new_object(), *samples = json_object_new_array();
    json_object_object_add(o, "serial", json_object_new_string(t->serial));
    for (size_t i = 0; i < t->n; i++) {
        const struct rx_sample *s = &t->samples[i];
        json_object *so = json_object_new_object(), *rx = json_object_new_array();
        json_object_object_add(so, "wall_usec", json_object_new_uint64(s->wall));
        for (unsigned l = 0; l < MODULE_LANES_MAX; l++)
            json_object_array_add(rx, s->valid & (1u << l) ? json_object_new_int64(s->rx[l]) : NULL);
        json_object_object_add(so, "rx", rx);
        json_object_array_add(samples, so);
    }
    json_object_object_add(o, "samples", samples);
    return o;
}

/* The optional "nic" member: the kernel's messages, within bounds. */
static int load_nic(json_object *o, struct rail_memory *rm)
{
    json_object *nic;
    if (!json_object_object_get_ex(o, "nic", &nic))
        return 0;
    if (!json_object_is_type(nic, json_type_array) || json_object_array_length(nic) > NIC_EVENTS_KEPT)
        return -EBADMSG;
    for (size_t i = 0; i < json_object_array_length(nic); i++) {
        json_object *e = json_object_array_get_idx(nic, i);
        struct nic_event ev = { 0 };
        if (!json_object_is_type(e, json_type_object) ||
            get_string(e, "pattern", ev.pattern, sizeof(ev.pattern)) < 0 ||
            get_string(e, "boot_id", ev.boot_id, sizeof(ev.boot_id)) < 0 ||
            get_string(e, "line", ev.line, sizeof(ev.line)) < 0 ||
            get_u64(e, "boottime_usec", &ev.boottime, NULL) < 0 ||
            get_u64(e, "wall_usec", &ev.wall, NULL) < 0)
            return -EBADMSG;
        if (kernel_pattern_by_id(ev.pattern))
            rm->nic[rm->n_nic++] = ev;
    }
    return 0;
}

static json_object *nic_json(const struct rail_memory *rm)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < rm->n_nic; i++) {
        const struct nic_event *ev = &rm->nic[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "pattern", json_object_new_string(ev->pattern));
        json_object_object_add(o, "boot_id", json_object_new_string(ev->boot_id));
        json_object_object_add(o, "boottime_usec", json_object_new_uint64(ev->boottime));
        json_object_object_add(o, "wall_usec", json_object_new_uint64(ev->wall));
        json_object_object_add(o, "line", json_object_new_string(ev->line));
        json_object_array_add(a, o);
    }
    return a;
}

static int load_rail(struct link_memory *m, json_object *o)
{
    char rail[sizeof(((struct rail_memory *)0)->rail)];
    json_object *events, *failing, *b;
    struct link_event ev;
    bool has_absent;
    if (!json_object_is_type(o, json_type_object) || get_string(o, "rail", rail, sizeof(rail)) < 0 ||
        link_memory_find(m, rail) ||
        !json_object_object_get_ex(o, "events", &events) || !json_object_is_type(events, json_type_array) ||
        json_object_array_length(events) > LINK_MEMORY_EVENTS)
        return -EBADMSG;
    struct rail_memory *rm;
    int r = link_memory_rail(m, rail, &rm);
    if (r < 0)
        return r == -EFBIG ? -EBADMSG : r;
    size_t n = json_object_array_length(events);
    for (size_t i = 0; i < n; i++) {
        if (load_event(json_object_array_get_idx(events, i), &ev) < 0)
            return -EBADMSG;
        rm->events[rm->n_events++] = ev;
    }
    if (get_u64(o, "carrier_changes", &rm->carrier_changes, &rm->has_carrier) < 0 ||
        get_u64(o, "downs", &rm->downs, &rm->has_downs) < 0 ||
        get_u64(o, "absent_since_usec", &rm->absent_since, &has_absent) < 0)
        return -EBADMSG;
    if (json_object_object_get_ex(o, "bursting", &b)) {
        if (!json_object_is_type(b, json_type_boolean))
            return -EBADMSG;
        rm->bursting = json_object_get_boolean(b);
    }
    if (json_object_object_get_ex(o, "forgotten", &b)) {
        if (!json_object_is_type(b, json_type_boolean))
            return -EBADMSG;
        rm->forgotten = json_object_get_boolean(b) && rm->absent_since;
    }
    if ((json_object_object_get_ex(o, "pci_addr", &b) &&
         get_string(o, "pci_addr", rm->pci_addr, sizeof(rm->pci_addr)) < 0) ||
        (json_object_object_get_ex(o, "last_state", &b) &&
         get_string(o, "last_state", rm->last_state, sizeof(rm->last_state)) < 0))
        return -EBADMSG;
    if (json_object_object_get_ex(o, "failing", &failing)) {
        if (!json_object_is_type(failing, json_type_array) ||
            json_object_array_length(failing) > LINK_TRACKED)
            return -EBADMSG;
        for (size_t i = 0; i < json_object_array_length(failing); i++) {
            json_object *c = json_object_array_get_idx(failing, i);
            int t = json_object_is_type(c, json_type_string) ? link_tracked_index(json_object_get_string(c)) : -1;
            if (t < 0)
                return -EBADMSG;
            rm->failing |= 1u << t;
        }
    }
    if (load_nic(o, rm) < 0)
        return -EBADMSG;
    return load_rx_trend(o, &rm->rx);
}

/* The memory ROOT holds into M (emptied), or -EBADMSG with M empty. Puts ROOT. */
static int load_root(json_object *root, struct link_memory *m)
{
    json_object *rails = NULL;
    int r = 0;
    if (get_string(root, "boot_id", m->boot_id, sizeof(m->boot_id)) < 0 ||
        !json_object_object_get_ex(root, "rails", &rails) ||
        !json_object_is_type(rails, json_type_array) ||
        json_object_array_length(rails) > INVENTORY_MAX_RAILS)
        r = -EBADMSG;
    json_object *cursor;
    if (r >= 0 && json_object_object_get_ex(root, "kernel_cursor", &cursor) &&
        get_string(root, "kernel_cursor", m->kernel_cursor, sizeof(m->kernel_cursor)) < 0)
        r = -EBADMSG;
    for (size_t i = 0; r >= 0 && i < json_object_array_length(rails); i++)
        r = load_rail(m, json_object_array_get_idx(rails, i));
    json_object_put(root);
    if (r < 0)
        link_memory_done(m);
    return r < 0 ? r : 0;
}

int link_store_load(const char *state_dir, struct link_memory *m)
{
    json_object *root;
    memset(m, 0, sizeof(*m));
    int r = state_file_load(state_dir, LINK_STORE_FILE, &root);
    if (r < 0 || !root)
        return r;
    return load_root(root, m);
}

int link_store_parse(const char *text, struct link_memory *m)
{
    memset(m, 0, sizeof(*m));
    json_object *root = json_tokener_parse(text);
    if (!root || !json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        return -EBADMSG;
    }
    return load_root(root, m);
}

static json_object *event_json(const struct link_event *ev)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "kind", json_object_new_string(link_event_kind_name(ev->kind)));
    json_object_object_add(o, "boot_id", json_object_new_string(ev->boot_id));
    json_object_object_add(o, "boottime_usec", json_object_new_uint64(ev->boottime));
    json_object_object_add(o, "wall_usec", json_object_new_uint64(ev->wall));
    json_object_object_add(o, "count", json_object_new_uint64(ev->count));
    json_object_object_add(o, "what", json_object_new_string(ev->what));
    return o;
}

int link_store_save(const char *state_dir, const struct link_memory *m)
{
    json_object *root = json_object_new_object(), *rails = json_object_new_array();
    json_object_object_add(root, "boot_id", json_object_new_string(m->boot_id));
    if (m->kernel_cursor[0])
        json_object_object_add(root, "kernel_cursor", json_object_new_string(m->kernel_cursor));
    for (size_t i = 0; i < m->n; i++) {
        const struct rail_memory *rm = &m->rails[i];
        json_object *o = json_object_new_object(), *events = json_object_new_array();
        json_object *failing = json_object_new_array();
        json_object_object_add(o, "rail", json_object_new_string(rm->rail));
        if (rm->has_carrier)
            json_object_object_add(o, "carrier_changes", json_object_new_uint64(rm->carrier_changes));
        if (rm->has_downs)
            json_object_object_add(o, "downs", json_object_new_uint64(rm->downs));
        json_object_object_add(o, "bursting", json_object_new_boolean(rm->bursting));
        if (rm->absent_since)
            json_object_object_add(o, "absent_since_usec", json_object_new_uint64(rm->absent_since));
        if (rm->forgotten)
            json_object_object_add(o, "forgotten", json_object_new_boolean(true));
        if (rm->pci_addr[0])
            json_object_object_add(o, "pci_addr", json_object_new_string(rm->pci_addr));
        if (rm->last_state[0])
            json_object_object_add(o, "last_state", json_object_new_string(rm->last_state));
        for (int t = 0; t < LINK_TRACKED; t++)
            if (rm->failing & (1u << t))
                json_object_array_add(failing, json_object_new_string(link_tracked_name(t)));
        json_object_object_add(o, "failing", failing);
        for (size_t j = 0; j < rm->n_events; j++)
            json_object_array_add(events, event_json(&rm->events[j]));
        json_object_object_add(o, "events", events);
        if (rm->rx.n > 0)
            json_object_object_add(o, "rx_power", rx_trend_json(&rm->rx));
        if (rm->n_nic > 0)
            json_object_object_add(o, "nic", nic_json(rm));
        json_object_array_add(rails, o);
    }
    json_object_object_add(root, "rails", rails);
    int r = state_file_save(state_dir, LINK_STORE_FILE, root);
    json_object_put(root);
    return r;
}
