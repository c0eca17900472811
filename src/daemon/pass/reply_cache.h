/* SPDX-License-Identifier: ISC */
/* The replies the daemon's loop serves of one report and that take long to render (on 72
 * rails: the metrics ~15 ms, the checks ~5 ms): the pass's worker renders them before it
 * hands the report over, and they are kept serialized, so the loop only copies them out. */
#pragma once

#include <json-c/json.h>

#include "report.h"

/* A report's replies; NULL stands for none (no memory): each call then renders. */
struct reply_cache;

enum cached_reply { CACHED_METRICS, CACHED_CHECKS, CACHED_CHECKS_FAILED, CACHED_REPLIES };

struct reply_cache *reply_cache_new(void);
void reply_cache_free(struct reply_cache *c);
/* Renders every reply of R into C (the worker, before it hands R over). */
void reply_cache_fill(struct reply_cache *c, const struct report *r);
/* The status reply's part that only R decides (the report less its findings, the failing
 * ones), as a new object whose values were serialized once and are shared by every reply;
 * the caller adds the live fields. */
json_object *reply_cache_status(struct reply_cache *c, const struct report *r);
/* A reference to what render(r) returns, rendered on the first call for this cache (by
 * the thread that holds the report: the worker, then the loop) and serialized once;
 * rendered each time if there is no cache. */
json_object *reply_cache_get(struct reply_cache *c, const struct report *r, enum cached_reply which,
                             json_object *(*render)(const struct report *r));
/* The checks reply: every finding, or the failing ones (report_findings_json()). */
json_object *reply_cache_checks(struct reply_cache *c, const struct report *r, bool failing_only);
/* The metrics reply (metrics_json()). */
json_object *reply_cache_metrics(struct reply_cache *c, const struct report *r);
/* A cached reply that is a JSON string, as text (the metrics, for the textfile output);
 * NULL if it was not rendered. */
const char *reply_cache_text(const struct reply_cache *c, enum cached_reply which);
