/* SPDX-License-Identifier: ISC */
/* The module source (source_module.h). */
#include "config.h"

#include "source_module.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_module.h"
#include "module_reply.h"

/* One page read: the lower page (offset 0) or an upper page (offset 128), 128 bytes. */
static int read_page(const char *ifname, uint8_t page, uint32_t offset, struct module_state *s)
{
    unsigned char *buf = NULL;
    int r = kernel_module_eeprom_get(ifname, page, offset, MODULE_PAGE_SIZE, &buf, s->why,
                                     sizeof(s->why));
    if (r >= 0)
        r = module_reply_parse(buf, (size_t)r, page, offset, &s->pages, s->why, sizeof(s->why));
    free(buf);
    return r;
}

void source_module_read(const char *ifname, struct module_state *s)
{
    memset(s, 0, sizeof(*s));
    module_eeprom_init(&s->pages);
    int r = read_page(ifname, 0, 0, s);
    if (r < 0) {
        s->err = r;
        return;
    }
    uint8_t pages[MODULE_SLOTS];
    size_t n = module_eeprom_pages_wanted(&s->pages, pages);
    /* A page the module lacks is a field left unknown, not a module unknown. */
    for (size_t i = 0; i < n; i++)
        (void)read_page(ifname, pages[i], MODULE_PAGE_SIZE, s);
    r = module_eeprom_decode(&s->pages, &s->info);
    if (r < 0) {
        s->err = r;
        snprintf(s->why, sizeof(s->why), "%s", r == -EPROTONOSUPPORT
                 ? "a module of neither SFF-8636 nor CMIS" : "no identifier byte");
        return;
    }
    s->known = true;
    s->why[0] = '\0';
}
