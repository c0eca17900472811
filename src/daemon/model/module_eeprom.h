/* SPDX-License-Identifier: ISC */
/* A pluggable module's EEPROM, as the kernel hands it out page by page
 * (ETHTOOL_MSG_MODULE_EEPROM_GET: 128 bytes of lower memory, then 128-byte upper pages),
 * and its decoding: SFF-8636 rev 2.10a (QSFP+, QSFP28, QSFP56) and CMIS 4.0/5.x
 * (QSFP-DD, OSFP, QSFP with CMIS). Pure: bytes in, a struct out. Every byte the decoder
 * reads is checked against what was put, so that any bytes, short or hostile, decode to
 * what they can say and never past it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MODULE_PAGE_SIZE 128
#define MODULE_LANES_MAX 8      /* CMIS bank 0: lanes 1-8 */

/* The upper pages the decoder reads, in the order of their slot in struct module_eeprom. */
enum module_page_slot {
    MODULE_SLOT_LOWER,          /* bytes 0-127 of I2C address 0x50 */
    MODULE_SLOT_00,             /* upper page 00h: identity */
    MODULE_SLOT_01,             /* CMIS 01h: advertising (which monitors exist) */
    MODULE_SLOT_02,             /* CMIS 02h: thresholds */
    MODULE_SLOT_03,             /* SFF-8636 03h: thresholds */
    MODULE_SLOT_11,             /* CMIS 11h bank 0: lane flags and monitors */
    MODULE_SLOTS
};

struct module_eeprom {
    uint8_t bytes[MODULE_SLOTS][MODULE_PAGE_SIZE];
    uint8_t have[MODULE_SLOTS][MODULE_PAGE_SIZE / 8];       /* bit set: byte was put */
};

void module_eeprom_init(struct module_eeprom *m);
/* Puts LEN bytes read at OFFSET (0-255, as the kernel's offset attribute: below 128 is the
 * lower page whatever PAGE says) of PAGE, bank 0. -EINVAL for a range past byte 255,
 * -ENOENT for a page the decoder does not read (nothing is stored). */
int module_eeprom_put(struct module_eeprom *m, unsigned page, unsigned offset,
                      const uint8_t *data, size_t len);
/* The upper page numbers the decoder reads for the spec the lower page names (after
 * the lower page was put): ret[] gets up to MODULE_SLOTS - 1 page numbers. Flat memory
 * (SFF-8636 byte 2 bit 2, CMIS byte 2 bit 7) means page 00h alone. */
size_t module_eeprom_pages_wanted(const struct module_eeprom *m, uint8_t ret[MODULE_SLOTS]);

enum module_spec { MODULE_SPEC_UNKNOWN, MODULE_SPEC_SFF8636, MODULE_SPEC_CMIS };
enum module_media {
    MODULE_MEDIA_UNKNOWN,
    MODULE_MEDIA_DAC,           /* passive copper: no monitors */
    MODULE_MEDIA_ACC,           /* active copper */
    MODULE_MEDIA_AOC,           /* active optical cable */
    MODULE_MEDIA_OPTICAL,       /* a transceiver with a separable optical connector */
};

/* What a reading is, and its scale to base units. */
enum module_quantity {
    MODULE_Q_TEMPERATURE,       /* signed, 1/256 degree Celsius */
    MODULE_Q_VCC,               /* 100 uV */
    MODULE_Q_RX_POWER,          /* 0.1 uW */
    MODULE_Q_TX_BIAS,           /* 2 uA (times CMIS's bias multiplier) */
    MODULE_Q_TX_POWER,          /* 0.1 uW */
    MODULE_QUANTITIES
};

/* Bits of a latched flag set, the same for every quantity and both specs. */
#define MODULE_FLAG_HIGH_ALARM 0x1
#define MODULE_FLAG_LOW_ALARM 0x2
#define MODULE_FLAG_HIGH_WARN 0x4
#define MODULE_FLAG_LOW_WARN 0x8

struct module_reading {
    bool valid;
    int32_t raw;                /* in the quantity's unit (above) */
};

struct module_thresholds {
    bool valid;
    int32_t high_alarm, low_alarm, high_warn, low_warn;     /* raw, as the reading */
};

struct module_info {
    enum module_spec spec;
    uint8_t identifier;         /* SFF-8024 identifier (lower page byte 0) */
    uint8_t revision_compliance;
    char vendor[17], part[17], serial[17], revision[3];
    enum module_media media;
    bool monitored;             /* false: a DAC, or a module that implements no monitor */
    unsigned lanes;
    unsigned bias_multiplier;   /* 1, 2 or 4 (CMIS page 01h byte 160 bits 4-3) */
    struct module_reading temperature, vcc;
    struct module_reading rx_power[MODULE_LANES_MAX], tx_bias[MODULE_LANES_MAX],
        tx_power[MODULE_LANES_MAX];
    struct module_thresholds thresholds[MODULE_QUANTITIES];
    bool flags_valid[MODULE_QUANTITIES];
    uint8_t module_flags[2];                                /* temperature, vcc */
    uint8_t lane_flags[MODULE_QUANTITIES][MODULE_LANES_MAX]; /* rx power, bias, tx power */
};

/* Decodes what was put. -ENODATA when the identifier byte is missing, -EPROTONOSUPPORT
 * for an identifier neither spec covers (SFP's SFF-8472 among them); the rest is partial
 * by nature: a field whose bytes are missing stays invalid or empty. */
int module_eeprom_decode(const struct module_eeprom *m, struct module_info *ret);

/* A raw reading (or threshold) in the quantity's base unit as fabtune reports it:
 * degrees Celsius, volts, watts (power) and amperes (bias). */
double module_value(const struct module_info *info, enum module_quantity q, int32_t raw);
const char *module_media_name(enum module_media media);
const char *module_quantity_name(enum module_quantity q);
/* "QSFP28", "QSFP-DD", "OSFP", ...; "0xNN" in BUF for an identifier without a name. */
const char *module_identifier_name(uint8_t id, char buf[8]);

/* A rail's module as its source read it: known, or why not (the kernel's reason). */
struct module_state {
    bool read;                  /* a source asked (live Ethernet rails with a netdev) */
    bool known;
    int err;                    /* the failed read's -errno when !known */
    char why[160];
    struct module_info info;
};
