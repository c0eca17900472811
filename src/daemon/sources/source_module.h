/* SPDX-License-Identifier: ISC */
/* A netdev's pluggable module, live: the lower page, then the upper pages its spec and
 * memory model name (module_eeprom_pages_wanted), each by ETHTOOL_MSG_MODULE_EEPROM_GET;
 * decoded into a module_state. A driver without module access (veth, virtio, rxe) leaves
 * it unknown with the kernel's reason: never an error. */
#pragma once

#include <stdbool.h>

#include "module_eeprom.h"

struct inventory;

void source_module_read(const char *ifname, struct module_state *s);
/* Every Ethernet rail with a netdev: its module, into rail.module; live, or (LIVE false)
 * from the answers the snapshot whose sys/ is SYSROOT kept (none kept: not read). */
void source_module_fill(const char *sysroot, bool live, struct inventory *inv);
