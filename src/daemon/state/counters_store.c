/* SPDX-License-Identifier: ISC */
/* The counter state file: STATE_DIR/counters.json holds the boot id and, per rail, the
 * last sample and the carrier history, so the next sample (or the next fabtuned --once)
 * has something to take a rate against. Rates are never stored; they are recomputed.
 * The sample's port counters (ports/N/counters/, the PMA's) are under "pma_values", the
 * driver's under "values": the two may share a name, and a PMA counter loaded as a
 * driver's matched nothing, so its rise across a restart was lost. A file of before has
 * only "values": its PMA counters take their rate from the next sample on.
 * What a restart must not forget of the link class is kept too: its held peak,
 *   "peaks":{"link":{"rate":20.0,"at_usec":..,"top":"symbol_error"}}
 * (a peak over 0; CLOCK_BOOTTIME of the file's boot), and when it was last seen over
 * checks.counters.link and last at or under it ("link_over_at_usec",
 * "link_under_at_usec"): an error burst is judged by that peak and dated by those
 * (model/link_memory.c). The other classes' held peaks start anew at a restart, as they
 * did (a link down is the link memory's event, sticky on its own). A file without them (of
 * an older fabtuned) loads: the link's held peak starts anew too. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "counters_store.h"
#include "macro.h"
#include "state_file.h"
#include "strutil.h"

static uint64_t get_u64(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_uint64(v) : 0;
}

/* The class of that name, or -1. */
static int class_of(const char *name)
{
    for (int c = 0; c < COUNTER_CLASSES; c++)
        if (streq(counter_class_name((enum counter_class)c), name))
            return c;
    return -1;
}

/* The optional held peaks of RC's classes: a finite rate over 0, an integer time, a top
 * counter's name that fits. */
static int load_peaks(struct rail_counters *rc, json_object *o)
{
    json_object *peaks;
    if (!json_object_object_get_ex(o, "peaks", &peaks))
        return 0;
    if (!json_object_is_type(peaks, json_type_object))
        return -EBADMSG;
    json_object_object_foreach(peaks, name, p) {
        json_object *rate, *at, *top;
        int c = class_of(name);
        if (c < 0 || !json_object_is_type(p, json_type_object) ||
            !json_object_object_get_ex(p, "rate", &rate) ||
            !(json_object_is_type(rate, json_type_double) || json_object_is_type(rate, json_type_int)) ||
            !json_object_object_get_ex(p, "at_usec", &at) || !json_object_is_type(at, json_type_int) ||
            json_object_get_int64(at) < 0 ||
            !json_object_object_get_ex(p, "top", &top) || !json_object_is_type(top, json_type_string) ||
            (size_t)json_object_get_string_len(top) >= sizeof(rc->rates[c].peak_top) ||
            strlen(json_object_get_string(top)) != (size_t)json_object_get_string_len(top))
            return -EBADMSG;
        double v = json_object_get_double(rate);
        if (!isfinite(v) || v <= 0)
            return -EBADMSG;
        if (c != COUNTER_LINK)
            continue;               /* only the link class's is kept */
        rc->rates[c].peak = v;
        rc->rates[c].peak_at = json_object_get_uint64(at);
        strscpy(rc->rates[c].peak_top, json_object_get_string(top), sizeof(rc->rates[c].peak_top));
    }
    return 0;
}

/* An optional time member: an integer >= 0. */
static int load_usec(json_object *o, const char *key, usec_t *ret)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v))
        return 0;
    if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
        return -EBADMSG;
    *ret = json_object_get_uint64(v);
    return 0;
}

static int load_rail(struct counter_state *st, json_object *o)
{
    json_object *name, *values, *carrier;
    if (!json_object_object_get_ex(o, "rail", &name) || !json_object_is_type(name, json_type_string) ||
        !json_object_object_get_ex(o, "values", &values) || !json_object_is_type(values, json_type_object) ||
        (size_t)json_object_get_string_len(name) >= sizeof(((struct rail_counters *)0)->rail) ||
        strlen(json_object_get_string(name)) != (size_t)json_object_get_string_len(name))
        return -EBADMSG;    /* a name no rail has (found by fuzz_state: a NULL deref below) */
    struct counter_sample s = { .taken = get_u64(o, "taken_usec"),
                                .pfc_en = (uint8_t)get_u64(o, "pfc_en") };
    json_object *pk;
    s.pfc_known = json_object_object_get_ex(o, "pfc_known", &pk) && json_object_get_boolean(pk);
    json_object_object_foreach(values, key, val) {
        if (counter_sample_add(&s, key, json_object_get_uint64(val)) < 0) {
            counter_sample_done(&s);
            return -ENOMEM;
        }
    }
    json_object *pma;
    if (json_object_object_get_ex(o, "pma_values", &pma)) {
        if (!json_object_is_type(pma, json_type_object)) {
            counter_sample_done(&s);
            return -EBADMSG;
        }
        json_object_object_foreach(pma, pkey, pval) {
            if (counter_sample_add_pma(&s, pkey, json_object_get_uint64(pval)) < 0) {
                counter_sample_done(&s);
                return -ENOMEM;
            }
        }
    }
    /* A fold with an unchanged boot id and no carrier mark: the sample becomes "last". A
     * loaded sample is history, judged by no limits (the pass's fold judges the next). */
    static const struct counter_limits none = { 0 };
    int r = counters_fold(st, &none, st->boot_id, json_object_get_string(name), &s, false, 0, 0);
    counter_sample_done(&s);
    if (r < 0)
        return r;
    struct rail_counters *rc = counters_find(st, json_object_get_string(name));
    if (!rc)
        return -EBADMSG;
    rc->note[0] = '\0';
    if (load_peaks(rc, o) < 0 || load_usec(o, "link_over_at_usec", &rc->link_over_at) < 0 ||
        load_usec(o, "link_under_at_usec", &rc->link_under_at) < 0)
        return -EBADMSG;
    if (json_object_object_get_ex(o, "carrier", &carrier) && json_object_is_type(carrier, json_type_array)) {
        size_t n = json_object_array_length(carrier);
        for (size_t i = 0; i < n && rc->n_carrier < CARRIER_HISTORY; i++) {
            json_object *m = json_object_array_get_idx(carrier, i);
            if (!json_object_is_type(m, json_type_array) || json_object_array_length(m) != 2)
                return -EBADMSG;
            rc->carrier[rc->n_carrier++] = (struct carrier_mark){
                .at = json_object_get_uint64(json_object_array_get_idx(m, 0)),
                .changes = json_object_get_uint64(json_object_array_get_idx(m, 1)) };
        }
    }
    return 0;
}

int counters_load(const char *state_dir, struct counter_state *st)
{
    json_object *root, *boot, *rails;
    memset(st, 0, sizeof(*st));
    int r = state_file_load(state_dir, COUNTER_FILE, &root);
    if (r < 0 || !root)
        return r;
    if (!json_object_object_get_ex(root, "boot_id", &boot) ||
        !json_object_is_type(boot, json_type_string) ||
        !json_object_object_get_ex(root, "rails", &rails) ||
        !json_object_is_type(rails, json_type_array)) {
        json_object_put(root);
        return -EBADMSG;
    }
    strscpy(st->boot_id, json_object_get_string(boot), sizeof(st->boot_id));
    /* A state file is outside data: at most COUNTER_MAX_RAILS rails are taken from it. */
    for (size_t i = 0; r >= 0 && i < json_object_array_length(rails) && i < COUNTER_MAX_RAILS; i++)
        r = load_rail(st, json_object_array_get_idx(rails, i));
    json_object_put(root);
    if (r < 0)
        counters_done(st);
    return r < 0 ? r : 0;
}

int counters_save(const char *state_dir, const struct counter_state *st)
{
    json_object *root = json_object_new_object(), *rails = json_object_new_array();
    json_object_object_add(root, "boot_id", json_object_new_string(st->boot_id));
    for (size_t i = 0; i < st->n; i++) {
        const struct rail_counters *rc = &st->rails[i];
        if (!rc->have_last)
            continue;
        json_object *o = json_object_new_object(), *values = json_object_new_object();
        json_object *carrier = json_object_new_array();
        json_object_object_add(o, "rail", json_object_new_string(rc->rail));
        json_object_object_add(o, "taken_usec", json_object_new_uint64(rc->last.taken));
        json_object_object_add(o, "pfc_known", json_object_new_boolean(rc->last.pfc_known));
        json_object_object_add(o, "pfc_en", json_object_new_int(rc->last.pfc_en));
        json_object *pma = json_object_new_object();
        for (size_t j = 0; j < rc->last.n; j++)
            json_object_object_add(rc->last.values[j].pma ? pma : values, rc->last.values[j].name,
                                   json_object_new_uint64(rc->last.values[j].value));
        json_object_object_add(o, "values", values);
        json_object_object_add(o, "pma_values", pma);
        for (size_t j = 0; j < rc->n_carrier; j++) {
            json_object *m = json_object_new_array();
            json_object_array_add(m, json_object_new_uint64(rc->carrier[j].at));
            json_object_array_add(m, json_object_new_uint64(rc->carrier[j].changes));
            json_object_array_add(carrier, m);
        }
        json_object_object_add(o, "carrier", carrier);
        const struct class_rate *link = &rc->rates[COUNTER_LINK];
        if (link->peak > 0 && isfinite(link->peak)) {
            json_object *peaks = json_object_new_object(), *p = json_object_new_object();
            json_object_object_add(p, "rate", json_object_new_double(link->peak));
            json_object_object_add(p, "at_usec", json_object_new_uint64(link->peak_at));
            json_object_object_add(p, "top", json_object_new_string(link->peak_top));
            json_object_object_add(peaks, counter_class_name(COUNTER_LINK), p);
            json_object_object_add(o, "peaks", peaks);
        }
        if (rc->link_over_at)
            json_object_object_add(o, "link_over_at_usec", json_object_new_uint64(rc->link_over_at));
        if (rc->link_under_at)
            json_object_object_add(o, "link_under_at_usec", json_object_new_uint64(rc->link_under_at));
        json_object_array_add(rails, o);
    }
    json_object_object_add(root, "rails", rails);
    int r = state_file_save(state_dir, COUNTER_FILE, root);
    json_object_put(root);
    return r;
}
