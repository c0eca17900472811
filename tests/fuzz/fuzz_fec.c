/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the FEC_GET answer's parser (sources/fec_reply): the input is one
 * raw netlink answer, as the kernel sends it and a snapshot keeps it (fabtune/net/IF/fec).
 * Never a crash, a read past a buffer or undefined behaviour; what comes out is within
 * what an answer can say (a known mode, at most FEC_LANES_MAX lanes a statistic, a reason
 * for every refusal), and the BER maths on its counts stay finite.
 * tests/fuzz/fec-corpus holds the answers of tests/fec_fixtures.h (tests/fec_replies). */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fec.h"
#include "fec_reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly SIZE bytes, so that ASan sees any read past the end. */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    struct fec_info info;
    char why[160] = "";
    int r = fec_reply_parse(buf, size, &info, why, sizeof(why));
    free(buf);
    if (r < 0) {
        if (!why[0])
            abort();
        return 0;
    }
    if ((unsigned)info.active >= FEC_MODES || info.configured >= 1u << FEC_MODES)
        abort();
    for (int s = 0; s < FEC_STATS; s++) {
        if (info.stats[s].n_lanes > FEC_LANES_MAX)
            abort();
        double b = fec_ber((double)info.stats[s].total, 400);
        if (!isfinite(b) || b < 0)
            abort();
    }
    return 0;
}
