/* SPDX-License-Identifier: ISC */
/* The parser of mstconfig's and mlxconfig's `-d DEV -e query` text (fw_config.h): the
 * congestion-control parameters of one port, as the firmware booted with them (Current)
 * and as it boots next (Next Boot). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cc.h"

/* Fills CURRENT and NEXT (CC_UNKNOWN where the text has no value) with the parameters of
 * port PORT (1: _P1) from TEXT (LEN bytes, any bytes). Returns how many parameters it
 * found, or -EBADMSG with WHY set: no "Configurations:" table, or the tool's own "-E-"
 * error line. A table with only a Next Boot column leaves CURRENT unknown. */
int fw_config_parse(const char *text, size_t len, unsigned port, int64_t current[CC_PARAMS],
                    int64_t next[CC_PARAMS], char *why, size_t whylen);
