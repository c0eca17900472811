/* SPDX-License-Identifier: ISC */
/* The module source (source_module.h): live, or from the answers a snapshot kept
 * (snapshot_layout.h: module_lower, module_page_PP), through the same parser. */
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
#include "snapshot_read.h"
#include "strutil.h"

/* Where answers come from: the kernel (SYSROOT NULL), or a snapshot's sys/ at SYSROOT. */
struct module_from {
    const char *sysroot, *ifname;
};

/* One page read: the lower page (offset 0) or an upper page (offset 128), 128 bytes. */
static int read_page(const struct module_from *from, uint8_t page, uint32_t offset,
                     struct module_eeprom *m, struct module_state *s)
{
    char *buf = NULL, name[32];
    size_t len = 0;
    int r, err;
    if (!from->sysroot) {
        r = kernel_module_eeprom_get(from->ifname, page, offset, MODULE_PAGE_SIZE,
                                     (unsigned char **)&buf, s->why, sizeof(s->why));
        len = r > 0 ? (size_t)r : 0;
    } else {
        if (offset == 0)
            snprintf(name, sizeof(name), "module_lower");
        else
            snprintf(name, sizeof(name), "module_page_%02x", page);
        r = snapshot_read_reply(from->sysroot, from->ifname, name, &buf, &len, &err);
        if (r == 0) {
            r = err;
            snprintf(s->why, sizeof(s->why), "no answer to MODULE_EEPROM_GET when the "
                     "snapshot was taken (%s)", errno_text(-err));
        } else if (r < 0)
            snprintf(s->why, sizeof(s->why), "the captured tree holds no %s answer", name);
    }
    if (r >= 0)
        r = module_reply_parse((const unsigned char *)buf, len, page, offset, m, s->why,
                               sizeof(s->why));
    free(buf);
    return r;
}

static void module_read(const struct module_from *from, struct module_state *s)
{
    struct module_eeprom m;
    memset(s, 0, sizeof(*s));
    s->read = true;
    module_eeprom_init(&m);
    int r = read_page(from, 0, 0, &m, s);
    if (r < 0) {
        s->err = r;
        return;
    }
    uint8_t pages[MODULE_SLOTS];
    size_t n = module_eeprom_pages_wanted(&m, pages);
    /* A page the module lacks is a field left unknown, not a module unknown. */
    for (size_t i = 0; i < n; i++)
        (void)read_page(from, pages[i], MODULE_PAGE_SIZE, &m, s);
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

void source_module_read(const char *ifname, struct module_state *s)
{
    module_read(&(struct module_from){ .ifname = ifname }, s);
}

void source_module_fill(const char *sysroot, bool live, struct inventory *inv)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct rail *r = &inv->rails[i];
        if (!streq(r->link_layer, "Ethernet") || !r->netdev.present || !r->netdev.name[0])
            continue;
        struct module_from from = { .sysroot = live ? NULL : sysroot, .ifname = r->netdev.name };
        char *buf = NULL;
        size_t len;
        int err;
        /* Offline, a snapshot taken before modules were kept has no finding, as sysfs. */
        if (!live && snapshot_read_reply(sysroot, r->netdev.name, "module_lower", &buf, &len,
                                         &err) < 0)
            continue;
        free(buf);
        module_read(&from, &r->module);
    }
}
