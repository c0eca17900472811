/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the kernel log's record parser (sources/kmsg_parse.c) and what reads
 * its result: any bytes are one /dev/kmsg record; its text is matched against the pattern
 * table (model/kernel_log.c), bound to two rails and kept in a link memory
 * (link_memory_note_kernel), judged by nic.* and saved and parsed back as the memory's file
 * is. Never a crash, an out-of-bounds read or undefined behaviour; the record's strings are
 * terminated, a refusal is -EINVAL, the memory stays within its bounds. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "kmsg_parse.h"
#include "link_memory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void add_rail(struct inventory *inv, const char *dev, const char *pci, const char *netdev)
{
    struct rail *r = inventory_add_rail(inv, dev, 1);
    if (!r)
        return;
    strcpy(r->name, dev);
    strcat(r->name, "/1");
    strcpy(r->pci_addr, pci);
    strcpy(r->netdev.name, netdev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1);    /* exact size: ASan sees a read past the end */
    struct kmsg_record rec;
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    int err = kmsg_parse(buf, size, &rec);
    free(buf);
    if (err < 0) {
        if (err != -EINVAL)
            abort();
        return 0;
    }
    if (!memchr(rec.text, 0, sizeof(rec.text)) || !memchr(rec.device, 0, sizeof(rec.device)) ||
        rec.level > 7)
        abort();
    struct inventory inv = { 0 };
    struct link_memory m = { .kernel_read = true, .now_boottime = 1000000, .now_wall = 2000000 };
    struct findings fs = { 0 };
    struct policy p;
    policy_init_defaults(&p);
    strcpy(m.boot_id, "b");
    add_rail(&inv, "mlx5_0", "0000:08:00.0", "eth2");
    add_rail(&inv, "rxe0", "", "v0");
    for (int i = 0; i < 20; i++)       /* past the kept count: the eviction runs */
        if (link_memory_note_kernel(&m, &inv, rec.text, rec.device, rec.ts_usec, rec.ts_usec) < 0)
            break;
    for (size_t i = 0; i < m.n; i++)
        if (m.rails[i].n_nic > NIC_EVENTS_KEPT)
            abort();
    check_nic(&inv, &m, &p, &fs);
    findings_done(&fs);
    link_memory_done(&m);
    inventory_done(&inv);
    policy_done(&p);
    return 0;
}
