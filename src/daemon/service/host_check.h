/* SPDX-License-Identifier: ISC */
/* The policy's names and paths checked against this host as the policy loads (a group
 * that exists, an output path that can be written), for --check-config and the daemon. */
#pragma once

#include "options.h"
#include "policy.h"

/* The check for policy_load_configured_on_host(); RUNTIME_DIR must outlive the loads. */
void host_check_init(struct policy_host_check *ret, const char *runtime_dir);
/* For a run that writes no output file (--once, --revert, --dump-policy): the same, less
 * the output paths, which it would refuse for nothing (a user may not write /run/fabtune). */
void host_check_init_no_outputs(struct policy_host_check *ret);
/* --check-config's: the same, and every tuning.sysctl key exists under O's procfs root
 * (with the nearest key of that root where one is close). A daemon or --once that meets
 * a key its kernel lacks warns instead (tuning.drift): the key may come with a module.
 * O must outlive the loads. */
void host_check_init_config(struct policy_host_check *ret, const struct options *o);
