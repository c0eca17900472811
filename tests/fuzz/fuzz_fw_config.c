/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the firmware tool's parser (sources/fw_config_parse.c, the
 * `mstconfig -e query` text a snapshot keeps in fabtune/net/IF/fw_config): any bytes are
 * parsed for ports 1 and 2. Never a crash, an out-of-bounds read or undefined behaviour;
 * every value found is CC_UNKNOWN or within 0..UINT32_MAX; a refusal says why. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fw_config_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t cur[CC_PARAMS], next[CC_PARAMS];
    char why[160];
    char *buf = malloc(size ? size : 1);   /* exact size: ASan sees a read past the end */
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    for (unsigned port = 1; port <= 2; port++) {
        why[0] = '\0';
        int n = fw_config_parse(buf, size, port, cur, next, why, sizeof(why));
        if (n < 0 && (!why[0] || !memchr(why, 0, sizeof(why))))
            abort();
        for (size_t i = 0; i < CC_PARAMS; i++)
            if ((cur[i] != CC_UNKNOWN && (cur[i] < 0 || cur[i] > UINT32_MAX)) ||
                (next[i] != CC_UNKNOWN && (next[i] < 0 || next[i] > UINT32_MAX)))
                abort();
    }
    free(buf);
    return 0;
}
