/* SPDX-License-Identifier: ISC */
/* The GID table as show_gids prints it, with NCCL's pick on each port and, for every entry
 * NCCL would not pick, one word for why: what `fabtunectl gids` and `fabtuned --once
 * --gids` show. */
#pragma once

#include <json-c/json.h>

#include "report.h"

/* An array, one object per rail: device, port, netdev, link_layer, pick (the index the
 * policy means on RoCE, NCCL's index 0 or routable FLID index on InfiniBand; -1 none),
 * gid_table (false: the port has no gids/ directory), fails_at (the index whose missing
 * gid_attrs/types file fails NCCL's selection, or null), empty (slots with no GID), and
 * entries: every populated slot and the pick, each {index, gid, ipv4 (or null), version
 * ("v1", "v2", or null when the type cannot be read), netdev, nccl ("pick", a reason word,
 * or null: NCCL could pick it but takes an earlier one)}. */
json_object *gid_table_json(const struct report *r);
