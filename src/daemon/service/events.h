/* SPDX-License-Identifier: ISC */
/* Event sources that trigger a re-check: rtnetlink and each RDMA device's async fd. */
#pragma once

#include "inventory.h"

#include <systemd/sd-event.h>

struct events;

/* changed(userdata) is called, on the loop, for each event that warrants a re-check. */
typedef void (*events_changed_fn)(void *userdata);
int events_new(sd_event *event, events_changed_fn changed, void *userdata, struct events **ret);
/* Watches the async fds of the devices the inventory has (opens new, drops vanished). */
void events_watch_devices(struct events *ev, const struct inventory *inv);
void events_free(struct events *ev);
