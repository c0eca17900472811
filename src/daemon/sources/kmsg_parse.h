/* SPDX-License-Identifier: ISC */
/* One /dev/kmsg record parsed (Documentation/ABI/testing/dev-kmsg): the header
 * "PRIO,SEQ,TS_USEC,FLAGS[,...];MESSAGE\n", then continuation lines " KEY=VALUE\n"
 * (SUBSYSTEM=, DEVICE=). PRIO holds the facility (<< 3) and the level: only facility 0 is
 * the kernel's; devkmsg_write() (kernel/printk/printk.c) gives anything a process writes
 * facility LOG_USER (1) unless it names another non-zero one, so a process can never write
 * a record of facility 0. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KMSG_FACILITY_KERNEL 0
#define KMSG_TEXT_MAX 512       /* longer messages are cut (the kernel's own limit is 1 KiB) */
#define KMSG_DEVICE_MAX 64

struct kmsg_record {
    unsigned facility;          /* PRIO >> 3 */
    unsigned level;             /* PRIO & 7: 0 emerg .. 7 debug */
    uint64_t seq;
    uint64_t ts_usec;           /* CLOCK_MONOTONIC of the record, in us */
    bool continuation;          /* FLAGS 'c': a fragment of a line continued */
    char text[KMSG_TEXT_MAX];   /* the message, its \xNN escapes kept as the kernel wrote them */
    char device[KMSG_DEVICE_MAX];   /* DEVICE= ("+pci:0000:08:00.0", "n3"); "" if none */
};

/* Parses the LEN bytes at BUF (one read() of /dev/kmsg, no NUL needed) into RET: 0, or
 * -EINVAL (no ';', a field that is not a number, a number out of range). */
int kmsg_parse(const char *buf, size_t len, struct kmsg_record *ret);
