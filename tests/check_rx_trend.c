/* SPDX-License-Identifier: ISC */
/* Tests of the Rx power trend (model/rx_trend, its part of state/link_store, and link.module's
 * trend warning in checks/check_module), on the SFF-8636 QSFP28-SR4 module of
 * tests/fixtures/module (built from SFF-8636 rev 2.10a's tables), its lanes' Rx power set
 * sample by sample at wall-clock times each test chooses, with a deterministic +-0.2 dB
 * jitter (a module's Rx monitor is not still):
 * - a steady module over a day fits near 0 dB per day, no warning;
 * - one lane falling 2 dB a day is found (the steepest lane, its rate within 0.25 dB of 2),
 *   and link.module warns with it; the other lanes stay flat; 0 dB in the policy is off;
 * - a module without thresholds (the AOC fixture, no page 03h) warns on its trend rather
 *   than being unknown;
 * - too few samples, or a span under half the window, fit nothing;
 * - samples are spaced window/63 apart, expire with the window, are at most 64; a clock
 *   set back or another serial number clears them;
 * - the trend round-trips through the state file, and a hostile rx_power is refused whole. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "check_findings.h"
#include "check_run.h"
#include "link_memory.h"
#include "link_store.h"
#include "module_pages.h"
#include "rx_trend.h"
#include "strutil.h"

#define WALL0 ((usec_t)1800000000 * USEC_PER_SEC)     /* 2027-01-15T08:00:00Z */
#define DAY (24 * USEC_PER_HOUR)
#define RAIL "mlx5_0/1"

static char scratch[256];

static void load(const char *name, struct module_info *info)
{
    struct module_eeprom m;
    char path[512];
    int line;
    snprintf(path, sizeof(path), "%s/tests/fixtures/module/%s", TEST_SRCDIR, name);
    ck_assert_msg(module_pages_read(path, &m, &line) == 0, "%s: bad line %d", path, line);
    ck_assert_int_eq(module_eeprom_decode(&m, info), 0);
}

/* A deterministic jitter in [-0.2, 0.2] dB (a 32-bit LCG). */
static double jitter(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return ((double)(*seed >> 8) / (double)(1u << 24) - 0.5) * 0.4;
}

/* The raw reading (0.1 uW) of DBM. */
static int32_t raw_of(double dbm)
{
    return (int32_t)lround(pow(10, dbm / 10) * 1e4);
}

/* Every lane at -3 dBm, lane FALLING (-1: none) losing DB_PER_DAY, sampled every STEP
 * from WALL0 for SPAN into T. */
static void feed(struct rx_trend *t, struct module_info *info, int falling, double db_per_day,
                 usec_t step, usec_t span, usec_t window)
{
    uint32_t seed = 7;
    for (usec_t at = 0; at <= span; at += step) {
        for (unsigned l = 0; l < info->lanes; l++) {
            double dbm = -3 + jitter(&seed);
            if ((int)l == falling)
                dbm -= db_per_day * (double)at / (double)DAY;
            info->rx_power[l] = (struct module_reading){ .valid = true, .raw = raw_of(dbm) };
        }
        rx_trend_add(t, info, WALL0 + at, window);
    }
}

START_TEST(test_steady)
{
    struct rx_trend t = { 0 };
    struct module_info info;
    struct rx_fit f;
    load("qsfp28-sr4.pages", &info);
    feed(&t, &info, -1, 0, 10 * USEC_PER_MINUTE, DAY, DAY);
    ck_assert_uint_eq(t.n, 49);         /* every 30 min: the first 10-min step past 22m51s */
    ck_assert(rx_trend_steepest(&t, WALL0 + DAY, DAY, &f));
    ck_assert_msg(fabs(f.db_per_window) < 0.3, "%.3f dB per day", f.db_per_window);
    ck_assert_uint_ge(f.samples, RX_TREND_MIN_SAMPLES);
}
END_TEST

START_TEST(test_falling_lane)
{
    struct rx_trend t = { 0 };
    struct module_info info;
    struct rx_fit f;
    load("qsfp28-sr4.pages", &info);
    feed(&t, &info, 1, 2.0, 10 * USEC_PER_MINUTE, DAY, DAY);
    ck_assert(rx_trend_steepest(&t, WALL0 + DAY, DAY, &f));
    ck_assert_uint_eq(f.lane, 1);
    ck_assert_msg(fabs(f.db_per_window + 2.0) < 0.25, "%.3f dB per day", f.db_per_window);
    ck_assert_msg(f.first_dbm - f.last_dbm > 1.5, "%.2f -> %.2f", f.first_dbm, f.last_dbm);
    ck_assert_uint_ge(f.span, DAY - DAY / (RX_TREND_SAMPLES - 1) - 10 * USEC_PER_MINUTE);
}
END_TEST

/* link.module on one rail with INFO and trend T; returns the severity, copies the message. */
static enum severity judge(const struct module_info *info, const struct rx_trend *t,
                           double fall, char *msg, size_t len)
{
    struct inventory inv = { .source = INVENTORY_LIVE };
    struct link_memory lm = { .now_wall = WALL0 + DAY };
    struct rail_memory *rm;
    struct policy p;
    struct findings fs = { 0 };
    policy_init_defaults(&p);
    p.checks.module.rx_power_fall = fall;
    struct rail *r = inventory_add_rail(&inv, "mlx5_0", 1);
    ck_assert_ptr_nonnull(r);
    strscpy(r->netdev.name, "eth2", sizeof(r->netdev.name));
    r->module = (struct module_state){ .read = true, .known = true, .info = *info };
    ck_assert_int_eq(link_memory_rail(&lm, RAIL, &rm), 0);
    rm->rx = *t;
    check_module(&inv, &lm, &p, &fs);
    const struct finding *f = one_finding(&fs, "link.module", RAIL);
    enum severity sev = f->severity;
    strscpy(msg, f->message, len);
    findings_done(&fs);
    link_memory_done(&lm);
    inventory_done(&inv);
    policy_done(&p);
    return sev;
}

START_TEST(test_check_warns)
{
    struct rx_trend falling = { 0 }, steady = { 0 };
    struct module_info info, aoc;
    char msg[512];
    load("qsfp28-sr4.pages", &info);
    feed(&falling, &info, 1, 2.0, 10 * USEC_PER_MINUTE, DAY, DAY);
    /* Lane 3 of the fixture is under its low warning: healed, the trend is what is left. */
    info.lane_flags[MODULE_Q_RX_POWER][2] = 0;
    ck_assert_int_eq(judge(&info, &falling, 1.0, msg, sizeof(msg)), SEVERITY_WARNING);
    ck_assert_msg(strstr(msg, "lane 2 Rx power fell ") && strstr(msg, " dB per 24h over "),
                  "%s", msg);
    ck_assert_int_eq(judge(&info, &falling, 0, msg, sizeof(msg)), SEVERITY_OK);
    ck_assert_int_eq(judge(&info, &falling, 2.5, msg, sizeof(msg)), SEVERITY_OK);
    feed(&steady, &info, -1, 0, 10 * USEC_PER_MINUTE, DAY, DAY);
    ck_assert_int_eq(judge(&info, &steady, 1.0, msg, sizeof(msg)), SEVERITY_OK);
    /* No thresholds (no page 03h): unknown, unless the trend speaks. */
    load("qsfp28-aoc.pages", &aoc);
    ck_assert_int_eq(judge(&aoc, &steady, 1.0, msg, sizeof(msg)), SEVERITY_UNKNOWN);
    struct rx_trend aoc_falling = { 0 };
    feed(&aoc_falling, &aoc, 0, 3.0, 10 * USEC_PER_MINUTE, DAY, DAY);
    ck_assert_int_eq(judge(&aoc, &aoc_falling, 1.0, msg, sizeof(msg)), SEVERITY_WARNING);
    ck_assert_msg(strstr(msg, "lane 1 Rx power fell "), "%s", msg);
}
END_TEST

START_TEST(test_too_little)
{
    struct rx_trend t = { 0 };
    struct module_info info;
    struct rx_fit f;
    load("qsfp28-sr4.pages", &info);
    /* 11 h of a day: under half the window. */
    feed(&t, &info, 0, 5.0, 30 * USEC_PER_MINUTE, 11 * USEC_PER_HOUR, DAY);
    ck_assert_uint_ge(t.n, RX_TREND_MIN_SAMPLES);
    ck_assert(!rx_trend_steepest(&t, WALL0 + 11 * USEC_PER_HOUR, DAY, &f));
    /* 7 samples over the whole day. */
    memset(&t, 0, sizeof(t));
    feed(&t, &info, 0, 5.0, 4 * USEC_PER_HOUR, DAY, DAY);
    ck_assert_uint_eq(t.n, 7);
    ck_assert(!rx_trend_steepest(&t, WALL0 + DAY, DAY, &f));
    /* 8 samples over 21 h make a fit, of the falling lane. */
    memset(&t, 0, sizeof(t));
    feed(&t, &info, 0, 5.0, 3 * USEC_PER_HOUR, 21 * USEC_PER_HOUR, DAY);
    ck_assert_uint_eq(t.n, 8);
    ck_assert(rx_trend_steepest(&t, WALL0 + 21 * USEC_PER_HOUR, DAY, &f));
    ck_assert_uint_eq(f.lane, 0);
    ck_assert_msg(fabs(f.db_per_window + 5.0) < 0.5, "%.3f dB per day", f.db_per_window);
}
END_TEST

START_TEST(test_ring)
{
    struct rx_trend t = { 0 };
    struct module_info info;
    load("qsfp28-sr4.pages", &info);
    /* Every 10 s for an hour, a day's window: spaced DAY/63 (22m51s) apart. */
    feed(&t, &info, -1, 0, 10 * USEC_PER_SEC, USEC_PER_HOUR, DAY);
    ck_assert_uint_eq(t.n, 3);
    ck_assert_uint_ge(t.samples[1].wall - t.samples[0].wall, DAY / (RX_TREND_SAMPLES - 1));
    /* Two days of samples: only the last day's stay, at most 64. */
    memset(&t, 0, sizeof(t));
    feed(&t, &info, -1, 0, 10 * USEC_PER_MINUTE, 2 * DAY, DAY);
    ck_assert_uint_le(t.n, RX_TREND_SAMPLES);
    ck_assert_uint_le(WALL0 + 2 * DAY - t.samples[0].wall, DAY);
    for (size_t i = 1; i < t.n; i++)
        ck_assert_uint_gt(t.samples[i].wall, t.samples[i - 1].wall);
    /* The clock set back: all cleared, the new sample kept. */
    rx_trend_add(&t, &info, WALL0, DAY);
    ck_assert_uint_eq(t.n, 1);
    ck_assert_uint_eq(t.samples[0].wall, WALL0);
    /* Another module in the cage. */
    feed(&t, &info, -1, 0, USEC_PER_HOUR, 3 * USEC_PER_HOUR, DAY);
    ck_assert_uint_eq(t.n, 4);          /* WALL0 (kept), then 1, 2 and 3 h */
    strscpy(info.serial, "OTHERSERIAL", sizeof(info.serial));
    rx_trend_add(&t, &info, WALL0 + 4 * USEC_PER_HOUR, DAY);
    ck_assert_uint_eq(t.n, 1);
    ck_assert_str_eq(t.serial, "OTHERSERIAL");
    /* No valid lane, or a dark one (0 mW): nothing added. */
    for (unsigned l = 0; l < MODULE_LANES_MAX; l++)
        info.rx_power[l] = (struct module_reading){ .valid = l == 0, .raw = 0 };
    rx_trend_add(&t, &info, WALL0 + 5 * USEC_PER_HOUR, DAY);
    ck_assert_uint_eq(t.n, 1);
}
END_TEST

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(test_store)
{
    struct link_memory m = { 0 }, back;
    struct rail_memory *rm;
    struct module_info info;
    char dir[320];
    snprintf(dir, sizeof(dir), "%s/store", scratch);
    sh("rm -rf '%s' && mkdir -p '%s'", dir, dir);
    load("qsfp28-sr4.pages", &info);
    strscpy(m.boot_id, "a", sizeof(m.boot_id));
    ck_assert_int_eq(link_memory_rail(&m, RAIL, &rm), 0);
    feed(&rm->rx, &info, 2, 2.0, 10 * USEC_PER_MINUTE, DAY, DAY);
    rm->rx.samples[5].valid &= (uint8_t)~(1u << 3);      /* a lane with no reading: null */
    ck_assert_int_eq(link_store_save(dir, &m), 0);
    ck_assert_int_eq(link_store_load(dir, &back), 0);
    ck_assert_uint_eq(back.n, 1);
    ck_assert_str_eq(back.rails[0].rx.serial, rm->rx.serial);
    ck_assert_uint_eq(back.rails[0].rx.n, rm->rx.n);
    for (size_t i = 0; i < rm->rx.n; i++) {
        const struct rx_sample *a = &rm->rx.samples[i], *b = &back.rails[0].rx.samples[i];
        ck_assert_uint_eq(a->wall, b->wall);
        ck_assert_uint_eq(a->valid, b->valid);
        for (unsigned l = 0; l < MODULE_LANES_MAX; l++)
            if (a->valid & (1u << l))
                ck_assert_uint_eq(a->rx[l], b->rx[l]);
    }
    link_memory_done(&back);
    link_memory_done(&m);

    static const char *const bad[] = {
        "\"rx_power\":7",
        "\"rx_power\":{\"samples\":[]}",
        "\"rx_power\":{\"serial\":\"01234567890123456789\",\"samples\":[]}",
        "\"rx_power\":{\"serial\":\"s\",\"samples\":{}}",
        "\"rx_power\":{\"serial\":\"s\",\"samples\":[{\"rx\":[1]}]}",
        "\"rx_power\":{\"serial\":\"s\",\"samples\":[{\"wall_usec\":1,\"rx\":[0]}]}",
        "\"rx_power\":{\"serial\":\"s\",\"samples\":[{\"wall_usec\":1,\"rx\":[65536]}]}",
        "\"rx_power\":{\"serial\":\"s\",\"samples\":[{\"wall_usec\":1,\"rx\":[\"5\"]}]}",
        "\"rx_power\":{\"serial\":\"s\",\"samples\":[{\"wall_usec\":1,\"rx\":[1,1,1,1,1,1,1,1,1]}]}",
        "\"rx_power\":{\"serial\":\"s\",\"samples\":[{\"wall_usec\":5,\"rx\":[1]},"
        "{\"wall_usec\":4,\"rx\":[1]}]}",
    };
    char text[8192];
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        snprintf(text, sizeof(text), "{\"boot_id\":\"a\",\"rails\":[{\"rail\":\"r\",\"events\":[],%s}]}",
                 bad[i]);
        write_file(dir, LINK_STORE_FILE, text);
        ck_assert_msg(link_store_load(dir, &back) == -EBADMSG, "accepted: %s", bad[i]);
        ck_assert_uint_eq(back.n, 0);
    }
    /* 65 samples: past the ring. */
    size_t n = (size_t)snprintf(text, sizeof(text), "{\"boot_id\":\"a\",\"rails\":[{\"rail\":\"r\","
                                "\"events\":[],\"rx_power\":{\"serial\":\"s\",\"samples\":[");
    for (int i = 0; i <= RX_TREND_SAMPLES; i++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "%s{\"wall_usec\":%d,\"rx\":[1]}",
                              i ? "," : "", i);
    snprintf(text + n, sizeof(text) - n, "]}}]}");
    write_file(dir, LINK_STORE_FILE, text);
    ck_assert_int_eq(link_store_load(dir, &back), -EBADMSG);
    /* A good one with a null lane loads. */
    write_file(dir, LINK_STORE_FILE, "{\"boot_id\":\"a\",\"rails\":[{\"rail\":\"r\",\"events\":[],"
               "\"rx_power\":{\"serial\":\"s\",\"samples\":[{\"wall_usec\":3,\"rx\":[null,20]}]}}]}");
    ck_assert_int_eq(link_store_load(dir, &back), 0);
    ck_assert_uint_eq(back.rails[0].rx.n, 1);
    ck_assert_uint_eq(back.rails[0].rx.samples[0].valid, 2);
    ck_assert_uint_eq(back.rails[0].rx.samples[0].rx[1], 20);
    link_memory_done(&back);
}
END_TEST

int main(void)
{
    if (check_scratch_dir(scratch, sizeof(scratch), "out-rx-trend") < 0)
        return 99;
    Suite *s = suite_create("rx_trend");
    TCase *tc = tcase_create("rx_trend");
    tcase_add_test(tc, test_steady);
    tcase_add_test(tc, test_falling_lane);
    tcase_add_test(tc, test_check_warns);
    tcase_add_test(tc, test_too_little);
    tcase_add_test(tc, test_ring);
    tcase_add_test(tc, test_store);
    suite_add_tcase(s, tc);
    return check_run(s);
}
