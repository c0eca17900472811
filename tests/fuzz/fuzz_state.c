/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the state files fabtuned reads back at start-up: the sysctl
 * originals, the counter state and the probe baselines. Any bytes in any of them load or
 * fail cleanly, stay within their bounds, and what loads saves and loads again. The first
 * input byte picks the file; the rest is its content. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "baseline_store.h"
#include "counters.h"
#include "counters_store.h"
#include "fuzz_scratch.h"
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
    switch (data[0] % 3) {
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
    default: {
        struct baselines all;
        put("probe-baselines.json", data + 1, size - 1);
        if (baselines_load(dir, &all) == 0) {
            for (size_t i = 0; i < all.n; i++) {
                struct stats s = { .p50 = 1, .p99 = 2 };
                if (all.e[i].n_learned > BASELINE_MAX_RUNS)
                    abort();
                baseline_update(&all.e[i], &s, 10, 1.5, 3);
            }
        }
        baselines_done(&all);
        break;
    }
    }
    return 0;
}
