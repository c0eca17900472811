/* SPDX-License-Identifier: ISC */
/* Serves the .pages files of tests/fixtures/module to ethtool 6.1's own netlink decoders
 * (cmis.c, qsfp.c, sff-common.c from its source package, linked unmodified by
 * bench/module-vs-ethtool.sh),
 * then prints fabtune's decoding of the same bytes, for reading side by side. */
#include "internal.h"
#include "netlink/extapi.h"
#include "module_eeprom.h"
#include "module_pages.h"
#include <errno.h>

int sff8636_show_all_nl(struct cmd_context *ctx);
int cmis_show_all_nl(struct cmd_context *ctx);

static struct module_eeprom M;
static uint8_t served[16][256];
static int n_served;

int nl_get_eeprom_page(struct cmd_context *ctx, struct ethtool_module_eeprom *req)
{
    (void)ctx;
    /* The kernel's semantics: offset 0-255 of PAGE; bytes never put read as missing. */
    uint8_t *buf = served[n_served++ % 16];
    for (unsigned i = 0; i < req->length; i++) {
        unsigned o = req->offset + i;
        int slot = o < 128 ? MODULE_SLOT_LOWER : -1;
        const uint8_t map[] = { 0, 0x00, 0x01, 0x02, 0x03, 0x11 };
        for (int s = 1; s < MODULE_SLOTS && slot < 0; s++)
            if (map[s] == req->page)
                slot = s;
        if (slot < 0)
            return -EOPNOTSUPP;
        buf[o] = M.bytes[slot][o % 128];
    }
    req->data = buf + req->offset;
    return 0;
}

int main(int argc, char **argv)
{
    int line;
    if (argc < 2 || module_pages_read(argv[1], &M, &line) < 0)
        return 2;
    struct cmd_context ctx = { 0 };
    printf("== ethtool 6.1\n");
    uint8_t id = M.bytes[MODULE_SLOT_LOWER][0];
    if (id == 0x0C || id == 0x0D || id == 0x11)
        sff8636_show_all_nl(&ctx);
    else
        cmis_show_all_nl(&ctx);
    struct module_info i;
    printf("== fabtune rc=%d\n", module_eeprom_decode(&M, &i));
    printf("vendor=%s pn=%s sn=%s rev=%s media=%s monitored=%d lanes=%u\n", i.vendor, i.part,
           i.serial, i.revision, module_media_name(i.media), i.monitored, i.lanes);
    if (i.temperature.valid)
        printf("temperature %.2f degC\n", module_value(&i, MODULE_Q_TEMPERATURE, i.temperature.raw));
    if (i.vcc.valid)
        printf("vcc %.4f V\n", module_value(&i, MODULE_Q_VCC, i.vcc.raw));
    for (unsigned l = 0; l < i.lanes; l++) {
        if (i.tx_bias[l].valid)
            printf("lane %u bias %.3f mA\n", l + 1, 1e3 * module_value(&i, MODULE_Q_TX_BIAS, i.tx_bias[l].raw));
        if (i.tx_power[l].valid)
            printf("lane %u tx %.4f mW\n", l + 1, 1e3 * module_value(&i, MODULE_Q_TX_POWER, i.tx_power[l].raw));
        if (i.rx_power[l].valid)
            printf("lane %u rx %.4f mW\n", l + 1, 1e3 * module_value(&i, MODULE_Q_RX_POWER, i.rx_power[l].raw));
    }
    for (int q = 0; q < MODULE_QUANTITIES; q++) {
        const struct module_thresholds *t = &i.thresholds[q];
        double k = q == MODULE_Q_TEMPERATURE || q == MODULE_Q_VCC ? 1 : 1e3;
        if (t->valid)
            printf("%s thresholds HA %.4f LA %.4f HW %.4f LW %.4f\n", module_quantity_name(q),
                   k * module_value(&i, q, t->high_alarm), k * module_value(&i, q, t->low_alarm),
                   k * module_value(&i, q, t->high_warn), k * module_value(&i, q, t->low_warn));
        if (q <= MODULE_Q_VCC && i.flags_valid[q] && i.module_flags[q])
            printf("%s flags 0x%x\n", module_quantity_name(q), i.module_flags[q]);
        for (unsigned l = 0; q > MODULE_Q_VCC && l < i.lanes; l++)
            if (i.lane_flags[q][l])
                printf("%s lane %u flags 0x%x\n", module_quantity_name(q), l + 1, i.lane_flags[q][l]);
    }
    return 0;
}
