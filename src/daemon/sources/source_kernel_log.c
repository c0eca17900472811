/* SPDX-License-Identifier: ISC */
/* Reading the kernel log: sd-journal's kernel transport, or /dev/kmsg (kmsg_parse). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-journal.h>
#include <time.h>
#include <unistd.h>

#include "kmsg_parse.h"
#include "source_kernel_log.h"
#include "macro.h"
#include "strutil.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"
#define CURSOR_JOURNAL "journal:"
#define CURSOR_KMSG "kmsg:"

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

void source_kernel_log_paths(struct kernel_log_paths *ret)
{
    ret->journal = access(JOURNAL_SOCKET, F_OK) == 0;
    ret->kmsg = "/dev/kmsg";
}

/* A journal field's value ("MESSAGE=..." less its name) into BUF, NULs made spaces. */
static bool journal_field(sd_journal *j, const char *field, char *buf, size_t size)
{
    const void *data;
    size_t len, n = strlen(field) + 1;
    buf[0] = 0;
    if (sd_journal_get_data(j, field, &data, &len) < 0 || len < n)
        return false;
    len -= n;
    if (len >= size)
        len = size - 1;
    memcpy(buf, (const char *)data + n, len);
    buf[len] = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == 0)
            buf[i] = ' ';
    return true;
}

/* The boot id as journald writes it: without dashes. */
static void boot_id_plain(const char *in, char *out, size_t size)
{
    size_t k = 0;
    for (; *in && k + 1 < size; in++)
        if (*in != '-')
            out[k++] = *in;
    out[k] = 0;
}

/* Positions J after M's saved cursor, or before this boot's first kernel record. */
static int journal_seek(sd_journal *j, const struct link_memory *m)
{
    char match[64], boot[40];
    int r = sd_journal_add_match(j, "_TRANSPORT=kernel", 0);
    if (r < 0)
        return r;
    if (has_prefix(m->kernel_cursor, CURSOR_JOURNAL)) {
        const char *c = m->kernel_cursor + strlen(CURSOR_JOURNAL);
        if (sd_journal_seek_cursor(j, c) >= 0 && sd_journal_next(j) > 0) {
            if (sd_journal_test_cursor(j, c) <= 0)
                (void)sd_journal_previous(j);   /* the cursor's entry is gone: read from here */
            return 0;
        }
    }
    boot_id_plain(m->boot_id, boot, sizeof(boot));
    if (boot[0]) {
        snprintf(match, sizeof(match), "_BOOT_ID=%s", boot);
        (void)sd_journal_add_match(j, match, 0);
    }
    return sd_journal_seek_head(j);
}

static int read_journal(const struct inventory *inv, struct link_memory *m)
{
    sd_journal *j = NULL;
    char text[KMSG_TEXT_MAX], device[KMSG_DEVICE_MAX], facility[8], *cursor = NULL;
    int n = 0, r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM);
    if (r < 0)
        return r;
    if ((r = journal_seek(j, m)) < 0)
        goto out;
    while (n < KERNEL_LOG_READ_MAX && sd_journal_next(j) > 0) {
        uint64_t wall = 0, mono = 0;
        sd_id128_t boot;
        n++;
        free(cursor);
        cursor = NULL;
        (void)sd_journal_get_cursor(j, &cursor);
        /* journald keeps a process's write to /dev/kmsg under _TRANSPORT=kernel too, with
         * its facility (LOG_USER): only the kernel's own count. */
        if (!journal_field(j, "SYSLOG_FACILITY", facility, sizeof(facility)) ||
            !streq(facility, "0") || !journal_field(j, "MESSAGE", text, sizeof(text)))
            continue;
        (void)journal_field(j, "_KERNEL_DEVICE", device, sizeof(device));
        (void)sd_journal_get_realtime_usec(j, &wall);
        (void)sd_journal_get_monotonic_usec(j, &mono, &boot);
        usec_t now_mono = now_usec(CLOCK_MONOTONIC);
        usec_t ago = now_mono > mono ? now_mono - mono : 0;
        r = link_memory_note_kernel(m, inv, text, device, m->now_boottime > ago ?
                                    m->now_boottime - ago : 0, wall);
        if (r < 0)
            goto out;
    }
    if (cursor)
        snprintf(m->kernel_cursor, sizeof(m->kernel_cursor), CURSOR_JOURNAL "%s", cursor);
    r = n;
out:
    free(cursor);
    sd_journal_close(j);
    return r;
}

/* The sequence number the kmsg cursor saved for this boot, or -1 (none, another boot's). */
static int64_t kmsg_saved_seq(const struct link_memory *m)
{
    const char *c = m->kernel_cursor;
    size_t blen = strlen(m->boot_id);
    if (!has_prefix(c, CURSOR_KMSG) || blen == 0)
        return -1;
    c += strlen(CURSOR_KMSG);
    if (strncmp(c, m->boot_id, blen) != 0 || c[blen] != ':')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(c + blen + 1, &end, 10);
    if (errno || *end || v > INT64_MAX)
        return -1;
    return (int64_t)v;
}

static int read_kmsg(const char *path, const struct inventory *inv, struct link_memory *m)
{
    char buf[8192];
    struct kmsg_record rec;
    int64_t after = kmsg_saved_seq(m), last = after;
    int n = 0, r = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    usec_t now_mono = now_usec(CLOCK_MONOTONIC);
    while (n < KERNEL_LOG_READ_MAX) {
        ssize_t len = read(fd, buf, sizeof(buf));
        if (len < 0 && (errno == EINTR || errno == EPIPE))
            continue;           /* EPIPE: records overwritten before we read them */
        if (len <= 0)
            break;              /* EAGAIN: all read */
        n++;
        if (kmsg_parse(buf, (size_t)len, &rec) < 0 || (int64_t)rec.seq <= after)
            continue;
        last = (int64_t)rec.seq;
        if (rec.facility != KMSG_FACILITY_KERNEL || rec.continuation)
            continue;
        usec_t ago = now_mono > rec.ts_usec ? now_mono - rec.ts_usec : 0;
        r = link_memory_note_kernel(m, inv, rec.text, rec.device,
                                    m->now_boottime > ago ? m->now_boottime - ago : 0,
                                    m->now_wall > ago ? m->now_wall - ago : 0);
        if (r < 0)
            break;
    }
    close(fd);
    if (last >= 0)
        snprintf(m->kernel_cursor, sizeof(m->kernel_cursor), CURSOR_KMSG "%s:%" PRId64,
                 m->boot_id, last);
    return r < 0 ? r : n;
}

int source_kernel_log_read(const struct kernel_log_paths *paths, const struct inventory *inv,
                           struct link_memory *m)
{
    int r = -ENOENT;
    if (paths->journal)
        r = read_journal(inv, m);
    if (r < 0 && paths->kmsg)
        r = read_kmsg(paths->kmsg, inv, m);
    if (r >= 0)
        m->kernel_read = true;
    return r;
}
