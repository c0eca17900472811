/* SPDX-License-Identifier: ISC */
/* Logging to journald or stderr, with levels, debug categories and structured fields. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#include "log.h"
#include "macro.h"

#define MAX_DEBUG_CATEGORIES 16
#define MAX_LOG_FIELDS 160  /* an alert naming 64 rails, each with its subject */

/* Each area that logs at debug level; -d takes these (or "all"), and every one has
 * log_debug() calls in its area (tests/completion.sh holds the list to the code). */
const char *const log_debug_category_names[] = {
    "control", "events", "jobs", "manager", "policy", "probe", "tuning", "verbs", NULL,
};

static enum log_target log_target = LOG_TARGET_AUTO;
static int log_max_level = LOG_INFO;
static bool debug_all;
static char debug_categories[MAX_DEBUG_CATEGORIES][32];
static size_t n_debug_categories;

int log_parse_target(const char *s, enum log_target *ret)
{
    static const char *const names[] = {
        [LOG_TARGET_AUTO] = "auto",
        [LOG_TARGET_STDERR] = "stderr",
        [LOG_TARGET_JOURNAL] = "journal",
    };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        if (streq(s, names[i])) {
            *ret = (enum log_target)i;
            return 0;
        }
    return -EINVAL;
}

void log_set_target(enum log_target target) { log_target = target; }
void log_set_max_level(int level) { log_max_level = level; }

/* systemd sets JOURNAL_STREAM=dev:ino when stderr is connected to the journal. */
static bool stderr_is_journal(void)
{
    const char *e = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;

    if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
        return false;
    if (fstat(STDERR_FILENO, &st) < 0)
        return false;
    return st.st_dev == dev && st.st_ino == ino;
}

enum log_target log_get_target(void)
{
    if (log_target == LOG_TARGET_AUTO)
        return stderr_is_journal() ? LOG_TARGET_JOURNAL : LOG_TARGET_STDERR;
    return log_target;
}

static bool known_category(const char *name, size_t len)
{
    if (len == 3 && strncmp(name, "all", 3) == 0)
        return true;
    for (size_t i = 0; log_debug_category_names[i]; i++)
        if (strlen(log_debug_category_names[i]) == len &&
            strncmp(name, log_debug_category_names[i], len) == 0)
            return true;
    return false;
}

bool log_debug_list_valid(const char *list)
{
    for (const char *p = list; *p; ) {
        size_t len = strcspn(p, ",");
        if (len == 0 || !known_category(p, len))
            return false;
        p += len + (p[len] == ',');
    }
    return true;
}

int log_set_debug_categories(const char *list)
{
    debug_all = false;
    n_debug_categories = 0;
    if (!list || !*list)
        return 0;
    if (!log_debug_list_valid(list))
        return -EINVAL;

    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof(debug_categories[0]) ||
            n_debug_categories >= MAX_DEBUG_CATEGORIES)
            return -EINVAL;
        if (len == 3 && strncmp(p, "all", 3) == 0)
            debug_all = true;
        memcpy(debug_categories[n_debug_categories], p, len);
        debug_categories[n_debug_categories++][len] = '\0';
        p += len;
        if (*p == ',')
            p++;
    }
    if (log_max_level < LOG_DEBUG)
        log_max_level = LOG_DEBUG;
    return 0;
}

bool log_debug_enabled(const char *category)
{
    if (log_max_level < LOG_DEBUG)
        return false;
    if (debug_all || n_debug_categories == 0)
        return true;
    for (size_t i = 0; i < n_debug_categories; i++)
        if (streq(debug_categories[i], category))
            return true;
    return false;
}

static const char *level_name(int level)
{
    static const char *const names[] = {
        "emerg", "alert", "crit", "error", "warning", "notice", "info", "debug",
    };
    return level >= 0 && level < (int)ARRAY_SIZE(names) ? names[level] : "?";
}

static void emit(int level, const struct log_field *fields, size_t n_fields, const char *msg)
{
    if (log_get_target() == LOG_TARGET_JOURNAL) {
        struct iovec iov[MAX_LOG_FIELDS + 2];
        char *strs[MAX_LOG_FIELDS + 2] = { 0 };
        size_t n = 0;

        if (asprintf(&strs[n++], "MESSAGE=%s", msg) < 0 ||
            asprintf(&strs[n++], "PRIORITY=%d", level) < 0)
            goto fallback;
        for (size_t i = 0; i < n_fields && i < MAX_LOG_FIELDS; i++)
            if (asprintf(&strs[n++], "%s=%s", fields[i].name, fields[i].value) < 0)
                goto fallback;
        for (size_t i = 0; i < n; i++)
            iov[i] = (struct iovec){ .iov_base = strs[i], .iov_len = strlen(strs[i]) };
        int r = sd_journal_sendv(iov, (int)n);
        for (size_t i = 0; i < n; i++)
            free(strs[i]);
        if (r >= 0)
            return;
        goto print;
    fallback:
        for (size_t i = 0; i < n; i++)
            free(strs[i]);
    }
print:
    fprintf(stderr, "%s: %s%s", program_invocation_short_name,
            level <= LOG_WARNING ? level_name(level) : "", level <= LOG_WARNING ? ": " : "");
    fputs(msg, stderr);
    for (size_t i = 0; i < n_fields; i++)
        fprintf(stderr, "%s%s=%s%s", i == 0 ? " [" : " ", fields[i].name, fields[i].value,
                i + 1 == n_fields ? "]" : "");
    fputc('\n', stderr);
}

void log_msgv(int level, const char *fmt, va_list ap)
{
    if (level > log_max_level)
        return;
    char buf[2048];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    emit(level, NULL, 0, buf);
}

void log_msg(int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_msgv(level, fmt, ap);
    va_end(ap);
}

int log_errno(int level, int err, const char *fmt, ...)
{
    err = err < 0 ? -err : err;
    if (level <= log_max_level) {
        va_list ap;
        errno = err;
        va_start(ap, fmt);
        log_msgv(level, fmt, ap);
        va_end(ap);
    }
    return -err;
}

void log_struct(int level, const struct log_field *fields, size_t n_fields, const char *fmt, ...)
{
    if (level > log_max_level)
        return;
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    emit(level, fields, n_fields, buf);
}
