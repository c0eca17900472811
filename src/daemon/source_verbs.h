/* The verbs source: port attributes and GID tables through libibverbs (live only). */
#pragma once

#include "inventory.h"

/* Refines each rail with what verbs reports, and notes where verbs and sysfs disagree. */
void source_verbs_scan(struct inventory *inv);
/* Gb/s from an ibv_port_attr's active_width and active_speed codes; 0 if unknown. */
double verbs_rate_gbps(uint8_t active_width, uint32_t active_speed);
