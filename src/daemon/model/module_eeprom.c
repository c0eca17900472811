/* SPDX-License-Identifier: ISC */
/* The module EEPROM decoder (module_eeprom.h). Offsets are the specs': SFF-8636 rev 2.10a
 * (lower page 00h, upper pages 00h and 03h) and CMIS 5.x (lower page, upper pages 00h,
 * 01h, 02h and 11h bank 0); each is named where it is read. Every read goes through
 * byte_at(), which answers false for a byte that was never put. */
#include "config.h"

#include "module_eeprom.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* SFF-8024 rev 4.x Table 4-1, identifier values. */
#define ID_QSFP 0x0C
#define ID_QSFP_PLUS 0x0D
#define ID_QSFP28 0x11
#define ID_QSFP_DD 0x18
#define ID_OSFP 0x19
#define ID_DSFP 0x1B
#define ID_QSFP_PLUS_CMIS 0x1E
#define ID_SFP_DD_CMIS 0x1F
#define ID_SFP_PLUS_CMIS 0x20

static const uint8_t slot_page[MODULE_SLOTS] = {
    [MODULE_SLOT_LOWER] = 0xff, [MODULE_SLOT_00] = 0x00, [MODULE_SLOT_01] = 0x01,
    [MODULE_SLOT_02] = 0x02, [MODULE_SLOT_03] = 0x03, [MODULE_SLOT_11] = 0x11,
};

void module_eeprom_init(struct module_eeprom *m)
{
    memset(m, 0, sizeof(*m));
}

static int slot_of(unsigned page)
{
    for (int s = MODULE_SLOT_00; s < MODULE_SLOTS; s++)
        if (slot_page[s] == page)
            return s;
    return -1;
}

int module_eeprom_put(struct module_eeprom *m, unsigned page, unsigned offset,
                      const uint8_t *data, size_t len)
{
    if (offset > 255 || len > 256 - offset || page > 255)
        return -EINVAL;
    int upper = slot_of(page);
    for (size_t i = 0; i < len; i++) {
        unsigned o = offset + (unsigned)i;
        int s = o < MODULE_PAGE_SIZE ? MODULE_SLOT_LOWER : upper;
        if (s < 0)
            return -ENOENT;
        unsigned b = o % MODULE_PAGE_SIZE;
        m->bytes[s][b] = data[i];
        m->have[s][b / 8] |= (uint8_t)(1u << (b % 8));
    }
    return 0;
}

/* Byte OFFSET (0-255, the spec's numbering) of upper page SLOT, or of the lower page. */
static bool byte_at(const struct module_eeprom *m, int slot, unsigned offset, uint8_t *ret)
{
    if (offset > 255)
        return false;
    int s = offset < MODULE_PAGE_SIZE ? MODULE_SLOT_LOWER : slot;
    unsigned b = offset % MODULE_PAGE_SIZE;
    if (!(m->have[s][b / 8] & (1u << (b % 8))))
        return false;
    *ret = m->bytes[s][b];
    return true;
}

static bool u16_at(const struct module_eeprom *m, int slot, unsigned offset, int32_t *ret)
{
    uint8_t hi, lo;
    if (!byte_at(m, slot, offset, &hi) || !byte_at(m, slot, offset + 1, &lo))
        return false;
    *ret = (int32_t)((unsigned)hi << 8 | lo);
    return true;
}

static bool s16_at(const struct module_eeprom *m, int slot, unsigned offset, int32_t *ret)
{
    int32_t v;
    if (!u16_at(m, slot, offset, &v))
        return false;
    *ret = (int16_t)(uint16_t)v;
    return true;
}

static bool bit_at(const struct module_eeprom *m, int slot, unsigned offset, uint8_t mask)
{
    uint8_t v;
    return byte_at(m, slot, offset, &v) && (v & mask);
}

static enum module_spec spec_of(uint8_t id)
{
    switch (id) {
    case ID_QSFP:
    case ID_QSFP_PLUS:
    case ID_QSFP28:
        return MODULE_SPEC_SFF8636;
    case ID_QSFP_DD:
    case ID_OSFP:
    case ID_DSFP:
    case ID_QSFP_PLUS_CMIS:
    case ID_SFP_DD_CMIS:
    case ID_SFP_PLUS_CMIS:
        return MODULE_SPEC_CMIS;
    default:
        return MODULE_SPEC_UNKNOWN;
    }
}

size_t module_eeprom_pages_wanted(const struct module_eeprom *m, uint8_t ret[MODULE_SLOTS])
{
    uint8_t id, status;
    size_t n = 0;
    if (!byte_at(m, MODULE_SLOT_LOWER, 0, &id))
        return 0;
    enum module_spec spec = spec_of(id);
    if (spec == MODULE_SPEC_UNKNOWN)
        return 0;
    ret[n++] = 0x00;
    /* Byte 2: SFF-8636 bit 2 Flat_mem; CMIS bit 7 MemoryModel (1: flat). Unknown: flat. */
    if (!byte_at(m, MODULE_SLOT_LOWER, 2, &status))
        return n;
    if (spec == MODULE_SPEC_SFF8636 && !(status & 0x04))
        ret[n++] = 0x03;
    if (spec == MODULE_SPEC_CMIS && !(status & 0x80)) {
        ret[n++] = 0x01;
        ret[n++] = 0x02;
        ret[n++] = 0x11;
    }
    return n;
}

/* An ASCII field (space padded): trailing blanks dropped, anything unprintable a '?',
 * empty when any byte is missing. */
static void text_at(const struct module_eeprom *m, unsigned first, unsigned len, char *ret)
{
    ret[0] = '\0';
    size_t end = 0;
    for (unsigned i = 0; i < len; i++) {
        uint8_t c;
        if (!byte_at(m, MODULE_SLOT_00, first + i, &c)) {
            ret[0] = '\0';
            return;
        }
        ret[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
        if (c != ' ')
            end = i + 1;
    }
    ret[end] = '\0';
}

static void reading_at(const struct module_eeprom *m, int slot, unsigned offset,
                       bool is_signed, struct module_reading *ret)
{
    ret->valid = is_signed ? s16_at(m, slot, offset, &ret->raw)
                           : u16_at(m, slot, offset, &ret->raw);
}

/* Four thresholds in the order both specs keep: high alarm, low alarm, high warning, low
 * warning, 2 bytes each from FIRST. */
static void thresholds_at(const struct module_eeprom *m, int slot, unsigned first,
                          bool is_signed, struct module_thresholds *ret)
{
    struct module_reading r[4];
    ret->valid = true;
    for (unsigned i = 0; i < 4; i++) {
        reading_at(m, slot, first + 2 * i, is_signed, &r[i]);
        ret->valid = ret->valid && r[i].valid;
    }
    ret->high_alarm = r[0].raw;
    ret->low_alarm = r[1].raw;
    ret->high_warn = r[2].raw;
    ret->low_warn = r[3].raw;
}

/* SFF-8636 upper page 00h byte 147 bits 7-4 (Transmitter technology) and byte 130
 * (connector, SFF-8024 Table 4-3: 0x23 "No separable connector"); the same technology
 * codes are CMIS page 00h byte 212 (MediaInterfaceTechnology). */
static enum module_media media_of_tech(uint8_t tech, bool have_connector, uint8_t connector)
{
    if (tech == 0x0A || tech == 0x0B)
        return MODULE_MEDIA_DAC;
    if (tech >= 0x0C && tech <= 0x0F)
        return MODULE_MEDIA_ACC;
    if (!have_connector)
        return MODULE_MEDIA_UNKNOWN;
    return connector == 0x23 ? MODULE_MEDIA_AOC : MODULE_MEDIA_OPTICAL;
}

/* SFF-8636 flag bytes hold two lanes each: lane 2k in bits 7-4, lane 2k+1 in bits 3-0, each
 * nibble high alarm, low alarm, high warning, low warning from its top bit down. */
static uint8_t sff8636_nibble(uint8_t v)
{
    return (uint8_t)(((v >> 3) & 1) * MODULE_FLAG_HIGH_ALARM | ((v >> 2) & 1) * MODULE_FLAG_LOW_ALARM |
                     ((v >> 1) & 1) * MODULE_FLAG_HIGH_WARN | (v & 1) * MODULE_FLAG_LOW_WARN);
}

static void sff8636_flags(const struct module_eeprom *m, struct module_info *info)
{
    /* Lower page bytes 6 (temperature) and 7 (Vcc): bits 7-4. */
    static const unsigned lane_flag_byte[MODULE_QUANTITIES] = {
        [MODULE_Q_RX_POWER] = 9, [MODULE_Q_TX_BIAS] = 11, [MODULE_Q_TX_POWER] = 13,
    };
    uint8_t t, v;
    info->flags_valid[MODULE_Q_TEMPERATURE] = byte_at(m, MODULE_SLOT_LOWER, 6, &t);
    info->flags_valid[MODULE_Q_VCC] = byte_at(m, MODULE_SLOT_LOWER, 7, &v);
    info->module_flags[0] = info->flags_valid[MODULE_Q_TEMPERATURE] ? sff8636_nibble(t >> 4) : 0;
    info->module_flags[1] = info->flags_valid[MODULE_Q_VCC] ? sff8636_nibble(v >> 4) : 0;
    for (int q = MODULE_Q_RX_POWER; q <= MODULE_Q_TX_POWER; q++) {
        uint8_t b[2];
        unsigned o = lane_flag_byte[q];
        info->flags_valid[q] = byte_at(m, MODULE_SLOT_LOWER, o, &b[0]) &&
                               byte_at(m, MODULE_SLOT_LOWER, o + 1, &b[1]);
        for (unsigned l = 0; info->flags_valid[q] && l < 4; l++)
            info->lane_flags[q][l] = sff8636_nibble(l % 2 ? b[l / 2] & 0xf : b[l / 2] >> 4);
    }
}

static void decode_sff8636(const struct module_eeprom *m, struct module_info *info)
{
    uint8_t tech = 0, connector = 0, diag = 0;
    bool have_tech = byte_at(m, MODULE_SLOT_00, 147, &tech);
    bool have_connector = byte_at(m, MODULE_SLOT_00, 130, &connector);
    info->media = have_tech ? media_of_tech(tech >> 4, have_connector, connector)
                            : MODULE_MEDIA_UNKNOWN;
    text_at(m, 148, 16, info->vendor);      /* Vendor name, bytes 148-163 */
    text_at(m, 168, 16, info->part);        /* Vendor PN, bytes 168-183 */
    text_at(m, 184, 2, info->revision);     /* Vendor rev, bytes 184-185 */
    text_at(m, 196, 16, info->serial);      /* Vendor SN, bytes 196-211 */
    info->lanes = 4;
    info->bias_multiplier = 1;
    info->monitored = info->media != MODULE_MEDIA_DAC;
    if (!info->monitored)
        return;
    /* Lower page: temperature 22-23, Vcc 26-27, Rx power 34-41, Tx bias 42-49, Tx power
     * 50-57 (byte 220 of page 00h bit 2: Tx power measurement supported). */
    reading_at(m, MODULE_SLOT_LOWER, 22, true, &info->temperature);
    reading_at(m, MODULE_SLOT_LOWER, 26, false, &info->vcc);
    bool tx_power = byte_at(m, MODULE_SLOT_00, 220, &diag) && (diag & 0x04);
    for (unsigned l = 0; l < 4; l++) {
        reading_at(m, MODULE_SLOT_LOWER, 34 + 2 * l, false, &info->rx_power[l]);
        reading_at(m, MODULE_SLOT_LOWER, 42 + 2 * l, false, &info->tx_bias[l]);
        if (tx_power)
            reading_at(m, MODULE_SLOT_LOWER, 50 + 2 * l, false, &info->tx_power[l]);
    }
    sff8636_flags(m, info);
    /* Upper page 03h: temperature 128-135, Vcc 144-151, Rx power 176-183, Tx bias
     * 184-191, Tx power 192-199. */
    thresholds_at(m, MODULE_SLOT_03, 128, true, &info->thresholds[MODULE_Q_TEMPERATURE]);
    thresholds_at(m, MODULE_SLOT_03, 144, false, &info->thresholds[MODULE_Q_VCC]);
    thresholds_at(m, MODULE_SLOT_03, 176, false, &info->thresholds[MODULE_Q_RX_POWER]);
    thresholds_at(m, MODULE_SLOT_03, 184, false, &info->thresholds[MODULE_Q_TX_BIAS]);
    if (tx_power)
        thresholds_at(m, MODULE_SLOT_03, 192, false, &info->thresholds[MODULE_Q_TX_POWER]);
}

/* CMIS lower page byte 88: the first application's host (bits 7-4) and media (bits 3-0)
 * lane counts; 8 (a bank's lanes) when absent or out of range. */
static unsigned cmis_lanes(const struct module_eeprom *m, uint8_t id)
{
    uint8_t v;
    unsigned fallback = id == ID_QSFP_PLUS_CMIS ? 4 : 8;
    if (!byte_at(m, MODULE_SLOT_LOWER, 88, &v))
        return fallback;
    unsigned n = v & 0xf;
    return n >= 1 && n <= MODULE_LANES_MAX ? n : fallback;
}

static void cmis_media(const struct module_eeprom *m, struct module_info *info)
{
    uint8_t type, tech = 0, connector = 0;
    bool have_tech = byte_at(m, MODULE_SLOT_00, 212, &tech);
    bool have_connector = byte_at(m, MODULE_SLOT_00, 203, &connector);
    /* Lower page byte 85, MediaType (SFF-8024 Table 4-5): 01h MMF, 02h SMF, 03h passive
     * copper, 04h active cable, 05h BASE-T. */
    if (!byte_at(m, MODULE_SLOT_LOWER, 85, &type))
        info->media = MODULE_MEDIA_UNKNOWN;
    else if (type == 0x03)
        info->media = MODULE_MEDIA_DAC;
    else if (type == 0x04 && have_tech)
        info->media = tech >= 0x0A && tech <= 0x0F ? MODULE_MEDIA_ACC : MODULE_MEDIA_AOC;
    else if (type == 0x01 || type == 0x02)
        info->media = have_tech ? media_of_tech(tech, have_connector, connector)
                                : MODULE_MEDIA_OPTICAL;
    else
        info->media = MODULE_MEDIA_UNKNOWN;
}

/* Page 11h's lane flags: one byte per flag, bit L for lane L+1. FIRST holds the high
 * alarm, then low alarm, high warning, low warning. */
static void cmis_lane_flags(const struct module_eeprom *m, enum module_quantity q,
                            unsigned first, struct module_info *info)
{
    static const uint8_t order[4] = { MODULE_FLAG_HIGH_ALARM, MODULE_FLAG_LOW_ALARM,
                                      MODULE_FLAG_HIGH_WARN, MODULE_FLAG_LOW_WARN };
    uint8_t b[4];
    info->flags_valid[q] = true;
    for (unsigned i = 0; i < 4; i++)
        info->flags_valid[q] = info->flags_valid[q] && byte_at(m, MODULE_SLOT_11, first + i, &b[i]);
    for (unsigned l = 0; info->flags_valid[q] && l < info->lanes; l++)
        for (unsigned i = 0; i < 4; i++)
            if (b[i] & (1u << l))
                info->lane_flags[q][l] |= order[i];
}

static void cmis_module_monitors(const struct module_eeprom *m, struct module_info *info)
{
    /* Page 01h byte 159: bit 0 temperature, bit 1 Vcc monitor implemented. */
    if (bit_at(m, MODULE_SLOT_01, 159, 0x01)) {
        reading_at(m, MODULE_SLOT_LOWER, 14, true, &info->temperature);
        thresholds_at(m, MODULE_SLOT_02, 128, true, &info->thresholds[MODULE_Q_TEMPERATURE]);
    }
    if (bit_at(m, MODULE_SLOT_01, 159, 0x02)) {
        reading_at(m, MODULE_SLOT_LOWER, 16, false, &info->vcc);
        thresholds_at(m, MODULE_SLOT_02, 136, false, &info->thresholds[MODULE_Q_VCC]);
    }
    /* Lower page byte 9: temperature flags in bits 0-3, Vcc's in bits 4-7 (high alarm,
     * low alarm, high warning, low warning from the lowest bit). */
    uint8_t f;
    if (byte_at(m, MODULE_SLOT_LOWER, 9, &f)) {
        info->flags_valid[MODULE_Q_TEMPERATURE] = info->flags_valid[MODULE_Q_VCC] = true;
        info->module_flags[0] = f & 0x0f;
        info->module_flags[1] = f >> 4;
    }
}

static void decode_cmis(const struct module_eeprom *m, struct module_info *info)
{
    cmis_media(m, info);
    text_at(m, 129, 16, info->vendor);      /* VendorName, page 00h bytes 129-144 */
    text_at(m, 148, 16, info->part);        /* VendorPN, 148-163 */
    text_at(m, 164, 2, info->revision);     /* VendorRev, 164-165 */
    text_at(m, 166, 16, info->serial);      /* VendorSN, 166-181 */
    info->lanes = cmis_lanes(m, info->identifier);
    info->bias_multiplier = 1;
    uint8_t adv;
    bool have_adv = byte_at(m, MODULE_SLOT_01, 160, &adv);
    bool have_module_adv = byte_at(m, MODULE_SLOT_01, 159, &(uint8_t){ 0 });
    info->monitored = info->media != MODULE_MEDIA_DAC &&
                      ((have_adv && (adv & 0x07)) ||
                       (have_module_adv && bit_at(m, MODULE_SLOT_01, 159, 0x03)));
    if (!info->monitored)
        return;
    cmis_module_monitors(m, info);
    if (!have_adv)
        return;
    /* Page 01h byte 160: bit 0 Tx bias, bit 1 Tx power, bit 2 Rx power monitor; bits 4-3
     * the Tx bias multiplier (x1, x2, x4). */
    static const unsigned mult[4] = { 1, 2, 4, 1 };
    info->bias_multiplier = mult[(adv >> 3) & 3];
    /* Page 11h: Tx power 154-169, Tx bias 170-185, Rx power 186-201, lanes 1-8; flags
     * Tx power 139-142, Tx bias 143-146, Rx power 149-152. Page 02h thresholds: Tx power
     * 176-183, Tx bias 184-191, Rx power 192-199. */
    for (unsigned l = 0; l < info->lanes; l++) {
        if (adv & 0x02)
            reading_at(m, MODULE_SLOT_11, 154 + 2 * l, false, &info->tx_power[l]);
        if (adv & 0x01)
            reading_at(m, MODULE_SLOT_11, 170 + 2 * l, false, &info->tx_bias[l]);
        if (adv & 0x04)
            reading_at(m, MODULE_SLOT_11, 186 + 2 * l, false, &info->rx_power[l]);
    }
    if (adv & 0x02) {
        thresholds_at(m, MODULE_SLOT_02, 176, false, &info->thresholds[MODULE_Q_TX_POWER]);
        cmis_lane_flags(m, MODULE_Q_TX_POWER, 139, info);
    }
    if (adv & 0x01) {
        thresholds_at(m, MODULE_SLOT_02, 184, false, &info->thresholds[MODULE_Q_TX_BIAS]);
        cmis_lane_flags(m, MODULE_Q_TX_BIAS, 143, info);
    }
    if (adv & 0x04) {
        thresholds_at(m, MODULE_SLOT_02, 192, false, &info->thresholds[MODULE_Q_RX_POWER]);
        cmis_lane_flags(m, MODULE_Q_RX_POWER, 149, info);
    }
}

int module_eeprom_decode(const struct module_eeprom *m, struct module_info *ret)
{
    memset(ret, 0, sizeof(*ret));
    if (!byte_at(m, MODULE_SLOT_LOWER, 0, &ret->identifier))
        return -ENODATA;
    byte_at(m, MODULE_SLOT_LOWER, 1, &ret->revision_compliance);
    ret->spec = spec_of(ret->identifier);
    if (ret->spec == MODULE_SPEC_SFF8636)
        decode_sff8636(m, ret);
    else if (ret->spec == MODULE_SPEC_CMIS)
        decode_cmis(m, ret);
    else
        return -EPROTONOSUPPORT;
    return 0;
}

double module_value(const struct module_info *info, enum module_quantity q, int32_t raw)
{
    switch (q) {
    case MODULE_Q_TEMPERATURE:
        return raw / 256.0;
    case MODULE_Q_VCC:
        return raw * 100e-6;
    case MODULE_Q_RX_POWER:
    case MODULE_Q_TX_POWER:
        return raw * 0.1e-6;
    case MODULE_Q_TX_BIAS:
        return raw * 2e-6 * (info->bias_multiplier ? info->bias_multiplier : 1);
    default:
        return 0;
    }
}

const char *module_media_name(enum module_media media)
{
    static const char *const names[] = {
        [MODULE_MEDIA_UNKNOWN] = "unknown", [MODULE_MEDIA_DAC] = "DAC",
        [MODULE_MEDIA_ACC] = "active copper", [MODULE_MEDIA_AOC] = "AOC",
        [MODULE_MEDIA_OPTICAL] = "optical",
    };
    return (unsigned)media < sizeof(names) / sizeof(names[0]) ? names[media] : "unknown";
}

const char *module_quantity_name(enum module_quantity q)
{
    static const char *const names[MODULE_QUANTITIES] = {
        [MODULE_Q_TEMPERATURE] = "temperature", [MODULE_Q_VCC] = "supply voltage",
        [MODULE_Q_RX_POWER] = "rx power", [MODULE_Q_TX_BIAS] = "tx bias",
        [MODULE_Q_TX_POWER] = "tx power",
    };
    return (unsigned)q < MODULE_QUANTITIES ? names[q] : "?";
}

const char *module_identifier_name(uint8_t id, char buf[8])
{
    switch (id) {
    case ID_QSFP:
        return "QSFP";
    case ID_QSFP_PLUS:
        return "QSFP+";
    case ID_QSFP28:
        return "QSFP28";
    case ID_QSFP_DD:
        return "QSFP-DD";
    case ID_OSFP:
        return "OSFP";
    case ID_DSFP:
        return "DSFP";
    case ID_QSFP_PLUS_CMIS:
        return "QSFP+ (CMIS)";
    case ID_SFP_DD_CMIS:
        return "SFP-DD";
    case ID_SFP_PLUS_CMIS:
        return "SFP+ (CMIS)";
    default:
        snprintf(buf, 8, "0x%02x", id);
        return buf;
    }
}
