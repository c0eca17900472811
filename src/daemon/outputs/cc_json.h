/* SPDX-License-Identifier: ISC */
/* A rail's congestion-control state as JSON: the report's rails[].cc, which fabtunectl
 * diff compares parameter by parameter. */
#pragma once

#include <json-c/json.h>

#include "cc.h"

/* {"source", "why", "digest", "running": {NAME: N|null}, "firmware_tool", "firmware_why",
 * "current": {...}, "next_boot": {...}}; "running" and "next_boot" hold every parameter
 * that has a value, masks and switches as numbers. */
json_object *cc_to_json(const struct cc_state *c);
