/* SPDX-License-Identifier: ISC */
/* The checks, in the order the report shows them. */
#include "config.h"

#include "checks.h"

void checks_run(const struct inventory *inv, const struct policy *p, struct findings *out)
{
    check_rails(inv, p, out);
    check_ports(inv, p, out);
    check_netdevs(inv, p, out);
    check_gids(inv, p, out);
    check_qos(inv, p, out);
    check_host(inv, p, out);
}
