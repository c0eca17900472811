/* SPDX-License-Identifier: ISC */
/* The parser of lldp_capture.h's text: an interface's LLDP neighbours, live or as a
 * snapshot kept them (fabtune/net/IFNAME/lldp). */
#pragma once

#include <stddef.h>

#include "lldp.h"

/* Fills OUT's neighbours from the LEN bytes at BUF: 0 (OUT->known), or -EINVAL with
 * OUT->why (a missing header, a bad escape, a key before "neighbor", a number out of range).
 * Unknown keys are skipped; values too long for OUT are cut; neighbours past
 * LLDP_MAX_NEIGHBORS and VLANs or addresses past their tables are counted, not kept. */
int lldp_parse(const char *buf, size_t len, struct rail_lldp *out);
