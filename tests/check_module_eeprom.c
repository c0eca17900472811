/* SPDX-License-Identifier: ISC */
/* Tests of the module EEPROM decoder (model/module_eeprom) on pages built from the
 * SFF-8636 and CMIS tables (tests/fixtures/module): identity, media, readings in base
 * units, the module's thresholds and latched flags, DACs as "not monitored", and short or
 * hostile bytes; the parser of the kernel's MODULE_EEPROM_GET answers (sources/module_reply)
 * on answers laid out as include/uapi/linux/netlink.h and ethtool-netlink.rst say; the
 * link.module check (checks/check_module) on rails that carry those modules, and their
 * metrics (outputs/metrics), which promtool finds clean. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "check_run.h"
#include "checks.h"
#include "metrics.h"
#include "module_eeprom.h"
#include "module_pages.h"
#include "module_reply.h"
#include "report.h"
#include "strutil.h"

#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

static void load(const char *name, struct module_eeprom *m, struct module_info *info)
{
    char path[512];
    int line;
    snprintf(path, sizeof(path), "%s/tests/fixtures/module/%s", TEST_SRCDIR, name);
    ck_assert_msg(module_pages_read(path, m, &line) == 0, "%s: bad line %d", path, line);
    ck_assert_int_eq(module_eeprom_decode(m, info), 0);
}

static void assert_near(double a, double b)
{
    ck_assert_msg(fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1), "%g != %g", a, b);
}

START_TEST(test_sff8636_sr4)
{
    struct module_eeprom m;
    struct module_info i;
    load("qsfp28-sr4.pages", &m, &i);
    ck_assert_int_eq(i.spec, MODULE_SPEC_SFF8636);
    char buf[8];
    ck_assert_str_eq(module_identifier_name(i.identifier, buf), "QSFP28");
    ck_assert_str_eq(i.vendor, "FABTUNE OPTICS");
    ck_assert_str_eq(i.part, "QSFP28-SR4-100G");
    ck_assert_str_eq(i.serial, "SR4SERIAL0000001");
    ck_assert_str_eq(i.revision, "A0");
    ck_assert_int_eq(i.media, MODULE_MEDIA_OPTICAL);
    ck_assert(i.monitored);
    ck_assert_uint_eq(i.lanes, 4);
    ck_assert(i.temperature.valid && i.vcc.valid);
    assert_near(module_value(&i, MODULE_Q_TEMPERATURE, i.temperature.raw), 35.5);
    assert_near(module_value(&i, MODULE_Q_VCC, i.vcc.raw), 3.3);
    assert_near(module_value(&i, MODULE_Q_RX_POWER, i.rx_power[0].raw), 0.8e-3);
    assert_near(module_value(&i, MODULE_Q_RX_POWER, i.rx_power[2].raw), 0.06e-3);
    assert_near(module_value(&i, MODULE_Q_TX_BIAS, i.tx_bias[3].raw), 6.5e-3);
    ck_assert(i.tx_power[1].valid);
    assert_near(module_value(&i, MODULE_Q_TX_POWER, i.tx_power[1].raw), 0.9e-3);
    ck_assert(!i.rx_power[4].valid);
    const struct module_thresholds *t = &i.thresholds[MODULE_Q_TEMPERATURE];
    ck_assert(t->valid);
    ck_assert_int_eq(t->high_alarm, 75 * 256);
    ck_assert_int_eq(t->low_alarm, -5 * 256);
    t = &i.thresholds[MODULE_Q_RX_POWER];
    ck_assert(t->valid);
    ck_assert_int_eq(t->high_alarm, 30000);
    ck_assert_int_eq(t->low_alarm, 500);
    ck_assert_int_eq(t->high_warn, 20000);
    ck_assert_int_eq(t->low_warn, 1000);
    ck_assert_int_eq(i.thresholds[MODULE_Q_TX_BIAS].high_warn, 6000);
    ck_assert_int_eq(i.thresholds[MODULE_Q_TX_POWER].low_warn, 3000);
    ck_assert_int_eq(i.thresholds[MODULE_Q_VCC].low_alarm, 29700);
    ck_assert(i.flags_valid[MODULE_Q_RX_POWER]);
    ck_assert_uint_eq(i.lane_flags[MODULE_Q_RX_POWER][2], MODULE_FLAG_LOW_WARN);
    ck_assert_uint_eq(i.lane_flags[MODULE_Q_RX_POWER][0], 0);
    ck_assert_uint_eq(i.lane_flags[MODULE_Q_RX_POWER][3], 0);
    ck_assert_uint_eq(i.module_flags[0], 0);
    uint8_t pages[MODULE_SLOTS];
    ck_assert_uint_eq(module_eeprom_pages_wanted(&m, pages), 2);
    ck_assert_uint_eq(pages[0], 0x00);
    ck_assert_uint_eq(pages[1], 0x03);
}
END_TEST

START_TEST(test_sff8636_dac)
{
    struct module_eeprom m;
    struct module_info i;
    load("qsfp28-dac.pages", &m, &i);
    ck_assert_int_eq(i.media, MODULE_MEDIA_DAC);
    ck_assert_str_eq(module_media_name(i.media), "DAC");
    ck_assert(!i.monitored);
    ck_assert(!i.temperature.valid && !i.rx_power[0].valid);
    ck_assert(!i.thresholds[MODULE_Q_TEMPERATURE].valid);
    ck_assert_str_eq(i.part, "QSFP28-DAC-1M");
    uint8_t pages[MODULE_SLOTS];
    ck_assert_uint_eq(module_eeprom_pages_wanted(&m, pages), 1);
    ck_assert_uint_eq(pages[0], 0x00);
}
END_TEST

START_TEST(test_sff8636_aoc_short)
{
    struct module_eeprom m;
    struct module_info i;
    load("qsfp28-aoc.pages", &m, &i);
    ck_assert_int_eq(i.media, MODULE_MEDIA_AOC);
    ck_assert(i.monitored);
    assert_near(module_value(&i, MODULE_Q_TEMPERATURE, i.temperature.raw), 30);
    ck_assert(i.rx_power[3].valid);
    /* No page 03h: no thresholds. Byte 220 bit 2 clear: no Tx power. Bytes 9-14 absent:
     * no lane flags. */
    for (int q = 0; q < MODULE_QUANTITIES; q++)
        ck_assert(!i.thresholds[q].valid);
    ck_assert(!i.tx_power[0].valid);
    ck_assert(!i.flags_valid[MODULE_Q_RX_POWER]);
    ck_assert(!i.tx_bias[0].valid);
}
END_TEST

START_TEST(test_cmis_osfp)
{
    struct module_eeprom m;
    struct module_info i;
    load("osfp-2xdr4.pages", &m, &i);
    ck_assert_int_eq(i.spec, MODULE_SPEC_CMIS);
    char buf[8];
    ck_assert_str_eq(module_identifier_name(i.identifier, buf), "OSFP");
    ck_assert_str_eq(i.vendor, "FABTUNE OPTICS");
    ck_assert_str_eq(i.part, "OSFP-2xDR4-800G");
    ck_assert_str_eq(i.serial, "OSFPSERIAL000001");
    ck_assert_str_eq(i.revision, "01");
    ck_assert_int_eq(i.media, MODULE_MEDIA_OPTICAL);
    ck_assert(i.monitored);
    ck_assert_uint_eq(i.lanes, 8);
    ck_assert_uint_eq(i.bias_multiplier, 2);
    assert_near(module_value(&i, MODULE_Q_TEMPERATURE, i.temperature.raw), 72.25);
    assert_near(module_value(&i, MODULE_Q_VCC, i.vcc.raw), 3.29);
    /* 12500 x 2 uA x 2 (the multiplier): 50 mA. */
    assert_near(module_value(&i, MODULE_Q_TX_BIAS, i.tx_bias[7].raw), 50e-3);
    assert_near(module_value(&i, MODULE_Q_TX_POWER, i.tx_power[0].raw), 1.5e-3);
    assert_near(module_value(&i, MODULE_Q_RX_POWER, i.rx_power[5].raw), 0.05e-3);
    assert_near(module_value(&i, MODULE_Q_RX_POWER, i.rx_power[4].raw), 1.2e-3);
    ck_assert_int_eq(i.thresholds[MODULE_Q_TEMPERATURE].high_warn, 70 * 256);
    ck_assert_int_eq(i.thresholds[MODULE_Q_VCC].high_alarm, 36300);
    ck_assert_int_eq(i.thresholds[MODULE_Q_TX_POWER].high_alarm, 40000);
    ck_assert_int_eq(i.thresholds[MODULE_Q_TX_BIAS].low_warn, 5000);
    ck_assert_int_eq(i.thresholds[MODULE_Q_RX_POWER].low_alarm, 1000);
    ck_assert_int_eq(i.thresholds[MODULE_Q_RX_POWER].low_warn, 2000);
    ck_assert_uint_eq(i.module_flags[0], MODULE_FLAG_HIGH_WARN);
    ck_assert_uint_eq(i.module_flags[1], 0);
    ck_assert_uint_eq(i.lane_flags[MODULE_Q_RX_POWER][5],
                      MODULE_FLAG_LOW_ALARM | MODULE_FLAG_LOW_WARN);
    for (unsigned l = 0; l < 8; l++)
        if (l != 5)
            ck_assert_uint_eq(i.lane_flags[MODULE_Q_RX_POWER][l], 0);
    uint8_t pages[MODULE_SLOTS];
    ck_assert_uint_eq(module_eeprom_pages_wanted(&m, pages), 4);
    ck_assert_uint_eq(pages[3], 0x11);
}
END_TEST

START_TEST(test_cmis_dac)
{
    struct module_eeprom m;
    struct module_info i;
    load("qsfpdd-dac.pages", &m, &i);
    ck_assert_int_eq(i.spec, MODULE_SPEC_CMIS);
    ck_assert_int_eq(i.media, MODULE_MEDIA_DAC);
    ck_assert(!i.monitored);
    ck_assert(!i.temperature.valid);
    ck_assert_str_eq(i.serial, "DDDAC00000000001");
    uint8_t pages[MODULE_SLOTS];
    ck_assert_uint_eq(module_eeprom_pages_wanted(&m, pages), 1);
}
END_TEST

/* A reply cut at any byte: the fields whose bytes all came are decoded, the rest stay
 * invalid; never a read of a byte that was not put. */
START_TEST(test_truncated)
{
    struct module_eeprom full, m;
    struct module_info i;
    load("qsfp28-sr4.pages", &full, &i);
    for (unsigned cut = 0; cut <= 128; cut++) {
        module_eeprom_init(&m);
        ck_assert_int_eq(module_eeprom_put(&m, 0, 0, full.bytes[MODULE_SLOT_LOWER], cut), 0);
        int r = module_eeprom_decode(&m, &i);
        if (cut == 0) {
            ck_assert_int_eq(r, -ENODATA);
            continue;
        }
        ck_assert_int_eq(r, 0);
        ck_assert_int_eq(i.temperature.valid, cut >= 24);
        ck_assert_int_eq(i.vcc.valid, cut >= 28);
        ck_assert_int_eq(i.rx_power[3].valid, cut >= 42);
        ck_assert(!i.tx_power[0].valid);    /* byte 220 never came */
        ck_assert_str_eq(i.vendor, "");
        ck_assert_int_eq(i.media, MODULE_MEDIA_UNKNOWN);
    }
}
END_TEST

START_TEST(test_put_bounds)
{
    struct module_eeprom m;
    struct module_info i;
    uint8_t b[256] = { 0x11 };
    module_eeprom_init(&m);
    ck_assert_int_eq(module_eeprom_put(&m, 0, 250, b, 10), -EINVAL);
    ck_assert_int_eq(module_eeprom_put(&m, 0, 256, b, 0), -EINVAL);
    ck_assert_int_eq(module_eeprom_put(&m, 0x20, 128, b, 1), -ENOENT);
    ck_assert_int_eq(module_eeprom_put(&m, 0x300, 0, b, 1), -EINVAL);
    /* The lower page is the same whatever page a request names. */
    ck_assert_int_eq(module_eeprom_put(&m, 0x20, 0, b, 1), 0);
    ck_assert_int_eq(module_eeprom_decode(&m, &i), 0);
    ck_assert_int_eq(i.spec, MODULE_SPEC_SFF8636);
    b[0] = 0x03;    /* SFP (SFF-8472): not these specs */
    ck_assert_int_eq(module_eeprom_put(&m, 0, 0, b, 1), 0);
    ck_assert_int_eq(module_eeprom_decode(&m, &i), -EPROTONOSUPPORT);
    char buf[8];
    ck_assert_str_eq(module_identifier_name(0x03, buf), "0x03");
    module_eeprom_init(&m);
    ck_assert_int_eq(module_eeprom_decode(&m, &i), -ENODATA);
}
END_TEST

/* Unprintable bytes in a text field come out as '?', every byte 0x00-0xff everywhere
 * decodes. */
START_TEST(test_hostile_bytes)
{
    struct module_eeprom m;
    struct module_info i;
    uint8_t page[256];
    for (unsigned v = 0; v < 256; v++) {
        memset(page, (int)v, sizeof(page));
        page[0] = v % 2 ? 0x11 : 0x18;
        module_eeprom_init(&m);
        for (unsigned p = 0; p <= 0x11; p++)
            module_eeprom_put(&m, p, 0, page, 256);
        ck_assert_int_eq(module_eeprom_decode(&m, &i), 0);
        ck_assert_uint_le(i.lanes, MODULE_LANES_MAX);
        for (const char *c = i.vendor; *c; c++)
            ck_assert(*c >= 0x20 && *c < 0x7f);
    }
    memset(page, 0x80, sizeof(page));
    page[0] = 0x11;
    module_eeprom_init(&m);
    module_eeprom_put(&m, 0, 0, page, 256);
    module_eeprom_decode(&m, &i);
    ck_assert_str_eq(i.revision, "??");
}
END_TEST

/* Appends an attribute (struct nlattr, then the payload, padded to 4). */
static size_t put_attr(unsigned char *b, size_t at, uint16_t type, const void *data, size_t len)
{
    struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type };
    memcpy(b + at, &a, sizeof(a));
    memcpy(b + at + NLA_HDRLEN, data, len);
    return at + NLA_ALIGN(a.nla_len);
}

/* A MODULE_EEPROM_GET_REPLY: nlmsghdr, genlmsghdr, the header nest, then DATA. */
START_TEST(test_reply_data)
{
    unsigned char b[512] = { 0 };
    uint8_t data[MODULE_PAGE_SIZE];
    for (unsigned i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)i;
    data[0] = 0x11;
    struct genlmsghdr g = { .cmd = ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY, .version = 1 };
    memcpy(b + NLMSG_HDRLEN, &g, sizeof(g));
    size_t at = NLMSG_HDRLEN + GENL_HDRLEN;
    at = put_attr(b, at, ETHTOOL_A_MODULE_EEPROM_HEADER | NLA_F_NESTED, "\x08\0\x02\0r0\0\0", 8);
    at = put_attr(b, at, ETHTOOL_A_MODULE_EEPROM_DATA, data, sizeof(data));
    struct nlmsghdr h = { .nlmsg_len = (uint32_t)at, .nlmsg_type = 0x15 };
    memcpy(b, &h, sizeof(h));
    struct module_eeprom m;
    char why[160];
    module_eeprom_init(&m);
    ck_assert_int_eq(module_reply_parse(b, at, 0, 0, &m, why, sizeof(why)), 0);
    ck_assert_uint_eq(m.bytes[MODULE_SLOT_LOWER][0], 0x11);
    ck_assert_uint_eq(m.bytes[MODULE_SLOT_LOWER][127], 127);
    /* The same data as upper page 03h. */
    ck_assert_int_eq(module_reply_parse(b, at, 3, 128, &m, why, sizeof(why)), 0);
    ck_assert_uint_eq(m.bytes[MODULE_SLOT_03][5], 5);
    /* Data past byte 255, a page the decoder keeps no room for. */
    ck_assert_int_eq(module_reply_parse(b, at, 0, 200, &m, why, sizeof(why)), -EINVAL);
    ck_assert_int_eq(module_reply_parse(b, at, 0x20, 128, &m, why, sizeof(why)), -ENOENT);
    /* Every shorter cut of the answer is refused, never read past. */
    for (size_t cut = 0; cut < at; cut++) {
        unsigned char *c = malloc(cut ? cut : 1);
        memcpy(c, b, cut);
        ck_assert_int_lt(module_reply_parse(c, cut, 0, 0, &m, why, sizeof(why)), 0);
        free(c);
    }
}
END_TEST

/* An NLMSG_ERROR: the errno, and the extended ack's message when there is one. */
START_TEST(test_reply_error)
{
    unsigned char b[256] = { 0 };
    struct nlmsgerr e = { .error = -ENODEV, .msg = { .nlmsg_len = 40 } };
    memcpy(b + NLMSG_HDRLEN, &e, sizeof(e));
    size_t at = NLMSG_HDRLEN + sizeof(e);       /* capped: the request's header alone */
    at = put_attr(b, at, NLMSGERR_ATTR_MSG, "no device matches name", 23);
    struct nlmsghdr h = { .nlmsg_len = (uint32_t)at, .nlmsg_type = NLMSG_ERROR,
                          .nlmsg_flags = NLM_F_CAPPED | NLM_F_ACK_TLVS };
    memcpy(b, &h, sizeof(h));
    struct module_eeprom m;
    char why[160];
    module_eeprom_init(&m);
    ck_assert_int_eq(module_reply_parse(b, at, 0, 0, &m, why, sizeof(why)), -ENODEV);
    ck_assert_str_eq(why, "no device matches name (No such device)");
    /* Without the ack's TLVs: the errno's own words. */
    e.error = -EOPNOTSUPP;
    memcpy(b + NLMSG_HDRLEN, &e, sizeof(e));
    h.nlmsg_flags = 0;
    h.nlmsg_len = NLMSG_HDRLEN + sizeof(e);
    memcpy(b, &h, sizeof(h));
    ck_assert_int_eq(module_reply_parse(b, h.nlmsg_len, 0, 0, &m, why, sizeof(why)), -EOPNOTSUPP);
    ck_assert_msg(strstr(why, "Operation not supported"), "why: %s", why);
    /* An uncapped echo whose claimed length runs past the answer: no message, no read. */
    h.nlmsg_flags = NLM_F_ACK_TLVS;
    e.msg.nlmsg_len = 0xffffffff;
    memcpy(b + NLMSG_HDRLEN, &e, sizeof(e));
    memcpy(b, &h, sizeof(h));
    ck_assert_int_eq(module_reply_parse(b, h.nlmsg_len, 0, 0, &m, why, sizeof(why)), -EOPNOTSUPP);
    /* error 0 is an ack, not an answer to a read. */
    e.error = 0;
    memcpy(b + NLMSG_HDRLEN, &e, sizeof(e));
    ck_assert_int_eq(module_reply_parse(b, h.nlmsg_len, 0, 0, &m, why, sizeof(why)), -EBADMSG);
}
END_TEST

/* link.module on one rail whose module is FIXTURE (NULL: unknown, as on veth); returns
 * the finding's severity and copies its message. */
static enum severity judge_rail(const char *fixture, void (*edit)(struct module_info *),
                                char *msg, size_t len)
{
    struct inventory inv = { .source = INVENTORY_LIVE };
    struct policy p;
    struct findings fs = { 0 };
    struct module_eeprom m;
    policy_init_defaults(&p);
    struct rail *r = inventory_add_rail(&inv, "mlx5_0", 1);
    ck_assert_ptr_nonnull(r);
    strscpy(r->netdev.name, "eth2", sizeof(r->netdev.name));
    r->module.read = true;
    if (fixture) {
        load(fixture, &m, &r->module.info);
        r->module.known = true;
        if (edit)
            edit(&r->module.info);
    } else {
        r->module.err = -EOPNOTSUPP;
        strscpy(r->module.why, "the driver gives no module EEPROM (Operation not supported)",
                sizeof(r->module.why));
    }
    check_module(&inv, NULL, &p, &fs);
    ck_assert_uint_eq(fs.n, 1);
    ck_assert_str_eq(fs.items[0].check, "link.module");
    ck_assert_str_eq(fs.items[0].rail, "mlx5_0/1");
    enum severity sev = fs.items[0].severity;
    strscpy(msg, fs.items[0].message, len);
    findings_done(&fs);
    inventory_done(&inv);
    policy_done(&p);
    return sev;
}

static void heal_lane3(struct module_info *i)
{
    i->rx_power[2].raw = 8000;
    i->lane_flags[MODULE_Q_RX_POWER][2] = 0;
}

static void heal_lane3_keep_flag(struct module_info *i)
{
    i->rx_power[2].raw = 8000;
}

static void hot(struct module_info *i)
{
    heal_lane3(i);
    i->temperature.raw = 76 * 256;      /* past the 75 degC high alarm */
}

START_TEST(test_check_module)
{
    char msg[512];
    /* Lane 3 at 0.06 mW, under its 0.1 mW low warning and over its 0.05 mW low alarm. */
    ck_assert_int_eq(judge_rail("qsfp28-sr4.pages", NULL, msg, sizeof(msg)), SEVERITY_WARNING);
    ck_assert_msg(strstr(msg, "lane 3 rx power 0.0600 mW (-12.22 dBm) is below its low warning "
                              "0.1000 mW (-10.00 dBm)"), "%s", msg);
    ck_assert_msg(strstr(msg, "QSFP28 FABTUNE OPTICS QSFP28-SR4-100G (optical)"), "%s", msg);
    ck_assert_int_eq(judge_rail("qsfp28-sr4.pages", heal_lane3, msg, sizeof(msg)), SEVERITY_OK);
    ck_assert_msg(strstr(msg, "within the module's thresholds"), "%s", msg);
    /* Back inside, but the module latched the excursion. */
    ck_assert_int_eq(judge_rail("qsfp28-sr4.pages", heal_lane3_keep_flag, msg, sizeof(msg)),
                     SEVERITY_WARNING);
    ck_assert_msg(strstr(msg, "lane 3 rx power latched a threshold warning"), "%s", msg);
    ck_assert_int_eq(judge_rail("qsfp28-sr4.pages", hot, msg, sizeof(msg)), SEVERITY_ERROR);
    ck_assert_msg(strstr(msg, "temperature 76.00 degC is above its high alarm 75.00 degC"), "%s", msg);
    /* Temperature past its high warning, lane 6 under its low alarm: the alarm is named. */
    ck_assert_int_eq(judge_rail("osfp-2xdr4.pages", NULL, msg, sizeof(msg)), SEVERITY_ERROR);
    ck_assert_msg(strstr(msg, "lane 6 rx power 0.0500 mW (-13.01 dBm) is below its low alarm"), "%s", msg);
    ck_assert_int_eq(judge_rail("qsfp28-dac.pages", NULL, msg, sizeof(msg)), SEVERITY_OK);
    ck_assert_msg(strstr(msg, "not monitored (passive copper has no monitors)"), "%s", msg);
    ck_assert_int_eq(judge_rail("qsfpdd-dac.pages", NULL, msg, sizeof(msg)), SEVERITY_OK);
    ck_assert_msg(strstr(msg, "QSFP-DD FABTUNE CABLES QSFPDD-DAC-2M (DAC): not monitored"), "%s", msg);
    ck_assert_int_eq(judge_rail("qsfp28-aoc.pages", NULL, msg, sizeof(msg)), SEVERITY_UNKNOWN);
    ck_assert_msg(strstr(msg, "no thresholds"), "%s", msg);
    ck_assert_int_eq(judge_rail(NULL, NULL, msg, sizeof(msg)), SEVERITY_UNKNOWN);
    ck_assert_str_eq(msg, "eth2: module not read: the driver gives no module EEPROM "
                          "(Operation not supported)");
}
END_TEST

/* A rail no source read (offline, InfiniBand) gets no finding at all. */
START_TEST(test_check_module_not_read)
{
    struct inventory inv = { .source = INVENTORY_LIVE };
    struct policy p;
    struct findings fs = { 0 };
    policy_init_defaults(&p);
    ck_assert_ptr_nonnull(inventory_add_rail(&inv, "mlx5_0", 1));
    check_module(&inv, NULL, &p, &fs);
    ck_assert_uint_eq(fs.n, 0);
    findings_done(&fs);
    inventory_done(&inv);
    policy_done(&p);
}
END_TEST

/* The module series: identity, temperature, Vcc, per-lane powers in watts and bias in
 * amperes; a DAC has an info sample and no readings; promtool finds them clean. */
START_TEST(test_module_metrics)
{
    struct report rep;
    struct policy p;
    struct module_eeprom m;
    char dir[512], path[600];
    const char *fixture[] = { "qsfp28-sr4.pages", "osfp-2xdr4.pages", "qsfp28-dac.pages" };
    policy_init_defaults(&p);
    memset(&rep, 0, sizeof(rep));
    report_init(&rep, &p, "<built-in>");
    for (int i = 0; i < 3; i++) {
        char dev[16];
        snprintf(dev, sizeof(dev), "mlx5_%d", i);
        struct rail *x = inventory_add_rail(&rep.inventory, dev, 1);
        ck_assert_ptr_nonnull(x);
        snprintf(x->netdev.name, sizeof(x->netdev.name), "ens%d", i + 1);
        x->netdev.present = true;
        strscpy(x->link_layer, "Ethernet", sizeof(x->link_layer));
        x->module.read = x->module.known = true;
        load(fixture[i], &m, &x->module.info);
    }
    report_finish(&rep);
    char *text = metrics_render(&rep);
    ck_assert_ptr_nonnull(text);
    if (getenv("DUMP"))
        fputs(text, stderr);
    ck_assert_msg(strstr(text, "\nfabtune_rail_module_temperature_celsius{device=\"mlx5_0\","
                               "port=\"1\",netdev=\"ens1\"} 35.5\n"), "%s", text);
    ck_assert_msg(strstr(text, "\nfabtune_rail_module_rx_power_watts{device=\"mlx5_0\",port=\"1\","
                               "netdev=\"ens1\",lane=\"3\"} 6e-05\n"), "%s", text);
    ck_assert_msg(strstr(text, "\nfabtune_rail_module_tx_bias_amperes{device=\"mlx5_1\",port=\"1\","
                               "netdev=\"ens2\",lane=\"8\"} 0.05\n"), "%s", text);
    ck_assert_msg(strstr(text, "\nfabtune_rail_module_supply_voltage_volts{device=\"mlx5_1\","
                               "port=\"1\",netdev=\"ens2\"} 3.29\n"), "%s", text);
    ck_assert_msg(strstr(text, "\nfabtune_rail_module_info{device=\"mlx5_2\",port=\"1\",netdev=\"ens3\","
                               "identifier=\"QSFP28\",vendor=\"FABTUNE CABLES\",part=\"QSFP28-DAC-1M\","
                               "serial=\"DAC0000000000001\",media=\"DAC\",monitored=\"0\"} 1\n"), "%s", text);
    ck_assert_ptr_null(strstr(text, "fabtune_rail_module_temperature_celsius{device=\"mlx5_2\""));
    ck_assert_ptr_null(strstr(text, "fabtune_rail_module_rx_power_watts{device=\"mlx5_2\""));
    ck_assert_int_eq(check_scratch_dir(dir, sizeof(dir), "check_module_eeprom"), 0);
    snprintf(path, sizeof(path), "%s/fabtune.prom", dir);
    promtool_clean(text, path);
    free(text);
    report_done(&rep);
    policy_done(&p);
}
END_TEST

static Suite *module_eeprom_suite(void)
{
    Suite *s = suite_create("module_eeprom");
    TCase *tc = tcase_create("decode");
    tcase_add_test(tc, test_sff8636_sr4);
    tcase_add_test(tc, test_sff8636_dac);
    tcase_add_test(tc, test_sff8636_aoc_short);
    tcase_add_test(tc, test_cmis_osfp);
    tcase_add_test(tc, test_cmis_dac);
    tcase_add_test(tc, test_truncated);
    tcase_add_test(tc, test_put_bounds);
    tcase_add_test(tc, test_hostile_bytes);
    tcase_add_test(tc, test_reply_data);
    tcase_add_test(tc, test_reply_error);
    suite_add_tcase(s, tc);
    tc = tcase_create("check");
    tcase_add_test(tc, test_check_module);
    tcase_add_test(tc, test_check_module_not_read);
    tcase_add_test(tc, test_module_metrics);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run(module_eeprom_suite());
}
