/* SPDX-License-Identifier: ISC */
/* Helpers over a rail's QoS state. */
#include "config.h"

#include <linux/dcbnl.h>
#include <string.h>

#include "qos.h"

void qos_state_init(struct qos_state *q)
{
    memset(q, 0, sizeof(*q));
    q->dcb.dcbx = -1;
    q->cnp_dscp = q->cnp_802p_prio = -1;
    q->pause_rx = q->pause_tx = q->pause_autoneg = -1;
}

int qos_dscp_priority(const struct dcb_state *d, unsigned dscp)
{
    for (size_t i = 0; i < d->n_app; i++)
        if (d->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP && d->app[i].protocol == dscp)
            return d->app[i].priority;
    return -1;
}

bool qos_app_has_dscp(const struct dcb_state *d)
{
    for (size_t i = 0; i < d->n_app; i++)
        if (d->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP)
            return true;
    return false;
}
