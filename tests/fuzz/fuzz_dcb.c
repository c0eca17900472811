/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the DCB netlink reply parser: any bytes are parsed, and whatever
 * state comes out is judged by the qos.* checks. Never a crash, an out-of-bounds read or
 * undefined behaviour; a malformed reply must say why. The same bytes, cut in two, are a
 * snapshot's ethtool GSTRINGS and GSTATS replies (snapshot_layout.h): folded within both. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "counter_sample.h"
#include "dcb_parse.h"
#include "source_counters.h"

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
    /* The first byte says where the cut falls; each part its own exact-size copy. */
    if (size > 1) {
        size_t cut = 1 + (size_t)data[0] * (size - 1) / 255;
        size_t nl = cut - 1, sl = size - cut;
        uint8_t *names = malloc(nl ? nl : 1), *stats = malloc(sl ? sl : 1);
        struct counter_sample s;
        memset(&s, 0, sizeof(s));
        if (names && stats) {
            memcpy(names, data + 1, nl);
            memcpy(stats, data + cut, sl);
            int n = source_ethtool_fold_bytes(names, nl, stats, sl, NULL, &s);
            if (n > 0 && (size_t)n * ETH_GSTRING_LEN > nl)
                abort();
        }
        counter_sample_done(&s);
        free(names);
        free(stats);
    }
    findings_done(&fs);
    inventory_done(&inv);
    policy_done(&pol);
    free(buf);
    return 0;
}
