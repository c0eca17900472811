/* SPDX-License-Identifier: ISC */
/* The replies the loop serves of one report, rendered once and kept serialized. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "reply_cache.h"
#include "report_json.h"

struct reply_cache {
    json_object *status;        /* key -> a value with its text pre-rendered */
    json_object *replies[CACHED_REPLIES];  /* serialized once, shared by every reply */
    json_object *values[CACHED_REPLIES];   /* what was rendered */
};

struct reply_cache *reply_cache_new(void)
{
    return calloc(1, sizeof(struct reply_cache));
}

void reply_cache_free(struct reply_cache *c)
{
    if (!c)
        return;
    json_object_put(c->status);
    for (size_t i = 0; i < CACHED_REPLIES; i++) {
        json_object_put(c->replies[i]);
        json_object_put(c->values[i]);
    }
    free(c);
}

/* A value that serializes as TEXT, as is (json-c's userdata serializer). */
static json_object *prerendered(json_object *v)
{
    const char *text = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE);
    char *copy = text ? strdup(text) : NULL;
    if (!copy)
        return json_object_get(v);
    json_object *w = json_object_new_object();
    json_object_set_serializer(w, json_object_userdata_to_json_string, copy, json_object_free_userdata);
    return w;
}

json_object *reply_cache_get(struct reply_cache *c, const struct report *r, enum cached_reply which,
                             json_object *(*render)(const struct report *r))
{
    if (!c)
        return render(r);
    if (!c->replies[which]) {
        c->values[which] = render(r);
        c->replies[which] = c->values[which] ? prerendered(c->values[which]) : NULL;
    }
    return json_object_get(c->replies[which]);
}

const char *reply_cache_text(const struct reply_cache *c, enum cached_reply which)
{
    json_object *v = c ? c->values[which] : NULL;
    return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static json_object *all_findings(const struct report *r)
{
    return report_findings_json(r, false);
}

static json_object *failing_findings(const struct report *r)
{
    return report_findings_json(r, true);
}

json_object *reply_cache_checks(struct reply_cache *c, const struct report *r, bool failing_only)
{
    return failing_only ? reply_cache_get(c, r, CACHED_CHECKS_FAILED, failing_findings)
                        : reply_cache_get(c, r, CACHED_CHECKS, all_findings);
}

json_object *reply_cache_metrics(struct reply_cache *c, const struct report *r)
{
    return reply_cache_get(c, r, CACHED_METRICS, metrics_json);
}

json_object *reply_cache_status(struct reply_cache *c, const struct report *r)
{
    json_object *out = json_object_new_object();
    if (c && !c->status) {
        json_object *full = report_to_json(r), *base = json_object_new_object();
        json_object_object_del(full, "findings");       /* "checks" has them */
        json_object_object_add(full, "failing", report_findings_json(r, true));
        json_object_object_foreach(full, key, value)
            json_object_object_add(base, key, value ? prerendered(value) : NULL);
        json_object_put(full);
        c->status = base;
    }
    if (c && c->status) {
        json_object_object_foreach(c->status, key, value)
            json_object_object_add(out, key, json_object_get(value));
        return out;
    }
    json_object_put(out);       /* no cache: render this reply alone */
    out = report_to_json(r);
    json_object_object_del(out, "findings");
    json_object_object_add(out, "failing", report_findings_json(r, true));
    return out;
}

void reply_cache_fill(struct reply_cache *c, const struct report *r)
{
    json_object_put(reply_cache_status(c, r));
    json_object_put(reply_cache_metrics(c, r));
    json_object_put(reply_cache_checks(c, r, false));
    json_object_put(reply_cache_checks(c, r, true));
}
