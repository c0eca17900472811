/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the DCB netlink reply parser: any bytes are parsed, and whatever
 * state comes out is judged by the qos.* checks. Never a crash, an out-of-bounds read or
 * undefined behaviour; a malformed reply must say why. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "dcb_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly SIZE bytes, so that ASan sees any read past the end. */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);

    struct inventory inv = { 0 };
    struct policy pol;
    struct findings fs = { 0 };
    policy_init_defaults(&pol);
    struct rail *r = inventory_add_rail(&inv, "mlx5_0", 1);
    if (r) {
        strcpy(r->link_layer, "Ethernet");
        strcpy(r->netdev.name, "eth0");
        r->netdev.present = true;
        int err = dcb_parse_ieee_reply(buf, size, &r->qos.dcb);
        if (err < 0 && !r->qos.dcb.why[0])
            abort();            /* every refusal carries its reason */
        if (r->qos.dcb.known && r->qos.dcb.n_app > QOS_MAX_APPS)
            abort();
        check_qos(&inv, &pol, &fs);
    }
    findings_done(&fs);
    inventory_done(&inv);
    policy_done(&pol);
    free(buf);
    return 0;
}
