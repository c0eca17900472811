/* SPDX-License-Identifier: ISC */
/* The counter state saved in and loaded from the state directory. */
#pragma once

#include "counters.h"

#define COUNTER_FILE "counters.json"

/* STATE_DIR/counters.json; a missing file is an empty state. */
int counters_load(const char *state_dir, struct counter_state *st);
int counters_save(const char *state_dir, const struct counter_state *st);
