/* SPDX-License-Identifier: ISC */
/* Logging to journald or stderr, with levels, debug categories and structured fields. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <syslog.h>

enum log_target {
    LOG_TARGET_AUTO,    /* journal when stderr is connected to it, else stderr */
    LOG_TARGET_STDERR,
    LOG_TARGET_JOURNAL,
};

struct log_field {
    const char *name;   /* journal field name, e.g. "FABTUNE_CHECK" */
    const char *value;
};

int log_parse_target(const char *s, enum log_target *ret);
void log_set_target(enum log_target target);
enum log_target log_get_target(void);
void log_set_max_level(int level);

/* The debug categories, NULL-terminated: the areas that log at debug level. */
extern const char *const log_debug_category_names[];
/* Whether LIST is "all" or a comma-separated list of those categories ("policy,verbs"). */
bool log_debug_list_valid(const char *list);
/* Debug logging for LIST's categories. Returns -EINVAL, setting nothing, on a LIST that is
 * not valid. */
int log_set_debug_categories(const char *list);
bool log_debug_enabled(const char *category);

void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_msgv(int level, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Logs with errno = err so "%m" works; returns -abs(err) for "return log_errno(...)". */
int log_errno(int level, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A message with extra structured fields; on stderr the fields follow in brackets. */
void log_struct(int level, const struct log_field *fields, size_t n_fields,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#define log_error(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(cat, ...) \
    do { if (log_debug_enabled(cat)) log_msg(LOG_DEBUG, __VA_ARGS__); } while (0)
#define log_error_errno(err, ...) log_errno(LOG_ERR, (err), __VA_ARGS__)
#define log_warning_errno(err, ...) log_errno(LOG_WARNING, (err), __VA_ARGS__)
