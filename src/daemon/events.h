/* SPDX-License-Identifier: ISC */
/* Event sources that trigger a re-check: rtnetlink and each RDMA device's async fd. */
#pragma once

#include "inventory.h"

struct manager;
struct events;

int events_new(struct manager *m, struct events **ret);
/* Watches the async fds of the devices the inventory has (opens new, drops vanished). */
void events_watch_devices(struct events *ev, const struct inventory *inv);
void events_free(struct events *ev);
