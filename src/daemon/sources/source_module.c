/* SPDX-License-Identifier: ISC */
/* The module source (source_module.h). */
#include "config.h"

#include "source_module.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inventory.h"
#include "kernel_module.h"
#include "macro.h"
#include "module_reply.h"

/* One page read: the lower page (offset 0) or an upper page (offset 128), 128 bytes. */
static int read_page(const char *ifname, uint8_t page, uint32_t offset,
                     struct module_eeprom *m, struct module_state *s)
{
    unsigned char *buf = NULL;
    int r = kernel_module_eeprom_get(ifname, page, offset, MODULE_PAGE_SIZE, &buf, s->why,
                                     sizeof(s->why));
    if (r >= 0)
        r = module_reply_parse(buf, (size_t)r, page, offset, m, s->why, sizeof(s->why));
    free(buf);
    return r;
}

void source_module_fill(struct inventory *inv)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct rail *r = &inv->rails[i];
        if (streq(r->link_layer, "Ethernet") && r->netdev.present && r->netdev.name[0])
            source_module_read(r->netdev.name, &r->module);
    }
}

void source_module_read(const char *ifname, struct module_state *s)
{
    struct module_eeprom m;
    memset(s, 0, sizeof(*s));
    s->read = true;
    module_eeprom_init(&m);
    int r = read_page(ifname, 0, 0, &m, s);
    if (r < 0) {
        s->err = r;
        return;
    }
    uint8_t pages[MODULE_SLOTS];
    size_t n = module_eeprom_pages_wanted(&m, pages);
    /* A page the module lacks is a field left unknown, not a module unknown. */
    for (size_t i = 0; i < n; i++)
        (void)read_page(ifname, pages[i], MODULE_PAGE_SIZE, &m, s);
    r = module_eeprom_decode(&m, &s->info);
    if (r < 0) {
        s->err = r;
        snprintf(s->why, sizeof(s->why), "%s", r == -EPROTONOSUPPORT
                 ? "a module of neither SFF-8636 nor CMIS" : "no identifier byte");
        return;
    }
    s->known = true;
    s->why[0] = '\0';
}
