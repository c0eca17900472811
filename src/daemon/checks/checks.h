/* SPDX-License-Identifier: ISC */
/* The checks: pure functions from inventory and policy to findings. They never read the
 * system, so a snapshot and the live node are judged by the same code. */
#pragma once

#include "counters.h"
#include "findings.h"
#include "inventory.h"
#include "policy.h"
#include "baseline.h"
#include "probe_run.h"
#include "tuning.h"

void checks_run(const struct inventory *inv, const struct policy *p, struct findings *out);

/* One group each; checks_run calls them in order. */
void check_rails(const struct inventory *inv, const struct policy *p, struct findings *out);
void check_ports(const struct inventory *inv, const struct policy *p, struct findings *out);
void check_netdevs(const struct inventory *inv, const struct policy *p, struct findings *out);
void check_gids(const struct inventory *inv, const struct policy *p, struct findings *out);
void check_qos(const struct inventory *inv, const struct policy *p, struct findings *out);
/* counters.* and netdev.flaps, from the rates and carrier history in ST. */
void check_counters(const struct inventory *inv, const struct counter_state *st,
                    const struct policy *p, struct findings *out);
void check_host(const struct inventory *inv, const struct policy *p, struct findings *out);
void check_tuning(const struct tuning *t, const struct policy *p, struct findings *out);
void check_probe_results(const struct probe_run *run, const struct policy *p,
                         struct findings *out);
void check_regressions(const struct baselines *all, const struct policy *p,
                       struct findings *out);
