/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the PCI config-space walk, and the CPU list parser of the host path
 * beside it: any bytes (a device's, or a file put in sysfs's or procfs's place) are
 * parsed; never a crash, a read past the buffer or undefined behaviour, and what comes out
 * is within what the registers (or the list) can say. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "pci_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly SIZE bytes, so that ASan sees any read past the end. */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    struct pci_config c;
    int r = pci_config_parse(buf, size, &c);
    if (r == 0 && !c.header)
        abort();
    if (c.pcie && (c.max_read_request < 128 || c.max_read_request > 16384 ||
                   c.max_payload < 128 || c.max_payload > 16384))
        abort();
    if ((c.acs || c.extended) && size < 4096)
        abort();
    free(buf);
    /* The same bytes as a CPU list (a NUL-terminated file line). */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct cpuset set;
    if (cpulist_parse(text, &set) == 0 && cpuset_first(&set) >= CPUSET_MAX)
        abort();
    free(text);
    return 0;
}
