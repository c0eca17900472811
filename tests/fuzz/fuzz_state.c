/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the state files fabtuned reads back at start-up: the sysctl
 * originals, the counter state, the probe baselines and the link memory (with its Rx
 * power trends). Any bytes in any of them load or
 * fail cleanly, stay within their bounds, and what loads saves and loads again. The first
 * input byte picks the file; the rest is its content. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "baseline_store.h"
#include "counters.h"
#include "checks.h"
#include "counters_store.h"
#include "fuzz_scratch.h"
#include "link_memory.h"
#include "link_store.h"
#include "tuning_snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256];

static void put(const char *name, const uint8_t *data, size_t size)
{
    fuzz_scratch_put(dir, name, data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        fuzz_scratch_template(dir, sizeof(dir), "fuzz_state");
        if (!mkdtemp(dir))
            abort();
    }
    if (size < 1)
        return 0;
    switch (data[0] % 4) {
    case 0: {
        struct tuning_snapshot s;
        put(TUNING_SNAPSHOT_FILE, data + 1, size - 1);
        if (tuning_snapshot_load(dir, &s) == 0) {
            for (size_t i = 0; i < s.n; i++)
                if (strlen(s.e[i].key) >= sizeof(s.e[i].key) || strlen(s.e[i].value) >= sizeof(s.e[i].value))
                    abort();
            tuning_snapshot_done(&s);
        }
        break;
    }
    case 1: {
        struct counter_state st;
        put("counters.json", data + 1, size - 1);
        if (counters_load(dir, &st) == 0) {
            if (st.n > COUNTER_MAX_RAILS)
                abort();
            if (counters_save(dir, &st) < 0)
                abort();
            counters_done(&st);
            if (counters_load(dir, &st) < 0)
                abort();    /* what was saved loads again */
        }
        counters_done(&st);
        break;
    }
    case 3: {
        struct link_memory m, again;
        put(LINK_STORE_FILE, data + 1, size - 1);
        if (link_store_load(dir, &m) == 0) {
            if (m.n > INVENTORY_MAX_RAILS)
                abort();
            for (size_t i = 0; i < m.n; i++) {
                if (m.rails[i].n_events > LINK_MEMORY_EVENTS ||
                    strlen(m.rails[i].rail) >= sizeof(m.rails[i].rail))
                    abort();
                for (size_t j = 0; j < m.rails[i].n_events; j++)
                    if (m.rails[i].events[j].kind >= LINK_EVENT_KINDS)
                        abort();
                /* The rules on what loaded: no age is negative, no count overflows. */
                (void)link_memory_sticky(&m, m.rails[i].rail, USEC_PER_HOUR);
                (void)link_memory_warnings(&m, m.rails[i].rail, "counters.link", USEC_PER_HOUR, true);
                /* The Rx power trend: within its ring, in time order, and its fit finite. */
                const struct rx_trend *t = &m.rails[i].rx;
                struct rx_fit f;
                if (t->n > RX_TREND_SAMPLES)
                    abort();
                for (size_t j = 1; j < t->n; j++)
                    if (t->samples[j].wall < t->samples[j - 1].wall)
                        abort();
                if (t->n && rx_trend_steepest(t, t->samples[t->n - 1].wall, USEC_PER_HOUR, &f) &&
                    (!isfinite(f.db_per_window) || f.lane >= MODULE_LANES_MAX))
                    abort();
            }
            /* rails.gone on what loaded, as a pass with no rails judges it: every rail gone. */
            struct inventory inv = { 0 };
            struct policy p;
            struct findings fs = { 0 };
            policy_init_defaults(&p);
            check_gone(&inv, &m, &p, &fs);
            findings_done(&fs);
            policy_done(&p);
            if (link_store_save(dir, &m) < 0 || link_store_load(dir, &again) < 0 || again.n != m.n)
                abort();    /* what was saved loads again, whole */
            link_memory_done(&again);
        }
        link_memory_done(&m);
        break;
    }
    default: {
        struct baselines all;
        put("probe-baselines.json", data + 1, size - 1);
        if (baselines_load(dir, &all) == 0) {
            for (size_t i = 0; i < all.n; i++) {
                struct stats s = { .p50 = 1, .p99 = 2 };
                const struct baseline_rule rule = { .runs = 10, .ratio = 1.5, .consecutive = 3,
                                                    .min_excess = 5e-6 };
                if (all.e[i].n_learned > BASELINE_MAX_RUNS)
                    abort();
                baseline_update(&all.e[i], &s, &rule);
            }
        }
        baselines_done(&all);
        break;
    }
    }
    return 0;
}
