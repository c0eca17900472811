/* SPDX-License-Identifier: ISC */
/* The rtnetlink source: netdev oper state, carrier, MTU, carrier changes and addresses. */
#pragma once

#include "inventory.h"

/* Fills one netdev (by name) from rtnetlink. Returns 0, -ENODEV if absent, or -errno. */
int source_rtnl_netdev(struct netdev_info *nd);
/* Fills every rail's netdev. */
void source_rtnl_fill(struct inventory *inv);
