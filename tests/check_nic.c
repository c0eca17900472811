/* SPDX-License-Identifier: ISC */
/* What the NIC and its driver say (issue 45, items 1 and 2): the /dev/kmsg record's parser
 * (sources/kmsg_parse) on the format of Documentation/ABI/testing/dev-kmsg; the pattern
 * table (model/kernel_log) on real kernel lines, each from the driver source that prints it
 * (cited at each) and public logs; the binding of a line to its rail; nic.* (checks/
 * check_nic.c) from the link memory: fatal for the boot, a warning for the window,
 * escalated on repeats, another boot's fatal gone; the memory's file keeps the messages and
 * the cursor; the kernel log read for real from /dev/kmsg, where a process's record (forced
 * to LOG_USER by the kernel) is never taken for a driver's; nic.devnode on real character
 * device nodes made with mknod(2) under a scratch /dev. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "check_findings.h"
#include "check_run.h"
#include "checks.h"
#include "kernel_log.h"
#include "kmsg_parse.h"
#include "link_memory.h"
#include "link_store.h"
#include "source_devnodes.h"
#include "source_kernel_log.h"

#define BOOT_A "0b8f3a1e-1111-4c6e-9a0b-1d2e3f4a5b6c"
#define BOOT_B "7d2c4e6a-2222-4c6e-9a0b-1d2e3f4a5b6c"
#define HOUR (3600 * USEC_PER_SEC)
#define WALL0 (1800000000ull * USEC_PER_SEC)

/* ---- the record's parser -------------------------------------------------------------- */

START_TEST(test_parse_record)
{
    /* A record as /dev/kmsg hands it: the header, the message, the dictionary lines that
     * dev_printk() adds (SUBSYSTEM=, DEVICE=). The message is a public one (an mlx5 ConnectX
     * hung in ACCESS_REG, linux-rdma, 2023); the format is cmd.c wait_func()'s. */
    static const char rec[] =
        "4,1234,257137072,-;mlx5_core 0000:56:00.0: wait_func:1189:(pid 72061): ACCESS_REG(0x805) "
        "timeout. Will cause a leak of a command resource\n SUBSYSTEM=pci\n DEVICE=+pci:0000:56:00.0\n";
    struct kmsg_record r;
    ck_assert_int_eq(kmsg_parse(rec, sizeof(rec) - 1, &r), 0);
    ck_assert_uint_eq(r.facility, 0);
    ck_assert_uint_eq(r.level, 4);
    ck_assert_uint_eq(r.seq, 1234);
    ck_assert_uint_eq(r.ts_usec, 257137072);
    ck_assert(!r.continuation);
    ck_assert_str_eq(r.device, "+pci:0000:56:00.0");
    ck_assert_ptr_nonnull(strstr(r.text, "ACCESS_REG(0x805) timeout"));
    ck_assert_ptr_null(strchr(r.text, '\n'));

    /* What a process's "<3>..." becomes: LOG_USER (1) << 3 | 3 = 11 (printk.c devkmsg_write). */
    static const char user[] = "11,1235,257137100,-;mlx5_core 0000:56:00.0: forged\n";
    ck_assert_int_eq(kmsg_parse(user, sizeof(user) - 1, &r), 0);
    ck_assert_uint_eq(r.facility, 1);
    ck_assert_uint_eq(r.level, 3);
    ck_assert_str_eq(r.device, "");

    /* Flags with more fields after them (newer kernels: caller id), a continuation. */
    static const char more[] = "6,7,8,c,caller=T12;text";
    ck_assert_int_eq(kmsg_parse(more, sizeof(more) - 1, &r), 0);
    ck_assert(r.continuation);
    ck_assert_str_eq(r.text, "text");
}
END_TEST

START_TEST(test_parse_refusals)
{
    static const char *const bad[] = {
        "", "no semicolon", "3,1,2;no flags field", ",1,2,-;empty prio", "x,1,2,-;not a number",
        "3,1,-;two numbers", "3,18446744073709551616,2,-;seq overflows",
        "16777216,1,2,-;prio beyond 24 bits", "3,1,2,-",
    };
    struct kmsg_record r;
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
        ck_assert_msg(kmsg_parse(bad[i], strlen(bad[i]), &r) == -EINVAL, "accepted '%s'", bad[i]);
    /* A message longer than the text is cut, NUL-terminated; an embedded NUL is no end. */
    char big[2000];
    size_t n = (size_t)snprintf(big, sizeof(big), "0,1,2,-;");
    memset(big + n, 'a', sizeof(big) - n);
    big[n + 3] = 0;
    ck_assert_int_eq(kmsg_parse(big, sizeof(big), &r), 0);
    ck_assert_uint_eq(strlen(r.text), KMSG_TEXT_MAX - 1);
}
END_TEST

/* ---- the pattern table on real lines -------------------------------------------------- */

static const struct {
    const char *line, *pattern;     /* pattern NULL: no row may match */
} lines[] = {
    /* cmd.c wait_func(): "%s(0x%x) timeout. Will cause a leak of a command resource";
     * the line is NVSentinel's syslog test message. */
    { "mlx5_core 0000:03:00.0: wait_func:964:(pid 112): ENABLE_HCA(0x104) timeout. Will cause a "
      "leak of a command resource", "mlx5.cmd_timeout" },
    /* cmd.c cb_timeout_handler() (v5.8+): "cmd[%d]: %s(0x%x) Async, timeout. Will cause..." */
    { "mlx5_core 0000:08:00.0: cb_timeout_handler:1012:(pid 411): cmd[0]: QUERY_VPORT_COUNTER(0x770) "
      "Async, timeout. Will cause a leak of a command resource", "mlx5.cmd_timeout" },
    /* health.c poll_health(): mlx5_core_err(dev, "device's health compromised - reached miss count") */
    { "mlx5_core 0000:41:00.0: poll_health:852:(pid 0): device's health compromised - reached miss "
      "count", "mlx5.health_miss" },
    /* health.c poll_health(): "Fatal error %u detected" */
    { "mlx5_core 0000:41:00.0: poll_health:870:(pid 0): Fatal error 1 detected", "mlx5.fatal" },
    /* health.c print_health_info(): "synd 0x%x: %s" with hsynd_str(0x8) */
    { "mlx5_core 0000:41:00.0: print_health_info:458:(pid 0): synd 0x8: unrecoverable hardware error",
      "mlx5.unrecoverable" },
    /* cmd.c mlx5_cmd_out_err(): "%s(0x%x) op_mod(0x%x) failed, status %s(0x%x), syndrome (0x%x)..." */
    { "mlx5_core 0000:08:00.0: mlx5_cmd_out_err:838:(pid 2519): ACCESS_REG(0x805) op_mod(0x1) failed, "
      "status bad parameter(0x3), syndrome (0x6c4d4c), err(-22)", "mlx5.access_reg" },
    /* en/reporter_tx.c mlx5e_reporter_tx_timeout(): "TX timeout on queue: %d, SQ: 0x%x, ..." */
    { "mlx5_core 0000:08:00.0 eth2: TX timeout on queue: 3, SQ: 0x10c, CQ: 0x40b, SQ Cons: 0x1a SQ "
      "Prod: 0x2f, usecs since last trans: 15496000", "mlx5.tx_timeout" },
    /* net/sched/sch_generic.c dev_watchdog(), before v6.8 and after (netdev_crit) */
    { "NETDEV WATCHDOG: eth2 (mlx5_core): transmit queue 3 timed out", "netdev.watchdog" },
    { "mlx5_core 0000:08:00.0 eth2: NETDEV WATCHDOG: CPU: 5: transmit queue 3 timed out 5120 ms",
      "netdev.watchdog" },
    /* en/reporter_rx.c mlx5e_reporter_rx_timeout(): "RX timeout on channel: %d, RQ: 0x%x, CQ: 0x%x" */
    { "mlx5_core 0000:08:00.0 eth2: RX timeout on channel: 1, RQ: 0x8a, CQ: 0x405", "mlx5.rx_timeout" },
    /* events.c mlx5_pcie_event(): "Detected insufficient power on the PCIe slot (%uW)."; the
     * line is gpud's example (a real node) */
    { "mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the "
      "PCIe slot (27W).", "mlx5.power" },
    /* events.c port_module(): "Port module event[error]: module %u, %s, %s" */
    { "mlx5_core 0000:08:00.0: port_module:1070:(pid 0): Port module event[error]: module 0, Cable "
      "error, High Temperature", "mlx5.module_thermal" },
    { "mlx5_core 0000:08:00.0: port_module:1070:(pid 0): Port module event[error]: module 0, Cable "
      "error, Bad or shorted cable/module", "mlx5.module_error" },
    /* events.c temp_warn(): "High temperature on sensors with bit set %llx %llx" */
    { "mlx5_core 0000:08:00.0: temp_warn:165:(pid 0): High temperature on sensors with bit set 0 1",
      "mlx5.sensor_thermal" },
    /* events.c port_module(): "Port module event: module %u, %s" with "Cable unplugged" */
    { "mlx5_core 0000:08:00.0: port_module:1064:(pid 0): Port module event: module 0, Cable unplugged",
      "mlx5.cable_unplugged" },
    /* en_main.c mlx5e_update_carrier(): netdev_info(netdev, "Link down\n") */
    { "mlx5_core 0000:08:00.0 eth2: Link down", "mlx5.link_down" },
    /* rxe_net.c rxe_port_down(): dev_info(&rxe->ib_dev.dev, "set down\n") */
    { "infiniband rxe0: set down", "rxe.link_down" },
    /* drivers/pci/pcie/aer.c aer_print_error(): "PCIe Bus Error: severity=%s, type=%s, (%s)" */
    { "mlx5_core 0000:08:00.0: PCIe Bus Error: severity=Uncorrectable (Non-Fatal), type=Transaction "
      "Layer, (Requester ID)", "pcie.aer_uncorrectable" },
    /* ... and the root port's aer_print_port_info() (older kernels) */
    { "pcieport 0000:00:01.0: AER: Uncorrected (Non-Fatal) error received: 0000:08:00.0",
      "pcie.aer_uncorrected" },
    /* Lines that must not match: the healthy twins of the above, and look-alikes. */
    { "mlx5_core 0000:08:00.0: port_module:1064:(pid 0): Port module event: module 0, Cable plugged", NULL },
    { "mlx5_core 0000:08:00.0 eth2: Link up", NULL },
    { "infiniband rxe0: set active", NULL },
    { "mlx5_core 0000:5c:00.0: mlx5_pcie_event:303:(pid 2): PCIe slot advertised sufficient power (75W).", NULL },
    { "mlx5_core 0000:08:00.0: PCIe Bus Error: severity=Correctable, type=Physical Layer, (Receiver ID)", NULL },
    { "bond0: (slave eth2): link status definitely down, disabling slave", NULL },
    { "e1000e 0000:00:1f.6 eno1: NIC Link is Down", NULL },
    /* Another driver's text with mlx5's words in it: the driver word is required. */
    { "bnxt_en 0000:3b:00.0 eth4: Link down", NULL },
};

START_TEST(test_patterns_real_lines)
{
    for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
        const struct kernel_pattern *k = kernel_log_match(lines[i].line);
        if (!lines[i].pattern)
            ck_assert_msg(!k, "'%s' matched %s", lines[i].line, k ? k->id : "");
        else
            ck_assert_msg(k && streq(k->id, lines[i].pattern), "'%s': %s, want %s", lines[i].line,
                          k ? k->id : "no match", lines[i].pattern);
    }
    /* Every row has its texts, a check of the table, and is reached by a line above. */
    for (size_t i = 0; i < n_kernel_patterns; i++) {
        const struct kernel_pattern *k = &kernel_patterns[i];
        bool listed = false, reached = false;
        for (size_t c = 0; c < n_kernel_log_checks; c++)
            listed |= streq(k->check, kernel_log_checks[c]);
        for (size_t l = 0; l < ARRAY_SIZE(lines); l++)
            reached |= lines[l].pattern && streq(lines[l].pattern, k->id);
        ck_assert_msg(listed && reached && k->means[0] && k->source[0], "row %s", k->id);
        ck_assert_uint_lt(strlen(k->id), NIC_ID_MAX);
    }
}
END_TEST

static struct rail *add_rail(struct inventory *inv, const char *dev, const char *pci,
                             const char *netdev)
{
    struct rail *r = inventory_add_rail(inv, dev, 1);
    ck_assert_ptr_nonnull(r);
    snprintf(r->name, sizeof(r->name), "%s/1", dev);
    strcpy(r->driver, "mlx5_core");
    strcpy(r->link_layer, "Ethernet");
    strcpy(r->pci_addr, pci);
    strcpy(r->netdev.name, netdev);
    r->netdev.present = true;
    return r;
}

START_TEST(test_names_rail)
{
    struct inventory inv = { 0 };
    struct rail *r = add_rail(&inv, "mlx5_0", "0000:08:00.0", "eth2");
    ck_assert(kernel_log_names_rail(r, "mlx5_core 0000:08:00.0: poll_health:852:(pid 0): x", NULL));
    ck_assert(kernel_log_names_rail(r, "mlx5_core 0000:08:00.0 eth2: Link down", NULL));
    ck_assert(kernel_log_names_rail(r, "NETDEV WATCHDOG: eth2 (mlx5_core): transmit queue 3 timed out", NULL));
    ck_assert(kernel_log_names_rail(r, "infiniband mlx5_0: something", NULL));
    ck_assert(kernel_log_names_rail(r, "pcieport 0000:00:01.0: AER: Uncorrected (Non-Fatal) error "
                                       "received: 0000:08:00.0", NULL));
    ck_assert(kernel_log_names_rail(r, "no name here", "+pci:0000:08:00.0"));
    /* Neighbours by name are not the rail. */
    ck_assert(!kernel_log_names_rail(r, "mlx5_core 0000:08:00.1 eth20: Link down", NULL));
    ck_assert(!kernel_log_names_rail(r, "infiniband mlx5_01: x", NULL));
    ck_assert(!kernel_log_names_rail(r, "no name here", "+pci:0000:08:00.1"));
    ck_assert(!kernel_log_names_rail(r, "veth2: Link down", NULL));
    inventory_done(&inv);
}
END_TEST

/* ---- nic.* from the memory ------------------------------------------------------------ */

struct world {
    struct policy p;
    struct inventory inv;
    struct link_memory m;
    struct findings fs;
};

static void world_init(struct world *w)
{
    memset(w, 0, sizeof(*w));
    policy_init_defaults(&w->p);
    add_rail(&w->inv, "mlx5_0", "0000:08:00.0", "eth2");
    add_rail(&w->inv, "mlx5_1", "0000:09:00.0", "eth3");
    strcpy(w->m.boot_id, BOOT_A);
    w->m.kernel_read = true;
    w->m.now_boottime = 10 * HOUR;
    w->m.now_wall = WALL0;
}

/* LINE printed AGO before the memory's now, in its boot. */
static int note(struct world *w, const char *line, usec_t ago)
{
    return link_memory_note_kernel(&w->m, &w->inv, line, NULL, w->m.now_boottime - ago,
                                   w->m.now_wall - ago);
}

static void judge(struct world *w)
{
    findings_done(&w->fs);
    memset(&w->fs, 0, sizeof(w->fs));
    check_nic(&w->inv, &w->m, &w->p, &w->fs);
}

static void world_done(struct world *w)
{
    findings_done(&w->fs);
    link_memory_done(&w->m);
    inventory_done(&w->inv);
    policy_done(&w->p);
}

#define TX "mlx5_core 0000:08:00.0 eth2: TX timeout on queue: 3, SQ: 0x10c, CQ: 0x40b, SQ Cons: 0x1a SQ Prod: 0x2f, usecs since last trans: 15496000"
#define HEALTH "mlx5_core 0000:09:00.0: poll_health:852:(pid 0): device's health compromised - reached miss count"

START_TEST(test_nic_findings)
{
    struct world w;
    world_init(&w);
    judge(&w);
    ck_assert_uint_eq(w.fs.n, 2 * n_kernel_log_checks);
    for (size_t i = 0; i < w.fs.n; i++)
        ck_assert_int_eq(w.fs.items[i].severity, SEVERITY_OK);

    /* A fatal firmware message on mlx5_1 only: an error there, none on mlx5_0. */
    ck_assert_int_eq(note(&w, HEALTH, 5 * HOUR), 1);
    judge(&w);
    const struct finding *f = one_finding(&w.fs, "nic.firmware", "mlx5_1/1");
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_ptr_nonnull(strstr(f->message, "health compromised"));
    ck_assert_ptr_nonnull(strstr(f->message, "health.c"));
    ck_assert_int_eq(one_finding(&w.fs, "nic.firmware", "mlx5_0/1")->severity, SEVERITY_OK);

    /* A TX timeout 10 minutes ago: a warning; the second and third within the hour: an error. */
    ck_assert_int_eq(note(&w, TX, 50 * 60 * USEC_PER_SEC), 1);
    judge(&w);
    f = one_finding(&w.fs, "nic.tx_timeout", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_str_eq(f->actual + strlen(f->actual) - 20, "2027-01-15T07:10:00Z");
    note(&w, TX, 20 * 60 * USEC_PER_SEC);
    judge(&w);
    ck_assert_int_eq(one_finding(&w.fs, "nic.tx_timeout", "mlx5_0/1")->severity, SEVERITY_WARNING);
    note(&w, TX, 60 * USEC_PER_SEC);
    judge(&w);
    f = one_finding(&w.fs, "nic.tx_timeout", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_msg(strncmp(f->message, "escalated: 3 in 1h (limit 3)", 28) == 0, "%s", f->message);

    /* 15 minutes on, the first is out of the window: a warning again; two hours on, ok. The
     * fatal one stays an error all the while. */
    w.m.now_boottime += 15 * 60 * USEC_PER_SEC;
    w.m.now_wall += 15 * 60 * USEC_PER_SEC;
    judge(&w);
    ck_assert_int_eq(one_finding(&w.fs, "nic.tx_timeout", "mlx5_0/1")->severity, SEVERITY_WARNING);
    w.m.now_boottime += 2 * HOUR;
    w.m.now_wall += 2 * HOUR;
    judge(&w);
    ck_assert_int_eq(one_finding(&w.fs, "nic.tx_timeout", "mlx5_0/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&w.fs, "nic.firmware", "mlx5_1/1")->severity, SEVERITY_ERROR);

    /* repeats 0: never escalated. */
    w.p.checks.nic.repeats = 0;
    for (int i = 0; i < 5; i++)
        note(&w, TX, (usec_t)i * USEC_PER_SEC);
    judge(&w);
    ck_assert_int_eq(one_finding(&w.fs, "nic.tx_timeout", "mlx5_0/1")->severity, SEVERITY_WARNING);

    /* A reboot: the fatal message is the old boot's, no longer an error. */
    strcpy(w.m.boot_id, BOOT_B);
    w.m.now_boottime = 60 * USEC_PER_SEC;
    w.m.now_wall += 10 * 60 * USEC_PER_SEC;
    judge(&w);
    ck_assert_int_eq(one_finding(&w.fs, "nic.firmware", "mlx5_1/1")->severity, SEVERITY_OK);

    /* Never read: nothing judged. */
    w.m.kernel_read = false;
    judge(&w);
    ck_assert_uint_eq(w.fs.n, 0);
    world_done(&w);
}
END_TEST

START_TEST(test_nic_flood_keeps_fatal)
{
    struct world w;
    world_init(&w);
    note(&w, "mlx5_core 0000:08:00.0: poll_health:870:(pid 0): Fatal error 1 detected", HOUR);
    for (int i = 0; i < 3 * NIC_EVENTS_KEPT; i++)
        note(&w, "mlx5_core 0000:08:00.0 eth2: Link down", (usec_t)(60 - i) * USEC_PER_SEC);
    const struct rail_memory *rm = link_memory_find_const(&w.m, "mlx5_0/1");
    ck_assert_uint_eq(rm->n_nic, NIC_EVENTS_KEPT);
    judge(&w);
    ck_assert_int_eq(one_finding(&w.fs, "nic.firmware", "mlx5_0/1")->severity, SEVERITY_ERROR);
    /* Link downs are notices: counted and quoted, never a warning (counters.sticky judges
     * the link); a module unplugged among them is a warning, and its line is the one shown. */
    const struct finding *f = one_finding(&w.fs, "nic.link", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_OK);
    ck_assert_msg(strncmp(f->actual, "15 messages, the last at", 24) == 0, "%s", f->actual);
    ck_assert_ptr_nonnull(strstr(f->message, "a notice only"));
    ck_assert_ptr_nonnull(strstr(f->message, "en_main.c"));
    note(&w, "mlx5_core 0000:08:00.0: port_module:1064:(pid 0): Port module event: module 0, "
         "Cable unplugged", 30 * USEC_PER_SEC);
    judge(&w);
    f = one_finding(&w.fs, "nic.link", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_msg(strncmp(f->actual, "1 message, the last at", 22) == 0, "%s", f->actual);
    ck_assert_ptr_nonnull(strstr(f->message, "Cable unplugged"));
    /* A line matching no pattern, or naming no rail, is not kept. */
    ck_assert_int_eq(note(&w, "mlx5_core 0000:08:00.0 eth2: Link up", 0), 0);
    ck_assert_int_eq(note(&w, "mlx5_core 0000:0a:00.0 eth9: Link down", 0), 0);
    world_done(&w);
}
END_TEST

START_TEST(test_store_round_trip)
{
    struct world w;
    struct link_memory back;
    char dir[] = "/tmp/ft.XXXXXX";
    world_init(&w);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    note(&w, HEALTH, HOUR);
    note(&w, TX "\"quoted\" \\x1b", 60 * USEC_PER_SEC);
    strcpy(w.m.kernel_cursor, "kmsg:" BOOT_A ":4711");
    ck_assert_int_eq(link_store_save(dir, &w.m), 0);
    ck_assert_int_eq(link_store_load(dir, &back), 0);
    ck_assert_str_eq(back.kernel_cursor, w.m.kernel_cursor);
    const struct rail_memory *a = link_memory_find_const(&w.m, "mlx5_0/1");
    const struct rail_memory *b = link_memory_find_const(&back, "mlx5_0/1");
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(b->n_nic, 1);
    ck_assert_str_eq(b->nic[0].line, a->nic[0].line);
    ck_assert_str_eq(b->nic[0].pattern, "mlx5.tx_timeout");
    ck_assert_uint_eq(b->nic[0].wall, a->nic[0].wall);
    ck_assert_uint_eq(link_memory_find_const(&back, "mlx5_1/1")->n_nic, 1);
    link_memory_done(&back);
    /* An unknown pattern (a newer version's) is skipped; a line too long refuses the file. */
    ck_assert_int_eq(link_store_parse("{\"boot_id\":\"b\",\"rails\":[{\"rail\":\"r\",\"events\":[],"
                                      "\"nic\":[{\"pattern\":\"future.row\",\"boot_id\":\"b\","
                                      "\"boottime_usec\":1,\"wall_usec\":2,\"line\":\"x\"}]}]}", &back), 0);
    ck_assert_uint_eq(link_memory_find_const(&back, "r")->n_nic, 0);
    link_memory_done(&back);
    char bad[1024];
    snprintf(bad, sizeof(bad), "{\"boot_id\":\"b\",\"rails\":[{\"rail\":\"r\",\"events\":[],\"nic\":"
             "[{\"pattern\":\"mlx5.fatal\",\"boot_id\":\"b\",\"boottime_usec\":1,\"wall_usec\":2,"
             "\"line\":\"%0*d\"}]}]}", NIC_LINE_MAX, 0);
    ck_assert_int_eq(link_store_parse(bad, &back), -EBADMSG);
    sh("rm -rf '%s'", dir);
    world_done(&w);
}
END_TEST

/* ---- the kernel log, for real --------------------------------------------------------- */

/* Writes LINE to /dev/kmsg as a process does ("<3>": level err, no facility); the kernel
 * makes it LOG_USER. False where this process may not (not root, no /dev/kmsg). */
static bool kmsg_write(const char *line)
{
    int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char buf[512];
    int n = snprintf(buf, sizeof(buf), "<3>%s\n", line);
    bool ok = write(fd, buf, (size_t)n) == n;
    close(fd);
    return ok;
}

/* The record of /dev/kmsg holding MARK, as the kernel keeps it: false if none. */
static bool kmsg_find(const char *mark, struct kmsg_record *ret)
{
    char buf[8192];
    bool found = false;
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && (errno == EPIPE || errno == EINTR))
            continue;
        if (n <= 0)
            break;
        if (kmsg_parse(buf, (size_t)n, ret) == 0 && strstr(ret->text, mark)) {
            found = true;
            break;
        }
    }
    close(fd);
    return found;
}

START_TEST(test_kmsg_user_record_ignored)
{
    struct world w;
    struct kernel_log_paths paths = { .journal = false, .kmsg = "/dev/kmsg" };
    char mark[64], line[400];
    struct kmsg_record rec;
    world_init(&w);
    w.m.kernel_read = false;
    w.m.now_boottime = now_usec(CLOCK_BOOTTIME);
    w.m.now_wall = now_usec(CLOCK_REALTIME);
    /* The first read: the boot's records, up to now; the cursor is set. */
    ck_assert_int_gt(source_kernel_log_read(&paths, &w.inv, &w.m), 0);
    ck_assert(w.m.kernel_read);
    ck_assert_msg(strncmp(w.m.kernel_cursor, "kmsg:" BOOT_A ":", 5 + strlen(BOOT_A) + 1) == 0,
                  "%s", w.m.kernel_cursor);
    snprintf(mark, sizeof(mark), "fabtune-test-%d-%lld", (int)getpid(), (long long)time(NULL));
    snprintf(line, sizeof(line), "mlx5_core 0000:08:00.0: poll_health:852:(pid 0): device's health "
             "compromised - reached miss count %s", mark);
    if (!kmsg_write(line)) {
        fprintf(stderr, "SKIP-PART: cannot write /dev/kmsg here (not root?)\n");
        world_done(&w);
        return;
    }
    /* The kernel kept it with facility LOG_USER: a driver's text, not a driver's record. */
    ck_assert(kmsg_find(mark, &rec));
    ck_assert_uint_eq(rec.facility, 1);
    ck_assert(kernel_log_match(rec.text) != NULL);
    /* The next read takes it (the cursor moves past its sequence number) and keeps nothing. */
    ck_assert_int_ge(source_kernel_log_read(&paths, &w.inv, &w.m), 1);
    const char *seq = strrchr(w.m.kernel_cursor, ':') + 1;
    ck_assert_uint_ge(strtoull(seq, NULL, 10), rec.seq);
    ck_assert_uint_eq(link_memory_find_const(&w.m, "mlx5_0/1") ?
                      link_memory_find_const(&w.m, "mlx5_0/1")->n_nic : 0, 0);
    judge(&w);
    ck_assert_int_eq(one_finding(&w.fs, "nic.firmware", "mlx5_0/1")->severity, SEVERITY_OK);
    /* The cursor holds: a read now finds no record it had read before. */
    char before[KERNEL_CURSOR_MAX];
    strcpy(before, w.m.kernel_cursor);
    int again = source_kernel_log_read(&paths, &w.inv, &w.m);
    ck_assert_int_ge(again, 0);
    ck_assert_uint_ge(strtoull(strrchr(w.m.kernel_cursor, ':') + 1, NULL, 10),
                      strtoull(strrchr(before, ':') + 1, NULL, 10));
    world_done(&w);
}
END_TEST

/* ---- device nodes --------------------------------------------------------------------- */

static char scratch[256];

static void devnodes_setup(void)
{
    ck_assert_int_eq(check_scratch_dir(scratch, sizeof(scratch), "nic-devnodes"), 0);
    sh("cd '%s' && mkdir -p sys/class/infiniband_verbs/uverbs0 sys/class/infiniband_verbs/uverbs1 "
       "sys/class/infiniband_mad/umad0 sys/class/infiniband_mad/issm0 sys/class/misc/rdma_cm dev/infiniband && "
       "echo mlx5_0 > sys/class/infiniband_verbs/uverbs0/ibdev && echo 231:192 > sys/class/infiniband_verbs/uverbs0/dev && "
       "echo mlx5_1 > sys/class/infiniband_verbs/uverbs1/ibdev && echo 231:193 > sys/class/infiniband_verbs/uverbs1/dev && "
       "echo mlx5_1 > sys/class/infiniband_mad/issm0/ibdev && echo 1 > sys/class/infiniband_mad/issm0/port && "
       "echo 231:64 > sys/class/infiniband_mad/issm0/dev && "
       "echo mlx5_1 > sys/class/infiniband_mad/umad0/ibdev && echo 1 > sys/class/infiniband_mad/umad0/port && "
       "echo 231:0 > sys/class/infiniband_mad/umad0/dev && echo 10:122 > sys/class/misc/rdma_cm/dev", scratch);
}

/* A node NAME under the scratch /dev: a character device MAJ:MIN of MODE, made for real. */
static bool node(const char *name, unsigned maj, unsigned min, mode_t mode)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/dev/infiniband/%s", scratch, name);
    (void)unlink(path);
    if (mknod(path, S_IFCHR | mode, makedev(maj, min)) < 0)
        return false;
    return chmod(path, mode) == 0;
}

static const struct finding *devnode_finding(struct inventory *inv, struct findings *fs,
                                             const char *rail)
{
    char sys[300], dev[300];
    snprintf(sys, sizeof(sys), "%s/sys", scratch);
    snprintf(dev, sizeof(dev), "%s/dev", scratch);
    findings_done(fs);
    memset(fs, 0, sizeof(*fs));
    source_devnodes_scan(sys, dev, inv);
    check_devnodes(inv, NULL, fs);
    return one_finding(fs, "nic.devnode", rail);
}

START_TEST(test_devnodes)
{
    struct inventory inv = { 0 };
    struct findings fs = { 0 };
    const struct finding *f;
    add_rail(&inv, "mlx5_0", "0000:08:00.0", "eth2");
    struct rail *ib = add_rail(&inv, "mlx5_1", "0000:09:00.0", "");
    strcpy(ib->link_layer, "InfiniBand");
    if (!node("uverbs0", 231, 192, 0666) || !node("uverbs1", 231, 193, 0666) ||
        !node("umad0", 231, 0, 0600) || !node("rdma_cm", 10, 122, 0666)) {
        fprintf(stderr, "SKIP: mknod needs CAP_MKNOD\n");
        inventory_done(&inv);
        return;
    }
    f = devnode_finding(&inv, &fs, "mlx5_0/1");
    ck_assert_msg(f->severity == SEVERITY_OK, "%s", f->message);
    ck_assert_str_eq(f->actual, "uverbs0, rdma_cm");
    f = devnode_finding(&inv, &fs, "mlx5_1/1");
    ck_assert_msg(f->severity == SEVERITY_OK, "%s", f->message);
    ck_assert_str_eq(f->actual, "uverbs1, umad0, rdma_cm");     /* umad, not issm */

    /* Removed: an error naming it (NVSentinel's "lstat /dev/infiniband/uverbs0"). */
    sh("rm '%s/dev/infiniband/uverbs0'", scratch);
    f = devnode_finding(&inv, &fs, "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_ptr_nonnull(strstr(f->message, "/dev/infiniband/uverbs0 is missing"));
    /* Other numbers (a stale node from another boot's enumeration): an error. */
    ck_assert(node("uverbs0", 231, 193, 0666));
    f = devnode_finding(&inv, &fs, "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_ptr_nonnull(strstr(f->message, "231:193, sysfs 231:192"));
    /* A regular file in its place. */
    sh("rm '%s/dev/infiniband/uverbs0' && touch '%s/dev/infiniband/uverbs0'", scratch, scratch);
    f = devnode_finding(&inv, &fs, "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_ptr_nonnull(strstr(f->message, "not a character device"));
    /* Root only: a warning, as for rdma_cm. */
    ck_assert(node("uverbs0", 231, 192, 0600));
    f = devnode_finding(&inv, &fs, "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_ptr_nonnull(strstr(f->message, "root only"));
    ck_assert(node("uverbs0", 231, 192, 0666));
    /* The IB port's umad gone; the sysfs entry of uverbs1 gone (ib_uverbs unloaded). */
    sh("rm '%s/dev/infiniband/umad0'", scratch);
    f = devnode_finding(&inv, &fs, "mlx5_1/1");
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_ptr_nonnull(strstr(f->message, "umad0 is missing"));
    sh("rm -r '%s/sys/class/infiniband_verbs/uverbs1'", scratch);
    f = devnode_finding(&inv, &fs, "mlx5_1/1");
    ck_assert_ptr_nonnull(strstr(f->message, "no uverbs node in sysfs"));
    /* rdma_cm absent from sysfs: a warning only. */
    sh("rm -r '%s/sys/class/misc/rdma_cm'", scratch);
    f = devnode_finding(&inv, &fs, "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_ptr_nonnull(strstr(f->message, "no rdma_cm node in sysfs"));
    /* A captured tree (no /dev): judged on sysfs alone; without the class, not at all. */
    char sys[300];
    snprintf(sys, sizeof(sys), "%s/sys", scratch);
    source_devnodes_scan(sys, NULL, &inv);
    ck_assert(inv.rails[0].devnodes.known && !inv.rails[0].devnodes.uverbs.looked);
    sh("rm -r '%s/sys/class/infiniband_verbs'", scratch);
    source_devnodes_scan(sys, NULL, &inv);
    ck_assert(!inv.rails[0].devnodes.known);
    findings_done(&fs);
    inventory_done(&inv);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nic");
    TCase *tc = tcase_create("kernel_log");
    tcase_add_test(tc, test_parse_record);
    tcase_add_test(tc, test_parse_refusals);
    tcase_add_test(tc, test_patterns_real_lines);
    tcase_add_test(tc, test_names_rail);
    tcase_add_test(tc, test_nic_findings);
    tcase_add_test(tc, test_nic_flood_keeps_fatal);
    tcase_add_test(tc, test_store_round_trip);
    tcase_add_test(tc, test_kmsg_user_record_ignored);
    suite_add_tcase(s, tc);
    tc = tcase_create("devnodes");
    tcase_add_checked_fixture(tc, devnodes_setup, NULL);
    tcase_add_test(tc, test_devnodes);
    suite_add_tcase(s, tc);
    return check_run(s);
}
