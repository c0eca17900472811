/* SPDX-License-Identifier: ISC */
/* The policy's names and paths checked against this host as the policy loads (a group
 * that exists, an output path that can be written), for --check-config and the daemon. */
#pragma once

#include "policy.h"

/* The check for policy_load_configured_on_host(); RUNTIME_DIR must outlive the loads. */
void host_check_init(struct policy_host_check *ret, const char *runtime_dir);
