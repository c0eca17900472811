/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the module EEPROM decoder (model/module_eeprom): the input is a
 * run of kernel-like page reads, each [page][offset][length][bytes], put as they come
 * (a read that does not fit, or names a page the decoder does not keep, is refused and
 * skipped, as the source skips a bad reply). Then the decoder runs; never a crash, a read
 * past a buffer or undefined behaviour, and what comes out is within what the pages can
 * say. tests/fuzz/module-corpus holds the fixtures of tests/fixtures/module in this form.
 * The same bytes then go to the parser of the kernel's answers (sources/module_reply), as
 * one raw netlink answer. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "module_eeprom.h"
#include "module_reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct module_eeprom m;
    module_eeprom_init(&m);
    size_t at = 0;
    while (size - at >= 3) {
        unsigned page = data[at], offset = data[at + 1], len = data[at + 2];
        at += 3;
        if (len > size - at)
            len = (unsigned)(size - at);
        /* A copy of exactly LEN bytes, so that ASan sees any read past the end. */
        uint8_t *buf = malloc(len ? len : 1);
        if (!buf)
            return 0;
        memcpy(buf, data + at, len);
        module_eeprom_put(&m, page, offset, buf, len);
        free(buf);
        at += len;
    }
    uint8_t *whole = malloc(size ? size : 1);
    if (!whole)
        return 0;
    memcpy(whole, data, size);
    char why[160];
    struct module_eeprom from_reply;
    module_eeprom_init(&from_reply);
    if (module_reply_parse(whole, size, size ? data[0] : 0, 0, &from_reply, why, sizeof(why)) < 0 &&
        !why[0])
        abort();
    free(whole);
    struct module_info info;
    uint8_t pages[MODULE_SLOTS];
    if (module_eeprom_pages_wanted(&m, pages) > MODULE_SLOTS - 1)
        abort();
    if (module_eeprom_decode(&m, &info) < 0)
        return 0;
    if (info.lanes > MODULE_LANES_MAX || strlen(info.vendor) > 16 || strlen(info.revision) > 2)
        abort();
    if (!info.monitored && (info.temperature.valid || info.rx_power[0].valid))
        abort();
    for (int q = 0; q < MODULE_QUANTITIES; q++)
        (void)module_value(&info, q, info.thresholds[q].high_alarm);
    return 0;
}
