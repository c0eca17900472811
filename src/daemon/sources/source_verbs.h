/* SPDX-License-Identifier: ISC */
/* The verbs source: port attributes and GID tables through libibverbs (live only). */
#pragma once

#include <infiniband/verbs.h>
#include <stddef.h>

#include "inventory.h"

/* Opens the verbs device called name. On failure returns -errno and says why in why,
 * naming the device node and a denied open() (EPERM/EACCES) as such. Thread-safe. */
int verbs_open(const char *name, struct ibv_context **ret, char *why, size_t whylen);
/* Refines each rail with what verbs reports, and notes where verbs and sysfs disagree. */
void source_verbs_scan(struct inventory *inv);
/* Gb/s from an ibv_port_attr's active_width and active_speed codes; 0 if unknown. */
double verbs_rate_gbps(uint8_t active_width, uint32_t active_speed);
