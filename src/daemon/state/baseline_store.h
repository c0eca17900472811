/* SPDX-License-Identifier: ISC */
/* Probe baselines saved in and loaded from the state directory. */
#pragma once

#include "baseline.h"

int baselines_load(const char *state_dir, struct baselines *ret);       /* empty if absent */
int baselines_save(const char *state_dir, const struct baselines *all);
