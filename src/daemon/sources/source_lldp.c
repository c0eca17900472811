/* SPDX-License-Identifier: ISC */
/* source_lldp_fill(): each rail's LLDP neighbours (source_lldp.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lldp_capture.h"
#include "lldp_parse.h"
#include "macro.h"
#include "snapshot_read.h"
#include "source_lldp.h"

/* The reason lldpd did not answer, with what to do about it. */
static void unanswered(struct rail_lldp *l, int err, const char *what)
{
    const char *fix;
    switch (err) {
    case -ENOENT:
    case -ECONNREFUSED:
        fix = "lldpd is not running: install and enable it (apt-get install lldpd; "
              "systemctl enable --now lldpd)";
        break;
    case -EACCES:
        fix = "fabtuned may not use lldpd's socket: add its user to the _lldpd group";
        break;
    case -ENODEV:
        fix = "lldpd does not watch this interface: widen its -I pattern "
              "(DAEMON_ARGS in /etc/default/lldpd)";
        break;
    default:
        fix = "see lldpd's log";
        break;
    }
    l->err = err;
    snprintf(l->why, sizeof(l->why), "%.150s; %s", what, fix);
}

static void rail_live(struct rail *r, const char *socket)
{
    char why[160], *buf = NULL;
    size_t len;
    int err = lldp_capture(socket, r->netdev.name, &buf, &len, why, sizeof(why));
    if (err < 0)
        unanswered(&r->lldp, err, why);
    else
        (void)lldp_parse(buf, len, &r->lldp);
    free(buf);
}

static void rail_snapshot(const char *sysroot, struct rail *r)
{
    char *buf = NULL, why[96];
    size_t len;
    int e, k = snapshot_read_reply(sysroot, r->netdev.name, "lldp", &buf, &len, &e);
    if (k == 1)
        (void)lldp_parse(buf, len, &r->lldp);
    else if (k == 0) {
        snprintf(why, sizeof(why), "lldpd did not answer when the snapshot was taken (%s)",
                 strerror(-e));
        unanswered(&r->lldp, e, why);
    } else if (snapshot_read_by_fabtunectl(sysroot))
        snprintf(r->lldp.why, sizeof(r->lldp.why),
                 "the snapshot holds no LLDP neighbours for %s (taken by an older fabtunectl)",
                 r->netdev.name);
    else
        snprintf(r->lldp.why, sizeof(r->lldp.why), "a captured tree holds no LLDP neighbours "
                 "for %s (lldpd's answers come with a fabtunectl snapshot)", r->netdev.name);
    free(buf);
}

void source_lldp_fill(const char *sysroot, bool live, const struct policy *p,
                      struct inventory *inv)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct rail *r = &inv->rails[i];
        struct rail_lldp *l = &r->lldp;
        memset(l, 0, sizeof(*l));
        if (streq(r->link_layer, "InfiniBand")) {
            /* The switch port of an IB rail is the subnet manager's (ibnetdiscover's
             * NodeDescription and port of the peer), which needs SMPs on a fabric. */
            snprintf(l->why, sizeof(l->why), "InfiniBand has no LLDP; its switch port is "
                     "the subnet manager's data (ibnetdiscover), which fabtune does not read");
            continue;
        }
        if (!r->netdev.name[0]) {
            snprintf(l->why, sizeof(l->why), "the rail has no netdev");
            continue;
        }
        if (p->rails.neighbors.lldp == REQ_IGNORE) {
            snprintf(l->why, sizeof(l->why), "rails.neighbors.lldp is ignore");
            continue;
        }
        if (!live) {
            rail_snapshot(sysroot, r);
            continue;
        }
        if (!r->netdev.present) {
            snprintf(l->why, sizeof(l->why), "netdev %s is absent", r->netdev.name);
            continue;
        }
        rail_live(r, p->rails.neighbors.lldpd_socket);
    }
}
