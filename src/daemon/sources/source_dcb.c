/* SPDX-License-Identifier: ISC */
/* A netdev's IEEE DCB state, live: the kernel's raw reply (kernel_replies.h asks for it)
 * parsed by dcb_parse, the parser the captured fixtures are tested through. */
#include "config.h"

#include <stdlib.h>

#include "dcb_parse.h"
#include "kernel_replies.h"
#include "source_qos.h"

int source_dcb_query(const char *ifname, struct dcb_state *d)
{
    unsigned char *buf = NULL;
    char why[sizeof(d->why)] = "";
    int n = kernel_dcb_ieee_get(ifname, &buf, why, sizeof(why));
    if (n < 0) {
        dcb_state_unknown(d, why);
        return n;
    }
    int r = dcb_parse_ieee_reply(buf, (size_t)n, d);
    free(buf);
    return r;
}
